//! Imports the fixture sections (`tests/fixtures/export`: the document's two markdown exports,
//! written in the project's own words) and checks what the index makes of them.

mod common;

use common::*;
use ptx_docs::{EntryKind, Rubric, SpecIndex};

#[test]
fn fixture_folder_imports() {
    let cache = scratch("fixtures");
    let report = ptx_docs::import(&fixtures_dir(), &cache).unwrap();
    assert_eq!(report.files, 5);
    assert!(report.doc_version_inferred, "{report:?}");
    let ix = SpecIndex::load(&cache).unwrap();
    let names = ix.instruction_names();
    for n in [
        "tcgen05.ld",
        "tcgen05.st",
        "tcgen05.wait",
        "wmma.load",
        "ld",
        "tcgen05.alloc",
        "tcgen05.dealloc",
    ] {
        assert!(names.contains(&n), "{n} not in {names:?}");
    }
    let e = ix.instruction("tcgen05.ld").unwrap();
    assert_eq!(e.number, "9.7.16.8.3");
    assert_eq!(e.anchor.as_deref(), Some("tcgen05-instructions-tcgen05-ld"));
    assert!(!e.anchor_guessed);
    for q in [".16x32bx2", ".red", ".pack::16b", "pack::16b"] {
        let s = ix.qualifier("tcgen05.ld", q);
        assert!(!s.is_empty(), "{q}");
        let key = ptx_docs::Entry::qualifier_sentences(e, q);
        assert_eq!(key, s);
        for sentence in &s {
            assert!(sentence.contains(q.trim_start_matches('.')), "{q}");
            assert!(
                sentence.len() < 600 && sentence.ends_with(['.', ':']),
                "{q}: {} bytes",
                sentence.len()
            );
        }
    }
    assert_eq!(
        ix.qualifier("tcgen05.ld.sync.aligned", ".pack::16b").len(),
        1
    );
    assert!(ix.qualifier("tcgen05.ld", ".nosuch").is_empty());
    assert!(e.syntax().lines().count() > 10);
    assert!(!e.part(Rubric::Description).is_empty());
    assert!(!e.part(Rubric::PtxIsaNotes).is_empty());
    assert!(!e.part(Rubric::TargetIsaNotes).is_empty());
    assert!(!e.part(Rubric::Examples).is_empty());
    // The two markdown exports give the same structure for the same section.
    let files = markdown_files(&fixtures_dir());
    let fenced = ptx_docs::parse_input(&files[0]).unwrap().0;
    let front_matter = ptx_docs::parse_input(&files[1]).unwrap().0;
    assert_eq!(
        shape(fenced.instruction("tcgen05.ld").unwrap()),
        shape(front_matter.instruction("tcgen05.ld").unwrap())
    );
    expect_test::expect![[r#"
        9.7.16.8.3 tcgen05-instructions-tcgen05-ld Instruction ["tcgen05.ld"]
        Summary: p p
        Syntax: code
        Description: p p p table49[10x4] p p
        PTX ISA Notes: p
        Target ISA Notes: p list2
        Examples: code
        qualifiers: .16x32bx2(1) .pack::16b(1) .red(1)
    "#]]
    .assert_eq(&shape(e));
    let (te, t) = ix.table(49).unwrap();
    assert_eq!((te.number.as_str(), t.rows.len()), ("9.7.16.8.3", 10));
    assert_eq!(t.anchor.as_deref(), Some("tcgen05-num-shapes-ld"));
}

#[test]
fn fixture_files_import_one_by_one() {
    for f in markdown_files(&fixtures_dir()) {
        let (ix, files) =
            ptx_docs::parse_input(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(files, 1);
        let instr = ix
            .entries()
            .iter()
            .filter(|e| e.kind == EntryKind::Instruction)
            .count();
        assert!(instr >= 1, "{}", f.display());
        for e in ix
            .entries()
            .iter()
            .filter(|e| e.kind == EntryKind::Instruction)
        {
            assert!(
                e.anchor.is_some() && !e.anchor_guessed,
                "{} {}",
                f.display(),
                e.number
            );
            assert!(!e.syntax().is_empty(), "{} {}", f.display(), e.number);
            assert!(!e.syntax().contains("Copy to clipboard"));
        }
    }
}
