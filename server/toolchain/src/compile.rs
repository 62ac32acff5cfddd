//! One `ptxas` run over a PTX text, with a time limit and cancellation.
//!
//! The text is written to a private temporary folder, `ptxas -v [-lineinfo] -arch=TARGET
//! [--split-compile 0]` writes the cubin beside it (every core optimising functions where
//! that `ptxas` can), and the log (stdout and stderr, which `-v` and diagnostics use) is read
//! back from files, so a chatty run can never block on a full pipe. The child is polled: a
//! cancellation flag or the time limit kills it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How to run `ptxas`.
#[derive(Debug, Clone)]
pub struct CompileOptions {
    /// `-arch=` (`sm_90a`).
    pub target: String,
    /// `-lineinfo`: the cubin keeps the PTX line of every SASS instruction (for the SASS view).
    pub line_info: bool,
    /// Killed after this long.
    pub time_limit: Duration,
}

/// What a run gave.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The cubin, when `ptxas` succeeded (one per run when the module was compiled in parts:
    /// [`crate::split::compile_module`]).
    pub cubins: Vec<Vec<u8>>,
    /// `ptxas`'s output (`-v` figures, warnings, errors), with the temporary file's path
    /// replaced by `<input>`.
    pub log: String,
    /// Whether `ptxas` exited with status 0.
    pub success: bool,
    pub elapsed: Duration,
}

/// Why there is no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompileError {
    /// The tool could not be started or its files not written or read.
    Io(String),
    Cancelled,
    /// The time limit ran out.
    TimedOut(Duration),
}

impl std::fmt::Display for CompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CompileError::Io(message) => write!(f, "{message}"),
            CompileError::Cancelled => write!(f, "cancelled"),
            CompileError::TimedOut(limit) => {
                write!(f, "ptxas took longer than {} s", limit.as_secs_f64())
            }
        }
    }
}

impl std::error::Error for CompileError {}

/// Runs `ptxas` at `ptxas` over `ptx`.
pub fn compile(
    ptxas: &Path,
    ptx: &str,
    options: &CompileOptions,
    cancel: &AtomicBool,
) -> Result<Compiled, CompileError> {
    compile_with(ptxas, ptx, options, cancel, true)
}

/// [`compile`], with `--split-compile 0` (ptxas's own threads, one function each) only when
/// `threads`: runs already side by side on every core gain nothing from more threads (on 2
/// cores, two runs of the 1.9 MB CUB file's halves took 3.56 s with their disassembly
/// without them and 3.77 s with them).
pub(crate) fn compile_with(
    ptxas: &Path,
    ptx: &str,
    options: &CompileOptions,
    cancel: &AtomicBool,
    threads: bool,
) -> Result<Compiled, CompileError> {
    let scratch = Scratch::new()?;
    let input = scratch.path.join("input.ptx");
    let output = scratch.path.join("output.cubin");
    let log = scratch.path.join("log.txt");
    std::fs::write(&input, ptx).map_err(|e| io("cannot write the PTX for ptxas", &e))?;
    let log_file = std::fs::File::create(&log).map_err(|e| io("cannot create the log", &e))?;
    let log_err = log_file
        .try_clone()
        .map_err(|e| io("cannot create the log", &e))?;
    let mut command = Command::new(ptxas);
    command.arg("-v").arg(format!("-arch={}", options.target));
    if options.line_info {
        command.arg("-lineinfo");
    }
    if threads && splits_compilation(ptxas) {
        // The functions are optimised on every core; the machine code is the same.
        command.arg("--split-compile").arg("0");
    }
    command
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(log_err);
    let start = Instant::now();
    let status = run_until_done(&mut command, ptxas, cancel, options.time_limit)?;
    let text = std::fs::read(&log).map_err(|e| io("cannot read ptxas's output", &e))?;
    let text = String::from_utf8_lossy(&text).replace(&input.display().to_string(), "<input>");
    let cubins = if status.success() {
        vec![std::fs::read(&output).map_err(|e| io("cannot read the cubin", &e))?]
    } else {
        Vec::new()
    };
    Ok(Compiled {
        cubins,
        log: text,
        success: status.success(),
        elapsed: start.elapsed(),
    })
}

/// Whether the `ptxas` at `ptxas` takes `--split-compile` (CUDA 12.0 and later); asked once
/// per path (`ptxas --help`).
fn splits_compilation(ptxas: &Path) -> bool {
    static KNOWN: std::sync::Mutex<Vec<(PathBuf, bool)>> = std::sync::Mutex::new(Vec::new());
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, splits)) = known.iter().find(|(path, _)| path == ptxas) {
        return *splits;
    }
    let splits = Command::new(ptxas)
        .arg("--help")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("--split-compile"));
    known.push((ptxas.to_owned(), splits));
    splits
}

/// Runs `command` (the tool at `tool`) to its end, polling it: `cancel` or the time limit kills
/// it. Shared by the ptxas and nvdisasm runs.
pub(crate) fn run_until_done(
    command: &mut Command,
    tool: &Path,
    cancel: &AtomicBool,
    time_limit: Duration,
) -> Result<std::process::ExitStatus, CompileError> {
    let start = Instant::now();
    let child = command
        .spawn()
        .map_err(|e| io(&format!("cannot run {}", tool.display()), &e))?;
    // Stopped while the editor's own work runs (see `pause`).
    let mut child = crate::pause::Tracked::new(child);
    loop {
        if let Some(status) = child
            .try_wait()
            .map_err(|e| io(&format!("cannot wait for {}", tool.display()), &e))?
        {
            return Ok(status);
        }
        let cancelled = cancel.load(Ordering::Relaxed);
        if cancelled || start.elapsed() > time_limit {
            child.kill();
            return Err(if cancelled {
                CompileError::Cancelled
            } else {
                CompileError::TimedOut(time_limit)
            });
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn io(what: &str, error: &std::io::Error) -> CompileError {
    CompileError::Io(format!("{what}: {error}"))
}

/// A private temporary folder, removed when dropped.
#[derive(Debug)]
pub(crate) struct Scratch {
    pub path: PathBuf,
}

impl Scratch {
    pub fn new() -> Result<Scratch, CompileError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("ptx-lsp-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).map_err(|e| io("cannot make a temporary folder", &e))?;
        Ok(Scratch { path })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}
