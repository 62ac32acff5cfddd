//! Command-line interface (see ARCHITECTURE.md's command-line contract).
//!
//! Exit codes: 0 success, 1 the input has errors, 2 usage or I/O error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

/// `print!` and `println!` for the subcommands' output: a reader that goes away early
/// (`ptx-lsp check big.ptx | head`) ends the output quietly instead of a panic; the exit
/// code still reports what was found.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(&format!($($arg)*))
    };
}
macro_rules! outln {
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(&format!("{}\n", format_args!($($arg)*)))
    };
}

mod check;
mod compiler;
mod docs;
mod hover;
mod regs;
mod run;
use ptx_syntax::Parse;

#[derive(Debug, Parser)]
#[command(
    name = "ptx-lsp",
    version,
    about = "Language server and tools for NVIDIA PTX"
)]
struct Cli {
    /// With no subcommand, the language server runs on stdio.
    #[command(subcommand)]
    command: Option<Command>,
    /// Accepted and ignored: stdio is the only transport. Many LSP clients
    /// (vscode-languageclient, editor templates) pass it.
    #[arg(long)]
    stdio: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Speak the Language Server Protocol on stdin/stdout (the default).
    Serve {
        /// Accepted and ignored: stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Print the syntax tree of a file, or counts of its nodes.
    Parse(ParseArgs),
    /// How many registers each vector operand of an instruction takes.
    Regs(RegsArgs),
    /// Check PTX files against the rules of the PTX ISA (exit 1 when there are errors).
    Check(check::CheckArgs),
    /// The hover text at a position of a file (`LINE:COLUMN`, 1-based).
    Hover(hover::HoverArgs),
    /// Import the PTX ISA document for hovers, or show what is imported.
    Docs(docs::DocsArgs),
    /// Run a snippet (a file without `.entry`) or a kernel and print every register.
    Run(run::RunArgs),
    /// Speak the Debug Adapter Protocol on stdin/stdout: a debugger on the interpreter.
    ///
    /// Steps through a snippet or a kernel without a GPU. The launch arguments are
    /// the options of `run`: `program` (the file), `entry` (a kernel; without it the
    /// file runs as a snippet), `grid`, `block`, `args` (the `--arg` specs),
    /// `dynamicSmem`, `threads`, `set` (`["%r1=5"]`), `maxSteps`, `noContract`,
    /// `stopOnEntry`, `noDebug`. Threads are the warps of the running CTA; watch
    /// expressions: `%r1`, `%f2 as f16x2`, `[buf+16] as f32[8]`, `%r1@lane 7`.
    Dap,
    /// Registers, spills, stack, shared memory and occupancy of every function, from ptxas.
    Resources(compiler::ResourcesArgs),
    /// The machine code (SASS) of a file or one kernel, each instruction with its PTX line.
    Sass(compiler::SassArgs),
    /// Which ptxas, cuobjdump and nvdisasm are found, and where.
    Toolchain(compiler::ToolchainArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(Debug, Args)]
struct RegsArgs {
    /// The instruction, with or without operands, e.g. `tcgen05.ld.sync.aligned.16x128b.x4.b32`.
    instruction: String,
    /// Also check that the instruction exists on this target (e.g. `sm_100a`).
    #[arg(long)]
    target: Option<String>,
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

#[derive(Debug, Args)]
struct ParseArgs {
    /// The PTX file to parse.
    file: PathBuf,
    /// Print node, ERROR and MISSING counts; exit 1 if the file has syntax errors.
    #[arg(long, conflicts_with = "sexp")]
    stats: bool,
    /// Print the tree as an S-expression (the default).
    #[arg(long)]
    sexp: bool,
}

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let code = if error.use_stderr() { 2 } else { 0 };
            let _ = error.print();
            return ExitCode::from(code);
        }
    };
    let Some(command) = cli.command else {
        return crate::lsp::serve();
    };
    match command {
        Command::Serve { .. } => crate::lsp::serve(),
        Command::Parse(args) => parse(&args),
        Command::Check(args) => check::run(&args),
        Command::Hover(args) => hover::run(&args),
        Command::Docs(args) => docs::run(&args),
        Command::Run(args) => run::run(&args),
        Command::Dap => crate::dap::serve(),
        Command::Resources(args) => compiler::run_resources(&args),
        Command::Sass(args) => compiler::run_sass(&args),
        Command::Toolchain(args) => compiler::run_toolchain(&args),
        Command::Regs(args) => regs::run(
            &args.instruction,
            args.target.as_deref(),
            args.format == Format::Json,
        ),
    }
}

fn read(path: &Path) -> Result<String, ExitCode> {
    std::fs::read(path)
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .map_err(|error| {
            eprintln!("error: cannot read {}: {error}", path.display());
            ExitCode::from(2)
        })
}

fn parse(args: &ParseArgs) -> ExitCode {
    let text = match read(&args.file) {
        Ok(text) => text,
        Err(code) => return code,
    };
    let parse = Parse::new(text);
    if args.stats {
        let stats = parse.stats();
        outln!(
            "{}: {} nodes, {} ERROR, {} MISSING",
            args.file.display(),
            stats.nodes,
            stats.errors,
            stats.missing
        );
        if stats.errors + stats.missing > 0 {
            return ExitCode::from(1);
        }
    } else {
        out!("{}", parse.sexp());
    }
    ExitCode::SUCCESS
}

/// Writes to standard output; see [`out!`]. Once a write fails (a closed pipe), later
/// output is dropped.
pub(crate) fn write_stdout(text: &str) {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    static CLOSED: AtomicBool = AtomicBool::new(false);
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        CLOSED.store(true, Ordering::Relaxed);
        if error.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("error: cannot write the output: {error}");
        }
    }
}
