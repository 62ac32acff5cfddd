//! Real CUDA headers that nvcc compiles (tests/corpus/cuda/headers) get no error, and their
//! asm statements, including those written inside `#define` bodies, are all found.

use ptx_check::Severity;
use ptx_embed::{EmbedOptions, HostDocument};

#[test]
fn cub_headers_check_clean() {
    let dir = format!(
        "{}/../../tests/corpus/cuda/headers",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the headers folder")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let mut report = String::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let doc = HostDocument::new(&text, &EmbedOptions::default());
        let in_macros = doc.statements.iter().filter(|s| s.raw.in_macro).count();
        let errors: Vec<String> = ptx_embed::check::check(&doc, &[])
            .into_iter()
            .filter(|d| d.severity == Severity::Error)
            .map(|d| format!("{}: {} {}", d.range.start, d.code, d.message))
            .collect();
        assert!(
            errors.is_empty(),
            "{}:\n{}",
            path.display(),
            errors.join("\n")
        );
        report.push_str(&format!(
            "{}: {} statements, {} in macro bodies\n",
            path.file_name().unwrap_or_default().to_string_lossy(),
            doc.statements.len(),
            in_macros
        ));
    }
    expect_test::expect![[r#"
        cub_strong_load.cuh: 22 statements, 0 in macro bodies
        cub_strong_store.cuh: 32 statements, 0 in macro bodies
        cub_thread_load.cuh: 8 statements, 8 in macro bodies
        cub_thread_store.cuh: 8 statements, 8 in macro bodies
        cub_util_ptx.cuh: 23 statements, 0 in macro bodies
        cub_warp_reduce_shfl.cuh: 5 statements, 0 in macro bodies
        cub_warp_scan_shfl.cuh: 6 statements, 0 in macro bodies
    "#]]
    .assert_eq(&report);
}
