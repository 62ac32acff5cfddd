//! Coverage: every instruction heading of spec section 9.7 has an entry with forms.

use std::path::Path;

use ptx_isa::specgen::heading_opcodes;
use ptx_isa::specmd::read_dir_sections;
use ptx_isa::{Isa, SlotKind};

#[test]
fn every_instruction_heading_is_covered() {
    let spec = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/ptx-isa-9.1");
    assert!(
        spec.join("INDEX.md").is_file(),
        "the PTX ISA spec is missing at {}",
        spec.display()
    );
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

#[test]
fn chapter_10_and_11_are_covered() {
    let isa = Isa::get();
    for r in [
        "%tid",
        "%ntid",
        "%laneid",
        "%warpid",
        "%nwarpid",
        "%ctaid",
        "%nctaid",
        "%smid",
        "%nsmid",
        "%gridid",
        "%is_explicit_cluster",
        "%clusterid",
        "%nclusterid",
        "%cluster_ctaid",
        "%cluster_nctaid",
        "%cluster_ctarank",
        "%cluster_nctarank",
        "%lanemask_eq",
        "%lanemask_le",
        "%lanemask_lt",
        "%lanemask_ge",
        "%lanemask_gt",
        "%clock",
        "%clock_hi",
        "%clock64",
        "%pm0",
        "%pm7",
        "%pm0_64",
        "%envreg31",
        "%globaltimer",
        "%globaltimer_lo",
        "%reserved_smem_offset_begin",
        "%total_smem_size",
        "%aggr_smem_size",
        "%dynamic_smem_size",
        "%current_graph_exec",
        "%tid.x",
    ] {
        assert!(
            isa.special_register(r).is_some(),
            "missing special register {r}"
        );
    }
    for d in [
        ".version",
        ".target",
        ".address_size",
        ".entry",
        ".func",
        ".alias",
        ".branchtargets",
        ".calltargets",
        ".callprototype",
        ".maxnreg",
        ".maxntid",
        ".reqntid",
        ".minnctapersm",
        ".maxnctapersm",
        ".noreturn",
        ".pragma",
        ".abi_preserve",
        ".abi_preserve_control",
        "@@dwarf",
        ".section",
        ".file",
        ".loc",
        ".extern",
        ".visible",
        ".weak",
        ".common",
        ".reqnctapercluster",
        ".explicitcluster",
        ".maxclusterrank",
        ".blocksareclusters",
    ] {
        assert!(isa.directive(d).is_some(), "missing directive {d}");
    }
    assert!(isa.types().iter().any(|t| t.name == ".b128"));
    assert!(isa.state_spaces().iter().any(|s| s.name == ".shared"));
}
