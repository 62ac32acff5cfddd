//! The fragment layout in the opcode hover of matrix instructions: one
//! fixture per form under `fixtures/hover_layout/` (each a whole module that
//! ptxas 13.5 accepts for its `.target`, with `$0` before the opcode), and
//! beside it `NAME.md`, the hover's layout section (everything from its
//! "Fragment layout" rule on; `none` when the hover has none).
//! `UPDATE_EXPECT=1 cargo test -p ptx-ide --test hover_layout` rewrites them.

use std::path::Path;

use ptx_ide::hover::{hover, HoverConfig, HoverKind};
use ptx_syntax::Parse;

#[test]
fn fragment_layouts_of_matrix_instructions() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hover_layout");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    names.sort();
    assert!(names.len() >= 15, "fixtures in {}", dir.display());
    for path in names {
        let marked = std::fs::read_to_string(&path).unwrap();
        let offset = marked
            .find("$0")
            .unwrap_or_else(|| panic!("{}: no $0", path.display()));
        let text = marked.replacen("$0", "", 1);
        let h = hover(&Parse::new(&text), offset, &HoverConfig::default())
            .unwrap_or_else(|| panic!("{}: no hover", path.display()));
        assert_eq!(h.kind, HoverKind::Opcode, "{}", path.display());
        let section = match h.markdown.find("**Fragment layout**") {
            Some(at) => h.markdown[at..].to_string(),
            None => "none\n".to_string(),
        };
        expect_test::expect_file![path.with_extension("md")].assert_eq(&section);
    }
}

/// Only the instruction's hover has the layout: a qualifier's does not.
#[test]
fn qualifier_hovers_have_no_layout() {
    let text = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n    .reg .b32 %r<4>, %s;\n    ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r0, %r1, %r2, %r3}, [%s];\n    ret;\n}\n";
    let parse = Parse::new(text);
    let at = |needle: &str| text.find(needle).unwrap() + 1;
    let opcode = hover(&parse, at("ldmatrix"), &HoverConfig::default()).unwrap();
    assert!(
        opcode.markdown.contains("**Fragment layout**"),
        "{}",
        opcode.markdown
    );
    let qualifier = hover(&parse, at(".x4"), &HoverConfig::default()).unwrap();
    assert_eq!(qualifier.kind, HoverKind::Qualifier);
    assert!(
        !qualifier.markdown.contains("Fragment layout"),
        "{}",
        qualifier.markdown
    );
}

/// The hover's picture is the debugger's: for every fixture and every warp
/// of a warpgroup, the layout read from the instruction as written names the
/// same lanes and registers, cell by cell, as the layout a debug session
/// shows at that instruction (which reads the decoded program).
#[test]
fn the_hover_layout_is_the_one_the_debugger_shows() {
    use ptx_interp::{instruction_layout, DebugTarget, KernelOptions, Session};
    use ptx_syntax::{Item, Statement};

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hover_layout");
    let mut compared = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ptx") {
            continue;
        }
        let marked = std::fs::read_to_string(&path).unwrap();
        let offset = marked.find("$0").unwrap();
        let line = marked[..offset].lines().count();
        let text = marked.replacen("$0", "", 1);
        let parse = Parse::new(&text);
        let module = parse.module();
        let inst = module
            .items()
            .into_iter()
            .find_map(|item| match item {
                Item::Function(f) => f.body()?.statements().into_iter().find_map(|s| match s {
                    Statement::Instruction(i) if i.range().contains(&offset) => Some(i),
                    _ => None,
                }),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{}: no instruction at $0", path.display()));
        let options = KernelOptions {
            entry: "k".into(),
            block: [128, 1, 1],
            ..KernelOptions::default()
        };
        let target = DebugTarget::kernel(&parse, &options)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let session = Session::new(&target);
        let (pc, at) = target.resolve_line(line).unwrap();
        assert_eq!(at, line, "{}", path.display());
        for warp in 0..4 {
            let shown = session.layout(warp, pc);
            let written = instruction_layout(&inst, warp);
            assert_eq!(shown.is_some(), written.is_some(), "{}", path.display());
            let (Some(shown), Some(written)) = (shown, written) else {
                continue;
            };
            assert_eq!(shown.matrices.len(), written.len(), "{}", path.display());
            for (a, b) in shown.matrices.iter().zip(&written) {
                assert_eq!(
                    (&a.name, a.first_row, a.first_col),
                    (&b.name, b.first_row, b.first_col),
                    "{}",
                    path.display()
                );
                let holders = |m: &ptx_interp::MatrixView| -> Vec<Vec<Vec<(u32, String)>>> {
                    m.cells
                        .iter()
                        .map(|row| {
                            row.iter()
                                .map(|cell| {
                                    cell.iter().map(|c| (c.lane, c.register.clone())).collect()
                                })
                                .collect()
                        })
                        .collect()
                };
                assert_eq!(holders(a), holders(b), "{} warp {warp}", path.display());
                compared += 1;
            }
        }
    }
    assert!(compared >= 40, "{compared} matrices compared");
}

/// A `.16x32bx2` split offset past Tensor Memory's 512 columns has no
/// layout (and costs nothing): the hover is the opcode's alone.
#[test]
fn a_split_offset_past_the_last_column_has_no_layout() {
    for offset in ["512", "4294967295", "0x100000000", "0xffffffffffffffff"] {
        let text = format!(
            ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n    .reg .b32 %r<2>, %t;\n    tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {{%r0, %r1}}, [%t], {offset};\n    ret;\n}}\n"
        );
        let at = text.find("tcgen05").unwrap() + 1;
        let h = hover(&Parse::new(&text), at, &HoverConfig::default()).unwrap();
        assert_eq!(h.kind, HoverKind::Opcode);
        assert!(
            !h.markdown.contains("Fragment layout"),
            "{offset}: {}",
            h.markdown
        );
    }
    // The last column is still one.
    let text = ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n    .reg .b32 %r<2>, %t;\n    tcgen05.ld.sync.aligned.16x32bx2.x2.b32 {%r0, %r1}, [%t], 511;\n    ret;\n}\n";
    let at = text.find("tcgen05").unwrap() + 1;
    let h = hover(&Parse::new(text), at, &HoverConfig::default()).unwrap();
    assert!(
        h.markdown.contains("(columns 0..31 of 513 shown)"),
        "{}",
        h.markdown
    );
}
