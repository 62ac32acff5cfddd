//! The typed views over a sample that uses every construct they expose.

use expect_test::expect;
use ptx_syntax::{DirectiveKind, Item, OperandKind, Parse, Statement};

const SAMPLE: &str = r#".version 9.1
.target sm_100a, debug
.address_size 64
.global .align 4 .u32 counter[4] = {1, 2, 3, 4};
.visible .entry k(.param .u64 .ptr .global .align 16 out, .param .u32 n)
.maxntid 128, 1, 1
{
  .reg .b32 %r<3>;
  .reg .pred %p;
$L__start:
  @!%p bra.uni $L__start;
  tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r0, _}, [%r1], 16;
  setp.lt.s32 %p|%p, %tid.x, -1;
  ld.global.nc.L2::cache_hint.v2.u32 {%r0, %r1}, [counter+8].unified, %rd1;
  call.uni (%r0), f, (%r1, 0f3F800000);
}
"#;

#[test]
fn views_of_a_sample() {
    let parse = Parse::new(SAMPLE);
    assert_eq!(parse.syntax_errors(), vec![]);
    let module = parse.module();
    let mut out = String::new();
    for directive in module.directives(DirectiveKind::Target) {
        let targets: Vec<_> = directive.targets().iter().map(|t| t.text).collect();
        out += &format!("targets {targets:?}\n");
    }
    for item in module.items() {
        if let Item::Variable(var) = item {
            let d = &var.declarators()[0];
            out += &format!(
                "variable {} space={:?} type={:?} align={:?} dims={:?} init={:?}\n",
                d.name().unwrap().text,
                var.state_space().map(|t| t.text),
                var.ty().map(|t| t.text),
                var.alignment().map(|t| t.text),
                d.dimensions()
                    .iter()
                    .map(|t| t.map(|t| t.text))
                    .collect::<Vec<_>>(),
                d.initializer().map(|t| t.text),
            );
        }
    }
    for function in module.functions() {
        out += &format!(
            "function {:?} {} linkage={:?} attributes={:?}\n",
            function.kind(),
            function.name().unwrap().text,
            function
                .linkage()
                .iter()
                .map(|t| t.text)
                .collect::<Vec<_>>(),
            function
                .attributes()
                .iter()
                .map(|(n, v)| (n.text, v.iter().map(|t| t.text).collect::<Vec<_>>()))
                .collect::<Vec<_>>(),
        );
        for param in function.parameters() {
            out += &format!("  param {}\n", param.text());
        }
        for statement in function.body().unwrap().statements() {
            match statement {
                Statement::Variable(var) => {
                    for d in var.declarators() {
                        out += &format!(
                            "  reg {:?} -> {} names\n",
                            d.name().unwrap().text,
                            d.expanded_names().len()
                        );
                    }
                }
                Statement::Label(label) => {
                    out += &format!("  label {}\n", label.name().unwrap().text)
                }
                Statement::Instruction(insn) => {
                    let quals: Vec<_> = insn
                        .qualifiers()
                        .iter()
                        .map(|q| (q.text, q.start))
                        .collect();
                    out += &format!(
                        "  insn guard={:?} {} {:?}\n",
                        insn.guard().map(|g| (g.negated, g.predicate.text)),
                        insn.mnemonic().unwrap().text,
                        quals
                    );
                    for operand in insn.operands() {
                        let elements: Vec<_> =
                            operand.elements().iter().map(|e| e.kind()).collect();
                        out += &format!("    {:?} {:?}", operand.kind(), operand.text());
                        if !elements.is_empty() {
                            out += &format!(" elements={elements:?}");
                        }
                        if let Some(v) = operand.integer_value() {
                            out += &format!(" value={v}");
                        }
                        out += "\n";
                    }
                }
                other => out += &format!("  other {:?}\n", other.range()),
            }
        }
    }
    let _ = OperandKind::Sink;
    expect![[r#"
        targets ["sm_100a", "debug"]
        variable counter space=Some(".global") type=Some(".u32") align=Some("4") dims=[Some("4")] init=Some("{1, 2, 3, 4}")
        function Entry k linkage=[".visible"] attributes=[(".maxntid", ["128", "1", "1"])]
          param .param .u64 .ptr .global .align 16 out
          param .param .u32 n
          reg "%r" -> 3 names
          reg "%p" -> 1 names
          label $L__start
          insn guard=Some((true, "%p")) bra [(".uni", 253)]
            Identifier("$L__start") "$L__start"
          insn guard=None tcgen05 [(".ld", 278), (".sync", 281), (".aligned", 286), (".16x32bx2", 294), (".x2", 303), (".b32", 306)]
            Vector "{%r0, _}" elements=[Register("%r0"), Sink]
            Address { unified: false } "[%r1]" elements=[Register("%r1")]
            Integer("16") "16" value=16
          insn guard=None setp [(".lt", 338), (".s32", 341)]
            Pair "%p|%p" elements=[Register("%p"), Register("%p")]
            Component { register: "%tid", component: ".x" } "%tid.x"
            Expression "-1" value=-1
          insn guard=None ld [(".global", 369), (".nc", 376), (".L2::cache_hint", 379), (".v2", 394), (".u32", 397)]
            Vector "{%r0, %r1}" elements=[Register("%r0"), Register("%r1")]
            Address { unified: true } "[counter+8].unified" elements=[Expression]
            Register("%rd1") "%rd1"
          insn guard=None call [(".uni", 447)]
            ArgumentList "(%r0)" elements=[Register("%r0")]
            Identifier("f") "f"
            ArgumentList "(%r1, 0f3F800000)" elements=[Register("%r1"), Float("0f3F800000")]
    "#]]
    .assert_eq(&out);
}
