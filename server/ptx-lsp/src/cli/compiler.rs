//! The compiler's view from the command line, with the user's own ptxas:
//!
//! - `ptx-lsp toolchain [--toolkit PATH] [--format human|json]`: which ptxas, cuobjdump and
//!   nvdisasm are found, and where;
//! - `ptx-lsp resources FILE [--target SM] [--block N] [--dynamic-shared BYTES] [--format …]`:
//!   registers, spills, stack, shared memory, barriers and occupancy of every function;
//! - `ptx-lsp sass FILE [--kernel NAME] [--target SM] [--format …]`: the machine code, each
//!   instruction with the PTX line it came from.
//!
//! Exit 0: done; 1: ptxas rejected the file (its errors are printed); 2: usage or I/O error, or
//! no ptxas/nvdisasm found.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use clap::Args;
use ptx_syntax::Parse;
use ptx_toolchain::{
    compile_module, discover, document_target, module_view, CompileOptions, Early, ResourceOptions,
    Search, Toolchain,
};

use super::Format;

/// Generous: the largest real files take ptxas several seconds.
const TIME_LIMIT: Duration = Duration::from_secs(300);

#[derive(Debug, Args)]
pub(super) struct ToolchainArgs {
    /// A ptxas, or a CUDA toolkit folder (or its `bin/`), to use before the usual places.
    #[arg(long, value_name = "PATH")]
    toolkit: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

#[derive(Debug, Args)]
pub(super) struct ResourcesArgs {
    /// The PTX file.
    file: PathBuf,
    /// Compile for this target instead of the file's `.target` (`sm_90a`).
    #[arg(long)]
    target: Option<String>,
    /// Threads per block for occupancy, for kernels without `.reqntid`/`.maxntid` (default 256).
    #[arg(long, value_name = "N")]
    block: Option<u32>,
    /// Dynamic shared memory per block, in bytes, for occupancy.
    #[arg(long, value_name = "BYTES", default_value_t = 0)]
    dynamic_shared: u64,
    /// A ptxas, or a CUDA toolkit folder, to use before the usual places.
    #[arg(long, value_name = "PATH")]
    toolkit: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

#[derive(Debug, Args)]
pub(super) struct SassArgs {
    /// The PTX file, or a CUDA file (the machine code of each asm statement).
    file: PathBuf,
    /// Only this function (an `.entry` or `.func` name).
    #[arg(long)]
    kernel: Option<String>,
    /// In a CUDA file: only the asm statement on this line (1-based).
    #[arg(long, value_name = "N")]
    line: Option<u32>,
    /// Compile for this target instead of the file's `.target` (`sm_90a`).
    #[arg(long)]
    target: Option<String>,
    /// A ptxas, or a CUDA toolkit folder, to use before the usual places.
    #[arg(long, value_name = "PATH")]
    toolkit: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

fn toolchain(toolkit: Option<&Path>) -> Toolchain {
    discover(&Search::from_process(toolkit.map(Path::to_path_buf)))
}

pub(super) fn run_toolchain(args: &ToolchainArgs) -> ExitCode {
    let found = toolchain(args.toolkit.as_deref()).with_versions();
    if args.format == Format::Json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&found).expect("plain data serializes")
        );
    } else {
        out!("{}", found.describe());
    }
    ExitCode::SUCCESS
}

/// The file's text and parse, the target to compile for, and the ptxas log.
struct Compilation {
    parse: Parse,
    target: String,
    compiled: ptx_toolchain::Compiled,
}

/// With `early`, each cubin is disassembled as soon as it is made (see [`Early`]).
fn compile_file(
    file: &Path,
    target: Option<&str>,
    toolchain: &Toolchain,
    line_info: bool,
    early: Option<&Early>,
) -> Result<Compilation, ExitCode> {
    let text = super::read(file)?;
    let parse = Parse::new(text);
    let Some(target) = target
        .map(str::to_owned)
        .or_else(|| document_target(&parse))
    else {
        return Err(fail(format!(
            "{}: no `.target sm_XX` in the file; give one with --target",
            file.display()
        )));
    };
    let Some(ptxas) = &toolchain.ptxas else {
        return Err(fail(
            "no ptxas found (looked in --toolkit, CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda and \
             Python environments with the nvidia-cuda-nvcc wheel); `pip install nvidia-cuda-nvcc` \
             provides one",
        ));
    };
    let options = CompileOptions {
        target: target.clone(),
        line_info,
        time_limit: TIME_LIMIT,
    };
    let parts = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    let compiled = compile_module(
        &ptxas.path,
        &parse,
        &options,
        parts,
        &AtomicBool::new(false),
        &|cubin| {
            if let Some(early) = early {
                early.start(cubin);
            }
        },
    )
    .map_err(|e| fail(format!("{}: {e}", file.display())))?;
    Ok(Compilation {
        parse,
        target,
        compiled,
    })
}

/// Prints ptxas's diagnostics as `FILE:LINE: severity: message`; true when there was an error.
fn print_ptxas_diagnostics(file: &Path, report: &ptx_toolchain::PtxasReport) -> bool {
    let mut failed = false;
    for d in &report.diagnostics {
        let severity = match d.severity {
            ptx_toolchain::PtxasSeverity::Error => {
                failed = true;
                "error"
            }
            ptx_toolchain::PtxasSeverity::Warning => "warning",
        };
        match d.line {
            Some(line) => eprintln!("{}:{line}: ptxas {severity}: {}", file.display(), d.message),
            None => eprintln!("{}: ptxas {severity}: {}", file.display(), d.message),
        }
    }
    failed
}

pub(super) fn run_resources(args: &ResourcesArgs) -> ExitCode {
    let found = toolchain(args.toolkit.as_deref());
    let c = match compile_file(&args.file, args.target.as_deref(), &found, false, None) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let report = ptx_toolchain::parse_log(&c.compiled.log);
    let failed = print_ptxas_diagnostics(&args.file, &report) || !c.compiled.success;
    let options = ResourceOptions {
        block: args.block,
        dynamic_shared: args.dynamic_shared,
    };
    let view = module_view(&c.parse, &report, &c.target, &options);
    if args.format == Format::Json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&view).expect("plain data serializes")
        );
    } else if !failed {
        let text = c.parse.text();
        let index = ptx_syntax::LineIndex::new(text);
        outln!("{} for {}", args.file.display(), c.target);
        if !view.limits_known {
            outln!(
                "  (occupancy: the per-SM limits of {} are not known)",
                c.target
            );
        }
        for f in &view.functions {
            let line = index
                .line_col(text, f.name_start, ptx_syntax::PositionEncoding::Utf8)
                .line
                + 1;
            let kind = if f.entry { ".entry" } else { ".func" };
            outln!("{kind} {} (line {line}): {}", f.name, f.lens());
            if let (Some(o), Some(figures)) = (&f.occupancy, &f.figures) {
                outln!(
                    "  occupancy: {}",
                    o.summary(
                        figures.registers.unwrap_or(0),
                        figures.shared.unwrap_or(0) + args.dynamic_shared
                    )
                );
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

pub(super) fn run_sass(args: &SassArgs) -> ExitCode {
    let found = toolchain(args.toolkit.as_deref());
    let Some(nvdisasm) = found.nvdisasm.clone() else {
        return fail(
            "no nvdisasm found (looked in --toolkit, CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda \
             and Python environments with the nvidia-cuda-nvdisasm wheel); `pip install \
             nvidia-cuda-nvdisasm` provides one",
        );
    };
    let text = match super::read(&args.file) {
        Ok(text) => text,
        Err(code) => return code,
    };
    if ptx_embed::file_kind(&args.file.display().to_string(), &text, &[])
        == ptx_embed::FileKind::Host
    {
        return host_sass(args, &text, &found, &nvdisasm.path);
    }
    let early = Early::new(&nvdisasm.path, TIME_LIMIT);
    let c = match compile_file(
        &args.file,
        args.target.as_deref(),
        &found,
        true,
        Some(&early),
    ) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let report = ptx_toolchain::parse_log(&c.compiled.log);
    let failed = print_ptxas_diagnostics(&args.file, &report);
    if failed || c.compiled.cubins.is_empty() {
        return ExitCode::from(1);
    }
    let sass = match early.finish(&c.compiled.cubins, &AtomicBool::new(false)) {
        Ok(sass) => sass,
        Err(e) => return fail(format!("{}: {e}", args.file.display())),
    };
    let sass = match &args.kernel {
        Some(name) => match sass.only(name) {
            Some(one) => one,
            None => {
                let names: Vec<&str> = sass.functions.iter().map(|f| f.name.as_str()).collect();
                return fail(format!(
                    "no function `{name}` in the machine code of {} (functions: {})",
                    args.file.display(),
                    names.join(", ")
                ));
            }
        },
        None => sass,
    };
    if args.format == Format::Json {
        let json = serde_json::json!({
            "target": c.target,
            "ptxas_runs": c.compiled.cubins.len(),
            "text": sass.text,
            "lines": sass.lines.iter().map(|l| l.ptx_line).collect::<Vec<_>>(),
            "functions": sass.functions,
            "counts": sass.counts_per_ptx_line().into_iter().map(|(line, n)| serde_json::json!({"line": line, "instructions": n})).collect::<Vec<_>>(),
        });
        outln!(
            "{}",
            serde_json::to_string_pretty(&json).expect("plain data serializes")
        );
    } else {
        out!("{}", with_line_column(&sass, 0));
    }
    ExitCode::SUCCESS
}

/// `ptx-lsp sass FILE.cu`: the machine code of each asm statement (`--line N`: only the
/// statement on that line), each instruction with the host line it came from.
fn host_sass(args: &SassArgs, text: &str, found: &Toolchain, nvdisasm: &Path) -> ExitCode {
    let Some(ptxas) = found.ptxas.clone() else {
        return fail(
            "no ptxas found (looked in --toolkit, CUDA_HOME, CUDA_PATH, PATH, /usr/local/cuda \
             and Python environments with the nvidia-cuda-nvcc wheel)",
        );
    };
    if args.kernel.is_some() {
        return fail(
            "--kernel names a PTX function; in a CUDA file, choose a statement with --line",
        );
    }
    let options = ptx_embed::EmbedOptions {
        target: args.target.clone(),
        ..ptx_embed::EmbedOptions::for_file(&args.file, text)
    };
    let host = ptx_embed::HostDocument::new(text, &options);
    let cancel = AtomicBool::new(false);
    let tools = crate::machine_code::Tools {
        ptxas: &ptxas.path,
        nvdisasm,
        cancel: &cancel,
        time_limit: TIME_LIMIT,
    };
    let mut statements = crate::machine_code::host_sass(text, &host, &tools);
    if let Some(line) = args.line {
        let last_line = |s: &crate::machine_code::StatementSass| {
            s.line + u32::try_from(text[s.range.clone()].matches('\n').count()).unwrap_or(0)
        };
        statements.retain(|s| s.line <= line && line <= last_line(s));
        if statements.is_empty() {
            return fail(format!(
                "{}:{line}: no asm statement on this line",
                args.file.display()
            ));
        }
    }
    let failed = statements.iter().any(|s| s.outcome.is_err());
    if args.format == Format::Json {
        let json: Vec<serde_json::Value> = statements
            .iter()
            .map(|s| match &s.outcome {
                Ok(sass) => serde_json::json!({
                    "line": s.line,
                    "target": s.target,
                    "text": sass.text,
                    "lines": sass.lines.iter().map(|l| l.ptx_line).collect::<Vec<_>>(),
                    "instructions": sass.functions.iter().map(|f| f.instructions).sum::<u32>(),
                }),
                Err(error) => {
                    serde_json::json!({"line": s.line, "target": s.target, "error": error})
                }
            })
            .collect();
        outln!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "statements": json }))
                .expect("plain data serializes")
        );
    } else {
        if statements.is_empty() {
            outln!("{}: no asm statements", args.file.display());
        }
        for s in &statements {
            match &s.outcome {
                Ok(sass) => {
                    let n: u32 = sass.functions.iter().map(|f| f.instructions).sum();
                    outln!(
                        "{}:{}: asm statement, {} ({n} instruction{})",
                        args.file.display(),
                        s.line,
                        s.target,
                        if n == 1 { "" } else { "s" }
                    );
                    // (The first line names the kernel the statement was compiled as.)
                    out!("{}", with_line_column(sass, 1));
                }
                Err(error) => outln!(
                    "{}:{}: asm statement, {}: {error}",
                    args.file.display(),
                    s.line,
                    s.target
                ),
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The view's lines from `skip` on, each instruction with its source line in a column of its
/// own, as one text: a listing of 50,000 lines is one write, not one per line.
fn with_line_column(sass: &ptx_toolchain::Sass, skip: usize) -> String {
    use std::fmt::Write;
    let mut listing = String::with_capacity(sass.text.len() + 8 * sass.lines.len());
    for (text, line) in sass.text.lines().zip(&sass.lines).skip(skip) {
        let _ = match line.ptx_line.filter(|_| line.instruction) {
            Some(n) => writeln!(listing, "{n:>6}  {text}"),
            None => writeln!(listing, "        {text}"),
        };
    }
    listing
}
