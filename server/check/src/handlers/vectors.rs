//! Register vector lengths (`{%r1, %r2, ...}`) against what the opcode needs: `.v2/.v4/.v8`
//! of ld/st (PTX ISA 9.7.9.8–9.7.9.9), tcgen05.ld/st `.num` and shape (9.7.16.8.3), matrix
//! fragments of wmma/mma/wgmma/ldmatrix. The counts come from `ptx-regs`, whose tables are
//! labelled with ptxas; the fix rewrites the vector with the right number of registers.

use ptx_syntax::{OperandKind, TextRange, Token};

use super::operand_types::counted_registers;
use crate::context::{Ctx, InstInfo};
use crate::scope::Scope;
use crate::{Diagnostic, Fix};

pub(crate) fn check(ctx: &mut Ctx<'_>, info: &InstInfo<'_>, scope: &Scope<'_>) {
    missing_vector_qualifier(ctx, info);
    illegal_vector_sizes(ctx, info);
    // `mov` packing has its own rule (types.rs), which knows every element count.
    if info.words[0] == "mov" {
        return;
    }
    let Ok(counts) = info.resolved.register_counts() else {
        return;
    };
    let section = info.section();
    for vector in &counts.vectors {
        let Some(operand) = info.operands.get(vector.operand) else {
            continue;
        };
        let wanted = vector.registers as usize;
        let written: Vec<String> = match operand.kind() {
            OperandKind::Vector => operand
                .elements()
                .iter()
                .map(|e| e.text().to_owned())
                .collect(),
            OperandKind::Register(_) | OperandKind::Identifier(_) | OperandKind::Sink => {
                vec![operand.text().to_owned()]
            }
            _ => continue,
        };
        let is_vector = matches!(operand.kind(), OperandKind::Vector);
        // A single register is legal where the count is 1, and also in place of a packed
        // vector (`mov.b32 %r1, %r2`, a wgmma A descriptor): only `.vN` loads and stores
        // insist on braces.
        let vector_qualifier = info.words[1..]
            .iter()
            .any(|w| matches!(*w, "v2" | "v4" | "v8"));
        let fragment = fragment_in_braces(info, vector.operand);
        let insists_on_braces = vector_qualifier
            && matches!(
                info.words[0],
                "ld" | "st" | "ldu" | "atom" | "red" | "multimem"
            )
            || fragment;
        if is_vector && written.len() == wanted
            || !is_vector && !fragment && (wanted == 1 || !insists_on_braces)
        {
            continue;
        }
        // A register declared as a vector of that length (`.reg .v4 .u32 v;`) stands for the
        // braces: ptxas 13.5 takes `ld.v4.u32 v, [a]`.
        let declared = crate::handlers::operand_types::named_symbol(scope, operand)
            .and_then(|(_, symbol)| symbol.vector)
            .and_then(|v| v.trim_start_matches(".v").parse::<usize>().ok());
        if !is_vector && declared == Some(wanted) {
            continue;
        }
        // ptxas 13.5 takes one register of the element type for the `.v2`/`.v4` data of
        // st.async (`st.async….v4.b32 [a], %r1, [mbar]`), though 9.7.9.12 writes a vector.
        if !is_vector && info.words.get(1) == Some(&"async") {
            continue;
        }
        // `_` discards the result of a vector `atom` (ptxas 13.5 takes
        // `atom.release.add.noftz.v2.bf16x2 _, [a], {b, c}`).
        if matches!(operand.kind(), OperandKind::Sink) && info.words[0] == "atom" {
            continue;
        }
        let refs: Vec<&str> = written.iter().map(String::as_str).collect();
        let replacement = ptx_regs::rewrite_vector(&refs, wanted);
        let new_text = format!("{{{}}}", replacement.join(", "));
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let message = if is_vector {
            format!(
                "`{}` needs {wanted} register{} in operand {} ({}), found {} register{}",
                info.opcode_text(),
                plural(wanted),
                vector.operand + 1,
                vector.explanation,
                written.len(),
                plural(written.len())
            )
        } else {
            // ptxas 13.5: "Vector of size 1 is expected" for `ldmatrix….x1 %r1, [a]`.
            format!(
                "`{}` needs a vector of {wanted} register{} in braces in operand {} ({}), \
                 found a single register without braces",
                info.opcode_text(),
                plural(wanted),
                vector.operand + 1,
                vector.explanation
            )
        };
        let widen = widening(ctx, operand.range(), &replacement);
        let mut diagnostic = Diagnostic::error("vector-length", operand.range(), message)
            .section(section.clone())
            .with_fix(Fix::replace(
                format!("Use {wanted} registers"),
                operand.range(),
                new_text.clone(),
            ));
        if let Some((count, prefix, needed)) = widen {
            let mut fix = Fix::replace(
                format!("Use {wanted} registers and declare `{prefix}<{needed}>`"),
                operand.range(),
                new_text,
            );
            fix.edits.push(crate::Edit {
                range: count.range(),
                new_text: needed.to_string(),
            });
            diagnostic = diagnostic.with_fix(fix);
        }
        ctx.report(diagnostic);
    }
}

/// Vector operands hold 1, 2, 4 or 8 elements (section 5.4.2 `.v2`/`.v4`/`.v8`), or the
/// larger fragments of wgmma and tcgen05 (up to 128 registers): ptxas "Illegal vector size: 3".
/// No case of the generated ptxas set accepts another size.
fn illegal_vector_sizes(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    // The tensor copies (9.7.9.27) take one coordinate per dimension (1 to 5) and one im2col
    // offset per dimension beyond two: vectors of 3 and 5 elements are normal there (ptxas
    // 13.5 accepts `[%rd0, {%r3, %r4, %r5}]` and `{%h1, %h2, %h3}`).
    if info.words.contains(&"tensor") {
        return;
    }
    let fragments = matches!(info.words[0], "wgmma" | "tcgen05");
    let mut vectors = Vec::new();
    for op in &info.operands {
        match op.kind() {
            OperandKind::Vector => vectors.push(*op),
            OperandKind::Address { .. } => vectors.extend(
                op.elements()
                    .into_iter()
                    .filter(|e| matches!(e.kind(), OperandKind::Vector)),
            ),
            _ => {}
        }
    }
    for vector in vectors {
        let n = vector.elements().len();
        let legal = if fragments {
            n <= 128
        } else {
            matches!(n, 1 | 2 | 4 | 8) || (n.is_power_of_two() && n <= 128)
        };
        if !legal {
            ctx.report(
                Diagnostic::error(
                    "vector-length",
                    vector.range(),
                    format!(
                        "a vector of {n} elements: vectors hold 1, 2, 4 or 8 (fragments up to 128)"
                    ),
                )
                .section("5.4.2".to_owned()),
            );
        }
    }
}

/// Matrix fragments that ptxas takes only in braces, even of one register ("Vector expected
/// for argument N" for `mma … %fd1, …` or `tcgen05.ld….x1.b32 %r1, [%r2]`): every fragment of
/// mma and wmma (9.7.14.5, 9.7.14.4), the data operand of tcgen05.ld/st (9.7.16.8.3–4) and the
/// accumulator of wgmma.mma_async (9.7.15.5.2), whose A operand may be a descriptor instead,
/// and the fragments of ldmatrix/stmatrix.
/// Confirmed by the generated ptxas set (no accepted case has a bare register there).
fn fragment_in_braces(info: &InstInfo<'_>, operand: usize) -> bool {
    let words = &info.words;
    let second = words.get(1).copied().unwrap_or("");
    match words[0] {
        "mma" => true,
        "wmma" => matches!(second, "load" | "store" | "mma"),
        "tcgen05" => match second {
            "ld" => operand == 0,
            "st" => operand == info.operands.len().saturating_sub(1),
            _ => false,
        },
        "wgmma" => second == "mma_async" && operand == 0,
        // ldmatrix/stmatrix fragments (9.7.14.5.15–16): no accepted case has a bare register.
        "ldmatrix" => operand == 0,
        "stmatrix" => operand == 1,
        _ => false,
    }
}

/// `ld.shared.b64 {%rd4, %rd8}, [...]`: a register vector in the data operand of ld/st/ldu
/// without `.v2/.v4/.v8` (ptxas: "Argument vector size mismatch"). The fix adds the
/// qualifier before the type.
fn missing_vector_qualifier(ctx: &mut Ctx<'_>, info: &InstInfo<'_>) {
    let data = match info.words[0] {
        "ld" | "ldu" => 0,
        // ptxas 13.5 takes `st.async….b64 [a], {%rd1, %rd2}, [mbar]` without `.v2`.
        "st" if info.words.get(1) == Some(&"async") => return,
        "st" => 1,
        _ => return,
    };
    if info.words[1..]
        .iter()
        .any(|w| matches!(*w, "v2" | "v4" | "v8"))
    {
        return;
    }
    let Some(operand) = info.operands.get(data) else {
        return;
    };
    let count = operand.elements().len();
    if !matches!(operand.kind(), OperandKind::Vector) || count < 2 {
        return;
    }
    let mut d = Diagnostic::error(
        "vector-length",
        operand.range(),
        format!(
            "a vector of {count} registers needs a vector qualifier: `{}` loads or stores one value",
            info.opcode_text()
        ),
    )
    .section("9.7.9.8".to_owned());
    if matches!(count, 2 | 4 | 8) {
        if let Some(ty) = info.qualifiers.last() {
            d = d.with_fix(Fix::replace(
                format!("Add `.v{count}`"),
                ty.start..ty.start,
                format!(".v{count}"),
            ));
        }
    }
    ctx.report(d);
}

/// When the rewritten vector names registers past a parameterized `.reg`
/// declaration (`%r<8>` but the fix uses `%r11`), the count token of that
/// declaration, its prefix and the count that covers every new register.
fn widening<'a>(
    ctx: &Ctx<'a>,
    at: TextRange,
    registers: &[String],
) -> Option<(Token<'a>, String, u64)> {
    let function = ctx
        .module
        .functions()
        .into_iter()
        .find(|f| f.range().contains(&at.start))?;
    let mut declarations = Vec::new();
    counted_registers(function.body()?, &mut declarations);
    let mut best: Option<(Token<'a>, String, u64)> = None;
    for register in registers {
        let digits = register.len()
            - register
                .trim_end_matches(|c: char| c.is_ascii_digit())
                .len();
        if digits == 0 {
            continue;
        }
        let (prefix, number) = register.split_at(register.len() - digits);
        let Ok(number) = number.parse::<u64>() else {
            continue;
        };
        for (token, name, count) in &declarations {
            if name == prefix && number >= *count {
                let needed = best
                    .as_ref()
                    .filter(|(t, _, _)| t.start == token.start)
                    .map_or(number + 1, |(_, _, n)| (*n).max(number + 1));
                best = Some((*token, name.clone(), needed));
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use crate::test_support::{check_diagnostics, check_fix};
    use expect_test::expect;

    const LD_V4: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.global.v4.u32 {%r1, %r2}, [%rd1];
//                 ^^^^^^^^^^ error: `ld.global.v4.u32` needs 4 registers in operand 1 (.v4 = 4 registers of 32 bits, one per .u32 element), found 2 registers
  ret;
}
"#;

    #[test]
    fn ld_vector_too_short() {
        check_diagnostics(LD_V4);
    }

    #[test]
    fn fix_widens_a_declaration_that_is_too_small() {
        let fixture = r#"
.version 8.6
.target sm_100a
.address_size 64
.visible .entry k()
{
  .reg .b32 %r<6>;
  tcgen05.ld.sync.aligned.32x32b.x8.b32 {%r4, %r5}, [%r1];
  ret;
}
"#;
        let diagnostics = crate::check(
            &ptx_syntax::Parse::new(fixture),
            &crate::CheckOptions::default(),
        );
        let vector = diagnostics
            .iter()
            .find(|d| d.code == "vector-length")
            .expect("a vector-length error");
        let fixes: Vec<_> = vector
            .fixes
            .iter()
            .map(|f| {
                (
                    f.title.clone(),
                    f.edits
                        .iter()
                        .map(|e| e.new_text.clone())
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        expect![[r#"
            [
                (
                    "Use 8 registers",
                    [
                        "{%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}",
                    ],
                ),
                (
                    "Use 8 registers and declare `%r<12>`",
                    [
                        "{%r4, %r5, %r6, %r7, %r8, %r9, %r10, %r11}",
                        "12",
                    ],
                ),
            ]
        "#]]
        .assert_debug_eq(&fixes);
    }

    #[test]
    fn fix_extends_the_vector() {
        check_fix(
            LD_V4,
            "vector-length",
            expect![[r#"ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];"#]],
        );
    }
}
