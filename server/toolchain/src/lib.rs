//! The compiler's view of a PTX module, from NVIDIA's own tools where the user has them.
//!
//! - [`discover`]: where `ptxas`, `cuobjdump` and `nvdisasm` are (a setting, `CUDA_HOME` /
//!   `CUDA_PATH`, `PATH`, the `nvidia-cuda-*` wheels of Python environments);
//! - [`compile`]: one `ptxas -v` run with a time limit and cancellation, giving the cubin and the log;
//! - [`split`]: a large module as several `ptxas` runs side by side, lines kept;
//! - [`verbose`]: the per-function figures (registers, spills, stack, shared memory, barriers) and
//!   the diagnostics that `ptxas` printed;
//! - [`occupancy`]: resident blocks and warps per SM for a block size, from each architecture's
//!   per-SM limits (data/sm_limits.tsv), with what limits it;
//! - [`pause`]: the running tools stop while the editor's own work runs;
//! - [`sass`]: `nvdisasm` output split into functions, each SASS instruction linked to its PTX line.
//!
//! Everything here is absent, never broken, without the tools: callers get `None` or an error
//! they can show, and nothing else in the project depends on this crate's results.

pub mod compile;
pub mod discover;
pub mod occupancy;
pub mod pause;
pub mod resources;
pub mod sass;
pub mod split;
pub mod verbose;

pub use compile::{compile, CompileError, CompileOptions, Compiled};
pub use discover::{discover, Search, Tool, ToolKind, Toolchain};
pub use occupancy::{occupancy, Limiter, Occupancy, SmLimits};
pub use resources::{
    document_target, module_view, text_for_target, FunctionView, ModuleView, ResourceOptions,
};
pub use sass::{disassemble, Early, Sass, SassFunction, SassLine};
pub use split::{compile_module, split_for_target};
pub use verbose::{parse_log, FunctionResources, PtxasDiagnostic, PtxasReport, PtxasSeverity};
