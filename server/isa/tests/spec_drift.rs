//! Checks against a copy of the PTX ISA document (the markdown export named by `PTX_ISA_DIR`):
//! the committed `data/gen` files equal what the generator makes from it, and every instruction
//! heading of its section 9.7 has an entry with forms. `tests/spec-tests.sh` runs this file;
//! `cargo test` leaves it out (`test = false` in Cargo.toml), since it cannot run without the copy.

use std::fs;
use std::path::{Path, PathBuf};

use ptx_isa::specgen::heading_opcodes;
use ptx_isa::specmd::read_dir_sections;
use ptx_isa::{Isa, SlotKind};

fn spec_dir() -> PathBuf {
    let dir = std::env::var_os("PTX_ISA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            panic!("PTX_ISA_DIR is not set: run this test through tests/spec-tests.sh")
        });
    assert!(
        dir.join("INDEX.md").is_file(),
        "PTX_ISA_DIR={} is not the markdown export of the PTX ISA (no INDEX.md)",
        dir.display()
    );
    dir
}

fn gen_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/gen")
}

#[test]
fn generated_data_matches_spec() {
    let spec = spec_dir();
    let files = ptx_isa::specgen::generate(&spec).expect("generate");
    let mut stale = Vec::new();
    for (name, text) in &files {
        let committed = fs::read_to_string(gen_dir().join(name)).unwrap_or_default();
        if &committed != text {
            stale.push(name.clone());
        }
    }
    assert!(
        stale.is_empty(),
        "data/gen is out of date for {stale:?}; regenerate with \
         `cargo run -p ptx-isa --bin isa-gen -- $PTX_ISA_DIR`"
    );
    // No leftover files, and every instruction file is embedded in the binary.
    let mut on_disk: Vec<String> = fs::read_dir(gen_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut generated: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    generated.sort();
    assert_eq!(on_disk, generated, "stale files in data/gen");
    let embedded: Vec<&str> = ptx_isa::GEN_FILES.iter().map(|(n, _)| *n).collect();
    for name in generated.iter().filter(|n| n.starts_with("9.7.")) {
        assert!(
            embedded.contains(&name.as_str()),
            "{name} is not listed in GEN_FILES (src/lib.rs)"
        );
    }
}

#[test]
fn every_instruction_heading_is_covered() {
    let spec = spec_dir();
    let sections = read_dir_sections(&spec).unwrap();
    let isa = Isa::get();
    let mut headings = 0;
    let mut missing = Vec::new();
    for sec in sections.iter().filter(|s| s.is_under("9.7")) {
        let has_syntax = sec.block("Syntax").is_some();
        let names = heading_opcodes(&sec.title);
        if !has_syntax && !sec.title.contains("Instructions:") {
            continue;
        }
        for name in names {
            headings += 1;
            // A family heading without its own Syntax (`mbarrier`) is covered by its members.
            let found = isa
                .instructions_named(&name)
                .any(|i| !i.forms.is_empty() && i.section == sec.number)
                || (!has_syntax
                    && isa
                        .instructions_with_prefix(&name)
                        .any(|i| i.section.starts_with(&format!("{}.", sec.number))));
            if !found {
                missing.push(format!("{} {name}", sec.number));
            }
        }
    }
    let insts = isa.instructions();
    let forms: usize = insts.iter().map(|i| i.forms.len()).sum();
    let set_slots: usize = insts
        .iter()
        .flat_map(|i| &i.forms)
        .flat_map(|f| &f.qualifier_slots)
        .filter(|s| s.kind == SlotKind::Set)
        .count();
    let features: usize = insts.iter().map(|i| i.features.len()).sum();
    let unattributed: usize = insts.iter().map(|i| i.unattributed_facts).sum();
    println!(
        "coverage: {headings} instruction headings, {} instructions, {forms} forms, \
         {set_slots} set-valued qualifier slots, {features} qualifier-level features, \
         {unattributed} unattributed notes, {} special registers, {} directives, {} targets",
        insts.len(),
        isa.special_registers().len(),
        isa.directives().len(),
        isa.targets().len()
    );
    assert!(missing.is_empty(), "headings without data: {missing:#?}");
    assert!(headings >= 190, "suspiciously few headings: {headings}");
    for i in insts {
        assert!(
            !i.forms.is_empty(),
            "{} ({}) has no forms",
            i.opcode,
            i.section
        );
    }
}
