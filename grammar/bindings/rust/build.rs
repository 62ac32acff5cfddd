//! Compiles the generated tree-sitter parser (`src/parser.c`), through
//! `parser_fast.c`, which swaps in a jump-table `ADVANCE_MAP`.

fn main() {
    let src_dir = std::path::Path::new("src");
    let binding_dir = std::path::Path::new("bindings/rust");
    let mut c_config = cc::Build::new();
    c_config.std("c11").include(src_dir).include(binding_dir);
    #[cfg(target_env = "msvc")]
    c_config.flag("-utf-8");
    c_config.file(binding_dir.join("parser_fast.c"));
    for path in [
        src_dir.join("parser.c"),
        binding_dir.join("parser_fast.c"),
        binding_dir.join("advance_map.h"),
    ] {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    c_config.compile("tree-sitter-ptx");
}
