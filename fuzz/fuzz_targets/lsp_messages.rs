//! The language server's transport and message handling, in process: a fixed
//! `initialize` and `didOpen`, then the input as raw bytes of the stream (framing,
//! headers, JSON and methods all fuzzed), then `shutdown` and `exit`. The server must end
//! when its input does, within 20 s, and never panic outside a handler (a handler's panic is
//! caught and answered). Runs get a 100 ms time limit, so none outlives an input.
#![no_main]

#[allow(dead_code, unused_imports)]
#[path = "../../server/ptx-lsp/src/lsp/mod.rs"]
mod lsp;
// The settings file of a repository, which the server's settings read.
#[allow(dead_code)]
#[path = "../../server/ptx-lsp/src/project.rs"]
mod project;
// The machine code of asm statements, which `ptx/sass` reads for CUDA documents.
#[allow(dead_code)]
#[path = "../../server/ptx-lsp/src/machine_code.rs"]
mod machine_code;

use libfuzzer_sys::fuzz_target;
use tokio::io::AsyncReadExt;

fn frame(body: &str) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body.as_bytes());
    out
}

fuzz_target!(|data: &[u8]| {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .thread_stack_size(64 << 20)
        .build()
        .expect("a runtime");
    let mut input = frame(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{},"initializationOptions":{"run":{"timeLimitMs":100}}}}"#);
    input.extend(frame(r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///f.ptx","languageId":"ptx","version":1,"text":".version 8.0\n.target sm_90\n.entry k()\n{\n.reg .b32 %r<3>;\nadd.s32 %r1, %r2, 1;\nret;\n}\n"}}}"#));
    input.extend_from_slice(data);
    // Whatever the input left half-read, a blank line and a fresh header follow.
    input.extend_from_slice(b"\r\n\r\n");
    input.extend(frame(r#"{"jsonrpc":"2.0","id":"end","method":"shutdown"}"#));
    input.extend(frame(r#"{"jsonrpc":"2.0","method":"exit"}"#));
    let (client_out, mut server_out) = tokio::io::duplex(1 << 16);
    runtime.block_on(async move {
        let reader = tokio::spawn(async move {
            let mut all = Vec::new();
            let _ = server_out.read_to_end(&mut all).await;
            all
        });
        let served = tokio::time::timeout(
            std::time::Duration::from_secs(20),
            lsp::serve_streams(std::io::Cursor::new(input), client_out),
        )
        .await;
        assert!(served.is_ok(), "the server did not finish within 20 s");
        let _ = reader.await;
    });
    runtime.shutdown_background();
});
