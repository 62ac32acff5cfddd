//! `isa-gen SPEC_DIR [OUT_DIR]`: regenerate `data/gen/*.isa` from the PTX ISA markdown export.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(spec) = args.next() else {
        eprintln!("usage: isa-gen SPEC_DIR [OUT_DIR]   (SPEC_DIR: the markdown export of the PTX ISA, e.g. $PTX_ISA_DIR)");
        return ExitCode::FAILURE;
    };
    let out = args.next().map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("data")
            .join("gen")
    });
    match ptx_isa::specgen::write_all(std::path::Path::new(&spec), &out) {
        Ok(n) => {
            println!("wrote {n} files to {}", out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("isa-gen: {e}");
            ExitCode::FAILURE
        }
    }
}
