//! Interpreter for PTX snippets and kernels.
//!
//! [`run_snippet`] executes the top-level statements of a file (no `.entry`)
//! on N threads of one CTA; [`run_kernel`] launches one `.entry` on a grid,
//! with buffers and scalars as arguments. Both are pure functions of the
//! parsed text and the options: they never panic and never run longer than
//! the step limit. Results carry raw register bits, final buffer bytes and,
//! for one selected thread, the values each line wrote (for inlay hints).
//!
//! Semantics are checked against an H100: see `fixtures/` and
//! `tests/gpu_fixtures.rs`.

mod accumulate;
mod asynccopy;
mod bulk;
mod cluster;
mod contract;
mod control;
mod cvt;
mod debug;
mod decode;
mod engine;
mod float;
mod int;
mod ir;
mod math;
mod matrix;
mod mem;
mod memory;
mod mufu;
mod pack;
mod run;
mod softfloat;
mod tensor;
mod tma;
mod video;
mod warp;
mod warpgroup;
mod wmma;

use ptx_syntax::TextRange;

pub use debug::{
    cell_text, instruction_layout, Access, BreakpointSpec, BreakpointState, CellView,
    DataBreakpointSpec, DataInfo, DebugTarget, Evaluated, FrameView, LayoutView, MatrixView,
    Outcome, RegView, Resume, Resumed, Session, StopReason, WarpView,
};
pub use memory::MAX_SHARED_PER_CTA;
pub use run::{
    parse_arg, run_kernel, run_kernel_stoppable, run_snippet, run_snippet_stoppable, ArgSpec,
    StructField,
};
pub use tma::{ElemType, TensorMapSpec};

/// The first statement the interpreter cannot execute, with why: in the snippet
/// (`entry: None`) or in the kernel `entry` and the functions it calls. `None` when every
/// statement is one it executes (`trap` and `brkpt` count: they stop the run on purpose).
/// Lets an editor offer to run only what can run, or say which line blocks it.
pub fn first_unsupported(
    parse: &ptx_syntax::Parse,
    entry: Option<&str>,
) -> Option<(TextRange, String)> {
    let mode = match entry {
        Some(name) => decode::Mode::Kernel(name),
        None => decode::Mode::Snippet,
    };
    let program = match decode::decode(parse, mode) {
        Ok(program) => program,
        Err(error) => return Some((error.range, error.message)),
    };
    program.insts.iter().find_map(|inst| match &inst.op {
        Op::Unsupported(message) if !message.ends_with("stops the kernel") => {
            Some((inst.range.clone(), message.clone()))
        }
        _ => None,
    })
}

/// Default step limit (warp-instruction issues).
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

/// Options of a snippet run.
#[derive(Debug, Clone)]
pub struct SnippetOptions {
    /// Threads of the single CTA (1..=1024).
    pub threads: u32,
    /// Start values given to every thread: register name and value text
    /// (`0x3f800000`, `7`, `-1`, `1.5`, `0f3F800000`).
    pub set: Vec<(String, String)>,
    /// Limit on warp-instruction issues.
    pub max_steps: u64,
    /// The thread whose per-line values are recorded.
    pub hint_thread: u32,
    /// Fuse `mul` + `add` pairs into one rounding where ptxas does
    /// (`src/contract.rs`); `false` rounds every instruction as written.
    pub contract: bool,
}

impl Default for SnippetOptions {
    fn default() -> Self {
        SnippetOptions {
            threads: 1,
            set: Vec::new(),
            max_steps: DEFAULT_MAX_STEPS,
            hint_thread: 0,
            contract: true,
        }
    }
}

/// Options of a kernel launch.
#[derive(Debug, Clone)]
pub struct KernelOptions {
    pub entry: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// One argument per kernel parameter, in order.
    pub args: Vec<ArgSpec>,
    pub max_steps: u64,
    /// The thread (linear index in CTA 0) whose per-line values are recorded.
    pub hint_thread: u32,
    /// Bytes of dynamic shared memory (the `.extern .shared` array) per CTA.
    /// `None`: what the kernel's static shared memory leaves of
    /// [`MAX_SHARED_PER_CTA`] (227 KiB, the H100's per-block maximum).
    pub dynamic_smem: Option<u32>,
    /// Fuse `mul` + `add` pairs where ptxas does (see [`SnippetOptions`]).
    pub contract: bool,
    /// CTAs per cluster (`--cluster`); `None`: the kernel's
    /// `.reqnctapercluster`, else clusters of one CTA.
    pub cluster: Option<[u32; 3]>,
}

impl Default for KernelOptions {
    fn default() -> Self {
        KernelOptions {
            entry: String::new(),
            grid: [1, 1, 1],
            block: [1, 1, 1],
            args: Vec::new(),
            max_steps: DEFAULT_MAX_STEPS,
            hint_thread: 0,
            dynamic_smem: None,
            contract: true,
            cluster: None,
        }
    }
}

/// A register's final (or recorded) value: raw bits and width.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegValue {
    pub name: String,
    pub bits: u64,
    /// Width in bits; 1 for predicates.
    pub width: u32,
    /// The declared type without its dot (`b32`, `f32`, `pred` ...).
    pub ty: &'static str,
}

impl RegValue {
    /// `"0"`/`"1"` for predicates, else `0x` and two hex digits per byte.
    pub fn text(&self) -> String {
        if self.width == 1 {
            return (self.bits & 1).to_string();
        }
        let digits = (self.width as usize).div_ceil(8) * 2;
        format!("{:#0width$x}", self.bits, width = digits + 2)
    }

    /// The value read as its declared type: a float, a signed or unsigned
    /// integer; empty for bit types and predicates.
    pub fn typed_text(&self) -> String {
        match self.ty {
            "f32" => format!("{:?}", f32::from_bits(self.bits as u32)),
            "f64" => format!("{:?}", f64::from_bits(self.bits)),
            "s8" | "s16" | "s32" | "s64" => {
                let shift = 64 - self.width.clamp(1, 64);
                (((self.bits << shift) as i64) >> shift).to_string()
            }
            "u8" | "u16" | "u32" | "u64" => self.bits.to_string(),
            _ => String::new(),
        }
    }
}

/// One thread's registers at the end of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadState {
    /// Linear thread index in its CTA.
    pub tid: u32,
    /// Linear CTA index (0 for snippets).
    pub ctaid: u32,
    /// Every register of the main function, in declaration order.
    pub registers: Vec<RegValue>,
}

/// The final bytes of a buffer argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferResult {
    /// Index of the kernel argument.
    pub arg: usize,
    pub bytes: Vec<u8>,
}

/// What the selected thread's instruction on one line wrote, the last time
/// it ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineValues {
    /// Byte range of the instruction statement.
    pub range: TextRange,
    pub values: Vec<RegValue>,
    /// How many times the thread executed it.
    pub executions: u64,
}

/// The outcome of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunResult {
    /// Threads of the (first) CTA, by linear index.
    pub threads: Vec<ThreadState>,
    /// Warp-instruction issues, over all warps and CTAs.
    pub steps: u64,
    /// Thread-instructions (issues × active lanes).
    pub thread_instructions: u64,
    pub buffers: Vec<BufferResult>,
    /// Per-line values of the selected thread, in source order.
    pub lines: Vec<LineValues>,
}

/// What kind of failure a [`RunError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunErrorKind {
    /// Bad options: a `--set` register that does not exist, a bad argument,
    /// an unknown entry.
    Usage,
    /// The program cannot run: an undeclared register, a bad operand.
    Program,
    /// A fault while running: bad address, misaligned access, step limit,
    /// unsupported instruction.
    Fault,
}

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunError {
    pub kind: RunErrorKind,
    pub message: String,
    /// Byte range of the faulting statement, when there is one.
    pub range: Option<TextRange>,
    /// Linear index (in its CTA) of the faulting thread, for run-time faults.
    pub thread: Option<u32>,
    /// Linear CTA index of the faulting thread.
    pub ctaid: Option<u32>,
}

impl RunError {
    pub(crate) fn usage(message: impl Into<String>) -> RunError {
        RunError {
            kind: RunErrorKind::Usage,
            message: message.into(),
            range: None,
            thread: None,
            ctaid: None,
        }
    }
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RunError {}

/// A pre-decoded operation; operands live in [`ir::Inst`].
#[derive(Debug, Clone)]
pub(crate) enum Op {
    Int(int::IntOp),
    Float(float::FloatOp),
    Cvt(cvt::CvtOp),
    Mem(mem::MemOp),
    Warp(warp::WarpOp),
    Tensor(tensor::TensorOp),
    Wmma(wmma::WmmaOp),
    Matrix(matrix::MatrixOp),
    Wgmma(warpgroup::WgmmaOp),
    Async(asynccopy::AsyncOp),
    Bulk(bulk::BulkOp),
    Tma(tma::TmaOp),
    Cluster(cluster::ClusterOp),
    Video(video::VideoOp),
    ScalarVideo(video::ScalarOp),
    /// `cvt.pack.sat`
    Pack(pack::PackOp),
    /// `mov.v2`/`mov.v4`: element-wise, every source read before any write.
    MovVector,
    Bra,
    Exit,
    Ret,
    Call {
        func: u32,
        rets: Vec<decode::Slot>,
        args: Vec<decode::Slot>,
    },
    /// `call` through a register holding a function's address.
    CallIndirect {
        reg: u32,
        rets: Vec<decode::Slot>,
        args: Vec<decode::Slot>,
    },
    Barrier(control::BarrierOp),
    Nop,
    Unsupported(String),
}

/// Decodes the operation of one instruction, checking operand counts.
pub(crate) fn decode_op(
    mnemonic: &str,
    quals: &ir::Quals,
    n_dst: usize,
    src: &[ir::Src],
) -> Result<Op, String> {
    if mnemonic == "mov" && quals.vector > 1 {
        return Ok(Op::MovVector);
    }
    let decoded = tma::decode(mnemonic, quals, src)
        .or_else(|| bulk::decode(mnemonic, quals, src))
        .or_else(|| asynccopy::decode(mnemonic, quals, n_dst, src))
        .or_else(|| control::decode(mnemonic, quals, src))
        .or_else(|| int::decode(mnemonic, quals, n_dst, src))
        .or_else(|| float::decode(mnemonic, quals, src))
        .or_else(|| pack::decode(mnemonic, quals, src))
        .or_else(|| cvt::decode(mnemonic, quals, src))
        .or_else(|| mem::decode(mnemonic, quals, src))
        .or_else(|| warp::decode(mnemonic, quals, n_dst, src))
        .or_else(|| tensor::decode(mnemonic, quals, src))
        .or_else(|| wmma::decode(mnemonic, quals, src))
        .or_else(|| matrix::decode(mnemonic, quals, n_dst, src))
        .or_else(|| warpgroup::decode(mnemonic, quals, src))
        .or_else(|| cluster::decode(mnemonic, quals, src))
        .or_else(|| video::decode(mnemonic, quals, src));
    match decoded {
        Some(result) => result,
        None => Err(format!(
            "`{mnemonic}{}` is not supported by the interpreter",
            quals
                .words
                .iter()
                .map(|w| format!(".{w}"))
                .collect::<String>()
        )),
    }
}

/// Checks that an instruction has at least `n` source operands.
pub(crate) fn need(src: &[ir::Src], n: usize) -> Result<(), String> {
    if src.len() < n {
        Err(format!("expects {n} source operands, found {}", src.len()))
    } else {
        Ok(())
    }
}
