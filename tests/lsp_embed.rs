//! End-to-end: the server on a CUDA C++ buffer. Only the asm statements are analysed;
//! every range lands on the characters inside the string literal.

#[path = "lsp_common/mod.rs"]
mod common;

use common::*;
use serde_json::{json, Value};

const KERNEL: &str = r#"#include <cstdint>
__device__ uint32_t lane() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}
__device__ void arrive(uint32_t bar) {
  asm volatile("mbarrier.arive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
__device__ float add3(float a, float b) {
  float c;
  asm("add.f32 %0, %1, %2;\n\t"
      "add.f32 %0, %0, %3;" : "=f"(c) : "f"(a), "f"(b));
  return c;
}
__device__ void mma(float* d, const uint32_t* a, const uint32_t* b) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
"#;

fn open_cuda(client: &mut LspClient, uri: &str, text: &str) {
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": text}}),
    );
}

fn at(uri: &str, needle: &str) -> Value {
    json!({"textDocument": {"uri": uri}, "position": position(KERNEL, offset_of(KERNEL, needle, 0))})
}

#[test]
fn asm_statements_of_a_cuda_buffer() {
    let uri = file_uri("kernel.cu");
    let mut client = LspClient::initialized(json!({}), Value::Null);
    open_cuda(&mut client, &uri, KERNEL);

    // Diagnostics: on the qualifier and the placeholder inside the literals, nothing on C++.
    let diagnostics = client.diagnostics(&uri, Some(1));
    let shown: Vec<String> = published(&diagnostics)
        .into_iter()
        .map(|(l1, c1, l2, c2, code, _)| {
            let start = offset_at(KERNEL, l1, c1);
            let end = offset_at(KERNEL, l2, c2);
            format!("{code} {l1}:{c1} `{}`", &KERNEL[start..end])
        })
        .collect();
    assert_eq!(
        shown,
        [
            "unknown-qualifier 7:24 `.arive`",
            "asm-operand-number 12:23 `%3`"
        ]
    );

    // Quick fix: rewrites the qualifier inside the literal.
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri},
               "range": {"start": position(KERNEL, offset_of(KERNEL, ".arive", 0)),
                         "end": position(KERNEL, offset_of(KERNEL, ".arive", 0))},
               "context": {"diagnostics": []}}),
    );
    let edits = actions[0]["edit"]["changes"][&uri]
        .as_array()
        .unwrap()
        .clone();
    let fixed = apply_edits(KERNEL, &edits);
    assert!(
        fixed.contains("\"mbarrier.arrive.shared::cta.b64 _, [%0];\""),
        "{fixed}"
    );

    // Hover on a placeholder shows the C++ operand and its constraint.
    let hover = client.request("textDocument/hover", at(&uri, "%0, %%laneid"));
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(
        text.contains("\"=r\"(r)") && text.contains("32-bit"),
        "{text}"
    );
    // Hover on an opcode is the PTX hover; on C++ code, nothing.
    let hover = client.request("textDocument/hover", at(&uri, "mov.u32"));
    assert!(hover["contents"]["value"].as_str().unwrap().contains("mov"));
    let hover = client.request("textDocument/hover", at(&uri, "__device__"));
    assert!(hover.is_null(), "{hover}");

    // Completion of qualifiers inside the string; nothing outside asm strings.
    let mut after_dot = at(&uri, "u32 %0, %%laneid");
    after_dot["position"]["character"] =
        json!(after_dot["position"]["character"].as_u64().unwrap());
    let items = client.request("textDocument/completion", after_dot);
    let labels: Vec<&str> = items["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["label"].as_str())
        .collect();
    assert!(labels.iter().any(|l| l.contains("u32")), "{labels:?}");
    let items = client.request("textDocument/completion", at(&uri, "uint32_t r;"));
    assert!(
        items.is_null() || items["items"].as_array().is_some_and(|a| a.is_empty()),
        "{items}"
    );

    // Register-count hints after the mma fragments.
    let hints = client.request(
        "textDocument/inlayHint",
        json!({"textDocument": {"uri": uri},
               "range": {"start": {"line": 0, "character": 0}, "end": {"line": 30, "character": 0}}}),
    );
    let labels: Vec<String> = hints
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["label"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(labels.iter().any(|l| l.contains("4×")), "{labels:?}");

    // Semantic tokens: none by default (the C++ server colours the file) ...
    let tokens = client.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(tokens.is_null(), "{tokens}");
    // ... and with `hostSemanticTokens`, only inside the templates; the first is `mov`.
    client.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"ptx": {"hostSemanticTokens": true}}}),
    );
    let tokens = client.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    let data: Vec<u64> = tokens["data"]
        .as_array()
        .unwrap_or_else(|| panic!("token data: {tokens}"))
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    assert!(data.len() >= 5, "{tokens}");
    let start = offset_at(KERNEL, data[0], data[1]);
    assert_eq!(&KERNEL[start..start + data[2] as usize], "mov");

    // PTX-only features answer nothing for a C++ buffer.
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    assert!(symbols.is_null(), "{symbols}");
    assert!(client.shutdown_and_exit().success());
}

/// The byte offset of an LSP position (UTF-16 columns; the fixture is ASCII).
fn offset_at(text: &str, line: u64, character: u64) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line as usize)
        .map(str::len)
        .sum();
    start + character as usize
}
