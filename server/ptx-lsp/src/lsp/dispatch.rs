//! Running analyses off the async threads, with panics caught.
//!
//! Every request handler calls its analysis through [`analysis`]: the work
//! runs on tokio's blocking pool (a 2 MB file can take a while and must not
//! stall the message loop), inside `catch_unwind`. A panic is logged to
//! stderr with the request's name and answered with an `InternalError`; the
//! server keeps serving (architecture invariant 5). The threads have stacks
//! of [`STACK_BYTES`], for analyses that recurse as deep as the syntax tree
//! nests, up to [`ptx_syntax::MAX_NESTING`] (deeper trees are not walked).

use std::panic::{catch_unwind, AssertUnwindSafe};

use tower_lsp::jsonrpc;

use super::documents::Snapshot;

/// The stack of every thread that runs analyses: 64 KiB per level of
/// nesting the analyses accept, reserved address space rather than memory.
pub(crate) const STACK_BYTES: usize = 64 << 20;

/// Analyses slower than this are logged (with their time) to stderr.
const SLOW: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `work` on the blocking pool; a panic becomes an error response.
pub(crate) async fn analysis<T, F>(name: &'static str, work: F) -> jsonrpc::Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let started = std::time::Instant::now();
    let outcome = tokio::task::spawn_blocking(move || catch_panic(name, work)).await;
    let elapsed = started.elapsed();
    if elapsed >= SLOW {
        eprintln!("ptx-lsp: {name} took {} ms", elapsed.as_millis());
    }
    match outcome {
        Ok(result) => result,
        Err(error) => {
            eprintln!("ptx-lsp: {name}: the analysis task failed: {error}");
            Err(internal_error(name, "the analysis task failed"))
        }
    }
}

/// Runs a feature's analysis of `gate` (a snapshot) like [`analysis`], unless the
/// document is not analysed (see [`Snapshot::analysable`]): then the answer
/// is empty (`T::default()`, `null` for most requests) and nothing walks the
/// tree. The diagnostics say why.
pub(crate) async fn feature<T, F>(name: &'static str, gate: Snapshot, work: F) -> jsonrpc::Result<T>
where
    T: Default + Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    analysis(name, move || {
        if gate.analysable() {
            work()
        } else {
            T::default()
        }
    })
    .await
}

/// Runs `work` here, turning a panic into an error (for the few analyses
/// that are cheap enough to run inline).
pub(crate) fn catch_panic<T>(name: &'static str, work: impl FnOnce() -> T) -> jsonrpc::Result<T> {
    catch_unwind(AssertUnwindSafe(work)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        eprintln!("ptx-lsp: {name} panicked: {message}; the server keeps running");
        internal_error(name, &message)
    })
}

pub(crate) fn internal_error(name: &str, message: &str) -> jsonrpc::Error {
    jsonrpc::Error {
        code: jsonrpc::ErrorCode::InternalError,
        message: format!("{name} failed: {message}").into(),
        data: None,
    }
}

/// The error for a request about a document that is not open.
pub(crate) fn not_open(uri: &tower_lsp::lsp_types::Url) -> jsonrpc::Error {
    jsonrpc::Error::invalid_params(format!("{uri} is not open"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_becomes_an_internal_error() {
        let result: jsonrpc::Result<()> = analysis("test", || panic!("boom")).await;
        let error = result.unwrap_err();
        assert_eq!(error.code, jsonrpc::ErrorCode::InternalError);
        assert!(error.message.contains("boom"));
        assert_eq!(analysis("test", || 7).await.unwrap(), 7);
    }
}
