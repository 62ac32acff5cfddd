//! Drift test: the committed `data/gen` files must equal what the generator makes from the spec.

use std::fs;
use std::path::{Path, PathBuf};

fn spec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/ptx-isa-9.1")
}

fn gen_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/gen")
}

#[test]
fn generated_data_matches_spec() {
    let spec = spec_dir();
    assert!(
        spec.join("INDEX.md").is_file(),
        "the PTX ISA spec is missing at {} (expected the markdown export in shared/ptx-isa-9.1 \
         next to the repository); the drift test cannot run without it",
        spec.display()
    );
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
         `cargo run -p ptx-isa --bin isa-gen -- ../shared/ptx-isa-9.1`"
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
