//! [`Instruction::parts`] (one walk, mnemonic and qualifiers read from the text) agrees with
//! the accessors it stands for, on every instruction of the corpus and of the checker's
//! fixtures, and on chunked parses.

use std::path::{Path, PathBuf};

use ptx_syntax::{Instruction, Parse};

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    let mut stack = vec![
        root.join("../../tests/corpus"),
        root.join("../check/fixtures/ptxas"),
    ];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ptx") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Every variable declaration of the module, its functions' parameters and bodies.
fn declarations(parse: &Parse) -> Vec<ptx_syntax::VariableDecl<'_>> {
    use ptx_syntax::{Item, Statement};
    fn block<'a>(b: ptx_syntax::Block<'a>, out: &mut Vec<ptx_syntax::VariableDecl<'a>>) {
        for statement in b.statements() {
            match statement {
                Statement::Variable(v) => out.push(v),
                Statement::Block(inner) => block(inner, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for item in parse.module().items() {
        match item {
            Item::Variable(v) => out.push(v),
            Item::Function(f) => {
                out.extend(f.parameters());
                out.extend(f.return_parameters());
                if let Some(body) = f.body() {
                    block(body, &mut out);
                }
            }
            _ => {}
        }
    }
    out
}

fn guard(g: Option<ptx_syntax::Guard<'_>>) -> Option<(bool, String, std::ops::Range<usize>)> {
    g.map(|g| (g.negated, format!("{:?}", g.predicate), g.range))
}

fn operands(ops: &[ptx_syntax::Operand<'_>]) -> Vec<String> {
    ops.iter().map(describe).collect()
}

/// Everything the operand API says about an operand, recursively.
fn describe(o: &ptx_syntax::Operand<'_>) -> String {
    let tokens = |ts: Vec<ptx_syntax::Token<'_>>| {
        ts.iter()
            .map(|t| format!("{}@{:?}", t.text, t.range()))
            .collect::<Vec<_>>()
    };
    let expression = match o.expression() {
        None => "-".to_owned(),
        Some(ptx_syntax::Expression::Binary {
            left,
            operator,
            right,
        }) => format!("({} {operator} {})", describe(&left), describe(&right)),
        Some(other) => format!("{other:?}")
            .split(" {")
            .next()
            .unwrap_or("")
            .to_owned(),
    };
    format!(
        "{:?} {:?} `{}` {:?} r{:?} i{:?} e{expression} [{}]",
        o.range(),
        o.kind(),
        o.text(),
        o.integer_value(),
        tokens(o.registers()),
        tokens(o.identifiers()),
        o.elements()
            .iter()
            .map(describe)
            .collect::<Vec<_>>()
            .join("; ")
    )
}

/// Asserts and returns whether the operands were read from the text.
fn assert_parts(name: &str, inst: Instruction<'_>) -> bool {
    let parts = inst.parts();
    let from_text = parts
        .operands
        .first()
        .is_some_and(|o| format!("{o:?}").contains("Text"));
    let context = || format!("{name}: `{}`", inst.text());
    assert_eq!(parts.mnemonic, inst.mnemonic(), "{}", context());
    assert_eq!(parts.qualifiers, inst.qualifiers(), "{}", context());
    assert_eq!(guard(parts.guard), guard(inst.guard()), "{}", context());
    let names = |get: for<'x> fn(&ptx_syntax::Operand<'x>) -> Vec<ptx_syntax::Token<'x>>| {
        inst.operands()
            .iter()
            .enumerate()
            .flat_map(|(i, o)| get(o).into_iter().map(move |t| (i, t.range())))
            .collect::<Vec<_>>()
    };
    let ranges = |names: &[(usize, ptx_syntax::Token<'_>)]| {
        names
            .iter()
            .map(|(i, t)| (*i, t.range()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ranges(&parts.registers),
        names(|o| o.registers()),
        "{}",
        context()
    );
    assert_eq!(
        ranges(&parts.identifiers),
        names(|o| o.identifiers()),
        "{}",
        context()
    );
    assert_eq!(
        operands(&parts.operands),
        operands(&inst.operands()),
        "{}",
        context()
    );
    from_text
}

#[test]
fn parts_agree_with_the_accessors() {
    let files = files();
    assert!(files.len() > 1000, "corpus and fixtures not found");
    let mut count = 0;
    let mut from_text = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).expect("utf-8 file");
        let name = path.display().to_string();
        for parse in [
            Parse::new(text.as_str()),
            Parse::new_parallel(text.as_str(), 2),
        ] {
            for decl in declarations(&parse) {
                let parts = decl.parts();
                let context = || format!("{name}: `{}`", decl.text());
                assert_eq!(parts.state_space, decl.state_space(), "{}", context());
                assert_eq!(parts.ty, decl.ty(), "{}", context());
                assert_eq!(parts.vector, decl.vector(), "{}", context());
                assert_eq!(parts.linkage, decl.linkage(), "{}", context());
                let ranges = |ds: &[ptx_syntax::Declarator<'_>]| {
                    ds.iter().map(|d| d.range()).collect::<Vec<_>>()
                };
                assert_eq!(ranges(&parts.declarators), ranges(&decl.declarators()));
            }
            for inst in parse.module().instructions() {
                from_text += usize::from(assert_parts(&name, inst));
                count += 1;
            }
        }
    }
    assert!(count > 100_000, "{count} instructions");
    assert!(
        from_text * 2 > count,
        "{from_text} of {count} read from the text"
    );
}

#[test]
fn parts_of_unusual_spellings() {
    let text = ".entry k()\n{\n\tld.u32 %r1, [ %rd1 + 0x10U ];\n\tmov.b64 %rd1, {%r1,%r2 };\n\tst.u32 [$a+07], 010;\n\tmov.u32 %r1, 0x;\n\tmov.u32 %r1, $;\n\tbra.uni L1 ;\n\t@!%p1 bra $L__1;\n\tld.global.L2::64B.L1::evict_last.v2.u32 {%r1, %r2}, [%rd1+8];\n\tmov.u32 /* c */ %r1, // x\n\t%r2;\n\t$x.y %r1;\n\t_z;\n\tbar.sync 0;\n\tret;\n\tst.shared::cta.b32 [a], %r1;\n\tcall (r), f, (a, b);\n\tadd.s32 %r1, %r2, -1;\n\tld.u8 %r1, [x+1].unified;\n\tmov .s32 %r1, -1;\n\tprmt .b32 /* c */ .f4e %r1, %r2, %r3, %r4;\n\tld.global\n\t\t.v2 .u32 {%r1, %r2}, [%rd1];\n\tmov.u32 %r1, %tid .x;\n}\n";
    let parse = Parse::new(text);
    let instructions = parse.module().instructions();
    assert_eq!(instructions.len(), 21);
    for inst in instructions {
        assert_parts("sample", inst);
    }
}

#[test]
fn blanks_before_qualifiers() {
    let text = ".entry k()\n{\n\tmov .s32 %r1, -1;\n\tld.global\n\t\t.v2 .u32 {%r1, %r2}, [%rd1];\n\tadd.s32 %r1, %r2, 1;\n}\n";
    let parse = Parse::new(text);
    let instructions = parse.module().instructions();
    let names: Vec<String> = instructions
        .iter()
        .map(|i| i.opcode_name().unwrap().into_owned())
        .collect();
    assert_eq!(names, ["mov.s32", "ld.global.v2.u32", "add.s32"]);
    let parts = instructions[1].parts();
    let qualifiers: Vec<(&str, usize)> =
        parts.qualifiers.iter().map(|q| (q.text, q.start)).collect();
    let at = |s: &str| text.find(s).unwrap();
    assert_eq!(
        qualifiers,
        [
            (".global", at(".global")),
            (".v2", at(".v2")),
            (".u32", at(".u32 {"))
        ]
    );
    assert_eq!(parts.operands.len(), 2);
}
