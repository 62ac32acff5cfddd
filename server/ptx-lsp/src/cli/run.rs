//! `ptx-lsp run [--threads N] [--set REG=VALUE]... [--max-steps N] [--no-contract] [--format human|json] FILE|-`
//! and kernel mode `--entry NAME --grid X[,Y,Z] --block X[,Y,Z] [--cluster X[,Y,Z]] --arg SPEC...`.
//!
//! Runs a snippet (a file without `.entry`) or one kernel in the interpreter
//! and prints every thread's registers (and, for kernels, every buffer's
//! final bytes). Exit 0: the run finished; 1: the program faulted or cannot
//! run (the message names the line and thread); 2: usage or I/O error.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use ptx_interp::{
    parse_arg, run_kernel, run_snippet, KernelOptions, RunError, RunErrorKind, RunResult,
    SnippetOptions, DEFAULT_MAX_STEPS,
};
use ptx_syntax::{LineIndex, Parse, PositionEncoding};

use super::Format;

#[derive(Debug, Args)]
pub(super) struct RunArgs {
    /// The PTX file to run, or `-` for standard input.
    file: PathBuf,
    /// Threads of the CTA in snippet mode (1 to 1024).
    #[arg(long, default_value_t = 1)]
    threads: u32,
    /// Start value of a register in every thread: `%r1=5`, `%f1=1.5`, `%f2=0x3f800000`.
    #[arg(long = "set", value_name = "REG=VALUE")]
    set: Vec<String>,
    /// Stop with an error after this many warp-instruction issues.
    #[arg(long, default_value_t = DEFAULT_MAX_STEPS)]
    max_steps: u64,
    /// Round every `mul` and `add` on its own instead of fusing the pairs
    /// ptxas contracts into one fused multiply-add (what the GPU runs).
    #[arg(long)]
    no_contract: bool,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Kernel mode: the `.entry` to launch.
    #[arg(long)]
    entry: Option<String>,
    /// Kernel mode: CTAs in the grid, `X[,Y,Z]`.
    #[arg(long, value_name = "X[,Y,Z]", requires = "entry")]
    grid: Option<String>,
    /// Kernel mode: threads in a CTA, `X[,Y,Z]`.
    #[arg(long, value_name = "X[,Y,Z]", requires = "entry")]
    block: Option<String>,
    /// Kernel mode: bytes of dynamic shared memory per CTA (the `.extern .shared`
    /// array). Default: what the static shared memory leaves of 227 KiB.
    #[arg(long, value_name = "BYTES", requires = "entry")]
    dynamic_smem: Option<u32>,
    /// Kernel mode: CTAs per thread-block cluster, `X[,Y,Z]` (the grid must be a
    /// multiple). Default: the kernel's `.reqnctapercluster`, else no clusters.
    #[arg(long, value_name = "X[,Y,Z]", requires = "entry")]
    cluster: Option<String>,
    /// Kernel mode: one argument per kernel parameter, in order: `u32:5`, `f32:1.5`,
    /// `raw:0011` (by-value struct bytes), `buf:f32:1,2,3`, `buf:hex:00ff`, `zeros:BYTES`,
    /// or a tensor map over buffer argument ARG for `cp.async.bulk.tensor`:
    /// `tmap:TYPE:DIMS:STRIDES:BOX:SWIZZLE:ARG[:estrides=E,..][:oob=nan][:interleave=16|32]`,
    /// e.g.
    /// `tmap:f16:64,32:128:64,16:128:1` (f16, 64 x 32 elements with rows 128 bytes
    /// apart, a 64 x 16 box, 128-byte swizzle; STRIDES `-` for one dimension);
    /// `:lower=W,..:upper=W,..` makes an im2col map whose box is CHANNELS,PIXELS.
    /// `struct:HEX;8=&2;128=tmap:...` is a by-value struct whose field at byte 8
    /// holds the address of buffer argument 2 (`&2+16`: 16 bytes into it) and at
    /// byte 128 a tensor map; buffers only such fields name follow the parameters.
    #[arg(
        long = "arg",
        value_name = "SPEC",
        requires = "entry",
        allow_hyphen_values = true
    )]
    args: Vec<String>,
}

fn usage(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

fn dims(text: &str, flag: &str) -> Result<[u32; 3], String> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(format!("{flag} takes X[,Y,Z], not `{text}`"));
    }
    let mut out = [1u32; 3];
    for (slot, part) in out.iter_mut().zip(&parts) {
        *slot = part
            .parse()
            .ok()
            .filter(|&n: &u32| n > 0)
            .ok_or_else(|| format!("{flag}: `{part}` is not a positive number"))?;
    }
    Ok(out)
}

pub(super) fn run(args: &RunArgs) -> ExitCode {
    let (name, text) = if args.file.as_os_str() == "-" {
        let mut text = String::new();
        if let Err(error) = std::io::stdin().read_to_string(&mut text) {
            return usage(format_args!("cannot read standard input: {error}"));
        }
        ("<stdin>".to_owned(), text)
    } else {
        match std::fs::read(&args.file) {
            Ok(bytes) => (
                args.file.display().to_string(),
                String::from_utf8_lossy(&bytes).into_owned(),
            ),
            Err(error) => {
                return usage(format_args!("cannot read {}: {error}", args.file.display()))
            }
        }
    };
    let parse = Parse::new(text.as_str());
    if let Some(range) = parse.too_deep() {
        let line = text[..range.start].matches('\n').count() + 1;
        eprintln!(
            "error: {}:{line}: the code nests more than {} levels deep here; it is not run",
            args.file.display(),
            ptx_syntax::MAX_NESTING
        );
        return ExitCode::from(1);
    }
    let result = match &args.entry {
        Some(entry) => {
            let grid = match args
                .grid
                .as_deref()
                .map_or(Ok([1, 1, 1]), |g| dims(g, "--grid"))
            {
                Ok(grid) => grid,
                Err(message) => return usage(message),
            };
            let block = match args
                .block
                .as_deref()
                .map_or(Ok([1, 1, 1]), |b| dims(b, "--block"))
            {
                Ok(block) => block,
                Err(message) => return usage(message),
            };
            let cluster = match args.cluster.as_deref().map(|c| dims(c, "--cluster")) {
                Some(Ok(cluster)) => Some(cluster),
                Some(Err(message)) => return usage(message),
                None => None,
            };
            let mut specs = Vec::new();
            for arg in &args.args {
                match parse_arg(arg) {
                    Ok(spec) => specs.push(spec),
                    Err(message) => return usage(message),
                }
            }
            let options = KernelOptions {
                entry: entry.clone(),
                grid,
                block,
                args: specs,
                max_steps: args.max_steps,
                hint_thread: 0,
                dynamic_smem: args.dynamic_smem,
                contract: !args.no_contract,
                cluster,
            };
            run_kernel(&parse, &options)
        }
        None => {
            if parse
                .module()
                .functions()
                .iter()
                .any(|f| f.kind() == ptx_syntax::FunctionKind::Entry)
            {
                return usage(format_args!(
                    "{name} has .entry functions: choose one with --entry NAME (and --grid, --block, --arg)"
                ));
            }
            let mut set = Vec::new();
            for item in &args.set {
                let Some((reg, value)) = item.split_once('=') else {
                    return usage(format_args!("--set takes REG=VALUE, not `{item}`"));
                };
                set.push((reg.trim().to_owned(), value.trim().to_owned()));
            }
            let options = SnippetOptions {
                threads: args.threads,
                set,
                max_steps: args.max_steps,
                hint_thread: 0,
                contract: !args.no_contract,
            };
            run_snippet(&parse, &options)
        }
    };
    match result {
        Ok(result) => {
            match args.format {
                Format::Json => outln!("{}", json(&result, args.entry.is_some())),
                Format::Human => out!("{}", human(&result)),
            }
            ExitCode::SUCCESS
        }
        Err(error) => report(&name, &text, &error),
    }
}

fn report(name: &str, text: &str, error: &RunError) -> ExitCode {
    let mut location = name.to_owned();
    if let Some(range) = &error.range {
        let index = LineIndex::new(text);
        let at = index.line_col(text, range.start, PositionEncoding::Chars);
        let _ = write!(location, ":{}:{}", at.line + 1, at.col + 1);
    }
    let who = match (error.thread, error.ctaid) {
        (Some(t), Some(c)) if c > 0 => format!("thread {t} of CTA {c}: "),
        (Some(t), _) => format!("thread {t}: "),
        _ => String::new(),
    };
    let line = error
        .range
        .as_ref()
        .and_then(|r| text.get(r.clone()))
        .map(|s| format!("\n  | {}", s.lines().next().unwrap_or("").trim()))
        .unwrap_or_default();
    eprintln!("error: {location}: {who}{}{line}", error.message);
    match error.kind {
        RunErrorKind::Usage => ExitCode::from(2),
        RunErrorKind::Program | RunErrorKind::Fault => ExitCode::from(1),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The contract's JSON; written by hand so registers keep declaration order.
fn json(result: &RunResult, kernel: bool) -> String {
    let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let mut out = String::from("{\"threads\": [");
    for (i, thread) in result.threads.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{{\"tid\": {}, \"registers\": {{", thread.tid);
        for (j, reg) in thread.registers.iter().enumerate() {
            if j > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{}: {}", quote(&reg.name), quote(&reg.text()));
        }
        out.push_str("}}");
    }
    let _ = write!(out, "], \"steps\": {}", result.steps);
    if kernel {
        out.push_str(", \"buffers\": [");
        for (i, buffer) in result.buffers.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(
                out,
                "{{\"arg\": {}, \"hex\": {}}}",
                buffer.arg,
                quote(&hex(&buffer.bytes))
            );
        }
        out.push(']');
    }
    out.push('}');
    out
}

fn human(result: &RunResult) -> String {
    let mut out = String::new();
    for thread in &result.threads {
        let _ = writeln!(out, "thread {}:", thread.tid);
        let width = thread
            .registers
            .iter()
            .map(|r| r.name.len())
            .max()
            .unwrap_or(0);
        for reg in &thread.registers {
            let typed = reg.typed_text();
            let _ = if typed.is_empty() {
                writeln!(out, "  {:width$} = {}", reg.name, reg.text())
            } else {
                writeln!(out, "  {:width$} = {}  ({typed})", reg.name, reg.text())
            };
        }
    }
    for buffer in &result.buffers {
        let _ = writeln!(
            out,
            "buffer (argument {}): {}",
            buffer.arg,
            hex(&buffer.bytes)
        );
    }
    let _ = writeln!(out, "steps: {}", result.steps);
    out
}
