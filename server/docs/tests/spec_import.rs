//! Imports a real copy of the PTX ISA (the folder named by `PTX_ISA_DIR`; nothing of it is in the
//! repository) and checks coverage and structure. Assertions look at numbers, anchors, names,
//! counts and shapes, never at the document's sentences. `tests/spec-tests.sh` runs this file;
//! `cargo test` leaves it out (`test = false` in Cargo.toml), since it cannot run without the copy.

mod common;

use common::*;
use expect_test::expect;
use ptx_docs::{Block, EntryKind, Part, SpecIndex};
use std::sync::OnceLock;

fn full() -> &'static SpecIndex {
    static IX: OnceLock<SpecIndex> = OnceLock::new();
    IX.get_or_init(|| {
        ptx_docs::parse_input(&isa_dir())
            .expect("import of ptx-isa-9.1")
            .0
    })
}

#[test]
fn every_instruction_heading_of_9_7_is_indexed() {
    let ix = full();
    let heads = headings(&markdown_files(&isa_dir()));
    let mut expected = Vec::new();
    for (num, title) in &heads {
        let Some((category, _)) = title.split_once(':') else {
            continue;
        };
        if !num.starts_with("9.7.") || !category.to_ascii_lowercase().contains("instruction") {
            continue;
        }
        for n in names_after_colon(title) {
            // "Data Movement and Conversion Instructions: Tensor copy" names no opcode.
            if n.contains(' ') || n.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
                continue;
            }
            expected.push((num.clone(), n));
        }
    }
    assert!(
        expected.len() > 180,
        "too few instruction headings found: {}",
        expected.len()
    );
    let missing: Vec<String> = expected
        .iter()
        .filter(|(num, n)| !ix.instruction_all(n).iter().any(|e| &e.number == num))
        .map(|(num, n)| format!("{num} {n}"))
        .collect();
    assert_eq!(
        missing,
        Vec::<String>::new(),
        "instruction headings missing from the index"
    );
    // Every name also resolves through the opcode lookup, and entries carry a syntax block.
    for (_, n) in &expected {
        assert!(ix.lookup(n).is_some(), "{n}");
    }
    let without_syntax: Vec<&str> = ix
        .entries()
        .iter()
        .filter(|e| e.kind == EntryKind::Instruction && e.syntax().is_empty())
        .map(|e| e.number.as_str())
        .collect();
    expect![[r#"["9.7.13.15"]"#]].assert_eq(&format!("{without_syntax:?}"));
}

#[test]
fn every_directive_and_special_register_is_indexed() {
    let ix = full();
    let heads = headings(&markdown_files(&isa_dir()));
    let mut directives = 0;
    let mut registers = 0;
    let mut missing = Vec::new();
    for (num, title) in &heads {
        if num.starts_with("11.") && title.contains("Directives:") {
            for n in names_after_colon(title) {
                directives += 1;
                match ix.directive(&n) {
                    Some(e) if &e.number == num => {}
                    _ => missing.push(format!("{num} {n}")),
                }
            }
        }
        if num.starts_with("10.") && title.contains("Special Registers:") {
            for n in names_after_colon(title) {
                for end in n.split('…') {
                    registers += 1;
                    match ix.special_register(end) {
                        Some(e) if &e.number == num => {}
                        _ => missing.push(format!("{num} {end}")),
                    }
                }
            }
        }
    }
    assert_eq!((directives, registers), (30, 41));
    assert_eq!(missing, Vec::<String>::new());
    assert_eq!(
        ix.directive("maxnreg").map(|e| e.number.as_str()),
        Some("11.4.1")
    );
    assert_eq!(
        ix.special_register("%tid.x").map(|e| e.number.as_str()),
        Some("10.1")
    );
    assert_eq!(
        ix.special_register("%envreg7").map(|e| e.number.as_str()),
        Some("10.27")
    );
    assert_eq!(
        ix.directive(".attribute").map(|e| e.number.as_str()),
        Some("5.4.8")
    );
}

#[test]
fn full_import_writes_a_versioned_index() {
    let cache = scratch("full");
    let report = ptx_docs::import(&isa_dir(), &cache).unwrap();
    assert_eq!(report.doc_version, "9.1");
    assert!(!report.doc_version_inferred);
    assert!(report.sections > 550, "{report:?}");
    assert!(report.instructions >= 190, "{report:?}");
    assert_eq!(report.directives, 31, "{report:?}");
    assert!(report.special_registers >= 42, "{report:?}");
    assert!(report.tables >= 50, "{report:?}");
    assert!(
        report.index_bytes > 500_000 && report.index_bytes < 8_000_000,
        "{report:?}"
    );
    let line = report.to_string();
    assert!(
        line.starts_with("indexed PTX ISA 9.1 from 406 files: 608 sections"),
        "{line}"
    );
    let st = ptx_docs::status(&cache).expect("status");
    assert!(
        st.to_string().starts_with("PTX ISA 9.1 imported from "),
        "{st}"
    );
    assert_eq!(
        (st.doc_version.as_str(), st.format_version),
        ("9.1", ptx_docs::FORMAT_VERSION)
    );
    assert_eq!(st.bytes, report.index_bytes);
    assert_eq!(st.sections, report.sections);
    let ix = SpecIndex::load(&cache).unwrap();
    assert_eq!(ix.entries().len(), report.sections);
    // Only the index file is left in the cache directory.
    let names: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, [ptx_docs::INDEX_FILE]);
}

#[test]
fn opcodes_resolve_to_their_sections() {
    let ix = full();
    let cases = [
        ("tcgen05.ld.sync.aligned.32x32b.x2.b32", "9.7.16.8.3"),
        (
            "tcgen05.ld.red.sync.aligned.16x32bx2.x8.u32.max",
            "9.7.16.8.3",
        ),
        ("ld.global.nc.v4.f32", "9.7.9.9"),
        ("ld.global.v4.f32", "9.7.9.8"),
        ("add.s32", "9.7.1.1"),
        ("add.f32", "9.7.3.3"),
        ("add.rn.f16x2", "9.7.4.1"),
        ("add.cc.u32", "9.7.2.1"),
        (
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            "9.7.14.5.14",
        ),
        (
            "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16",
            "9.7.15.5.2",
        ),
        (
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
            "9.7.9.27.1.2",
        ),
        ("mbarrier.try_wait.parity.shared::cta.b64", "9.7.13.15.16"),
        ("fence.proxy.async", "9.7.13.4"),
        ("barrier.sync", "9.7.13.1"),
        ("bra.uni", "9.7.12.3"),
        ("vadd4.u32.u32.u32.add", "9.7.18.2.3"),
        ("setmaxnreg.inc.sync.aligned.u32", "9.7.19.5"),
    ];
    for (op, num) in cases {
        assert_eq!(ix.lookup(op).map(|e| e.number.as_str()), Some(num), "{op}");
    }
    assert!(ix.lookup("nosuchop.x").is_none());
    assert_eq!(ix.instruction_all("add").len(), 4);
    let (e, t) = ix.table(49).expect("table 49");
    assert_eq!((e.number.as_str(), t.rows.len()), ("9.7.16.8.3", 10));
    assert_eq!(t.anchor.as_deref(), Some("tcgen05-num-shapes-ld"));
    assert_eq!(
        ix.section("9.7.16.8.1").map(|e| e.anchor.as_deref()),
        Some(Some("tcgen05-tensor-memory-ld-st-access-restrictions"))
    );
    assert_eq!(
        ix.anchor("#tcgen05-instructions-tcgen05-ld")
            .map(|e| e.number.as_str()),
        Some("9.7.16.8.3")
    );
}

#[test]
fn tcgen05_ld_structure() {
    let e = full().instruction("tcgen05.ld").unwrap();
    expect![[r#"
        9.7.16.8.3 tcgen05-instructions-tcgen05-ld Instruction ["tcgen05.ld"]
        Summary: p p
        Syntax: code
        Description: p p p p p table49[10x4] p p p p p p
        PTX ISA Notes: p p
        Target ISA Notes: p list6 p list5
        Examples: code
        qualifiers: .16x32b(1) .16x32bx2(1) .aligned(1) .num(5) .pack::16b(1) .red(4) .redOp(1) .shape(4) .sync(1) .x2(1)
    "#]]
    .assert_eq(&shape(e));
    assert_eq!(
        e.url(),
        "https://docs.nvidia.com/cuda/parallel-thread-execution/#tcgen05-instructions-tcgen05-ld"
    );
}

#[test]
fn hovers_carry_the_section_link() {
    let ix = full();
    let e = ix.instruction("tcgen05.ld").unwrap();
    for part in [
        Part::Opcode,
        Part::Qualifier(".pack::16b"),
        Part::Table(49),
        Part::Full,
    ] {
        let md = e.hover_markdown(part);
        assert!(md.ends_with(&format!("({})", e.url())), "{part:?}");
        assert!(md.starts_with("**"), "{part:?}");
    }
    let op = e.hover_markdown(Part::Opcode);
    assert!(op.contains("*PTX ISA Notes*") && op.contains("*Target ISA Notes*"));
    assert!(op.contains("```ptx\n"));
    let q = e.hover_markdown(Part::Qualifier("pack::16b"));
    assert!(q.lines().filter(|l| l.starts_with("- ")).count() == 1);
    assert!(e
        .hover_markdown(Part::Table(49))
        .contains("| `.x128` | 128 | NA | NA |"));
    // Opcode hovers of the largest sections stay bounded.
    for e in ix
        .entries()
        .iter()
        .filter(|e| e.kind == EntryKind::Instruction)
    {
        let md = e.hover_markdown(Part::Opcode);
        assert!(md.len() < 40_000, "{} {}", e.number, md.len());
    }
}

#[test]
fn structure_of_the_whole_document() {
    let ix = full();
    let count = |k: EntryKind| ix.entries().iter().filter(|e| e.kind == k).count();
    let code = ix
        .entries()
        .iter()
        .flat_map(|e| e.parts.values().flatten())
        .filter(|b| matches!(b, Block::Code(_)))
        .count();
    let guessed = ix.entries().iter().filter(|e| e.anchor_guessed).count();
    let no_anchor: Vec<&str> = ix
        .entries()
        .iter()
        .filter(|e| e.anchor.is_none())
        .map(|e| e.number.as_str())
        .collect();
    let summary = format!(
        "sections {} instructions {} directives {} registers {} code blocks {} guessed anchors {} without anchor {:?}",
        ix.entries().len(),
        count(EntryKind::Instruction),
        count(EntryKind::Directive),
        count(EntryKind::SpecialRegister),
        code,
        guessed,
        no_anchor
    );
    expect!["sections 608 instructions 199 directives 31 registers 33 code blocks 868 guessed anchors 371 without anchor []"]
        .assert_eq(&summary);
    // No export artifacts leak into the text.
    for e in ix.entries() {
        for b in e.parts.values().flatten() {
            let text = match b {
                Block::Paragraph(s) | Block::List(s) | Block::Code(s) => s.clone(),
                Block::Table(t) => t.markdown(),
            };
            assert!(!text.contains("Permalink to this"), "{}", e.number);
            assert!(!text.contains("(<#"), "{}", e.number);
            assert!(!text.contains('\u{f0c1}'), "{}", e.number);
        }
    }
}

#[test]
fn every_numbered_table_is_findable() {
    let ix = full();
    let mut numbers: Vec<u32> = Vec::new();
    for f in markdown_files(&isa_dir()) {
        for line in std::fs::read_to_string(f).unwrap().lines() {
            let Some(rest) = line.strip_prefix("Table ") else {
                continue;
            };
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if rest[digits.len()..].starts_with(' ') {
                numbers.push(digits.parse().unwrap());
            }
        }
    }
    numbers.sort_unstable();
    numbers.dedup();
    assert!(numbers.len() >= 50, "{numbers:?}");
    let missing: Vec<u32> = numbers
        .iter()
        .copied()
        .filter(|&n| ix.table(n).is_none())
        .collect();
    assert_eq!(missing, Vec::<u32>::new());
    for &n in &numbers {
        let (e, t) = ix.table(n).unwrap();
        assert!(!t.rows.is_empty(), "table {n} in {}", e.number);
        let md = e.hover_markdown(Part::Table(n));
        assert!(md.starts_with(&format!("**Table {n}**")), "table {n}");
    }
}

#[test]
fn qualifiers_resolve_through_their_syntax_group() {
    let ix = full();
    let ld = ix.instruction("ld").unwrap();
    assert_eq!(
        ld.qualifier_group(".L2::64B").as_deref(),
        Some(".level::prefetch_size")
    );
    assert_eq!(ld.qualifier_group("shared::cta").as_deref(), Some(".ss"));
    assert_eq!(ld.qualifier_group(".nosuch"), None);
    let e = ix.instruction("tcgen05.ld").unwrap();
    assert_eq!(e.qualifier_group(".16x32bx2").as_deref(), Some(".shape2"));
    let hover = ld.hover_markdown(Part::Qualifier(".L2::64B"));
    assert!(
        hover.lines().filter(|l| l.starts_with("- ")).count() >= 1,
        "no sentences"
    );
    assert!(hover.contains("```ptx\n"));
}

#[test]
fn guessed_anchors_follow_the_official_pattern() {
    let ix = full();
    let anchor = |n: &str| {
        ix.section(n)
            .and_then(|e| e.anchor.clone())
            .unwrap_or_default()
    };
    assert_eq!(anchor("9.7.1.1"), "integer-arithmetic-instructions-add");
    assert_eq!(
        anchor("9.7.9.9"),
        "data-movement-and-conversion-instructions-ld-global-nc"
    );
    assert_eq!(
        anchor("9.7.9.5"),
        "data-movement-and-conversion-instructions-shfl-deprecated"
    );
    assert_eq!(anchor("9.7.12.1"), "control-flow-instructions-curly-braces");
    assert_eq!(anchor("9.7.12.2"), "control-flow-instructions-at");
    assert_eq!(
        anchor("10.28"),
        "special-registers-globaltimer-globaltimer-lo-globaltimer-hi"
    );
    assert_eq!(
        anchor("11.4.5"),
        "performance-tuning-directives-maxnctapersm"
    );
    assert!(ix.section("9.7.1.1").unwrap().anchor_guessed);
}
