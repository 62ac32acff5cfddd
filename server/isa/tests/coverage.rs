//! Coverage: every instruction has forms, and chapters 10 and 11 (special registers,
//! directives) are all there. That every heading of the document's section 9.7 has an entry is
//! checked against a copy of the document by `spec_drift.rs` (run by `tests/spec-tests.sh`).

use ptx_isa::Isa;

#[test]
fn every_instruction_has_forms() {
    let isa = Isa::get();
    assert!(isa.instructions().len() >= 190);
    for i in isa.instructions() {
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
