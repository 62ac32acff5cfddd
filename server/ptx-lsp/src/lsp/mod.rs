//! The language server: LSP 3.17 over stdio, built on tower-lsp and tokio.
//!
//! This module tree is the only code that knows LSP types (architecture
//! invariant 2). Each request is handled in three steps: convert in
//! ([`from_proto`]), call a pure analysis of `ptx-ide` / `ptx-check` on a
//! snapshot of the document, convert out ([`to_proto`]). Handlers live one per
//! file under `requests/` and `notifications/`.
//!
//! Robustness rules:
//! - document edits are applied in order, synchronously, before any `.await`
//!   (invariant 6), and diagnostics carry the version they were computed for;
//!   results for a version that is no longer current are dropped;
//! - every analysis runs under `catch_unwind` ([`dispatch::analysis`]): a panic
//!   is logged to stderr and answered with an error, and the server keeps
//!   serving (invariant 5);
//! - logs go to stderr only; stdout carries nothing but LSP messages;
//! - malformed messages are answered by [`transport`] and never reach
//!   tower-lsp (which would stop reading after one).

mod capabilities;
mod compiler;
mod config;
mod diagnostics;
mod dispatch;
mod documents;
mod from_proto;
mod notifications;
mod requests;
mod runs;
mod server;
mod splice;
mod to_proto;
mod transport;

use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::{Context, Poll};

use tower_lsp::jsonrpc::{Request, Response};
use tower_lsp::Server;

pub(crate) use dispatch::STACK_BYTES;

/// Messages handled at the same time. tower-lsp stops reading once this many
/// handlers are unfinished (its default is 4); runs take at most
/// [`runs::MAX_CONCURRENT_RUNS`] of these, and a slow parse holds only the
/// requests that need it.
const MAX_CONCURRENT_MESSAGES: usize = 64;

/// Runs the server on stdin/stdout until the client sends `exit` (or closes
/// stdin). The exit code follows the spec: 0 after `shutdown`, 1 otherwise.
pub fn serve() -> ExitCode {
    // ptxas and nvdisasm run in the background, on what the server leaves of the cores.
    ptx_toolchain::pause::tools_at_lowest_priority();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("ptx-lsp")
        .thread_stack_size(dispatch::STACK_BYTES)
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("ptx-lsp: cannot start the async runtime: {error}");
            return ExitCode::from(2);
        }
    };
    let shutdown_requested =
        runtime.block_on(serve_streams(tokio::io::stdin(), tokio::io::stdout()));
    // Background analyses may still be running: do not wait for them.
    runtime.shutdown_background();
    if shutdown_requested {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Serves one client on a pair of byte streams until it sends `exit` or its
/// input ends; returns whether `shutdown` was received. (The fuzz target of
/// the transport and message handling calls this with in-memory streams.)
pub async fn serve_streams<I, O>(input: I, output: O) -> bool
where
    I: tokio::io::AsyncRead + Unpin + Send + 'static,
    O: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (service, socket) = server::build();
    let shutdown = service.inner().shutdown_flag();
    let exit = Arc::new(tokio::sync::Notify::new());
    let service = ExitWatch {
        inner: service,
        exit: exit.clone(),
    };
    let (input, output) = transport::spawn(input, output);
    let serving = Server::new(input, output, socket)
        .concurrency_level(MAX_CONCURRENT_MESSAGES)
        .serve(service);
    tokio::select! {
        () = serving => {}
        () = exit.notified() => {
            // Give the writer a moment to flush anything still queued.
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    shutdown.load(Ordering::SeqCst)
}

/// Forwards every message to the LSP service and wakes `serve` when the
/// client sends `exit`, so that the process ends without waiting for stdin
/// to close.
struct ExitWatch<S> {
    inner: S,
    exit: Arc<tokio::sync::Notify>,
}

impl<S> tower::Service<Request> for ExitWatch<S>
where
    S: tower::Service<Request, Response = Option<Response>>,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = Option<Response>;
    type Error = S::Error;
    type Future = std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Option<Response>, S::Error>> + Send>,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let is_exit = request.method() == "exit";
        let future = self.inner.call(request);
        let exit = self.exit.clone();
        Box::pin(async move {
            let response = future.await;
            if is_exit {
                exit.notify_one();
            }
            response
        })
    }
}

/// Whether test-only requests (`ptx/internal/panic`) are enabled: only when
/// the environment variable `PTX_LSP_TEST_REQUESTS=1` is set.
pub(crate) fn test_requests_enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var("PTX_LSP_TEST_REQUESTS").as_deref() == Ok("1"))
}
