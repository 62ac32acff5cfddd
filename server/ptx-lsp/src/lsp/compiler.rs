//! The compiler's view: the user's own `ptxas` compiles each PTX document in the background
//! (on open and on save, after a short quiet period), and what it reports is shown as code
//! lenses and hovers on each `.entry`/`.func` (registers, spills, stack, shared memory,
//! occupancy), optionally as diagnostics with source `ptxas`, and on request as SASS
//! (`ptx/sass`) linked to the PTX lines.
//!
//! After each compilation the SASS is disassembled in the background as well, so that the SASS
//! view opens without waiting for `nvdisasm`.
//!
//! Results are cached by content and target: a save that changes nothing compiles nothing, and
//! the last result stays on screen while the text is edited (placed by function name on the
//! current text). A newer compilation of a document cancels the one running (its `ptxas` is
//! killed); closing the document cancels it too. Without a `ptxas` nothing of this shows.
//! `ptx/toolchain` says which tools were found.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use dashmap::DashMap;
use ptx_toolchain::{
    compile_module, discover, document_target, CompileOptions, Early, PtxasReport, Sass, Search,
    Toolchain,
};
use tower_lsp::lsp_types::{self as lsp, Url};

use super::documents::Snapshot;
use super::server::State;

/// How long after an open or save its compilation starts.
pub(crate) const QUIET: Duration = Duration::from_millis(150);
/// `ptxas` or `nvdisasm` running longer than this is stopped.
const TIME_LIMIT: Duration = Duration::from_secs(120);
/// At most this many `ptxas` runs side by side for one large module (one per core).
const MAX_PARTS: usize = 8;

/// A finished compilation.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub key: u64,
    pub target: String,
    pub report: PtxasReport,
    /// One cubin per `ptxas` run (a large module is compiled in parts side by side); empty
    /// when there is none.
    pub cubins: Arc<Vec<Vec<u8>>>,
    /// Why there is no report (no tool, a failure to run it, time limit).
    pub error: Option<String>,
    /// The disassembly, made on first request.
    sass: OnceLock<Result<Arc<Sass>, String>>,
    /// The disassemblies started as the cubins were made (none without nvdisasm).
    early: Option<Early>,
}

/// The asm statements of a CUDA document compiled (or being compiled) for one text.
#[derive(Clone)]
struct HostSlot {
    key: u64,
    cancel: Arc<AtomicBool>,
    done: Option<Arc<Vec<crate::machine_code::StatementSass>>>,
}

#[derive(Debug, Clone)]
enum Slot {
    Running { key: u64, cancel: Arc<AtomicBool> },
    Done(Arc<Compiled>),
}

/// Per-document compilations and the tools found.
#[derive(Default)]
pub(crate) struct CompilerViews {
    slots: DashMap<Url, Slot>,
    /// CUDA documents: the machine code of their asm statements, by text.
    hosts: DashMap<Url, HostSlot>,
    toolchain: Mutex<Option<(Option<String>, Arc<Toolchain>)>>,
}

impl CompilerViews {
    /// The tools, found once per value of the `compiler.path` setting.
    pub fn toolchain(&self, setting: Option<&str>) -> Arc<Toolchain> {
        let mut cached = self.toolchain.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((path, tools)) = cached.as_ref() {
            if path.as_deref() == setting {
                return tools.clone();
            }
        }
        let tools =
            Arc::new(discover(&Search::from_process(setting.map(PathBuf::from))).with_versions());
        *cached = Some((setting.map(str::to_owned), tools.clone()));
        tools
    }

    /// The latest finished compilation of a document (of whatever text).
    pub fn latest(&self, uri: &Url) -> Option<Arc<Compiled>> {
        match self.slots.get(uri).map(|s| s.clone()) {
            Some(Slot::Done(done)) => Some(done),
            _ => None,
        }
    }

    /// Cancels and forgets a closed document's compilation.
    pub fn forget(&self, uri: &Url) {
        if let Some((_, Slot::Running { cancel, .. })) = self.slots.remove(uri) {
            cancel.store(true, Ordering::Relaxed);
        }
        if let Some((_, host)) = self.hosts.remove(uri) {
            host.cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Stops every compilation (shutdown).
    pub fn stop_all(&self) {
        for slot in self.slots.iter() {
            if let Slot::Running { cancel, .. } = slot.value() {
                cancel.store(true, Ordering::Relaxed);
            }
        }
        for host in self.hosts.iter() {
            host.cancel.store(true, Ordering::Relaxed);
        }
    }
}

/// The target a document is compiled for: the `target` setting, else its `.target`.
fn target_for(state: &State, snapshot: &Snapshot) -> Option<String> {
    let config = state.config().with_project_file(&snapshot.uri);
    config
        .target
        .filter(|t| t.starts_with("sm_"))
        .or_else(|| document_target(&snapshot.parse))
}

/// A CUDA document's text and the target setting its statements may be compiled for.
fn host_key(state: &State, snapshot: &Snapshot) -> u64 {
    key_of(
        snapshot.text(),
        state.config().target.as_deref().unwrap_or(""),
    )
}

fn key_of(text: &str, target: &str) -> u64 {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    target.hash(&mut h);
    h.finish()
}

/// Compiles a PTX document in the background unless its text and target were compiled
/// already; when done, asks the client to show the new figures.
pub(crate) fn schedule(state: &Arc<State>, uri: &Url) {
    let config = state.config();
    if !config.compiler.enable {
        return;
    }
    let Some(snapshot) = state.snapshot(uri) else {
        return;
    };
    if snapshot.too_large() {
        return;
    }
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    if snapshot.host {
        let state = state.clone();
        let uri = uri.clone();
        let _ = std::thread::Builder::new()
            .name("ptx-lsp-ptxas".into())
            .spawn(move || {
                ptx_toolchain::pause::lower_this_threads_priority();
                std::thread::sleep(QUIET);
                if state.snapshot(&uri).is_some() && host_statements(&state, &snapshot).is_some() {
                    runtime.spawn(async move { state.refresh_compiler_views(&uri).await });
                }
            });
        return;
    }
    let state = state.clone();
    let uri = uri.clone();
    // Discovery and hashing run off the message loop too.
    let _ = std::thread::Builder::new()
        .name("ptx-lsp-ptxas".into())
        .spawn(move || {
            // Preparing the text, reading ptxas's log and the listing: background work.
            ptx_toolchain::pause::lower_this_threads_priority();
            std::thread::sleep(QUIET);
            // The text as saved (or opened) is compiled even when edits follow at once: it is
            // what the file holds. A later save of another text cancels this compilation.
            if state.snapshot(&uri).is_none() {
                return; // closed
            }
            let Some(compiled) = ensure(&state, &snapshot) else {
                return;
            };
            let refresh = state.clone();
            let refreshed = uri.clone();
            runtime.spawn(async move { refresh.refresh_compiler_views(&refreshed).await });
            // The disassembly is made now too, so that the SASS view opens at once.
            if !compiled.cubins.is_empty()
                && compiled.sass().is_ok()
                && state.config().compiler.sass_counts
            {
                runtime.spawn(async move { state.refresh_client_views() });
            }
        });
}

/// The compilation of `snapshot`'s text: the cached one, the one running (waited for), or a
/// new one (which cancels an older running one). `None` when compiling is off, impossible
/// (no target, no ptxas) or was cancelled by a newer text.
pub(crate) fn ensure(state: &State, snapshot: &Snapshot) -> Option<Arc<Compiled>> {
    let config = state.config();
    if !config.compiler.enable || snapshot.host {
        return None;
    }
    let target = target_for(state, snapshot)?;
    let text = snapshot.text();
    let key = key_of(text, &target);
    loop {
        let cancel = Arc::new(AtomicBool::new(false));
        // Decide under the map's entry lock what to do.
        let action = {
            let mut slot = state
                .compiler
                .slots
                .entry(snapshot.uri.clone())
                .or_insert_with(|| Slot::Running {
                    key: 0,
                    cancel: Arc::new(AtomicBool::new(true)),
                });
            match slot.value().clone() {
                Slot::Done(done) if done.key == key => return Some(done),
                Slot::Running { key: k, cancel: c } if k == key && !c.load(Ordering::Relaxed) => {
                    None // someone compiles this text: wait
                }
                Slot::Running { cancel: c, .. } => {
                    c.store(true, Ordering::Relaxed);
                    *slot = Slot::Running {
                        key,
                        cancel: cancel.clone(),
                    };
                    Some(())
                }
                Slot::Done(_) => {
                    *slot = Slot::Running {
                        key,
                        cancel: cancel.clone(),
                    };
                    Some(())
                }
            }
        };
        if action.is_none() {
            std::thread::sleep(Duration::from_millis(20));
            // A closed document ends the wait; a cancelled run is taken over above.
            state.snapshot(&snapshot.uri)?;
            continue;
        }
        let done = Arc::new(run_ptxas(state, &snapshot.parse, &target, key, &cancel)?);
        let mut slot = state.compiler.slots.get_mut(&snapshot.uri)?;
        if matches!(slot.value(), Slot::Running { key: k, .. } if *k == key) {
            *slot = Slot::Done(done.clone());
        }
        return Some(done);
    }
}

/// The machine code of every asm statement of a CUDA document's text (see
/// [`crate::machine_code`]): the cached result for this text, or a new compilation, which
/// cancels one of an older text. `None` when the compiler view is off, the tools are missing,
/// the document is not read as CUDA C++, or a newer text cancelled this one.
pub(crate) fn host_statements(
    state: &State,
    snapshot: &Snapshot,
) -> Option<Arc<Vec<crate::machine_code::StatementSass>>> {
    let config = state.config();
    if !config.compiler.enable || !snapshot.host {
        return None;
    }
    let key = host_key(state, snapshot);
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let mut slot = state
            .compiler
            .hosts
            .entry(snapshot.uri.clone())
            .or_insert_with(|| HostSlot {
                key,
                cancel: cancel.clone(),
                done: None,
            });
        if slot.key == key {
            if let Some(done) = &slot.done {
                return Some(done.clone());
            }
        }
        // Another text's compilation (or one of this text that may still be running: two
        // compilations of one text give the same result, the later simply replaces it).
        if slot.key != key {
            slot.cancel.store(true, Ordering::Relaxed);
        }
        *slot = HostSlot {
            key,
            cancel: cancel.clone(),
            done: None,
        };
    }
    let tools = state.compiler.toolchain(config.compiler.path.as_deref());
    let (Some(ptxas), Some(nvdisasm)) = (&tools.ptxas, &tools.nvdisasm) else {
        return None;
    };
    let doc = state.host_document(snapshot)?;
    let run = crate::machine_code::Tools {
        ptxas: &ptxas.path,
        nvdisasm: &nvdisasm.path,
        cancel: &cancel,
        time_limit: TIME_LIMIT,
    };
    let statements = Arc::new(crate::machine_code::host_sass(snapshot.text(), &doc, &run));
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let mut slot = state.compiler.hosts.get_mut(&snapshot.uri)?;
    if slot.key == key {
        slot.done = Some(statements.clone());
    }
    Some(statements)
}

/// The compiled statements of a CUDA document's current text, when at hand (never compiles).
pub(crate) fn host_statements_done(
    state: &State,
    snapshot: &Snapshot,
) -> Option<Arc<Vec<crate::machine_code::StatementSass>>> {
    let key = host_key(state, snapshot);
    let slot = state.compiler.hosts.get(&snapshot.uri)?;
    slot.done.clone().filter(|_| slot.key == key)
}

/// One ptxas run; `None` when cancelled.
fn run_ptxas(
    state: &State,
    parse: &ptx_syntax::Parse,
    target: &str,
    key: u64,
    cancel: &AtomicBool,
) -> Option<Compiled> {
    let config = state.config();
    let tools = state.compiler.toolchain(config.compiler.path.as_deref());
    let Some(ptxas) = &tools.ptxas else {
        return Some(Compiled {
            key,
            target: target.to_owned(),
            report: PtxasReport::default(),
            cubins: Arc::default(),
            error: Some("no ptxas found".into()),
            sass: OnceLock::new(),
            early: None,
        });
    };
    let options = CompileOptions {
        target: target.to_owned(),
        line_info: true,
        time_limit: TIME_LIMIT,
    };
    let parts = match config.compiler.jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_PARTS)),
        n => n,
    };
    // Each part is disassembled as soon as ptxas has made it, beside the parts still compiling.
    let early = tools
        .nvdisasm
        .as_ref()
        .map(|nvdisasm| Early::new(&nvdisasm.path, TIME_LIMIT));
    let made = |cubin: &[u8]| {
        if let Some(early) = &early {
            early.start(cubin);
        }
    };
    let (report, cubins, error) =
        match compile_module(&ptxas.path, parse, &options, parts, cancel, &made) {
            Ok(c) => (ptx_toolchain::parse_log(&c.log), Arc::new(c.cubins), None),
            Err(ptx_toolchain::CompileError::Cancelled) => return None,
            Err(e) => (PtxasReport::default(), Arc::default(), Some(e.to_string())),
        };
    Some(Compiled {
        key,
        target: target.to_owned(),
        report,
        cubins,
        error,
        sass: OnceLock::new(),
        early,
    })
}

impl Compiled {
    /// The SASS of the cubin (disassembled once).
    pub fn sass(&self) -> Result<Arc<Sass>, String> {
        self.sass
            .get_or_init(|| {
                if self.cubins.is_empty() {
                    return Err(self
                        .error
                        .clone()
                        .unwrap_or_else(|| "ptxas did not compile the file".into()));
                }
                let Some(early) = &self.early else {
                    return Err("no nvdisasm found (`pip install nvidia-cuda-nvdisasm`)".into());
                };
                early
                    .finish(&self.cubins, &AtomicBool::new(false))
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .clone()
    }

    /// Whether this compilation is of `snapshot`'s current text.
    pub fn is_current(&self, state: &State, snapshot: &Snapshot) -> bool {
        target_for(state, snapshot).is_some_and(|t| key_of(snapshot.text(), &t) == self.key)
    }
}

/// ptxas's own diagnostics for a document, as LSP diagnostics with source `ptxas`, leaving out
/// those on a line where `ours` already has one of the same or higher severity. Only for the
/// text that was compiled.
pub(crate) fn ptxas_diagnostics(
    state: &State,
    snapshot: &Snapshot,
    ours: &[lsp::Diagnostic],
) -> Vec<lsp::Diagnostic> {
    if !state.config().compiler.diagnostics {
        return Vec::new();
    }
    let Some(done) = state.compiler.latest(&snapshot.uri) else {
        return Vec::new();
    };
    if !done.is_current(state, snapshot) {
        return Vec::new();
    }
    let text = snapshot.text();
    let mut out = Vec::new();
    for d in &done.report.diagnostics {
        let severity = match d.severity {
            ptx_toolchain::PtxasSeverity::Error => lsp::DiagnosticSeverity::ERROR,
            ptx_toolchain::PtxasSeverity::Warning => lsp::DiagnosticSeverity::WARNING,
        };
        let line = d.line.map_or(0, |l| l.saturating_sub(1));
        let covered = ours.iter().any(|o| {
            o.range.start.line <= line
                && line <= o.range.end.line
                && o.severity.is_some_and(|s| s <= severity)
        });
        if covered {
            continue;
        }
        // The whole line (without its indentation).
        let start = nth_line_start(text, line as usize);
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let indent = text[start..end].len() - text[start..end].trim_start().len();
        out.push(lsp::Diagnostic {
            range: super::to_proto::range(snapshot, &(start + indent..end)),
            severity: Some(severity),
            code: None,
            code_description: None,
            source: Some("ptxas".into()),
            message: d.message.clone(),
            related_information: None,
            tags: None,
            data: None,
        });
    }
    out
}

fn nth_line_start(text: &str, line: usize) -> usize {
    if line == 0 {
        return 0;
    }
    text.match_indices('\n')
        .nth(line - 1)
        .map_or(text.len(), |(i, _)| i + 1)
}

/// The latest compilation's figures placed on the current text's functions (by name), with
/// the block size and dynamic shared memory of the settings.
fn module_view(state: &State, snapshot: &Snapshot) -> Option<(ptx_toolchain::ModuleView, u64)> {
    let done = state.compiler.latest(&snapshot.uri)?;
    if done.error.is_some() || done.report.functions.is_empty() {
        return None;
    }
    let config = state.config().compiler;
    let options = ptx_toolchain::ResourceOptions {
        block: config.block_size,
        dynamic_shared: config.dynamic_shared_bytes,
    };
    Some((
        ptx_toolchain::module_view(&snapshot.parse, &done.report, &done.target, &options),
        config.dynamic_shared_bytes,
    ))
}

/// A lens on each `.entry`/`.func` with ptxas's figures; clicking it opens the SASS view of
/// the function (`ptx.showSass` with the `ptx/sass` parameters).
pub(crate) fn lenses(state: &State, snapshot: &Snapshot) -> Vec<lsp::CodeLens> {
    let Some((view, _)) = module_view(state, snapshot) else {
        return Vec::new();
    };
    let stale = state
        .compiler
        .latest(&snapshot.uri)
        .is_some_and(|done| !done.is_current(state, snapshot));
    view.functions
        .iter()
        .map(|f| {
            let mut title = f.lens();
            if stale {
                title.push_str(" (as last saved)");
            }
            lsp::CodeLens {
                range: super::to_proto::range(snapshot, &(f.name_start..f.name_end)),
                command: Some(lsp::Command {
                    title,
                    command: "ptx.showSass".into(),
                    arguments: Some(vec![serde_json::json!({
                        "textDocument": {"uri": snapshot.uri.to_string()},
                        "kernel": f.name,
                    })]),
                }),
                data: None,
            }
        })
        .collect()
}

/// ptxas's figures for the function whose name is at `offset`, as hover markdown with the
/// name's range.
pub(crate) fn hover(
    state: &State,
    snapshot: &Snapshot,
    offset: usize,
) -> Option<(String, std::ops::Range<usize>)> {
    let (view, dynamic) = module_view(state, snapshot)?;
    let f = view
        .functions
        .iter()
        .find(|f| f.name_start <= offset && offset <= f.name_end)?;
    Some((f.markdown(&view.target, dynamic), f.name_start..f.name_end))
}

/// SASS instructions per PTX line (1-based) of the current text, when its disassembly is at
/// hand; otherwise it is made in the background and the client asked for hints again.
pub(crate) fn sass_counts(
    state: &Arc<State>,
    snapshot: &Snapshot,
) -> Option<std::collections::BTreeMap<u32, u32>> {
    let done = state.compiler.latest(&snapshot.uri)?;
    if !done.is_current(state, snapshot) || done.cubins.is_empty() {
        return None;
    }
    if let Some(result) = done.sass.get() {
        return result.as_ref().ok().map(|s| s.counts_per_ptx_line());
    }
    let state = state.clone();
    let runtime = tokio::runtime::Handle::try_current().ok()?;
    let _ = std::thread::Builder::new()
        .name("ptx-lsp-nvdisasm".into())
        .spawn(move || {
            ptx_toolchain::pause::lower_this_threads_priority();
            if done.sass().is_ok() {
                runtime.spawn(async move { state.refresh_client_views() });
            }
        });
    None
}
