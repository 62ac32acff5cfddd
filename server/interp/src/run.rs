//! The two entry points, [`run_snippet`] and [`run_kernel`], and the parsing
//! of start values and kernel arguments shared by the CLI and the server.

use ptx_syntax::Parse;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::decode::{decode, float_literal, parse_int, DecodeError, Mode, Program};
use crate::engine::{Launch, Located, Machine};
use crate::ir::{mask, Ty};
use crate::memory::{Memory, GLOBAL_STATIC_BASE, MAX_SHARED_PER_CTA};
use crate::softfloat::Rounding;
use crate::{
    BufferResult, KernelOptions, LineValues, RegValue, RunError, RunErrorKind, RunResult,
    SnippetOptions, ThreadState,
};

/// A kernel argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgSpec {
    /// A scalar, as the little-endian bytes of its type.
    Scalar(Vec<u8>),
    /// A global buffer with these initial bytes; its address is passed.
    Buffer(Vec<u8>),
    /// A tensor map over a buffer argument (`tmap:...`): the 128-byte object
    /// for a `.param .b8 [128]`, or its global address for a 64-bit parameter.
    TensorMap(crate::tma::TensorMapSpec),
    /// A by-value struct (`struct:HEX;OFFSET=FIELD;...`): these bytes, with
    /// buffer addresses and tensor maps written over them at byte offsets.
    Struct {
        bytes: Vec<u8>,
        fields: Vec<(usize, StructField)>,
    },
}

/// A field of a `struct:` argument that the launch fills in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StructField {
    /// `&N` or `&N+D`: the address of buffer argument `N`, plus `D` bytes.
    Address { arg: usize, plus: u64 },
    /// `tmap:...`: the 128-byte tensor map object.
    TensorMap(crate::tma::TensorMapSpec),
}

/// Parses the part after `struct:`.
fn parse_struct(rest: &str) -> Result<ArgSpec, String> {
    let mut parts = rest.split(';');
    let digits: String = parts
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    if digits.is_empty() || !digits.len().is_multiple_of(2) {
        return Err(
            "expected struct:HEX;OFFSET=FIELD;... with an even number of hex digits".into(),
        );
    }
    let bytes = (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16))
        .collect::<Result<Vec<u8>, _>>()
        .map_err(|_| "bad hex digits".to_owned())?;
    let mut fields = Vec::new();
    for part in parts.map(str::trim).filter(|p| !p.is_empty()) {
        let (offset, field) = part.split_once('=').ok_or_else(|| {
            format!("field `{part}`: expected OFFSET=&ARG[+BYTES] or OFFSET=tmap:...")
        })?;
        let offset =
            parse_int(offset.trim()).ok_or_else(|| format!("field `{part}`: bad offset"))? as usize;
        let field = field.trim();
        let (field, size) = if let Some(address) = field.strip_prefix('&') {
            let (arg, plus) = address.split_once('+').unwrap_or((address, "0"));
            let arg = parse_int(arg.trim())
                .ok_or_else(|| format!("field `{part}`: bad argument number"))?;
            let plus =
                parse_int(plus.trim()).ok_or_else(|| format!("field `{part}`: bad byte offset"))?;
            (
                StructField::Address {
                    arg: arg as usize,
                    plus,
                },
                8,
            )
        } else if let Some(spec) = field.strip_prefix("tmap:") {
            let spec = crate::tma::TensorMapSpec::parse(spec)
                .map_err(|e| format!("field `{part}`: {e}"))?;
            (StructField::TensorMap(spec), 128)
        } else {
            return Err(format!(
                "field `{part}`: expected &ARG[+BYTES] or tmap:... after `=`"
            ));
        };
        if offset.checked_add(size).is_none_or(|end| end > bytes.len()) {
            return Err(format!(
                "field `{part}`: {size} bytes at offset {offset} do not fit the struct's {} bytes",
                bytes.len()
            ));
        }
        fields.push((offset, field));
    }
    Ok(ArgSpec::Struct { bytes, fields })
}

/// Parses `u32:5`, `f32:1.5`, `raw:0102` (the bytes of a by-value struct),
/// `struct:HEX;8=&1;64=tmap:...` (a struct whose fields at those byte
/// offsets hold the address of buffer argument 1 and a tensor map),
/// `buf:f32:1,2.5`, `buf:f32:0*256` (a value repeated), `buf:hex:00ff`, `zeros:64`,
/// and tensor maps
/// `tmap:TYPE:DIMS:STRIDES:BOX:SWIZZLE:ARG[:estrides=E,..][:oob=nan][:interleave=16|32]`
/// (`tmap:f16:64,32:128:64,16:128:1`: f16 elements, 64 x 32 of them with rows
/// 128 bytes apart, a 64 x 16 box, the 128-byte swizzle, over buffer argument 1).
pub fn parse_arg(text: &str) -> Result<ArgSpec, String> {
    let (kind, rest) = text.split_once(':').ok_or_else(|| {
        format!("argument `{text}`: expected TYPE:VALUE, buf:..., or zeros:BYTES")
    })?;
    match kind {
        "struct" => parse_struct(rest).map_err(|e| format!("argument `{text}`: {e}")),
        "tmap" => crate::tma::TensorMapSpec::parse(rest)
            .map(ArgSpec::TensorMap)
            .map_err(|e| format!("argument `{text}`: {e}")),
        "raw" => {
            // The bytes of a by-value parameter (a struct `.b8 p[N]`).
            let digits: String = rest.chars().filter(|c| !c.is_whitespace()).collect();
            if !digits.len().is_multiple_of(2) || digits.is_empty() {
                return Err(format!(
                    "argument `{text}`: expected an even number of hex digits"
                ));
            }
            (0..digits.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&digits[i..i + 2], 16))
                .collect::<Result<Vec<u8>, _>>()
                .map(ArgSpec::Scalar)
                .map_err(|_| format!("argument `{text}`: bad hex digits"))
        }
        "zeros" => {
            let n = parse_int(rest).ok_or_else(|| format!("argument `{text}`: bad byte count"))?;
            if n > 1 << 30 {
                return Err(format!("argument `{text}`: buffer too large"));
            }
            Ok(ArgSpec::Buffer(vec![0; n as usize]))
        }
        "buf" => {
            let (ty, values) = rest
                .split_once(':')
                .ok_or_else(|| format!("argument `{text}`: expected buf:TYPE:V1,V2,..."))?;
            if ty == "hex" {
                let digits: String = values.chars().filter(|c| !c.is_whitespace()).collect();
                if !digits.len().is_multiple_of(2) {
                    return Err(format!("argument `{text}`: odd number of hex digits"));
                }
                return (0..digits.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&digits[i..i + 2], 16))
                    .collect::<Result<Vec<u8>, _>>()
                    .map(ArgSpec::Buffer)
                    .map_err(|_| format!("argument `{text}`: bad hex digits"));
            }
            let ty =
                scalar_type(ty).ok_or_else(|| format!("argument `{text}`: unknown type `{ty}`"))?;
            let mut bytes = Vec::new();
            for value in values.split(',').map(str::trim).filter(|v| !v.is_empty()) {
                // `V*N`: the value V, N times (`0*256`).
                let (value, count) = match value.rsplit_once('*') {
                    Some((v, n)) => (
                        v.trim(),
                        parse_int(n.trim())
                            .filter(|n| *n <= 1 << 28)
                            .ok_or_else(|| format!("argument `{text}`: bad count in `{value}`"))?,
                    ),
                    None => (value, 1),
                };
                let bits = parse_value(value, ty).map_err(|e| format!("argument `{text}`: {e}"))?;
                let element = &bits.to_le_bytes()[..ty.bytes().min(8)];
                if bytes.len() as u64 + count * element.len() as u64 > 1 << 30 {
                    return Err(format!("argument `{text}`: buffer too large"));
                }
                for _ in 0..count {
                    bytes.extend_from_slice(element);
                }
            }
            Ok(ArgSpec::Buffer(bytes))
        }
        ty => {
            let ty =
                scalar_type(ty).ok_or_else(|| format!("argument `{text}`: unknown type `{ty}`"))?;
            let bits = parse_value(rest, ty).map_err(|e| format!("argument `{text}`: {e}"))?;
            Ok(ArgSpec::Scalar(
                bits.to_le_bytes()[..ty.bytes().min(8)].to_vec(),
            ))
        }
    }
}

fn scalar_type(word: &str) -> Option<Ty> {
    Ty::parse(word).filter(|t| *t != Ty::B128 && *t != Ty::Pred)
}

/// Parses a start value for a register of type `ty`: hex bits, a decimal
/// integer, a float (for float registers) or a PTX float literal.
pub fn parse_value(text: &str, ty: Ty) -> Result<u64, String> {
    let text = text.trim();
    let bits = ty.bits().min(64);
    if ty == Ty::Pred {
        return match text {
            "0" | "false" => Ok(0),
            "1" | "true" => Ok(1),
            _ => Err(format!("`{text}` is not a predicate value (0 or 1)")),
        };
    }
    let lower = text.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        let v =
            u64::from_str_radix(hex, 16).map_err(|_| format!("`{text}` is not a hex number"))?;
        if v & !mask(bits) != 0 {
            return Err(format!("`{text}` does not fit in {bits} bits"));
        }
        return Ok(v);
    }
    if lower.starts_with("0f") || lower.starts_with("0d") {
        return float_literal(text, ty.format().map(|_| ty))
            .map(|v| v & mask(bits))
            .ok_or_else(|| format!("`{text}` is not a PTX float literal"));
    }
    if let Ok(v) = text.parse::<i128>() {
        if ty.is_float() {
            let format = ty.format().unwrap_or(crate::softfloat::F32);
            return Ok(format.encode(v as f64, Rounding::Nearest));
        }
        let min = -(1i128 << (bits - 1));
        let max = (1i128 << bits) - 1;
        if v < min || v > max {
            return Err(format!("`{text}` does not fit in {bits} bits"));
        }
        return Ok(v as u64 & mask(bits));
    }
    if ty.is_float() {
        let value = match lower.as_str() {
            "nan" | "+nan" => f64::NAN,
            "-nan" => -f64::NAN,
            _ => text
                .parse::<f64>()
                .map_err(|_| format!("`{text}` is not a number"))?,
        };
        let format = ty.format().unwrap_or(crate::softfloat::F32);
        let bits = format.encode(value, Rounding::Nearest);
        return Ok(if value.is_nan() && value.is_sign_negative() {
            format.neg(bits)
        } else {
            bits
        });
    }
    Err(format!(
        "`{text}` is not a value for a .{} register",
        ty.name()
    ))
}

/// The dynamic shared memory of each CTA: `requested`, or what the static
/// shared memory leaves of [`MAX_SHARED_PER_CTA`] when the program declares an
/// `.extern .shared` array (none otherwise).
fn dynamic_smem(program: &Program, requested: Option<u32>) -> Result<u32, RunError> {
    let limit = MAX_SHARED_PER_CTA;
    let left = limit.saturating_sub(program.shared_size);
    match requested {
        Some(bytes) if bytes as usize > left => Err(RunError::usage(format!(
            "--dynamic-smem {bytes}: with {} bytes of static shared memory, at most {left} \
             bytes fit in the {limit} bytes a CTA may use",
            program.shared_size
        ))),
        Some(bytes) => Ok(bytes),
        None if program.dynamic_shared.is_some() => Ok(left as u32),
        None => Ok(0),
    }
}

/// Most CTAs in a cluster: the H100's limit with non-portable sizes allowed.
pub const MAX_CLUSTER_SIZE: u32 = 16;

/// The launch's cluster shape, from `--cluster` or the kernel's
/// `.reqnctapercluster`, and whether it is explicit (`%is_explicit_cluster`).
fn cluster_shape(program: &Program, options: &KernelOptions) -> Result<([u32; 3], bool), RunError> {
    let entry = &program.functions[program.main];
    let show = |d: [u32; 3]| format!("{},{},{}", d[0], d[1], d[2]);
    let cluster = match (options.cluster, entry.cluster_dims) {
        (Some(given), Some(declared)) if given != declared => {
            return Err(RunError::usage(format!(
                "--cluster {}: `{}` declares .reqnctapercluster {}",
                show(given),
                entry.name,
                show(declared)
            )))
        }
        (_, Some(declared)) => declared,
        (Some(given), None) => given,
        (None, None) if entry.explicit_cluster => {
            return Err(RunError::usage(format!(
                "`{}` is .explicitcluster: give the cluster shape with --cluster X,Y,Z",
                entry.name
            )))
        }
        (None, None) => return Ok(([1, 1, 1], false)),
    };
    let size = u64::from(cluster[0]) * u64::from(cluster[1]) * u64::from(cluster[2]);
    if size == 0 || size > u64::from(MAX_CLUSTER_SIZE) {
        return Err(RunError::usage(format!(
            "cluster {}: a cluster has 1 to {MAX_CLUSTER_SIZE} CTAs",
            show(cluster)
        )));
    }
    if (0..3).any(|d| !options.grid[d].is_multiple_of(cluster[d])) {
        return Err(RunError::usage(format!(
            "--grid {}: each dimension must be a multiple of the cluster's {}",
            show(options.grid),
            show(cluster)
        )));
    }
    Ok((cluster, true))
}

fn decode_error(error: DecodeError) -> RunError {
    RunError {
        kind: if error.range.is_empty() {
            RunErrorKind::Usage
        } else {
            RunErrorKind::Program
        },
        message: error.message,
        range: if error.range.is_empty() {
            None
        } else {
            Some(error.range)
        },
        thread: None,
        ctaid: None,
    }
}

fn located(program: &Program, error: Located, ctaid: u32) -> RunError {
    RunError {
        kind: RunErrorKind::Fault,
        message: error.message,
        range: program
            .insts
            .get(error.pc as usize)
            .map(|i| i.range.clone()),
        thread: Some(error.thread),
        ctaid: Some(ctaid),
    }
}

fn thread_states(m: &Machine<'_>, ctaid: u32) -> Vec<ThreadState> {
    let prog = m.prog;
    let mut out = Vec::new();
    for warp in &m.warps {
        for lane in 0..32u32 {
            if warp.valid >> lane & 1 == 0 {
                continue;
            }
            let registers = prog
                .reported_regs
                .iter()
                .map(|&r| {
                    let info = &prog.regs[r as usize];
                    RegValue {
                        name: info.name.clone(),
                        bits: warp.regs[r as usize * 32 + lane as usize],
                        width: info.bits(),
                        ty: info.ty.name(),
                    }
                })
                .collect();
            out.push(ThreadState {
                tid: warp.base + lane,
                ctaid,
                registers,
            });
        }
    }
    out
}

fn line_values(m: &Machine<'_>) -> Vec<LineValues> {
    let prog = m.prog;
    let mut pcs: Vec<_> = m.lines.keys().copied().collect();
    pcs.sort_unstable();
    let mut lines: Vec<LineValues> = pcs
        .into_iter()
        .map(|pc| {
            let record = &m.lines[&pc];
            LineValues {
                range: prog.insts[pc as usize].range.clone(),
                values: record
                    .values
                    .iter()
                    .map(|&(r, bits)| {
                        let info = &prog.regs[r as usize];
                        RegValue {
                            name: info.name.clone(),
                            bits,
                            width: info.bits(),
                            ty: info.ty.name(),
                        }
                    })
                    .collect(),
                executions: record.executions,
            }
        })
        .collect();
    lines.sort_by_key(|l| l.range.start);
    lines
}

/// What a run starts from: the decoded program, the initial memory, the
/// launch shape, start values of registers and where the buffers are.
#[derive(Debug, Clone)]
pub(crate) struct Setup {
    pub program: Program,
    pub memory: Memory,
    pub launch: Launch,
    /// Start values given to every thread (snippets): register and bits.
    pub sets: Vec<(u32, u64)>,
    pub grid: [u32; 3],
    /// Buffer arguments: argument index, address, length.
    pub buffers: Vec<(usize, u64, usize)>,
}

/// Checks the options of a snippet run and decodes its program.
pub(crate) fn prepare_snippet(parse: &Parse, options: &SnippetOptions) -> Result<Setup, RunError> {
    if options.threads == 0 || options.threads > 1024 {
        return Err(RunError::usage("--threads must be between 1 and 1024"));
    }
    let mut program = decode(parse, Mode::Snippet).map_err(decode_error)?;
    if options.contract {
        crate::contract::apply(&mut program);
    }
    let mut sets = Vec::new();
    for (name, text) in &options.set {
        let Some(&reg) = program
            .reported_regs
            .iter()
            .find(|&&r| program.regs[r as usize].name == *name)
        else {
            return Err(RunError::usage(format!(
                "--set: no register `{name}` is declared"
            )));
        };
        let ty = program.regs[reg as usize].ty;
        let bits =
            parse_value(text, ty).map_err(|e| RunError::usage(format!("--set {name}: {e}")))?;
        sets.push((reg, bits));
    }
    let memory = Memory {
        constant: program.const_init.clone(),
        ..Memory::default()
    };
    let mut memory = memory;
    memory.dynamic_shared_name = program.dynamic_shared.clone().unwrap_or_default();
    if !program.global_static.is_empty() {
        memory.global.push(crate::memory::Region {
            base: GLOBAL_STATIC_BASE,
            bytes: program.global_static.clone(),
        });
    }
    let launch = Launch {
        ntid: [options.threads, 1, 1],
        nctaid: [1, 1, 1],
        ctaid: [0, 0, 0],
        dynamic_smem: dynamic_smem(&program, None)?,
        cluster: [1, 1, 1],
        explicit_cluster: false,
    };
    Ok(Setup {
        program,
        memory,
        launch,
        sets,
        grid: [1, 1, 1],
        buffers: Vec::new(),
    })
}

/// Checks the options of a kernel launch, decodes its program and places
/// its arguments.
pub(crate) fn prepare_kernel(parse: &Parse, options: &KernelOptions) -> Result<Setup, RunError> {
    let threads: u64 = options.block.iter().map(|&d| u64::from(d)).product();
    if threads == 0 || threads > 1024 {
        return Err(RunError::usage(
            "--block must give between 1 and 1024 threads",
        ));
    }
    let ctas: u64 = options.grid.iter().map(|&d| u64::from(d)).product();
    if ctas == 0 || ctas > 1 << 24 {
        return Err(RunError::usage(
            "--grid must give between 1 and 16777216 CTAs",
        ));
    }
    let mut program = decode(parse, Mode::Kernel(&options.entry)).map_err(decode_error)?;
    if options.contract {
        crate::contract::apply(&mut program);
    }
    let entry = &program.functions[program.main];
    // Arguments after the parameters are buffers that `struct:` fields
    // point to.
    let extra_buffers = options
        .args
        .iter()
        .skip(entry.kernel_params.len())
        .all(|a| matches!(a, ArgSpec::Buffer(_)));
    let takes_struct = options
        .args
        .iter()
        .any(|a| matches!(a, ArgSpec::Struct { .. } | ArgSpec::TensorMap(_)));
    if entry.kernel_params.len() != options.args.len()
        && !(takes_struct && options.args.len() > entry.kernel_params.len() && extra_buffers)
    {
        return Err(RunError::usage(format!(
            "`{}` takes {} parameters, {} --arg given (more only as buffers that struct: or \
             tmap: arguments name)",
            entry.name,
            entry.kernel_params.len(),
            options.args.len()
        )));
    }
    let mut memory = Memory {
        constant: program.const_init.clone(),
        kernel_params: vec![0; program.kernel_param_size],
        ..Memory::default()
    };
    if !program.global_static.is_empty() {
        memory.global.push(crate::memory::Region {
            base: GLOBAL_STATIC_BASE,
            bytes: program.global_static.clone(),
        });
    }
    let mut buffers = Vec::new();
    let mut addresses = vec![None; options.args.len()];
    for (index, arg) in options.args.iter().enumerate() {
        if let ArgSpec::Buffer(bytes) = arg {
            let addr = memory.allocate(bytes.clone());
            buffers.push((index, addr, bytes.len()));
            addresses[index] = Some(addr);
        }
    }
    for (index, (param, arg)) in entry.kernel_params.iter().zip(&options.args).enumerate() {
        let bytes = match arg {
            ArgSpec::TensorMap(spec) => {
                let Some(base) = addresses.get(spec.buffer).copied().flatten() else {
                    return Err(RunError::usage(format!(
                        "--arg {index}: the tensor map's buffer, argument {}, is not a buffer",
                        spec.buffer
                    )));
                };
                let object = spec.encode(base);
                match param.size {
                    128 => object,
                    8 => memory.allocate(object).to_le_bytes().to_vec(),
                    _ => {
                        return Err(RunError::usage(format!(
                            "--arg {index}: parameter `{}` holds neither a tensor map (.b8 [128]) \
                             nor its address",
                            param.name
                        )))
                    }
                }
            }
            ArgSpec::Struct { bytes, fields } => {
                if bytes.len() != param.size {
                    return Err(RunError::usage(format!(
                        "--arg {index}: parameter `{}` has {} bytes; the struct has {}",
                        param.name,
                        param.size,
                        bytes.len()
                    )));
                }
                let mut bytes = bytes.clone();
                for (offset, field) in fields {
                    let (arg, value) = match field {
                        StructField::Address { arg, plus } => (
                            *arg,
                            addresses
                                .get(*arg)
                                .copied()
                                .flatten()
                                .map(|a| a.wrapping_add(*plus).to_le_bytes().to_vec()),
                        ),
                        StructField::TensorMap(spec) => (
                            spec.buffer,
                            addresses
                                .get(spec.buffer)
                                .copied()
                                .flatten()
                                .map(|a| spec.encode(a)),
                        ),
                    };
                    let Some(value) = value else {
                        return Err(RunError::usage(format!(
                            "--arg {index}: the field at byte {offset} names argument {arg}, \
                             which is not a buffer"
                        )));
                    };
                    bytes[*offset..*offset + value.len()].copy_from_slice(&value);
                }
                bytes
            }
            ArgSpec::Scalar(bytes) => {
                if bytes.len() != param.size {
                    return Err(RunError::usage(format!(
                        "--arg {index}: parameter `{}` is .{} ({} bytes); the argument has {} bytes",
                        param.name,
                        param.ty.name(),
                        param.size,
                        bytes.len()
                    )));
                }
                bytes.clone()
            }
            ArgSpec::Buffer(_) if param.size != 8 => {
                return Err(RunError::usage(format!(
                    "--arg {index}: parameter `{}` is .{}, too small for a buffer address",
                    param.name,
                    param.ty.name()
                )));
            }
            ArgSpec::Buffer(_) => addresses[index].unwrap_or(0).to_le_bytes().to_vec(),
        };
        let start = param.offset as usize;
        let end = start + param.size;
        let n = bytes.len().min(param.size);
        if end <= memory.kernel_params.len() {
            memory.kernel_params[start..start + n].copy_from_slice(&bytes[..n]);
        }
    }
    let (cluster, explicit_cluster) = cluster_shape(&program, options)?;
    let launch = Launch {
        ntid: options.block,
        nctaid: options.grid,
        ctaid: [0, 0, 0],
        dynamic_smem: dynamic_smem(&program, options.dynamic_smem)?,
        cluster,
        explicit_cluster,
    };
    memory.dynamic_shared_name = program.dynamic_shared.clone().unwrap_or_default();
    Ok(Setup {
        program,
        memory,
        launch,
        sets: Vec::new(),
        grid: options.grid,
        buffers,
    })
}

/// Runs the top-level statements of `parse` (a file without `.entry`).
pub fn run_snippet(parse: &Parse, options: &SnippetOptions) -> Result<RunResult, RunError> {
    run_snippet_stoppable(parse, options, None)
}

/// Like [`run_snippet`]; once `stop` is set (by another thread: a cancelled
/// request, a time limit), the run ends soon after with a fault.
pub fn run_snippet_stoppable(
    parse: &Parse,
    options: &SnippetOptions,
    stop: Option<Arc<AtomicBool>>,
) -> Result<RunResult, RunError> {
    let Setup {
        program,
        memory,
        launch,
        sets,
        ..
    } = prepare_snippet(parse, options)?;
    let mut m = Machine::new(&program, memory, launch, options.max_steps);
    m.stop = stop;
    m.start_cta([0, 0, 0]);
    for warp in &mut m.warps {
        for &(reg, bits) in &sets {
            for lane in 0..32 {
                warp.regs[reg as usize * 32 + lane] = bits;
            }
        }
    }
    if options.hint_thread < options.threads {
        m.hint = Some((
            (options.hint_thread / 32) as usize,
            options.hint_thread % 32,
        ));
    }
    m.run_cta().map_err(|e| located(&program, e, 0))?;
    Ok(RunResult {
        threads: thread_states(&m, 0),
        steps: m.steps,
        thread_instructions: m.thread_instructions,
        buffers: Vec::new(),
        lines: line_values(&m),
    })
}

/// Launches `options.entry` of `parse` on a grid, CTAs one after another.
pub fn run_kernel(parse: &Parse, options: &KernelOptions) -> Result<RunResult, RunError> {
    run_kernel_stoppable(parse, options, None)
}

/// Like [`run_kernel`]; once `stop` is set, the run ends soon after with a fault.
pub fn run_kernel_stoppable(
    parse: &Parse,
    options: &KernelOptions,
    stop: Option<Arc<AtomicBool>>,
) -> Result<RunResult, RunError> {
    let threads: u64 = options.block.iter().map(|&d| u64::from(d)).product();
    let Setup {
        program,
        memory,
        launch,
        buffers,
        ..
    } = prepare_kernel(parse, options)?;
    let mut m = Machine::new(&program, memory, launch, options.max_steps);
    m.stop = stop;
    let mut first_threads = Vec::new();
    let mut lines = Vec::new();
    if launch.cluster_size() > 1 {
        let [gx, gy, gz] = options.grid;
        let [cx, cy, cz] = launch.cluster;
        let mut first = true;
        for z in (0..gz).step_by(cz as usize) {
            for y in (0..gy).step_by(cy as usize) {
                for x in (0..gx).step_by(cx as usize) {
                    if first && u64::from(options.hint_thread) < threads {
                        m.cluster_hint = Some((
                            (options.hint_thread / 32) as usize,
                            options.hint_thread % 32,
                        ));
                    }
                    m.start_cluster([x, y, z]);
                    m.run_cluster().map_err(|(e, rank)| {
                        let [x, y, z] = launch.cta_of_rank([x, y, z], rank);
                        located(&program, e, x + gx * (y + gy * z))
                    })?;
                    if first {
                        first_threads = thread_states(&m, 0);
                        lines = line_values(&m);
                        m.cluster_hint = None;
                        m.hint = None;
                        first = false;
                    }
                }
            }
        }
        return Ok(RunResult {
            threads: first_threads,
            steps: m.steps,
            thread_instructions: m.thread_instructions,
            buffers: collect_buffers(&m, buffers),
            lines,
        });
    }
    let mut linear = 0u32;
    for z in 0..options.grid[2] {
        for y in 0..options.grid[1] {
            for x in 0..options.grid[0] {
                m.start_cta([x, y, z]);
                if linear == 0 && u64::from(options.hint_thread) < threads {
                    m.hint = Some((
                        (options.hint_thread / 32) as usize,
                        options.hint_thread % 32,
                    ));
                }
                m.run_cta().map_err(|e| located(&program, e, linear))?;
                if linear == 0 {
                    first_threads = thread_states(&m, 0);
                    lines = line_values(&m);
                    m.hint = None;
                }
                linear += 1;
            }
        }
    }
    Ok(RunResult {
        threads: first_threads,
        steps: m.steps,
        thread_instructions: m.thread_instructions,
        buffers: collect_buffers(&m, buffers),
        lines,
    })
}

/// The final bytes of every buffer argument.
fn collect_buffers(m: &Machine<'_>, buffers: Vec<(usize, u64, usize)>) -> Vec<BufferResult> {
    buffers
        .into_iter()
        .map(|(arg, addr, len)| BufferResult {
            arg,
            bytes: m
                .mem
                .global
                .iter()
                .find(|r| r.base == addr)
                .map(|r| r.bytes[..len.min(r.bytes.len())].to_vec())
                .unwrap_or_default(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_and_arguments_parse() {
        assert_eq!(parse_value("0x3f800000", Ty::F32), Ok(0x3f80_0000));
        assert_eq!(parse_value("1.5", Ty::F32), Ok(0x3fc0_0000));
        assert_eq!(parse_value("-1", Ty::S32), Ok(0xffff_ffff));
        assert_eq!(parse_value("0f3F800000", Ty::F32), Ok(0x3f80_0000));
        assert_eq!(parse_value("1", Ty::Pred), Ok(1));
        assert!(parse_value("0x1ffffffff", Ty::U32).is_err());
        assert!(parse_value("1.5", Ty::U32).is_err());
        assert_eq!(parse_arg("u32:5"), Ok(ArgSpec::Scalar(vec![5, 0, 0, 0])));
        assert_eq!(
            parse_arg("buf:u16:1,2"),
            Ok(ArgSpec::Buffer(vec![1, 0, 2, 0]))
        );
        assert_eq!(parse_arg("buf:hex:00ff"), Ok(ArgSpec::Buffer(vec![0, 255])));
        assert_eq!(
            parse_arg("buf:u16:7*3,1"),
            Ok(ArgSpec::Buffer(vec![7, 0, 7, 0, 7, 0, 1, 0]))
        );
        assert!(parse_arg("buf:u8:1*x").is_err());
        assert!(parse_arg("buf:u8:1*999999999999").is_err());
        assert_eq!(parse_arg("zeros:3"), Ok(ArgSpec::Buffer(vec![0; 3])));
        assert!(parse_arg("bogus").is_err());
    }
}
