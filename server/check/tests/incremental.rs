//! `check_incremental` gives exactly `check`'s result while reusing the
//! functions an edit did not touch.

use ptx_check::{check, check_incremental, CheckCache, CheckOptions};
use ptx_syntax::Parse;

fn corpus(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus")
        .join(name);
    std::fs::read_to_string(path).expect("corpus file")
}

/// Edits that each touch one place: break an opcode, add an undeclared
/// register, insert a duplicate label, rename a global, change the target.
fn edits(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut broken = text.to_owned();
    if let Some(at) = broken.find("\tmov.u32") {
        broken.replace_range(at + 1..at + 4, "mvo");
        out.push(broken.clone());
    }
    if let Some(at) = broken.rfind("\tret;") {
        broken.insert_str(at, "\tadd.s32 %r1, %undeclared, 1;\n$L__dup:\n$L__dup:\n");
        out.push(broken.clone());
    }
    if let Some(at) = broken.find(".target sm_90a") {
        broken.replace_range(at..at + ".target sm_90a".len(), ".target sm_80");
        out.push(broken.clone());
    }
    // Undo the first edit: the remaining functions come back from the cache.
    out.push(broken.replacen("mvo", "mov", 1));
    out
}

#[test]
fn incremental_results_equal_full_checks() {
    let options = CheckOptions::default();
    for name in [
        "nvcc/hopper_asm_sm_90a.ptx",
        "nvcc/device_intrinsics_sm_90a.ptx",
        "triton/triton_attn_sm90.ptx",
    ] {
        let text = corpus(name);
        let mut cache = CheckCache::default();
        let first = check_incremental(&Parse::new(text.as_str()), &options, &mut cache);
        assert_eq!(first, check(&Parse::new(text.as_str()), &options), "{name}");
        let functions = cache.last_stats().1;
        for (i, edited) in edits(&text).iter().enumerate() {
            let parse = Parse::new(edited.as_str());
            let incremental = check_incremental(&parse, &options, &mut cache);
            assert_eq!(incremental, check(&parse, &options), "{name}, edit {i}");
            let (reused, checked) = cache.last_stats();
            assert_eq!(reused + checked, functions, "{name}, edit {i}");
        }
    }
}

#[test]
fn an_edit_in_one_function_rechecks_only_that_function() {
    let text = corpus("nvcc/device_intrinsics_sm_90a.ptx");
    let options = CheckOptions::default();
    let mut cache = CheckCache::default();
    check_incremental(&Parse::new(text.as_str()), &options, &mut cache);
    let (_, functions) = cache.last_stats();
    assert!(functions > 5, "{functions}");
    let at = text.rfind("\tret;").unwrap();
    let mut edited = text.clone();
    edited.insert_str(at, "\tmvo.u32 %r1, 1;\n");
    let diagnostics = check_incremental(&Parse::new(edited.as_str()), &options, &mut cache);
    assert_eq!(cache.last_stats(), (functions - 1, 1));
    assert!(diagnostics.iter().any(|d| d.code == "unknown-opcode"));
}

/// A check cancelled part-way (see `ptx_syntax::cancel`) stops early and leaves the cache
/// sound: the next, uncancelled check of an edited text equals a fresh check.
#[test]
fn a_cancelled_check_leaves_the_cache_sound() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let options = CheckOptions::default();
    let text = corpus("nvcc/cub_algorithms_sm_90a.ptx");
    let mut cache = CheckCache::default();
    check_incremental(&Parse::new(text.as_str()), &options, &mut cache);
    let flag = Arc::new(AtomicBool::new(true));
    for edited in edits(&text) {
        let parse = Parse::new(edited.as_str());
        {
            let _scope = ptx_syntax::cancel::scope(flag.clone());
            assert!(ptx_syntax::cancel::cancelled());
            check_incremental(&parse, &options, &mut cache);
        }
        flag.store(false, Ordering::Relaxed);
        let got = check_incremental(&parse, &options, &mut cache);
        assert_eq!(got, check(&parse, &options));
        flag.store(true, Ordering::Relaxed);
    }
}
