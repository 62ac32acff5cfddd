//! The HTML importer on a made-up page in the structure of the official Sphinx page (placeholder
//! text only).

mod common;

use ptx_docs::{Block, EntryKind, Part, Rubric};
use std::path::Path;

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sphinx_placeholder.html")
}

#[test]
fn sphinx_page_structure() {
    let (ix, files) = ptx_docs::parse_input(&fixture()).unwrap();
    assert_eq!(files, 1);
    assert_eq!(ix.status().doc_version, "9.1");
    assert!(!ix.status().doc_version_inferred);
    let numbers: Vec<&str> = ix.entries().iter().map(|e| e.number.as_str()).collect();
    assert_eq!(
        numbers,
        ["1", "1.3", "9", "9.7.1", "9.7.1.1", "10", "10.1", "11", "11.1.1"]
    );
    let e = ix.instruction("frob").unwrap();
    assert_eq!(e.kind, EntryKind::Instruction);
    assert_eq!(e.names, ["frob", "frob.x"]);
    assert_eq!(e.title, "Widget Instructions: frob, frob.x");
    assert_eq!(e.anchor.as_deref(), Some("widget-instructions-frob"));
    assert!(!e.anchor_guessed);
    assert_eq!(
        e.syntax(),
        "frob.mode.type  d, a;\n\n.mode = { .fast, .slow::deep };\n.type = { .u32, .u64 };"
    );
    let kinds = |r: Rubric| -> Vec<&str> {
        e.part(r)
            .iter()
            .map(|b| match b {
                Block::Paragraph(_) => "p",
                Block::Code(_) => "code",
                Block::List(_) => "list",
                Block::Table(_) => "table",
            })
            .collect()
    };
    assert_eq!(kinds(Rubric::Summary), ["p", "p"]);
    assert_eq!(kinds(Rubric::Description), ["p", "table", "list", "p", "p"]);
    assert_eq!(kinds(Rubric::PtxIsaNotes), ["p"]);
    assert_eq!(kinds(Rubric::TargetIsaNotes), ["p"]);
    assert_eq!(kinds(Rubric::Examples), ["code", "p"]);
    assert_eq!(
        e.part(Rubric::Examples)[0],
        Block::Code("frob.fast.u32 r1, r2;\n@p frob.slow::deep.u64 rd1, rd2;  // x < y".into())
    );
    assert_eq!(
        e.part(Rubric::Description)[0],
        Block::Paragraph(
            "Lorem `.fast` ipsum dolor & sit. Consectetur `.slow::deep` adipiscing, see \
             [Table 7](https://docs.nvidia.com/cuda/parallel-thread-execution/#widget-table)."
                .into()
        )
    );
    assert_eq!(
        e.part(Rubric::Description)[2],
        Block::List("- Lorem item one.\n- Ipsum item two:\n  - `sm_00` nested".into())
    );
    assert_eq!(
        e.part(Rubric::Examples)[1],
        Block::Paragraph(
            "[image: placeholder.png](https://docs.nvidia.com/cuda/parallel-thread-execution/_images/placeholder.png)".into()
        )
    );
    let (te, t) = ix.table(7).unwrap();
    assert_eq!(te.number, "9.7.1.1");
    assert_eq!(t.caption, "Placeholder sizes");
    assert_eq!(t.anchor.as_deref(), Some("widget-table"));
    assert_eq!(
        t.rows,
        [
            ["Mode", "Size"],
            ["`.fast`", "4"],
            ["`.slow::deep`", "8 | 9"]
        ]
    );
    assert_eq!(ix.qualifier("frob", ".slow::deep").len(), 1);
    assert_eq!(
        ix.qualifier("frob.x", "fast"),
        ["Lorem `.fast` ipsum dolor & sit."]
    );
    let hover = e.hover_markdown(Part::Qualifier(".fast"));
    assert!(hover.contains("| `.fast` | 4 |"), "{hover}");
    assert!(hover.ends_with(
        "(https://docs.nvidia.com/cuda/parallel-thread-execution/#widget-instructions-frob)"
    ));
    let r = ix.special_register("%gizmo_hi").unwrap();
    assert_eq!(
        (r.number.as_str(), r.anchor.as_deref()),
        ("10.1", Some("special-registers-gizmo"))
    );
    let d = ix.directive(".gadget").unwrap();
    assert_eq!(d.number, "11.1.1");
    // Headings outside sections (navigation, footer) are not sections.
    assert!(ix.section("9.9.9").is_none());
    let intro = ix.section("1.3").unwrap();
    assert_eq!(intro.anchor.as_deref(), Some("ptx-isa-version"));
}

#[test]
fn html_import_writes_index() {
    let cache = common::scratch("html");
    let r = ptx_docs::import(&fixture(), &cache).unwrap();
    assert_eq!(
        (
            r.doc_version.as_str(),
            r.instructions,
            r.directives,
            r.special_registers,
            r.tables
        ),
        ("9.1", 2, 1, 2, 1)
    );
}
