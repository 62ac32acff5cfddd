//! Diagnostics for a host file's asm statements: the PTX checker's, run unchanged on each
//! virtual document and mapped back into the host text, plus the rules that only inline asm
//! has (a placeholder naming no operand, an output operand the template never names, and the
//! width a constraint binds where the instruction needs another).

use ptx_check::{CheckOptions, Diagnostic, Edit, Fix, Severity};
use ptx_syntax::TextRange;

use crate::{describe_operand, HostDocument, Statement};

/// The codes of the rules that only inline asm has.
pub const CODES: &[(&str, &str)] = &[
    (
        "asm-operand-number",
        "a `%N` or `%[name]` in an asm template that names no operand",
    ),
    (
        "asm-named-operand",
        "a `%[name]` operand reference, which nvcc does not support",
    ),
    (
        "asm-output-unused",
        "an output operand that the asm template never names",
    ),
    (
        "asm-not-checked",
        "an asm statement, or part of one, that cannot be checked, and why",
    ),
    (
        "asm-constraint-width",
        "an operand's constraint binds a register of another width than the instruction needs",
    ),
];

/// Rules about a whole kernel: one asm statement is only a piece of one, so they do not apply.
const KERNEL_LEVEL: &[&str] = &[
    "tcgen05-mixed-cta-group",
    "tcgen05-alloc-after-relinquish",
    "tcgen05-alloc-without-dealloc",
    "tcgen05-ld-without-wait",
    "tcgen05-st-without-wait",
];

/// All diagnostics of `doc`, with host ranges, sorted by position.
pub fn check(doc: &HostDocument, disabled_codes: &[String]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for stmt in &doc.statements {
        check_statement(stmt, &mut out);
    }
    for u in &doc.unreadable {
        out.push(not_checked(u.keyword.clone(), &u.why));
    }
    out.retain(|d| !disabled_codes.iter().any(|c| c == d.code));
    out.sort_by_key(|d| (d.range.start, d.range.end));
    out
}

/// The hint on a statement that is not checked.
fn not_checked(keyword: TextRange, why: &str) -> Diagnostic {
    Diagnostic::new(
        "asm-not-checked",
        Severity::Hint,
        keyword,
        format!("this asm statement is not checked: {why}"),
    )
}

/// The diagnostics of one statement, with host ranges.
pub fn check_statement(stmt: &Statement, out: &mut Vec<Diagnostic>) {
    if let Some(why) = &stmt.raw.opaque {
        // Part of the template is unknown: the text the assembler sees is unknown.
        out.push(not_checked(stmt.raw.keyword.clone(), &why.to_string()));
        return;
    }
    if let Some(item) = &stmt.raw.operands_opaque {
        out.push(Diagnostic::new(
            "asm-not-checked",
            Severity::Hint,
            stmt.raw.keyword.clone(),
            format!(
                "the operands of this asm statement are not checked: `{item}` is not a \
                 `\"constraint\"(expression)` operand (a macro?), so the operands' number and \
                 widths are known only after preprocessing"
            ),
        ));
    }
    for p in &stmt.placeholders {
        if p.written.starts_with("%[") {
            // nvcc 13: "symbolic operand reference not supported" (clang accepts it).
            out.push(Diagnostic::error(
                "asm-named-operand",
                p.host.clone(),
                format!(
                    "nvcc does not support named operand references: write `%{}` instead of `{}`",
                    p.operand.map_or_else(|| "N".to_string(), |k| k.to_string()),
                    p.written
                ),
            ));
            continue;
        }
        if p.operand.is_none() && stmt.raw.operands_opaque.is_none() {
            let n = stmt.raw.operands.len();
            out.push(Diagnostic::error(
                "asm-operand-number",
                p.host.clone(),
                format!(
                    "`{}` names no operand: the statement has {n} operand{} (%0 to %{})",
                    p.written,
                    if n == 1 { "" } else { "s" },
                    n.saturating_sub(1)
                ),
            ));
        }
    }
    for op in &stmt.raw.operands {
        if stmt.raw.operands_opaque.is_none()
            && op.is_output
            && !op.constraint.contains('+')
            && !stmt
                .placeholders
                .iter()
                .any(|p| p.operand == Some(op.index))
        {
            out.push(Diagnostic::warning(
                "asm-output-unused",
                op.constraint_range.clone(),
                format!(
                    "output operand %{} (`{}`) is never named in the template, so it is never written",
                    op.index, op.expression
                ),
            ));
        }
    }
    let diagnostics = stmt
        .virtual_diagnostics
        .get_or_init(|| ptx_check::check(&stmt.parse, &CheckOptions::default()));
    for d in diagnostics.iter().cloned() {
        if let Some(mapped) = map_diagnostic(stmt, d) {
            out.push(mapped);
        }
    }
}

fn map_diagnostic(stmt: &Statement, mut d: Diagnostic) -> Option<Diagnostic> {
    if KERNEL_LEVEL.contains(&d.code) {
        return None;
    }
    if d.code == "unsupported-version"
        && stmt
            .raw
            .newer_ptx
            .is_some_and(|v| v.to_string() == stmt.version)
    {
        // The version comes from a guard for toolkits to come, not from the statement.
        return None;
    }
    if matches!(d.code, "unsupported-target" | "version-too-old") {
        // No target known: availability is not checked.
        stmt.target.as_ref()?;
        let unsure = stmt.raw.compiled_on_use || stmt.raw.opaque_condition;
        if unsure && d.severity == Severity::Error {
            // nvcc compiles templates, inline and static functions and macro bodies only where
            // they are used (headers select forms by overloads and instantiations), and code
            // under an `#if` this layer cannot evaluate perhaps never: a warning, not an
            // error. A guard that admits the target does not make such code compiled for it
            // (a header's `#if __CUDA_ARCH__ >= 800` around an sm_90 instruction in an inline
            // function that only sm_90 kernels call); only code compiled where it stands
            // (kernels, functions that are neither inline nor templates) is.
            d.severity = Severity::Warning;
            d.message
                .push_str(match (stmt.raw.compiled_on_use, stmt.guard.is_some()) {
                    (true, false) => {
                        " (a warning: this template, inline function or macro is compiled only \
                     where it is used, and no `#if` guard says for which targets)"
                    }
                    (true, true) => {
                        " (a warning: this template, inline function or macro is compiled only \
                     where it is used; its `#if` guard admits this target, but nothing says \
                     that code for this target uses it)"
                    }
                    _ => {
                        " (a warning: an `#if` whose condition is not a target encloses this \
                     code, so it may not be compiled for this target)"
                    }
                });
        }
    }
    // An `n`/`i` operand whose value is not known here (a template parameter): the value
    // standing in for it says nothing about the one nvcc will print. Inside a word
    // (`.m16n8k%14`) the stand-in makes the whole qualifier: a diagnostic on that word says
    // nothing either.
    let unknown_immediate = |k: usize| {
        crate::constraint_type(stmt.raw.operands[k].letter(), None).is_none()
            && stmt.immediates.get(k).copied().flatten().is_none()
    };
    let text = stmt.parse.text();
    let in_word = stmt.placeholders.iter().any(|p| {
        p.operand.is_some_and(unknown_immediate) && {
            let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':');
            let start = text[..p.virt.start]
                .rfind(|c: char| !word(c))
                .map_or(0, |i| i + 1);
            let end = text[p.virt.end..]
                .find(|c: char| !word(c))
                .map_or(text.len(), |i| p.virt.end + i);
            (start < p.virt.start || end > p.virt.end)
                && start <= d.range.start
                && d.range.end <= end
                && d.range.start <= p.virt.end
                && p.virt.start <= d.range.end
        }
    });
    if in_word {
        return None;
    }
    let placeholder = stmt
        .placeholders
        .iter()
        .find(|p| p.virt.start <= d.range.start && d.range.end <= p.virt.end);
    if let Some(p) = placeholder {
        match p.operand {
            // Already reported as a placeholder without operand.
            None => return None,
            Some(k) if unknown_immediate(k) => return None,
            Some(k) if d.code == "operand-type" => {
                let op = &stmt.raw.operands[k];
                d.code = "asm-constraint-width";
                d.message = format!(
                    "{} — operand {} is {}",
                    d.message,
                    p.written,
                    describe_operand(op, stmt.target.as_deref())
                );
                d.related
                    .push((op.constraint_range.clone(), "the constraint".to_string()));
            }
            Some(_) => {}
        }
    }
    if d.severity == Severity::Error
        && matches!(d.code, "unknown-qualifier" | "invalid-qualifier")
        && !stmt.version_known
        && stmt
            .parse
            .text()
            .get(d.range.clone())
            .is_some_and(newer_type_shape)
        && words_known_or_newer(stmt.parse.text(), d.range.start)
    {
        // No version is known for the statement, and the qualifier is a packed or small
        // float type of the kind later PTX ISA versions keep adding (`.u8x4`, `.e2m1x2` in
        // new conversions): it cannot be judged here. A misspelt word stays an error.
        let next = ptx_isa::PtxVersion::new(
            ptx_isa::PtxVersion::SPEC.major,
            ptx_isa::PtxVersion::SPEC.minor + 1,
        );
        d.severity = Severity::Warning;
        d.message = format!(
            "not judged: this may need PTX ISA {next} or newer, which this tool does not know \
             (it knows PTX ISA {}; under {} it would be: {})",
            ptx_isa::PtxVersion::SPEC,
            ptx_isa::PtxVersion::SPEC,
            d.message
        );
    }
    d.message = rename_registers(stmt, &d.message);
    let host = stmt
        .map
        .range_to_host(d.range.clone())
        .unwrap_or_else(|| stmt.raw.keyword.clone());
    d.range = host;
    d.related = std::mem::take(&mut d.related)
        .into_iter()
        .map(|(r, m)| {
            let r = if r.end <= stmt.body_start && r.start == 0 {
                r
            } else {
                stmt.map.range_to_host(r.clone()).unwrap_or(r)
            };
            (r, rename_registers(stmt, &m))
        })
        .collect();
    d.fixes = std::mem::take(&mut d.fixes)
        .into_iter()
        .filter_map(|f| map_fix(stmt, f))
        .collect();
    if d.severity == Severity::Error && stmt.raw.in_macro {
        // A macro body may be expanded where the guards differ; still an error in itself.
    }
    Some(d)
}

/// `%op3` in a message is the placeholder `%3` (or `%[name]`) as written.
fn rename_registers(stmt: &Statement, message: &str) -> String {
    let mut m = message.to_string();
    for op in stmt.raw.operands.iter().rev() {
        let written = op
            .symbol
            .as_ref()
            .map_or_else(|| format!("%{}", op.index), |s| format!("%[{s}]"));
        m = m.replace(&format!("%op{}", op.index), &written);
    }
    m
}

/// A fix whose edits all fall on mapped template text, with its new text written as it must
/// appear inside a C string literal.
fn map_fix(stmt: &Statement, fix: Fix) -> Option<Fix> {
    let mut edits = Vec::new();
    for e in fix.edits {
        let start = stmt.map.offset_to_host(e.range.start)?;
        let end = if e.range.end > e.range.start {
            stmt.map.range_to_host(e.range.clone())?.end
        } else {
            start
        };
        // An edit must not cut through an escape or a placeholder.
        if stmt.map.offset_to_virtual(start) != Some(e.range.start) {
            return None;
        }
        edits.push(Edit {
            range: start..end,
            new_text: escape_for_literal(&e.new_text, stmt.raw.extended),
        });
    }
    Some(Fix {
        title: fix.title,
        edits,
    })
}

/// Text as it is written inside a C string literal of an asm template.
pub fn escape_for_literal(text: &str, extended: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '%' if extended => out.push_str("%%"),
            c => out.push(c),
        }
    }
    out
}

/// The host range of a virtual range of `stmt`, for the edges.
pub fn host_range(stmt: &Statement, virt: TextRange) -> Option<TextRange> {
    stmt.map.range_to_host(virt)
}

/// A qualifier shaped like the packed and small float types that PTX ISA versions after 9.1
/// add to existing instructions: `.u8x4`, `.s8x4`, `.e4m3x2`, `.ue5m3x2`, `.e2m1x4`,
/// `scaled::n2::ue8m0`.
/// Is every qualifier of the instruction written around `at` (its whole dotted word) a word
/// that some form of its root knows, or one of the packed or small float types later PTX ISA
/// versions add? A word no form knows (`.sync2`, `.shared::grid`) is a mistake whatever
/// the version, even where the checker's message names another qualifier of the word.
fn words_known_or_newer(text: &str, at: usize) -> bool {
    let delimiter = |c: char| c.is_whitespace() || matches!(c, ';' | '{' | '}');
    let start = text[..at].rfind(delimiter).map_or(0, |i| i + 1);
    let end = text[at..].find(delimiter).map_or(text.len(), |i| at + i);
    let mut words = text[start..end].split('.');
    let Some(root) = words.next() else {
        return true;
    };
    let isa = ptx_isa::Isa::get();
    words.all(|word| {
        newer_type_shape(word)
            || isa.instructions_with_root(root).any(|inst| {
                inst.opcode.split('.').any(|w| w == word)
                    || inst.forms.iter().any(|f| {
                        f.qualifier_slots
                            .iter()
                            .any(|slot| slot.values.iter().any(|v| v.split('.').any(|p| p == word)))
                    })
            })
    })
}

fn newer_type_shape(qualifier: &str) -> bool {
    let q = qualifier.trim_start_matches('.');
    let q = q.rsplit("::").next().unwrap_or(q);
    let (base, lanes) = match q.rsplit_once('x') {
        Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => (b, true),
        _ => (q, false),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    // `u8`, `s8` (with lanes only), `e4m3`, `ue8m0`.
    let small_int =
        lanes && matches!(base.as_bytes().first(), Some(b'u' | b's')) && digits(&base[1..]);
    let small_float = base
        .trim_start_matches('u')
        .strip_prefix('e')
        .and_then(|r| r.split_once('m'))
        .is_some_and(|(e, m)| digits(e) && digits(m));
    small_int || small_float
}
