//! Signature help: the operand list of the syntax form the written opcode matches, with the
//! operand under the cursor marked. Works while the operand list is still being typed.

use ptx_isa::Isa;
use ptx_syntax::{Parse, TextRange};

use crate::completion::context::{cursor_context, ContextKind};
use crate::hover::descriptions::descriptions;
use crate::hover::render::OpcodeHover;

/// The signature of the instruction at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureHelp {
    /// The written opcode followed by the form's operands: `ld.global.f32 d, [a]{, cache-policy}`.
    pub label: String,
    /// Byte range of each operand inside `label`, in order.
    pub parameters: Vec<TextRange>,
    /// Index into `parameters` of the operand the cursor is in (clamped to the last one).
    pub active_parameter: usize,
    /// The form in the spec's notation and our description of the instruction (markdown).
    pub documentation: Option<String>,
}

/// Signature help at byte `offset`, when the cursor is in an instruction's operand list.
pub fn signature_help(parse: &Parse, offset: usize) -> Option<SignatureHelp> {
    let ctx = cursor_context(parse, offset);
    let ContextKind::Operand { opcode, index, .. } = ctx.kind else {
        return None;
    };
    let h = OpcodeHover::new(Isa::get(), &opcode)?;
    let form = h.form?;
    if form.operands.is_empty() {
        return None;
    }
    let mut label = format!("{opcode} ");
    let mut parameters = Vec::new();
    for (i, op) in form.operands.iter().enumerate() {
        if i > 0 {
            label.push_str(", ");
        }
        let start = label.len();
        if op.optional {
            label.push('{');
            label.push_str(&op.text);
            label.push('}');
        } else {
            label.push_str(&op.text);
        }
        parameters.push(start..label.len());
    }
    let inst = h.instruction;
    let mut documentation = format!("```ptx\n{}\n```", form.syntax);
    if let Some(d) = descriptions().instruction(&inst.opcode, &inst.section) {
        documentation.push_str("\n\n");
        documentation.push_str(&d.text);
    }
    Some(SignatureHelp {
        active_parameter: index.min(parameters.len() - 1),
        label,
        parameters,
        documentation: Some(documentation),
    })
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    use super::*;

    fn check(fixture: &str, expect: Expect) {
        let offset = fixture.find("$0").expect("fixture has $0");
        let parse = Parse::new(fixture.replace("$0", ""));
        let rendered = match signature_help(&parse, offset) {
            None => "none".to_string(),
            Some(help) => {
                let params: Vec<&str> = help
                    .parameters
                    .iter()
                    .map(|r| &help.label[r.clone()])
                    .collect();
                format!(
                    "{}\nparameters: {params:?}\nactive: {}",
                    help.label, help.active_parameter
                )
            }
        };
        expect.assert_eq(&rendered);
    }

    const HEAD: &str = ".version 8.6\n.target sm_100a\n.entry k()\n{\n  .reg .b32 %r<9>;\n";

    #[test]
    fn first_operand_of_a_load() {
        check(
            &format!("{HEAD}  ld.global.f32 $0"),
            expect![[r#"
            ld.global.f32 d, [a]{.unified}, {cache-policy}
            parameters: ["d", "[a]{.unified}", "{cache-policy}"]
            active: 0"#]],
        );
    }

    #[test]
    fn active_operand_follows_the_commas_outside_braces() {
        check(
            &format!("{HEAD}  tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {{%r1, %r2}}, [%r3], $0\n}}"),
            expect![[r#"
                tcgen05.ld.sync.aligned.16x32bx2.x2.b32 r, [taddr], immHalfSplitoff
                parameters: ["r", "[taddr]", "immHalfSplitoff"]
                active: 2"#]],
        );
        check(
            &format!("{HEAD}  mad.lo.s32 %r1, %r2, $0, %r4;\n}}"),
            expect![[r#"
            mad.lo.s32 d, a, b, c
            parameters: ["d", "a", "b", "c"]
            active: 2"#]],
        );
    }

    #[test]
    fn no_help_outside_operands() {
        check(&format!("{HEAD}  ld.glo$0"), expect!["none"]);
        check(&format!("{HEAD}  ret;$0"), expect!["none"]);
        check(&format!("{HEAD}  frobnicate %r1, $0"), expect!["none"]);
    }
}
