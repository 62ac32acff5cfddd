//! `docs import` of one arbitrary file, read as markdown and as HTML: a clear error or an
//! index, never a panic or a hang.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("ptx-fuzz-docs-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    for name in ["spec.md", "spec.html"] {
        let path = dir.join(name);
        if std::fs::write(&path, data).is_ok() {
            let _ = ptx_docs::parse_input(&path);
        }
    }
});
