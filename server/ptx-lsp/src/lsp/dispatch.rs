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
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex, OnceLock, Weak};

use tower_lsp::jsonrpc;
use tower_lsp::lsp_types::Url;

use super::documents::Snapshot;

/// What cancels an analysis besides its request being cancelled (see [`ptx_syntax::cancel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cancel {
    /// Its request is cancelled, or the server shuts down.
    Request,
    /// Also its document's closing.
    Close,
    /// Also any change of its document (a background check whose result a change makes
    /// useless).
    Change,
}

/// The cancellation flags of the analyses in progress, with their document and what
/// cancels them.
static IN_FLIGHT: Mutex<Vec<InFlight>> = Mutex::new(Vec::new());

/// An analysis in progress: its document, what cancels it, its flag.
type InFlight = (Option<Url>, Cancel, Weak<AtomicBool>);

fn set_flags(which: impl Fn(&Option<Url>, Cancel) -> bool) {
    let mut in_flight = IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner());
    in_flight.retain(|(uri, cancel, flag)| match flag.upgrade() {
        Some(flag) => {
            if which(uri, *cancel) {
                flag.store(true, Ordering::Relaxed);
            }
            true
        }
        None => false,
    });
}

/// Cancels the analyses of `uri` that its closing makes useless.
pub(crate) fn cancel_closed(uri: &Url) {
    set_flags(|u, cancel| u.as_ref() == Some(uri) && cancel != Cancel::Request);
}

/// Cancels the analyses of `uri` that any change makes useless.
pub(crate) fn cancel_changed(uri: &Url) {
    set_flags(|u, cancel| u.as_ref() == Some(uri) && cancel == Cancel::Change);
}

/// Cancels every analysis of a document (shutdown). Runs stop through their own flag and
/// answer with what they did (see `super::runs`).
pub(crate) fn cancel_all() {
    set_flags(|uri, _| uri.is_some());
}

/// Sets its flag when dropped: when tower-lsp drops a cancelled request's handler, the
/// analysis it started learns of it.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

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
    analysis_of(name, None, Cancel::Request, work).await
}

/// Runs `work` on the blocking pool inside a cancellation scope (see
/// [`ptx_syntax::cancel`]): the flag is set when the request is cancelled (its handler
/// dropped), at shutdown, and as `cancel` says for the document `uri`. A panic becomes an
/// error response; work that saw its flag set answers `RequestCancelled` (its result is
/// partial).
pub(crate) async fn analysis_of<T, F>(
    name: &'static str,
    uri: Option<&Url>,
    cancel: Cancel,
    work: F,
) -> jsonrpc::Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let flag = Arc::new(AtomicBool::new(false));
    {
        let mut in_flight = IN_FLIGHT.lock().unwrap_or_else(|e| e.into_inner());
        // Finished analyses leave dead entries: drop them now and then.
        if in_flight.len() >= 64 && in_flight.len().is_power_of_two() {
            in_flight.retain(|(_, _, flag)| flag.strong_count() > 0);
        }
        in_flight.push((uri.cloned(), cancel, Arc::downgrade(&flag)));
    }
    let _on_drop = CancelOnDrop(flag.clone());
    let started = std::time::Instant::now();
    let scoped = flag.clone();
    // Logged by the worker: a cancelled request's handler (this future) is dropped.
    let job = move || {
        let result = {
            let _scope = ptx_syntax::cancel::scope(scoped.clone());
            catch_panic(name, work)
        };
        let elapsed = started.elapsed().as_millis();
        if scoped.load(Ordering::Relaxed) {
            eprintln!("ptx-lsp: {name} cancelled after {elapsed} ms");
        } else if elapsed >= SLOW.as_millis() {
            eprintln!("ptx-lsp: {name} took {elapsed} ms");
        }
        result
    };
    // Work that any change of its document cancels is background work (the check after an
    // edit): it runs on threads of lower priority, so requests get the cores first.
    let outcome = if cancel == Cancel::Change {
        background(job).await
    } else {
        tokio::task::spawn_blocking(job)
            .await
            .map_err(|e| e.to_string())
    };
    let cancelled = flag.load(Ordering::Relaxed);
    match outcome {
        Ok(_) if cancelled => Err(jsonrpc::Error {
            code: jsonrpc::ErrorCode::RequestCancelled,
            message: format!("{name} was cancelled").into(),
            data: None,
        }),
        Ok(result) => result,
        Err(error) => {
            eprintln!("ptx-lsp: {name}: the analysis task failed: {error}");
            Err(internal_error(name, "the analysis task failed"))
        }
    }
}

/// A unit of background work.
type Job = Box<dyn FnOnce() + Send>;

/// How many background threads there are.
const BACKGROUND_THREADS: usize = 2;

/// The queue of the background threads (started on first use), or `None` if none could be
/// started.
fn background_queue() -> Option<&'static mpsc::Sender<Job>> {
    static QUEUE: OnceLock<Option<mpsc::Sender<Job>>> = OnceLock::new();
    QUEUE
        .get_or_init(|| {
            let (sender, receiver) = mpsc::channel::<Job>();
            let receiver = Arc::new(Mutex::new(receiver));
            let mut started = 0;
            for i in 0..BACKGROUND_THREADS {
                let receiver = receiver.clone();
                let spawned = std::thread::Builder::new()
                    .name(format!("ptx-lsp-background-{i}"))
                    .stack_size(STACK_BYTES)
                    .spawn(move || {
                        ptx_toolchain::pause::lower_this_threads_priority();
                        loop {
                            let job = match receiver.lock() {
                                Ok(receiver) => receiver.recv(),
                                Err(_) => return,
                            };
                            match job {
                                Ok(job) => job(),
                                Err(_) => return,
                            }
                        }
                    });
                started += usize::from(spawned.is_ok());
            }
            (started > 0).then_some(sender)
        })
        .as_ref()
}

/// Runs `job` on a background thread (on the blocking pool if there is none); the job
/// catches its own panics.
async fn background<T: Send + 'static>(
    job: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let boxed: Job = Box::new(move || {
        let _ = sender.send(job());
    });
    let boxed = match background_queue() {
        Some(queue) => match queue.send(boxed) {
            Ok(()) => None,
            Err(mpsc::SendError(boxed)) => Some(boxed),
        },
        None => Some(boxed),
    };
    if let Some(boxed) = boxed {
        tokio::task::spawn_blocking(boxed)
            .await
            .map_err(|e| e.to_string())?;
    }
    receiver
        .await
        .map_err(|_| "the background thread stopped".to_owned())
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
    let uri = gate.uri.clone();
    analysis_of(name, Some(&uri), Cancel::Close, move || {
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
