//! Diagnostics: computed by the rule checker, published after changes, and
//! served to pull requests.
//!
//! Scheduling is leading-edge with a trailing debounce: the first change
//! after a quiet period is checked at once (no added latency for a single
//! keystroke); changes that arrive while a check runs only mark the document
//! dirty, and one more check of the latest text follows [`DEBOUNCE`] after
//! the running one ends (at once when the change came after the check, while
//! its result was being published). A result is published only if the document is still
//! at the generation it was computed for, so stale diagnostics never reach
//! the client, and the last published set always belongs to the latest text.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use dashmap::DashMap;
use tower_lsp::lsp_types::{self as lsp, Url};

use super::config::Config;
use super::documents::{Snapshot, MAX_ANALYZED_BYTES};
use super::server::State;
use super::{dispatch, to_proto};

/// How long to wait after a check before checking again during an edit burst.
pub(crate) const DEBOUNCE: Duration = Duration::from_millis(50);

/// The checker's result for one generation of a document.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    pub generation: u64,
    pub diagnostics: Arc<Vec<ptx_check::Diagnostic>>,
    pub lsp: Arc<Vec<lsp::Diagnostic>>,
}

/// Per-document scheduling flags, the last result, the checker's
/// per-function cache (so an edit re-checks only the function it touched),
/// and what the latest `ptx/run` left to show.
#[derive(Default)]
pub(crate) struct DiagnosticsState {
    schedules: DashMap<Url, Schedule>,
    results: DashMap<Url, Checked>,
    caches: DashMap<Url, Arc<Mutex<ptx_check::CheckCache>>>,
    runs: DashMap<Url, RunMarks>,
}

/// What the latest `ptx/run` of a document shows until the next edit: the
/// values each line wrote for the selected thread (inlay hints) and the
/// run-time fault, if any (a diagnostic on the faulting line).
#[derive(Debug, Clone)]
pub(crate) struct RunMarks {
    pub generation: u64,
    /// Changes with every run, so pulled diagnostics are not "unchanged".
    pub serial: u64,
    /// `(byte offset at the end of the statement, text)`.
    pub values: Vec<(usize, String)>,
    pub error: Option<lsp::Diagnostic>,
}

#[derive(Debug, Default, Clone, Copy)]
struct Schedule {
    running: bool,
    dirty: bool,
    /// The running check is done and its result is being published: a change arriving now
    /// is checked at once (it is the first of a new burst, not part of the one just checked).
    publishing: bool,
    /// A change arrived while publishing.
    urgent: bool,
}

impl DiagnosticsState {
    /// The cached result for a snapshot's generation.
    pub fn cached(&self, snapshot: &Snapshot) -> Option<Checked> {
        self.results
            .get(&snapshot.uri)
            .filter(|c| c.generation == snapshot.generation)
            .map(|c| c.clone())
    }

    pub fn forget(&self, uri: &Url) {
        self.results.remove(uri);
        self.schedules.remove(uri);
        self.caches.remove(uri);
        self.runs.remove(uri);
    }

    pub fn set_run_marks(&self, uri: &Url, marks: RunMarks) {
        self.runs.insert(uri.clone(), marks);
    }

    /// The latest run's marks, if they belong to this generation of the text.
    pub fn run_marks(&self, uri: &Url, generation: u64) -> Option<RunMarks> {
        self.runs
            .get(uri)
            .filter(|m| m.generation == generation)
            .map(|m| m.clone())
    }

    fn cache(&self, uri: &Url) -> Arc<Mutex<ptx_check::CheckCache>> {
        self.caches.entry(uri.clone()).or_default().clone()
    }

    fn store(&self, uri: &Url, checked: Checked) {
        self.results.insert(uri.clone(), checked);
    }
}

/// Checks a snapshot (the pure part, run on the blocking pool), reusing the
/// per-function results in `cache` where the text around them is unchanged.
pub(crate) fn check(
    snapshot: &Snapshot,
    config: &Config,
    cache: &Mutex<ptx_check::CheckCache>,
    host: Option<&ptx_embed::HostDocument>,
) -> Checked {
    let diagnostics = if !config.diagnostics.enable {
        Vec::new()
    } else if snapshot.too_large() {
        vec![ptx_check::Diagnostic::new(
            "file-too-large",
            ptx_check::Severity::Information,
            0..0,
            format!(
                "this file is larger than {} MiB and is not analysed",
                MAX_ANALYZED_BYTES >> 20
            ),
        )]
    } else if let Some(host) = host {
        // A CUDA/C++ file: the diagnostics of its asm statements, in host ranges.
        ptx_embed::check::check(host, &config.diagnostics.disabled)
    } else {
        // A poisoned cache only means an earlier check panicked: start afresh.
        let mut cache = cache.lock().unwrap_or_else(|poisoned| {
            let mut guard = poisoned.into_inner();
            *guard = ptx_check::CheckCache::default();
            guard
        });
        ptx_check::check_incremental(&snapshot.parse, &config.check_options(), &mut cache)
    };
    let lsp = diagnostics
        .iter()
        .map(|d| to_proto::diagnostic(snapshot, d))
        .collect();
    Checked {
        generation: snapshot.generation,
        diagnostics: Arc::new(diagnostics),
        lsp: Arc::new(lsp),
    }
}

/// The diagnostics of a snapshot, from the cache or computed now.
pub(crate) async fn for_snapshot(
    state: &Arc<State>,
    snapshot: Snapshot,
) -> tower_lsp::jsonrpc::Result<Checked> {
    checked(state, snapshot, dispatch::Cancel::Close).await
}

/// Like [`for_snapshot`], for the background check: a change of the document cancels it.
async fn checked(
    state: &Arc<State>,
    snapshot: Snapshot,
    cancel: dispatch::Cancel,
) -> tower_lsp::jsonrpc::Result<Checked> {
    if let Some(checked) = state.diagnostics.cached(&snapshot) {
        return Ok(checked);
    }
    let config = state.config().with_project_file(&snapshot.uri);
    let uri = snapshot.uri.clone();
    let cache = state.diagnostics.cache(&uri);
    let host_state = state.clone();
    let checked = dispatch::analysis_of("diagnostics", Some(&uri), cancel, move || {
        let _pause = ptx_toolchain::pause::interactive();
        // A file too large to analyse is not read for asm statements either.
        let host = if snapshot.too_large() {
            None
        } else {
            host_state.host_document(&snapshot)
        };
        check(&snapshot, &config, &cache, host.as_deref())
    })
    .await?;
    if state.documents.generation(&uri) == Some(checked.generation) {
        state.diagnostics.store(&uri, checked.clone());
    }
    Ok(checked)
}

/// The diagnostics to show for a checked generation: the checker's, and the
/// fault of the latest run of that same text.
pub(crate) fn shown(state: &State, uri: &Url, checked: &Checked) -> Vec<lsp::Diagnostic> {
    let mut shown = checked.lsp.to_vec();
    if let Some(snapshot) = state
        .snapshot(uri)
        .filter(|s| s.generation == checked.generation)
    {
        let extra = super::compiler::ptxas_diagnostics(state, &snapshot, &shown);
        shown.extend(extra);
    }
    if let Some(error) = state
        .diagnostics
        .run_marks(uri, checked.generation)
        .and_then(|m| m.error)
    {
        shown.push(error);
    }
    shown
}

/// Publishes the diagnostics of the document's current text again (push mode), when they are
/// computed already.
pub(crate) async fn publish_current(state: &Arc<State>, uri: &Url) {
    let Some(snapshot) = state.snapshot(uri) else {
        return;
    };
    if let Some(checked) = state.diagnostics.cached(&snapshot) {
        state
            .client
            .publish_diagnostics(
                uri.clone(),
                shown(state, uri, &checked),
                Some(snapshot.version),
            )
            .await;
    }
}

/// Parses the document's current text now, on a thread of normal priority: the check that
/// follows runs on a background thread of lower priority, and a request arriving meanwhile
/// would otherwise wait for the parse that thread makes (every reader of one version shares
/// one parse), at the background thread's pace on a busy machine.
pub(crate) fn prepare(state: &Arc<State>, uri: &Url) {
    let Some(snapshot) = state.snapshot(uri) else {
        return;
    };
    if snapshot.host || snapshot.too_large() {
        return;
    }
    tokio::task::spawn_blocking(move || {
        let _ = dispatch::catch_panic("parse", || {
            if snapshot.analysable() {
                let _ = &*snapshot.line_index;
            }
        });
    });
}

/// Asks for the document to be checked (and, in push mode, published).
pub(crate) fn schedule(state: &Arc<State>, uri: Url) {
    {
        let mut schedule = state.diagnostics.schedules.entry(uri.clone()).or_default();
        if schedule.running {
            schedule.dirty = true;
            schedule.urgent |= schedule.publishing;
            return;
        }
        schedule.running = true;
    }
    let state = state.clone();
    tokio::spawn(async move {
        loop {
            let Some(snapshot) = state.snapshot(&uri) else {
                break;
            };
            let version = snapshot.version;
            let generation = snapshot.generation;
            // A background `ptxas` stops until these diagnostics are out (it would take a
            // core from the check on a small machine).
            let pause = ptx_toolchain::pause::interactive();
            let checked = checked(&state, snapshot, dispatch::Cancel::Change).await;
            if let Some(mut schedule) = state.diagnostics.schedules.get_mut(&uri) {
                schedule.publishing = true;
            }
            if let Ok(checked) = checked {
                let current = state.documents.generation(&uri) == Some(generation);
                if current && state.push_diagnostics() {
                    state
                        .client
                        .publish_diagnostics(
                            uri.clone(),
                            shown(&state, &uri, &checked),
                            Some(version),
                        )
                        .await;
                }
            }
            drop(pause);
            let again = match state.diagnostics.schedules.get_mut(&uri) {
                Some(mut schedule) => {
                    let again = schedule.dirty.then_some(schedule.urgent);
                    schedule.dirty = false;
                    schedule.publishing = false;
                    schedule.urgent = false;
                    schedule.running = again.is_some();
                    again
                }
                None => None,
            };
            match again {
                None => {
                    super::requests::formatting::warm_up(&state, &uri);
                    break;
                }
                // A burst of changes during the check: wait for it to settle.
                Some(false) => tokio::time::sleep(DEBOUNCE).await,
                Some(true) => {}
            }
        }
    });
}
