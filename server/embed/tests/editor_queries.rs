//! The Neovim injection queries (editors/nvim/queries/{cuda,cpp}/injections.scm) compile
//! against the CUDA C++ grammar (tree-sitter-cuda, a superset of tree-sitter-cpp with the
//! same asm nodes) and capture exactly the template strings of asm statements: the pieces
//! of a concatenated template and raw strings, not the constraints nor other strings.

fn captured(query_file: &str, source: &str) -> Vec<String> {
    let path = format!(
        "{}/../../editors/nvim/queries/{query_file}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let language: tree_sitter::Language = tree_sitter_cuda::LANGUAGE.into();
    let query = tree_sitter::Query::new(&language, &text).expect("the query compiles");
    let tree = ptx_embed::find::cuda_parser()
        .parse(source, None)
        .expect("parses");
    let mut cursor = tree_sitter::QueryCursor::new();
    let mut out = Vec::new();
    let mut matches = cursor.matches(&query, tree.root_node(), source.as_bytes());
    use tree_sitter::StreamingIterator;
    while let Some(m) = matches.next() {
        for c in m.captures {
            out.push(source[c.node.byte_range()].to_string());
        }
    }
    out
}

#[test]
fn injection_queries_capture_asm_templates() {
    let source = r#"
__device__ void f(unsigned& x, unsigned long long p) {
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(x) : "l"(p));
  asm("add.u32 %0, %0, 1;\n\t"
      "add.u32 %0, %0, 2;" : "+r"(x));
  asm volatile(R"(mov.u32 %0, 7;)" : "=r"(x));
  const char* s = "not ptx";
}
"#;
    for file in ["cuda/injections.scm", "cpp/injections.scm"] {
        assert_eq!(
            captured(file, source),
            [
                "ld.global.u32 %0, [%1];",
                "add.u32 %0, %0, 1;",
                "add.u32 %0, %0, 2;",
                "mov.u32 %0, 7;"
            ],
            "{file}"
        );
    }
}
