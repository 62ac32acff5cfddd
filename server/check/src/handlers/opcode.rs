//! The opcode and its qualifiers against the instruction's syntax forms (PTX ISA 9.7, each
//! instruction's "Syntax" block): unknown opcode (with did-you-mean), unknown, misplaced or
//! mutually exclusive qualifiers, missing mandatory qualifiers.
//!
//! ptxas accepts qualifiers in any order (`atom.add.global.u32`, `vote.ballot.sync.b32`),
//! while the spec writes one order. When only a reordering matches, the instruction is valid:
//! we follow ptxas and report nothing (nvcc itself writes `vote.ballot.sync`).

use ptx_isa::{Isa, MatchError};

use crate::context::{Ctx, InstInfo, Resolved};
use crate::util::{nearest, qualifier_list};
use crate::{Diagnostic, Fix};

/// Qualifiers that ptxas supplies itself when they are left out, although the spec writes
/// them as mandatory: (opcode root, second word, qualifier). Confirmed with the broken
/// variants of the spec examples (`mut--9.7.15.7-*--drop-last-qualifier`).
const IMPLIED: &[(&str, &str, &str)] = &[
    ("wgmma", "fence", "aligned"),
    ("wgmma", "commit_group", "aligned"),
    ("wgmma", "wait_group", "aligned"),
    // ptxas 13.5 also assembles `wgmma.mma_async.sync.m64n8k16…` and the `.sp` form without
    // `.aligned` (`.sync` stays required).
    ("wgmma", "mma_async", "aligned"),
];

/// Matches the written words, trying a reordering when the written order fails.
/// Qualifiers that ptxas 13.5 drops without a word on an instruction that has no use for them
/// (`add.finite.u32`, `mov.elemtype.u32`, `ld.global.acc::f32.u32` all assemble): the field
/// names of tensormap.replace (9.7.9.26), the classes of testp (9.7.3.x), the accumulator
/// kinds of multimem.ld_reduce, the tcgen05.cp formats, and the opaque type names `.texref`,
/// `.samplerref`, `.surfref` (`atom.surfref.acquire.sys.cas.b16` and `fma.rz.samplerref.f32`
/// assemble; `mov.texref.u32` does not). Checked with ptxas by inserting each
/// qualifier of the knowledge base into `add.u32`, `mov.u32` and `ld.global.u32`; every other
/// qualifier is rejected there ("Unknown modifier", "Illegal modifier"). The checker warns.
pub(crate) const IGNORED: &[&str] = &[
    "acc::f16",
    "acc::f32",
    "b4x16_p64",
    "b6x16_p32",
    "b8x16",
    "box_dim",
    "element_stride",
    "elemtype",
    "fill_mode",
    "finite",
    "global_address",
    "global_dim",
    "global_stride",
    "infinite",
    "interleave_layout",
    "normal",
    "notanumber",
    "number",
    "rank",
    "samplerref",
    "subnormal",
    "surfref",
    "swizzle_atomicity",
    "swizzle_mode",
    "texref",
];

pub(crate) fn resolve(isa: &'static Isa, words: &[&str]) -> Resolved {
    // ptxas 13.5 accepts these qualifiers written twice (`bar.sync.sync`, `bra.uni.uni`,
    // `add.sat.sat`, `sin.approx.approx`, `add.cc.cc`, `min.NaN.NaN`, `cvt.rn.relu.relu`,
    // `cvt.rn.satfinite.satfinite`, `bfind.shiftamt.shiftamt`) as if written once, and
    // rejects every other repetition it was tried with (`.aligned`, `.ftz`, `.nc`,
    // `.volatile`, `.oob`, `.abs`, `.xorsign`, rounding modes, types, state spaces, scopes:
    // "Duplicate .ftz modifier" and the like). The spec's syntax has each slot once; follow
    // ptxas.
    const REPEATABLE: &[&str] = &[
        "sync",
        "uni",
        "sat",
        "approx",
        "cc",
        "NaN",
        "relu",
        "satfinite",
        "shiftamt",
    ];
    if words[1..].iter().any(|w| IGNORED.contains(w)) {
        let outcome = isa.match_qualifiers(words);
        if outcome.matches.is_empty() {
            let kept: Vec<&str> = words
                .iter()
                .enumerate()
                .filter(|&(i, w)| i == 0 || !IGNORED.contains(w))
                .map(|(_, w)| *w)
                .collect();
            let resolved = resolve(isa, &kept);
            if !resolved.outcome.matches.is_empty() {
                return resolved;
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    let once: Vec<&str> = words
        .iter()
        .enumerate()
        .filter(|&(i, w)| i == 0 || !REPEATABLE.contains(w) || seen.insert(*w))
        .map(|(_, w)| *w)
        .collect();
    if once.len() < words.len() {
        let resolved = resolve(isa, &once);
        if !resolved.outcome.matches.is_empty() {
            return resolved;
        }
    }
    let outcome = isa.match_qualifiers(words);
    if outcome.matches.is_empty() {
        let second = words.get(1).copied().unwrap_or("");
        for &(root, op, implied) in IMPLIED {
            if words[0] == root && second == op && !words.contains(&implied) {
                let mut with = words.to_vec();
                // In the spec's place: after `.sync` where it is written, else last.
                match with.iter().position(|w| *w == "sync") {
                    Some(at) => with.insert(at + 1, implied),
                    None => with.push(implied),
                }
                let retry = isa.match_qualifiers(&with);
                if !retry.matches.is_empty() {
                    return Resolved::new(retry);
                }
            }
        }
    }
    let unknown_root = matches!(
        outcome.errors.first(),
        Some(MatchError::UnknownOpcode { .. })
    );
    if !outcome.matches.is_empty() || unknown_root {
        return Resolved::new(outcome);
    }
    for order in reorderings(isa, words) {
        let refs: Vec<&str> = order.iter().map(String::as_str).collect();
        let retry = isa.match_qualifiers(&refs);
        if !retry.matches.is_empty() {
            return Resolved::new(retry);
        }
    }
    Resolved::new(outcome)
}

/// Orders of the qualifiers that follow some form's slot order (each qualifier placed at the
/// first free slot that accepts it), distinct and different from the written order.
fn reorderings(isa: &Isa, words: &[&str]) -> Vec<Vec<String>> {
    let root = words[0];
    let quals = &words[1..];
    let mut out: Vec<Vec<String>> = Vec::new();
    for inst in isa.instructions_with_root(root) {
        for form in inst.forms.iter().filter(|f| f.root == root) {
            let slots = &form.qualifier_slots;
            let mut taken = vec![false; slots.len()];
            let mut placed: Vec<(usize, usize)> = Vec::new();
            for (i, q) in quals.iter().enumerate() {
                let slot = (0..slots.len()).find(|&s| !taken[s] && slots[s].accepts(q));
                match slot {
                    Some(s) => {
                        taken[s] = true;
                        placed.push((s, i));
                    }
                    None => break,
                }
            }
            if placed.len() != quals.len() {
                continue;
            }
            placed.sort();
            // ptxas 13.5 keeps the order of two types (`cvt.f32.bf16x2`, `wgmma….s32.u8.u8`)
            // and of two state spaces (`cp.async.bulk.shared::cluster.global`): written the
            // other way round they mean another instruction ("Unexpected instruction types",
            // "State space incorrect").
            let kind = |q: &str| {
                if is_state_space(isa, q) {
                    Some(0)
                } else if isa.types().iter().any(|t| &t.name[1..] == q) || sub_byte_integer(q) {
                    Some(1)
                } else {
                    None
                }
            };
            let swapped = placed.iter().enumerate().any(|(a, &(_, i))| {
                placed[a + 1..].iter().any(|&(_, j)| {
                    j < i && kind(quals[i]).is_some() && kind(quals[i]) == kind(quals[j])
                })
            });
            if swapped {
                continue;
            }
            let mut order = vec![root.to_owned()];
            order.extend(placed.iter().map(|&(_, i)| quals[i].to_owned()));
            if order.iter().map(String::as_str).ne(words.iter().copied()) && !out.contains(&order) {
                out.push(order);
            }
        }
    }
    out
}

/// Roots whose name parts `arith` places itself, with messages of its own.
const NAMED_IN_ARITH: &[&str] = &[
    "mad", "madc", "mul", "mul24", "mad24", "shf", "dp2a", "div", "bar", "barrier",
];

/// The parts of an instruction name that ptxas reads as one word (`tcgen05.ld`,
/// `cp.async.bulk`, `setmaxnreg.dec`; data/ptxas-fused-names.txt) stand first and in order,
/// though ptxas takes the other qualifiers in any order: `tcgen05.sync.ld` is "Not a name of
/// any known instruction", `cp.bulk.async` and `mbarrier.shared.arrive` an "Unknown
/// modifier".
fn name_first(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, found: &ptx_isa::FormMatch<'_>) {
    if NAMED_IN_ARITH.contains(&info.words[0]) {
        return;
    }
    let mut canonical: Vec<&str> = vec![info.words[0]];
    canonical.extend(found.used.iter().flat_map(|(_, v)| v.split('.')));
    let fused = (2..=canonical.len())
        .rev()
        .find(|&n| ctx.isa.ptxas_fused_name(&canonical[..n].join(".")))
        .unwrap_or(1);
    let Some(at) = (1..fused).find(|&i| info.words.get(i) != Some(&canonical[i])) else {
        return;
    };
    let Some(written) = info.words.iter().position(|w| *w == canonical[at]) else {
        return;
    };
    ctx.report(
        Diagnostic::error(
            "invalid-qualifier",
            info.word_range(written),
            format!(
                "`.{}` is part of the instruction's name `{}`: write it right after `{}`",
                canonical[at],
                canonical[..fused].join("."),
                canonical[..at].join(".")
            ),
        )
        .section(info.section()),
    );
}

/// The sub-byte integer types of `cvt.pack` (`u4`, `s2`), which the type table leaves out.
fn sub_byte_integer(q: &str) -> bool {
    matches!(q, "u2" | "s2" | "u4" | "s4")
}

/// A state space qualifier (`global`, `shared::cluster`, `param::func`), by the ISA's table.
fn is_state_space(isa: &Isa, q: &str) -> bool {
    let base = q.split("::").next().unwrap_or(q);
    isa.state_spaces().iter().any(|s| &s.name[1..] == base)
}

/// Reports qualifier problems; returns whether the opcode matched a form (so that operand
/// rules can run).
/// A warning for each qualifier of [`IGNORED`] that the matched form has no place for.
fn ignored_qualifiers(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    // The formats belong to tcgen05.cp and ldmatrix, where a misplaced one is an error
    // (`textures`/`tcgen05` handlers), not something ptxas ignores.
    let own_formats = info.words[0] == "ldmatrix"
        || (info.words[0] == "tcgen05" && info.words.get(1) == Some(&"cp"));
    if own_formats
        || !info.words[1..].iter().any(|w| IGNORED.contains(w))
        || !ctx.isa.match_qualifiers(&info.words).matches.is_empty()
    {
        return;
    }
    for (i, word) in info.words.iter().enumerate().skip(1) {
        if IGNORED.contains(word) {
            ctx.report(
                Diagnostic::warning(
                    "ignored-qualifier",
                    info.word_range(i),
                    format!(
                        "`.{word}` means nothing to `{}`; ptxas ignores it",
                        info.words[0]
                    ),
                )
                .section(info.section()),
            );
        }
    }
}

/// A blank before a qualifier (`mov .s32`) is fine, except inside an instruction name that
/// ptxas reads as one word (`mul .lo .s32`, `mbarrier .init`; data/ptxas-fused-names.txt).
pub(crate) fn blank_inside_name(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let mut end = info.mnemonic.end;
    for (i, q) in info.qualifiers.iter().enumerate() {
        if q.start != end {
            let joined: String = std::iter::once(info.mnemonic.text)
                .chain(info.qualifiers[..=i].iter().map(|q| q.text))
                .collect();
            if ctx.isa.ptxas_fused_name(&joined) {
                ctx.report(
                    Diagnostic::error(
                        "unknown-qualifier",
                        q.range(),
                        format!(
                            "ptxas reads `{joined}` as one word: no blank may stand before `{}`",
                            q.text
                        ),
                    )
                    .with_fix(Fix::replace(
                        "Remove the blank",
                        end..q.start,
                        "",
                    )),
                );
            }
        }
        end = q.end;
    }
}

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) -> bool {
    let resolved = info.resolved.clone();
    if let Some(found) = resolved.outcome.matches.first() {
        ignored_qualifiers(ctx, info);
        name_first(ctx, info, found);
        return true;
    }
    if let Some(d) = forgotten_qualifier(ctx.isa, info) {
        ctx.report(d);
        return false;
    }
    let section = resolved
        .outcome
        .closest
        .map(|(inst, _)| inst.section.clone())
        .unwrap_or_else(|| "9.7".to_owned());
    for error in &resolved.outcome.errors {
        let d = match error {
            MatchError::UnknownOpcode { root } => unknown_opcode(ctx, info, root),
            MatchError::UnknownQualifier {
                index,
                qualifier,
                expected,
            } => {
                let mut d = Diagnostic::error(
                    "unknown-qualifier",
                    info.word_range(*index),
                    format!("`{}` has no qualifier `.{qualifier}`", info.words[0]),
                );
                suggest(ctx.isa, &mut d, info, *index, qualifier, expected);
                d
            }
            MatchError::NotAllowedHere {
                index,
                qualifier,
                expected,
            } => {
                let mut d = Diagnostic::error(
                    "invalid-qualifier",
                    info.word_range(*index),
                    format!(
                        "`.{qualifier}` is not allowed here in `{}`",
                        info.opcode_text()
                    ),
                );
                suggest(ctx.isa, &mut d, info, *index, qualifier, expected);
                d
            }
            MatchError::MissingRequired {
                index,
                slot,
                allowed,
            } => missing(info, *index, slot, allowed),
            MatchError::OutOfOrder {
                index, qualifier, ..
            } => Diagnostic::error(
                "invalid-qualifier",
                info.word_range(*index),
                format!(
                    "`.{qualifier}` does not fit `{}` in any order",
                    info.opcode_text()
                ),
            ),
            MatchError::MutuallyExclusive {
                index,
                qualifier,
                other_index,
                slot,
            } => Diagnostic::error(
                "exclusive-qualifiers",
                info.word_range(*index),
                format!(
                    "`.{qualifier}` and `.{}` both fill `{slot}`; write only one of them",
                    info.words.get(*other_index).copied().unwrap_or("?")
                ),
            )
            .with_related(info.word_range(*other_index), "the other qualifier")
            .with_fix(Fix::replace(
                format!("Remove `.{qualifier}`"),
                info.word_range(*index),
                "",
            )),
        };
        ctx.report(d.section(section.clone()));
    }
    false
}

/// A mandatory fixed qualifier (`.sync`, `.aligned`, ...) whose insertion somewhere makes the
/// opcode valid: reported as missing, with the fix, instead of blaming the next qualifier.
fn forgotten_qualifier(isa: &Isa, info: &InstInfo<'_>) -> Option<Diagnostic> {
    let root = info.words[0];
    let mut candidates: Vec<&str> = Vec::new();
    for inst in isa.instructions_with_root(root) {
        for form in inst.forms.iter().filter(|f| f.root == root) {
            for slot in &form.qualifier_slots {
                // Types are left to the matcher's message: which one is meant is a guess.
                let is_type = isa
                    .types()
                    .iter()
                    .any(|t| t.name.trim_start_matches('.') == slot.values[0]);
                if !slot.optional
                    && slot.values.len() == 1
                    && !slot.values[0].contains('.')
                    && !is_type
                {
                    let value = slot.values[0].as_str();
                    if !info.words.contains(&value) && !candidates.contains(&value) {
                        candidates.push(value);
                    }
                }
            }
        }
    }
    for value in candidates.into_iter().take(16) {
        // Only before a written word: a missing last qualifier (usually the type) is the
        // matcher's own `MissingRequired`, with the whole list of choices.
        for at in 1..info.words.len() {
            let mut words = info.words.clone();
            words.insert(at, value);
            let outcome = isa.match_qualifiers(&words);
            let Some(m) = outcome.matches.first() else {
                continue;
            };
            let range = info.word_range(at);
            let insert = range.start;
            let place = format!("before `.{}`", info.words[at]);
            return Some(
                Diagnostic::error(
                    "missing-qualifier",
                    range,
                    format!("`{}` needs `.{value}` {place}", info.opcode_text()),
                )
                .section(m.instruction.section.clone())
                .with_fix(Fix::replace(
                    format!("Add `.{value}`"),
                    insert..insert,
                    format!(".{value}"),
                )),
            );
        }
    }
    None
}

fn unknown_opcode(ctx: &Ctx<'_>, info: &InstInfo<'_>, root: &str) -> Diagnostic {
    let mut roots: Vec<&str> = ctx.isa.instructions().iter().map(|i| i.root()).collect();
    roots.sort_unstable();
    roots.dedup();
    let mut d = Diagnostic::error(
        "unknown-opcode",
        info.mnemonic.range(),
        format!("unknown instruction `{root}`"),
    );
    if let Some(best) = nearest(root, roots.iter().copied()) {
        d.message.push_str(&format!("; did you mean `{best}`?"));
        d = d.with_fix(Fix::replace(
            format!("Change to `{best}`"),
            info.mnemonic.range(),
            best,
        ));
    }
    d
}

/// Adds a did-you-mean fix (from every qualifier the opcode knows), or else the qualifiers
/// the closest form expects at that point.
fn suggest(
    isa: &Isa,
    d: &mut Diagnostic,
    info: &InstInfo<'_>,
    index: usize,
    written: &str,
    expected: &[String],
) {
    let root = info.words[0];
    let mut known: Vec<&str> = expected.iter().map(String::as_str).collect();
    for inst in isa.instructions_with_root(root) {
        for form in inst.forms.iter().filter(|f| f.root == root) {
            for slot in &form.qualifier_slots {
                known.extend(slot.values.iter().map(String::as_str));
            }
        }
    }
    // A qualifier the opcode knows is misplaced, not misspelled: no did-you-mean.
    let misspelled = !known.contains(&written);
    if let Some(best) = nearest(written, known).filter(|_| misspelled) {
        d.message.push_str(&format!("; did you mean `.{best}`?"));
        d.fixes.push(Fix::replace(
            format!("Change to `.{best}`"),
            info.word_range(index),
            format!(".{best}"),
        ));
    } else if !expected.is_empty() {
        d.message
            .push_str(&format!("; expected {}", qualifier_list(expected, 12)));
    }
}

fn missing(info: &InstInfo<'_>, index: usize, slot: &str, allowed: &[String]) -> Diagnostic {
    // The slot belongs before word `index`; with nothing there, after the last word.
    let (range, insert_at) = if index < info.words.len() {
        let r = info.word_range(index);
        (r.clone(), r.start)
    } else {
        let r = info.word_range(info.words.len() - 1);
        (r.clone(), r.end)
    };
    let what = if allowed.len() == 1 {
        format!("`.{}`", allowed[0])
    } else {
        format!("a `{slot}` qualifier ({})", qualifier_list(allowed, 12))
    };
    let place = if index < info.words.len() {
        format!("before `.{}`", info.words[index])
    } else {
        "at the end".to_owned()
    };
    let mut d = Diagnostic::error(
        "missing-qualifier",
        range,
        format!("`{}` needs {what} {place}", info.opcode_text()),
    );
    for value in allowed.iter().take(4) {
        d.fixes.push(Fix::replace(
            format!("Add `.{value}`"),
            insert_at..insert_at,
            format!(".{value}"),
        ));
    }
    d
}

#[cfg(test)]
mod tests {
    use crate::test_support::{check_diagnostics, check_fix};
    use expect_test::expect;

    #[test]
    fn unknown_opcode_with_suggestion() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  ad.s32 %r1, %r2, %r3;
//^^ error: unknown instruction `ad`; did you mean `add`?
  ret;
}
"#,
        );
    }

    #[test]
    fn unknown_qualifier_and_missing_type() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.globl.u32 %r1, [%rd1];
//  ^^^^^^ error: `ld` has no qualifier `.globl`; did you mean `.global`?
  add %r1, %r2, %r3;
//^^^ error: `add` needs `.f32` at the end
  ret;
}
"#,
        );
    }

    const TYPOS: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ad.s32 %r1, %r2, %r3;
  ld.globl.u32 %r1, [%rd1];
  mma.sync.m16n8k16.row.col.f32.f16.f16.f32 {%r1, %r2, %r3, %r0}, {%r1, %r2, %r3, %r0}, {%r1, %r2}, {%r1, %r2, %r3, %r0};
  ret;
}
"#;

    #[test]
    fn fixes_for_typos_and_missing_qualifiers() {
        check_fix(
            TYPOS,
            "unknown-opcode",
            expect![[r#"add.s32 %r1, %r2, %r3;"#]],
        );
        check_fix(
            TYPOS,
            "unknown-qualifier",
            expect![[r#"ld.global.u32 %r1, [%rd1];"#]],
        );
        check_fix(
            TYPOS,
            "missing-qualifier",
            expect![[
                r#"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%r1, %r2, %r3, %r0}, {%r1, %r2, %r3, %r0}, {%r1, %r2}, {%r1, %r2, %r3, %r0};"#
            ]],
        );
    }

    #[test]
    fn any_qualifier_order_is_accepted() {
        check_diagnostics(
            r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  atom.add.global.u32 %r1, [%rd1], %r2;
  vote.ballot.sync.b32 %r1, 1, 0xffffffff;
  ret;
}
"#,
        );
    }
}
