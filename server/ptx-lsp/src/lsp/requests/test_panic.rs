//! `ptx/internal/panic`: a request whose handler panics, registered only when
//! `PTX_LSP_TEST_REQUESTS=1`, so that the end-to-end tests can prove that a
//! panicking handler is caught and the server keeps serving.

use tower_lsp::jsonrpc::Result;

use crate::lsp::dispatch;

pub(crate) async fn handle(_params: serde_json::Value) -> Result<serde_json::Value> {
    dispatch::analysis("ptx/internal/panic", || -> serde_json::Value {
        panic!("deliberate panic requested by a test")
    })
    .await
}
