//! Lowering from the syntax tree to the pre-decoded [`Program`]: registers,
//! variables and their addresses, labels, functions and instructions.
//!
//! Everything that can be resolved without running is resolved here, once:
//! register names become indices, labels become instruction indices,
//! variables become constant addresses in their state space.

use std::collections::HashMap;

use ptx_syntax::{
    DirectiveKind, Expression, FunctionKind, Instruction, Operand, OperandKind, Parse, Statement,
    TextRange, VariableDecl,
};

use crate::ir::{Address, Dst, Inst, Quals, RegInfo, Space, Special, Src, Ty};
use crate::memory::{
    to_generic, DYNAMIC_SHARED_BASE, FUNCTION_BASE, FUNC_PARAM_BASE, GLOBAL_STATIC_BASE,
};
use crate::softfloat::{self, Rounding};
use crate::Op;

/// A decoding failure: the message and the byte range it is about.
#[derive(Debug, Clone)]
pub struct DecodeError {
    pub message: String,
    pub range: TextRange,
}

fn error<T>(range: TextRange, message: impl Into<String>) -> Result<T, DecodeError> {
    Err(DecodeError {
        message: message.into(),
        range,
    })
}

/// Where a function parameter (or a call argument) lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Reg(u32),
    /// Bytes in the per-thread function-parameter area or the kernel parameters.
    Param {
        addr: u64,
        size: u32,
    },
    Imm(u64),
}

/// A function of the program (the snippet body is one too, without a name).
#[derive(Debug, Clone)]
pub struct FuncInfo {
    pub name: String,
    pub entry: bool,
    pub start: u32,
    pub params: Vec<Slot>,
    pub returns: Vec<Slot>,
    /// Kernel parameters: (type, offset in the parameter space, byte size, alignment).
    pub kernel_params: Vec<KernelParam>,
    pub range: TextRange,
    /// The function's `.local` variables (offsets in each thread's local
    /// memory): one frame per call, saved and restored around a recursive call.
    pub frame_local: std::ops::Range<usize>,
    /// Its parameters and the `.param` variables of its body (offsets in the
    /// thread's function-parameter area), kept per call likewise.
    pub frame_params: Vec<std::ops::Range<usize>>,
    /// `.reqnctapercluster X, Y, Z` of an entry.
    pub cluster_dims: Option<[u32; 3]>,
    /// `.explicitcluster`: the launch must give a cluster shape.
    pub explicit_cluster: bool,
}

/// One parameter of an `.entry`.
#[derive(Debug, Clone)]
pub struct KernelParam {
    pub name: String,
    pub ty: Ty,
    pub offset: u64,
    pub size: usize,
}

/// A named variable with a fixed address in its state space.
#[derive(Debug, Clone)]
pub struct Variable {
    pub space: Space,
    pub addr: u64,
    pub size: usize,
    /// Bytes of one element (for `a[i]` operands).
    pub element: usize,
}

/// The whole decoded program.
#[derive(Debug, Clone, Default)]
pub struct Program {
    pub insts: Vec<Inst>,
    pub regs: Vec<RegInfo>,
    pub functions: Vec<FuncInfo>,
    /// Initial bytes of the module's `.global` variables (at [`GLOBAL_STATIC_BASE`]).
    pub global_static: Vec<u8>,
    pub const_init: Vec<u8>,
    pub shared_size: usize,
    /// The `.extern .shared` array standing for dynamic shared memory, if any.
    pub dynamic_shared: Option<String>,
    pub local_size: usize,
    pub func_param_size: usize,
    pub kernel_param_size: usize,
    /// Index into `functions` of the code to start with.
    pub main: usize,
    /// Registers reported for each thread (the main function's), in declaration order.
    pub reported_regs: Vec<u32>,
    /// Whether any tcgen05 instruction occurs (tensor memory is only kept then).
    pub uses_tensor_memory: bool,
    /// Byte offsets where the lines of the decoded text start.
    pub line_starts: Vec<usize>,
}

impl Program {
    /// The 1-based line of instruction `pc` in the decoded text.
    pub fn line_of(&self, pc: u32) -> usize {
        let at = self.insts.get(pc as usize).map_or(0, |i| i.range.start);
        self.line_starts.partition_point(|&s| s <= at).max(1)
    }
}

/// What to decode: a snippet or one entry of a module.
#[derive(Debug, Clone, Copy)]
pub enum Mode<'e> {
    Snippet,
    Kernel(&'e str),
}

#[derive(Default)]
struct Scope {
    regs: HashMap<String, u32>,
    vars: HashMap<String, Variable>,
    labels: HashMap<String, u32>,
}

struct Decoder<'a> {
    program: Program,
    module: Scope,
    functions: HashMap<String, u32>,
    text: &'a str,
    /// Set while decoding a generic-space memory access: a variable named
    /// in its address stands for the variable's generic address.
    generic_names: std::cell::Cell<bool>,
    /// The module targets `sm_10` … `sm_13`: single-precision instructions
    /// flush subnormals as if they had `.ftz`.
    legacy_ftz: bool,
    /// `.version` 1.4 or older: `cvt` from or to a 64-bit type does not flush.
    legacy_cvt: bool,
}

/// Whether the module targets an `sm_1x` GPU, and whether its `.version` is
/// 1.4 or older. ptxas compiles the single-precision instructions of such a
/// module as their `.ftz` forms (measured: `FADD.FTZ` for `add.f32`; the ISA's
/// instruction pages say the same for `sm_1x`).
fn legacy_target(module: &ptx_syntax::Module<'_>) -> (bool, bool) {
    let sm1x = module.directives(DirectiveKind::Target).iter().any(|d| {
        d.targets().iter().any(|t| {
            let name = t.text.trim();
            let digits = name
                .strip_prefix("sm_")
                .or_else(|| name.strip_prefix("compute_"))
                .unwrap_or("");
            matches!(digits, "10" | "11" | "12" | "13")
        })
    });
    let old = module
        .directives(DirectiveKind::Version)
        .iter()
        .filter_map(|d| d.value())
        .any(|v| {
            let mut parts = v.text.trim().split('.');
            let major: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(99);
            let minor: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
            (major, minor) <= (1, 4)
        });
    (sm1x, old)
}

/// Instructions that flush f32 subnormals in an `sm_1x` module: the float
/// operations and comparisons on `.f32`, and `cvt` from or to `.f32` (but not,
/// in PTX 1.4 and older, `cvt` from or to a 64-bit type; the ISA names only
/// 64-bit destinations, the GPU leaves `cvt.rn.f32.f64` unflushed too).
fn legacy_flush(mnemonic: &str, q: &Quals, legacy_cvt: bool) -> bool {
    let f32 = |t: &Ty| *t == Ty::F32;
    match mnemonic {
        "add" | "sub" | "mul" | "mad" | "fma" | "div" | "sqrt" | "rcp" | "rsqrt" | "sin"
        | "cos" | "lg2" | "ex2" | "abs" | "neg" | "min" | "max" | "setp" | "set" | "slct" => {
            q.types.last().is_some_and(f32)
        }
        "cvt" => {
            // Measured: `cvt.rn.f32.f64` keeps a subnormal result there too.
            let wide = q.types.iter().any(|t| t.bits() == 64);
            q.types.iter().any(f32) && !(legacy_cvt && wide)
        }
        _ => false,
    }
}

/// Decodes `parse` into a program.
pub fn decode(parse: &Parse, mode: Mode<'_>) -> Result<Program, DecodeError> {
    let module = parse.module();
    let mut decoder = Decoder {
        program: Program {
            line_starts: std::iter::once(0)
                .chain(parse.text().match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
            ..Program::default()
        },
        module: Scope::default(),
        functions: HashMap::new(),
        text: parse.text(),
        generic_names: std::cell::Cell::new(false),
        legacy_ftz: false,
        legacy_cvt: false,
    };
    (decoder.legacy_ftz, decoder.legacy_cvt) = legacy_target(&module);
    let mut functions: Vec<_> = module
        .functions()
        .into_iter()
        .filter(|f| f.body().is_some())
        .collect();
    if let Mode::Kernel(entry) = mode {
        // Only the entry and what it can call: a large module (a CUB or
        // CUTLASS build) holds many kernels whose code is never run.
        let position = functions.iter().position(|f| {
            f.kind() == FunctionKind::Entry && f.name().is_some_and(|n| n.text == entry)
        });
        if position.is_none() {
            let names: Vec<_> = functions
                .iter()
                .filter(|f| f.kind() == FunctionKind::Entry)
                .filter_map(|f| f.name().map(|n| n.text))
                .collect();
            return error(
                0..0,
                format!("no .entry named `{entry}` (entries: {})", names.join(", ")),
            );
        }
        if let Some(start) = position {
            // Functions named in module data (tables of function
            // addresses) can be called through a register too.
            let mut roots = vec![start];
            let by_name: HashMap<&str, usize> = functions
                .iter()
                .enumerate()
                .filter_map(|(i, f)| f.name().map(|n| (n.text, i)))
                .rev()
                .collect();
            for item in module.items() {
                if let ptx_syntax::Item::Variable(decl) = item {
                    for declarator in decl.declarators() {
                        let Some(init) = declarator.initializer() else {
                            continue;
                        };
                        for word in init
                            .text
                            .split(|c: char| !(c.is_alphanumeric() || "_$.".contains(c)))
                        {
                            if let Some(&i) = by_name.get(word) {
                                roots.push(i);
                            }
                        }
                    }
                }
            }
            let keep = reachable(&functions, &roots);
            functions = functions
                .into_iter()
                .enumerate()
                .filter(|(i, _)| keep[*i])
                .map(|(_, f)| f)
                .collect();
        }
    }
    for (index, function) in functions.iter().enumerate() {
        if let Some(name) = function.name() {
            decoder.functions.insert(name.text.to_owned(), index as u32);
        }
    }
    let items = module.items();
    // Module-level variables before the functions: bodies may refer to any
    // of them (and initializers to functions).
    let mut snippet_decls = Vec::new();
    for item in &items {
        if let ptx_syntax::Item::Variable(decl) = item {
            let space = decl
                .state_space()
                .and_then(|s| Space::parse(s.text.trim_start_matches('.')));
            match space {
                Some(Space::Global) | Some(Space::Const) => decoder.module_variable(decl)?,
                // A module-level `.local` variable is one per thread, like a
                // function's (ptxas accepts it, with a warning that it
                // disables the ABI); in a snippet it belongs to the snippet.
                Some(Space::Shared) | Some(Space::Local)
                    if space == Some(Space::Shared) || matches!(mode, Mode::Kernel(_)) =>
                {
                    let mut scope = std::mem::take(&mut decoder.module);
                    let result = decoder.local_variable(decl, usize::MAX, &mut scope);
                    decoder.module = scope;
                    result?;
                }
                _ => snippet_decls.push(Statement::Variable(*decl)),
            }
        }
    }
    // Function signatures before bodies: calls need the callee's slots.
    let mut scopes = Vec::new();
    for (index, function) in functions.iter().enumerate() {
        let mut scope = Scope::default();
        let name = function
            .name()
            .map(|t| t.text.to_owned())
            .unwrap_or_default();
        let entry = function.kind() == FunctionKind::Entry;
        let mut info = FuncInfo {
            name,
            entry,
            start: 0,
            params: Vec::new(),
            returns: Vec::new(),
            kernel_params: Vec::new(),
            range: function.range(),
            frame_local: 0..0,
            frame_params: Vec::new(),
            cluster_dims: None,
            explicit_cluster: false,
        };
        for (directive, values) in function.attributes() {
            match directive.text {
                ".reqnctapercluster" => {
                    let mut dims = [1u32; 3];
                    for (slot, value) in dims.iter_mut().zip(&values) {
                        match parse_int(value.text).and_then(|v| u32::try_from(v).ok()) {
                            Some(v) if v > 0 => *slot = v,
                            _ => {
                                return error(
                                    directive.start..value.end,
                                    format!("bad .reqnctapercluster size `{}`", value.text),
                                )
                            }
                        }
                    }
                    info.cluster_dims = Some(dims);
                }
                ".explicitcluster" => info.explicit_cluster = true,
                _ => {}
            }
        }
        let param_start = decoder.program.func_param_size;
        for decl in function.return_parameters() {
            let slots = decoder.formal(&decl, index, &mut scope, false, &mut info)?;
            info.returns.extend(slots);
        }
        for decl in function.parameters() {
            let slots = decoder.formal(&decl, index, &mut scope, entry, &mut info)?;
            info.params.extend(slots);
        }
        info.frame_params
            .push(param_start..decoder.program.func_param_size);
        decoder.program.functions.push(info);
        scopes.push(scope);
    }
    for (index, function) in functions.iter().enumerate() {
        let body = function.body().map(|b| b.statements()).unwrap_or_default();
        let scope = std::mem::take(&mut scopes[index]);
        decoder.body(index, scope, &body, false)?;
    }
    match mode {
        Mode::Snippet => {
            let mut statements = snippet_decls;
            statements.extend(module.top_level_statements());
            let index = decoder.program.functions.len();
            decoder.program.functions.push(FuncInfo {
                name: String::new(),
                entry: true,
                start: 0,
                params: Vec::new(),
                returns: Vec::new(),
                kernel_params: Vec::new(),
                range: 0..parse.text().len(),
                frame_local: 0..0,
                frame_params: Vec::new(),
                cluster_dims: None,
                explicit_cluster: false,
            });
            decoder.body(index, Scope::default(), &statements, true)?;
            decoder.program.main = index;
        }
        Mode::Kernel(entry) => {
            let Some(index) = decoder
                .program
                .functions
                .iter()
                .position(|f| f.entry && f.name == entry)
            else {
                let names: Vec<_> = decoder
                    .program
                    .functions
                    .iter()
                    .filter(|f| f.entry)
                    .map(|f| f.name.as_str())
                    .collect();
                return error(
                    0..0,
                    format!("no .entry named `{entry}` (entries: {})", names.join(", ")),
                );
            };
            decoder.program.main = index;
        }
    }
    let main = decoder.program.main;
    decoder.program.reported_regs = (0..decoder.program.regs.len() as u32)
        .filter(|&r| {
            let reg = &decoder.program.regs[r as usize];
            reg.function == main && !reg.nested
        })
        .collect();
    Ok(decoder.program)
}

/// Limits that keep a run's memory bounded (a GPU allows less).
const MAX_REGISTERS: usize = 16_384;
const MAX_SHARED: usize = 256 << 10;
const MAX_LOCAL: usize = 512 << 10;

fn align_up(value: usize, align: usize) -> usize {
    value.div_ceil(align.max(1)) * align.max(1)
}

impl<'a> Decoder<'a> {
    fn declared_type(&self, decl: &VariableDecl<'_>) -> Result<(Ty, usize), DecodeError> {
        let Some(ty) = decl.ty() else {
            return error(decl.range(), "declaration without a type");
        };
        let word = ty.text.trim_start_matches('.');
        let parsed = Ty::parse(word).or(match word {
            "u64" => Some(Ty::U64),
            "texref" | "samplerref" | "surfref" => Some(Ty::B64),
            _ => None,
        });
        let Some(parsed) = parsed else {
            return error(ty.range(), format!("unknown type `{}`", ty.text));
        };
        let vector = match decl.vector().map(|v| v.text) {
            Some(".v2") => 2,
            Some(".v4") => 4,
            Some(".v8") => 8,
            _ => 1,
        };
        Ok((parsed, vector))
    }

    fn variable_layout(&self, decl: &VariableDecl<'_>) -> Result<(Ty, usize, usize), DecodeError> {
        let (ty, vector) = self.declared_type(decl)?;
        let element = ty.bytes() * vector;
        let align = decl
            .alignment()
            .and_then(|t| parse_int(t.text))
            .map(|a| a as usize)
            .unwrap_or(element)
            .clamp(1, 1 << 16);
        Ok((ty, element, align))
    }

    /// Elements of the declared array; an unsized dimension takes what the
    /// initializer fills (`init_len` elements).
    fn count(&self, declarator: &ptx_syntax::Declarator<'_>, init_len: usize) -> usize {
        let dims = dimensions(declarator);
        let known = dims
            .iter()
            .flatten()
            .fold(1usize, |a, &b| a.saturating_mul(b))
            .max(1);
        let mut count = 1usize;
        for dim in dims {
            let n = dim.unwrap_or_else(|| init_len.div_ceil(known).max(1));
            count = count.saturating_mul(n);
        }
        count.min(1 << 28)
    }

    /// The values of a declarator's initializer and the number of elements
    /// they span, laid out by the array's dimensions (and vector width).
    fn initializer(
        &self,
        declarator: &ptx_syntax::Declarator<'_>,
        vector: usize,
    ) -> (Vec<(usize, InitValue)>, usize) {
        let Some(init) = declarator.initializer() else {
            return (Vec::new(), 0);
        };
        let mut dims = dimensions(declarator);
        if vector > 1 {
            dims.push(Some(vector));
        }
        initializer_values(init.text, &dims, &|name| self.address_of(name))
    }

    fn module_variable(&mut self, decl: &VariableDecl<'_>) -> Result<(), DecodeError> {
        let space = decl
            .state_space()
            .and_then(|s| Space::parse(s.text.trim_start_matches('.')))
            .unwrap_or(Space::Global);
        let (ty, element, align) = self.variable_layout(decl)?;
        for declarator in decl.declarators() {
            let Some(name) = declarator.name() else {
                continue;
            };
            let (values, extent) = self.initializer(&declarator, element / ty.bytes().max(1));
            let size = self.count(&declarator, extent) * element;
            let bytes = init_bytes(&values, ty, size);
            let store = match space {
                Space::Const => &mut self.program.const_init,
                _ => &mut self.program.global_static,
            };
            // Each variable starts on a 16-byte boundary at least: the
            // placement of module data is the loader's choice, and this one
            // keeps a vector or `cp.async` access to any variable aligned.
            let offset = align_up(store.len(), align.max(16));
            if offset + size > 1 << 30 {
                return error(decl.range(), "variable too large");
            }
            store.resize(offset, 0);
            store.extend_from_slice(&bytes);
            let addr = match space {
                Space::Const => offset as u64,
                _ => GLOBAL_STATIC_BASE + offset as u64,
            };
            self.module.vars.insert(
                name.text.to_owned(),
                Variable {
                    space,
                    addr,
                    size,
                    element,
                },
            );
        }
        Ok(())
    }

    fn declare_reg(&mut self, scope: &mut Scope, name: String, ty: Ty, function: usize) -> u32 {
        let index = self.program.regs.len() as u32;
        self.program.regs.push(RegInfo {
            name: name.clone(),
            ty,
            function,
            nested: false,
        });
        scope.regs.insert(name, index);
        index
    }

    /// Declares one function parameter and returns its slot.
    fn formal(
        &mut self,
        decl: &VariableDecl<'_>,
        function: usize,
        scope: &mut Scope,
        kernel: bool,
        info: &mut FuncInfo,
    ) -> Result<Vec<Slot>, DecodeError> {
        let space = decl.state_space().map(|s| s.text).unwrap_or(".param");
        let (ty, element, align) = self.variable_layout(decl)?;
        // A parameter sits at a multiple of its own size's alignment or of
        // `.align`, whichever is larger; the `.align` of a `.ptr` attribute
        // is the pointee's and does not move the parameter (ptxas's layout,
        // read from EIATTR_KPARAM_INFO: tests/interp/param_layout.py).
        let align = if pointee_alignment(decl) {
            element
        } else {
            align.max(element)
        }
        .clamp(1, 1 << 16);
        let mut slots = Vec::new();
        for declarator in decl.declarators() {
            let Some(name) = declarator.name() else {
                continue;
            };
            if space == ".reg" {
                let (_, vector) = self.declared_type(decl)?;
                if vector > 1 {
                    // A vector register parameter: one slot per element.
                    for component in ["x", "y", "z", "w"].iter().take(vector) {
                        let reg = self.declare_reg(
                            scope,
                            format!("{}.{component}", name.text),
                            ty,
                            function,
                        );
                        slots.push(Slot::Reg(reg));
                    }
                } else {
                    let reg = self.declare_reg(scope, name.text.to_owned(), ty, function);
                    slots.push(Slot::Reg(reg));
                }
                continue;
            }
            let size = self.count(&declarator, 0) * element;
            let addr = if kernel {
                let offset = align_up(self.program.kernel_param_size, align);
                self.program.kernel_param_size = offset + size;
                info.kernel_params.push(KernelParam {
                    name: name.text.to_owned(),
                    ty,
                    offset: offset as u64,
                    size,
                });
                offset as u64
            } else {
                let offset = align_up(self.program.func_param_size, align);
                self.program.func_param_size = offset + size;
                FUNC_PARAM_BASE + offset as u64
            };
            scope.vars.insert(
                name.text.to_owned(),
                Variable {
                    space: Space::Param,
                    addr,
                    size,
                    element,
                },
            );
            slots.push(Slot::Param {
                addr,
                size: size as u32,
            });
        }
        Ok(slots)
    }

    fn local_variable(
        &mut self,
        decl: &VariableDecl<'_>,
        function: usize,
        scope: &mut Scope,
    ) -> Result<(), DecodeError> {
        let space_text = decl.state_space().map(|s| s.text).unwrap_or("");
        if space_text == ".reg" {
            let (ty, vector) = self.declared_type(decl)?;
            for declarator in decl.declarators() {
                let count = declarator.count().unwrap_or(1) as usize * vector;
                if self.program.regs.len() + count > MAX_REGISTERS {
                    return error(
                        decl.range(),
                        format!("more than {MAX_REGISTERS} registers are declared"),
                    );
                }
                for name in declarator.expanded_names() {
                    if vector > 1 {
                        for component in ["x", "y", "z", "w"].iter().take(vector) {
                            self.declare_reg(scope, format!("{name}.{component}"), ty, function);
                        }
                    } else {
                        self.declare_reg(scope, name, ty, function);
                    }
                }
            }
            return Ok(());
        }
        let Some(space) = Space::parse(space_text.trim_start_matches('.')) else {
            return Ok(());
        };
        let (_, element, align) = self.variable_layout(decl)?;
        for declarator in decl.declarators() {
            let Some(name) = declarator.name() else {
                continue;
            };
            let (_, extent) = self.initializer(&declarator, 1);
            let size = self.count(&declarator, extent) * element;
            let addr = match space {
                // An unsized array (`.extern .shared .b8 smem[];`) is the
                // launch's dynamic shared memory; every such array starts there.
                Space::Shared
                    if declarator.initializer().is_none()
                        && declarator.dimensions().iter().any(Option::is_none) =>
                {
                    self.program.dynamic_shared = Some(name.text.to_owned());
                    DYNAMIC_SHARED_BASE
                }
                Space::Shared => {
                    let offset = align_up(self.program.shared_size, align);
                    self.program.shared_size = offset + size;
                    offset as u64
                }
                Space::Local => {
                    let offset = align_up(self.program.local_size, align);
                    self.program.local_size = offset + size;
                    offset as u64
                }
                Space::Param => {
                    let offset = align_up(self.program.func_param_size, align);
                    self.program.func_param_size = offset + size;
                    FUNC_PARAM_BASE + offset as u64
                }
                Space::Global | Space::Const => {
                    self.module_variable(decl)?;
                    if let Some(var) = self.module.vars.remove(name.text) {
                        scope.vars.insert(name.text.to_owned(), var);
                    }
                    continue;
                }
                Space::Generic => continue,
            };
            if self.program.shared_size > MAX_SHARED
                || self.program.local_size > MAX_LOCAL
                || self.program.func_param_size > MAX_LOCAL
            {
                return error(
                    decl.range(),
                    "more shared (256 KiB) or local (512 KiB per thread) memory than a GPU has",
                );
            }
            scope.vars.insert(
                name.text.to_owned(),
                Variable {
                    space,
                    addr,
                    size,
                    element,
                },
            );
        }
        Ok(())
    }

    /// Decodes a function body (or the snippet body).
    fn body(
        &mut self,
        function: usize,
        mut scope: Scope,
        statements: &[Statement<'_>],
        snippet: bool,
    ) -> Result<(), DecodeError> {
        let start = self.program.insts.len() as u32;
        // A label is visible in the block that declares it (the whole body
        // for the body's own labels) and in the blocks nested in it: inline
        // asm repeats `{ WAIT: ... bra WAIT; }` with the same names.
        scope.labels.extend(block_labels(statements, start));
        let local_start = self.program.local_size;
        let param_start = self.program.func_param_size;
        // The body's own declarations hold everywhere in it; a nested `{ }`
        // block's declarations only inside that block, where they may shadow
        // outer names.
        for statement in statements {
            if let Statement::Variable(decl) = statement {
                self.local_variable(decl, function, &mut scope)?;
            }
        }
        self.program.functions[function].start = start;
        self.statements(function, &mut scope, statements, true)?;
        let info = &mut self.program.functions[function];
        info.frame_local = local_start..self.program.local_size;
        info.frame_params
            .push(param_start..self.program.func_param_size);
        // Falling off the end returns (functions) or exits (entries, snippets).
        let end = self.program.functions[function].range.end;
        let op = if snippet || self.program.functions[function].entry {
            Op::Exit
        } else {
            Op::Ret
        };
        self.program.insts.push(Inst {
            op,
            guard: None,
            dst: Vec::new(),
            src: Vec::new(),
            range: end.saturating_sub(1)..end,
            implicit: true,
        });
        Ok(())
    }

    /// Decodes the instructions of `statements`, entering nested blocks with
    /// a scope of their own.
    fn statements(
        &mut self,
        function: usize,
        scope: &mut Scope,
        statements: &[Statement<'_>],
        outermost: bool,
    ) -> Result<(), DecodeError> {
        for statement in statements {
            match statement {
                Statement::Variable(decl) if !outermost => {
                    let first = self.program.regs.len();
                    self.local_variable(decl, function, scope)?;
                    for reg in &mut self.program.regs[first..] {
                        reg.nested = true;
                    }
                }
                Statement::Instruction(instruction) => {
                    let inst = self.instruction(instruction, scope)?;
                    self.program.insts.push(inst);
                }
                Statement::Block(block) => {
                    let regs = scope.regs.clone();
                    let vars = scope.vars.clone();
                    let labels = scope.labels.clone();
                    let inner = block.statements();
                    let pc = self.program.insts.len() as u32;
                    scope.labels.extend(block_labels(&inner, pc));
                    self.statements(function, scope, &inner, false)?;
                    scope.regs = regs;
                    scope.vars = vars;
                    scope.labels = labels;
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn instruction(&mut self, inst: &Instruction<'_>, scope: &Scope) -> Result<Inst, DecodeError> {
        self.generic_names.set(false);
        let range = inst.range();
        let unsupported = |message: String| Inst {
            op: Op::Unsupported(message),
            guard: None,
            dst: Vec::new(),
            src: Vec::new(),
            range: range.clone(),
            implicit: false,
        };
        if inst.has_error() {
            return Ok(unsupported("this statement has a syntax error".into()));
        }
        let Some(mnemonic) = inst.mnemonic() else {
            return Ok(unsupported("instruction without an opcode".into()));
        };
        let mnemonic = mnemonic.text;
        let mut quals = Quals::new(inst.qualifiers().iter().map(|q| q.text));
        if self.legacy_ftz && legacy_flush(mnemonic, &quals, self.legacy_cvt) {
            quals.words.push("ftz".to_owned());
        }
        let guard = match inst.guard() {
            Some(guard) => match self.lookup_reg(scope, guard.predicate.text) {
                Some(reg) => Some((reg, guard.negated)),
                None => {
                    return error(
                        guard.predicate.range(),
                        format!("undeclared predicate `{}`", guard.predicate.text),
                    )
                }
            },
            None => None,
        };
        let operands = inst.operands();
        if mnemonic == "call" {
            return self.call(inst, &operands, scope, guard);
        }
        let n_dst = destination_count(mnemonic, &quals);
        self.generic_names.set(
            quals.space.is_none()
                && matches!(mnemonic, "ld" | "ldu" | "st" | "atom" | "red" | "prefetch"),
        );
        let mut dst = Vec::new();
        let mut src = Vec::new();
        let mut marks = Vec::new();
        let video = crate::video::is_video(mnemonic);
        // Instructions whose immediates are counts, strides or masks never
        // take float literals.
        let integer_immediates = matches!(
            mnemonic,
            "wmma"
                | "wgmma"
                | "cp"
                | "tcgen05"
                | "shfl"
                | "ld"
                | "ldu"
                | "st"
                | "vote"
                | "match"
                | "redux"
                | "bar"
        );
        let float_ty = |index: usize| -> Option<Ty> {
            if integer_immediates && !matches!(mnemonic, "st") {
                return None;
            }
            let ty = if matches!(mnemonic, "cvt" | "set" | "cvt.pack") && index > 0 {
                quals.types.last().copied()
            } else {
                quals.types.first().copied()
            };
            ty.filter(|t| t.is_float())
        };
        let mut operands_ok = || -> Result<(), DecodeError> {
            for (index, operand) in operands.iter().enumerate() {
                if index < n_dst {
                    if let OperandKind::Pair = operand.kind() {
                        for element in operand.elements() {
                            dst.push(self.dst(&element, scope)?);
                        }
                        if dst.len() == 1 {
                            dst.push(Dst::Sink);
                        }
                    } else {
                        dst.push(self.dst(operand, scope)?);
                    }
                } else if let Some((inner, select, negated)) =
                    video.then(|| video_operand(operand)).flatten()
                {
                    let reg = match inner.kind() {
                        OperandKind::Register(name) => self.lookup_reg(scope, name),
                        OperandKind::Component { register, .. } => self.lookup_reg(scope, register),
                        _ => None,
                    };
                    let Some(reg) = reg else {
                        return error(
                            operand.range(),
                            format!("undeclared register `{}`", inner.text()),
                        );
                    };
                    marks.push((src.len(), select, negated));
                    src.push(Src::Reg(reg));
                } else {
                    src.push(self.src(operand, scope, float_ty(index))?);
                }
            }
            Ok(())
        };
        match operands_ok() {
            Ok(()) => {}
            // A name the program never declared is its error; an operand
            // form the interpreter does not model (a texture coordinate
            // vector, ...) only stops the threads that reach it.
            Err(error) if error.message.starts_with("undeclared") => return Err(error),
            Err(error) => return Ok(unsupported(error.message)),
        }
        quals.marks = marks;
        let op = match crate::decode_op(mnemonic, &quals, dst.len(), &src) {
            Ok(op) => op,
            Err(message) => return Ok(unsupported(message)),
        };
        if matches!(op, Op::Tensor(_)) {
            self.program.uses_tensor_memory = true;
        }
        Ok(Inst {
            op,
            guard,
            dst,
            src,
            range,
            implicit: false,
        })
    }

    fn call(
        &mut self,
        inst: &Instruction<'_>,
        operands: &[Operand<'_>],
        scope: &Scope,
        guard: Option<(u32, bool)>,
    ) -> Result<Inst, DecodeError> {
        let range = inst.range();
        let mut rets = Vec::new();
        let mut args = Vec::new();
        let mut target = None;
        let mut through = None;
        for operand in operands {
            match operand.kind() {
                // `call (r), %rd, (a), prototype;`: the function whose
                // address the register holds.
                OperandKind::Register(name) | OperandKind::Identifier(name)
                    if target.is_none()
                        && through.is_none()
                        && (matches!(operand.kind(), OperandKind::Register(_))
                            || self.lookup_reg(scope, name).is_some()) =>
                {
                    match self.lookup_reg(scope, name) {
                        Some(reg) => through = Some(reg),
                        None => {
                            return error(operand.range(), format!("undeclared register `{name}`"))
                        }
                    }
                }
                // The prototype or `.calltargets` list of an indirect call.
                OperandKind::Identifier(_) if through.is_some() => {}
                OperandKind::ArgumentList => {
                    let mut slots = Vec::new();
                    for element in operand.elements() {
                        slots.extend(self.slot(&element, scope)?);
                    }
                    if target.is_none() && through.is_none() {
                        rets = slots;
                    } else {
                        args = slots;
                    }
                }
                OperandKind::Identifier(name) if target.is_none() => {
                    match self.functions.get(name) {
                        Some(&f) => target = Some(f),
                        None => {
                            return Ok(Inst {
                                op: Op::Unsupported(format!(
                                    "call of `{name}`, which has no body here"
                                )),
                                guard,
                                dst: Vec::new(),
                                src: Vec::new(),
                                range,
                                implicit: false,
                            })
                        }
                    }
                }
                _ => {
                    return Ok(Inst {
                        op: Op::Unsupported("indirect calls are not supported".into()),
                        guard,
                        dst: Vec::new(),
                        src: Vec::new(),
                        range,
                        implicit: false,
                    })
                }
            }
        }
        if let Some(reg) = through {
            return Ok(Inst {
                op: Op::CallIndirect { reg, rets, args },
                guard,
                dst: Vec::new(),
                src: Vec::new(),
                range,
                implicit: false,
            });
        }
        let Some(func) = target else {
            return error(range, "call without a target function");
        };
        Ok(Inst {
            op: Op::Call { func, rets, args },
            guard,
            dst: Vec::new(),
            src: Vec::new(),
            range,
            implicit: false,
        })
    }

    /// The slots of one call argument: a vector register gives one per element.
    fn slot(&self, operand: &Operand<'_>, scope: &Scope) -> Result<Vec<Slot>, DecodeError> {
        match operand.kind() {
            OperandKind::Identifier(name) | OperandKind::Register(name)
                if self.lookup_reg(scope, name).is_none()
                    && self.vector_reg(scope, name).is_some() =>
            {
                Ok(self
                    .vector_reg(scope, name)
                    .unwrap_or_default()
                    .into_iter()
                    .map(Slot::Reg)
                    .collect())
            }
            _ => self.scalar_slot(operand, scope).map(|slot| vec![slot]),
        }
    }

    fn scalar_slot(&self, operand: &Operand<'_>, scope: &Scope) -> Result<Slot, DecodeError> {
        match operand.kind() {
            OperandKind::Identifier(name) if self.lookup_reg(scope, name).is_some() => {
                Ok(Slot::Reg(self.lookup_reg(scope, name).unwrap_or_default()))
            }
            OperandKind::Register(name) => match self.lookup_reg(scope, name) {
                Some(reg) => Ok(Slot::Reg(reg)),
                None => error(operand.range(), format!("undeclared register `{name}`")),
            },
            OperandKind::Identifier(name) => match self.lookup_var(scope, name) {
                Some(var) if var.space == Space::Param => Ok(Slot::Param {
                    addr: var.addr,
                    size: var.size as u32,
                }),
                _ => error(
                    operand.range(),
                    format!("`{name}` is not a parameter variable"),
                ),
            },
            _ => match self.const_eval(operand, scope) {
                Some(value) => Ok(Slot::Imm(value as u64)),
                None => error(operand.range(), "unsupported call argument"),
            },
        }
    }

    /// The address of a module variable or function named in an initializer:
    /// (its address in its own space, its generic address).
    fn address_of(&self, name: &str) -> Option<(u64, u64)> {
        if let Some(var) = self.module.vars.get(name) {
            return Some((var.addr, to_generic(var.space, var.addr)));
        }
        let f = FUNCTION_BASE + u64::from(*self.functions.get(name)?);
        Some((f, f))
    }

    fn lookup_reg(&self, scope: &Scope, name: &str) -> Option<u32> {
        scope.regs.get(name).copied()
    }

    /// The element registers of a vector register (`.reg .v4 .u32 %v`).
    fn vector_reg(&self, scope: &Scope, name: &str) -> Option<Vec<u32>> {
        let regs: Vec<u32> = ["x", "y", "z", "w"]
            .iter()
            .map_while(|c| self.lookup_reg(scope, &format!("{name}.{c}")))
            .collect();
        (!regs.is_empty()).then_some(regs)
    }

    /// `%v.x` … `%v.w`, or `%v.r` … `%v.a` for the same elements.
    fn component_reg(&self, scope: &Scope, register: &str, component: &str) -> Option<u32> {
        let component = match component {
            ".r" => ".x",
            ".g" => ".y",
            ".b" => ".z",
            ".a" => ".w",
            other => other,
        };
        self.lookup_reg(scope, &format!("{register}{component}"))
    }

    fn lookup_var<'s>(&'s self, scope: &'s Scope, name: &str) -> Option<&'s Variable> {
        scope.vars.get(name).or_else(|| self.module.vars.get(name))
    }

    fn dst(&self, operand: &Operand<'_>, scope: &Scope) -> Result<Dst, DecodeError> {
        match operand.kind() {
            OperandKind::Register(name) | OperandKind::Identifier(name) => {
                match self.lookup_reg(scope, name) {
                    Some(reg) => Ok(Dst::Reg(reg)),
                    None => match self.vector_reg(scope, name) {
                        Some(regs) => Ok(Dst::Vector(regs.into_iter().map(Dst::Reg).collect())),
                        None => error(operand.range(), format!("undeclared register `{name}`")),
                    },
                }
            }
            OperandKind::Component {
                register,
                component,
            } => match self.component_reg(scope, register, component) {
                Some(reg) => Ok(Dst::Reg(reg)),
                None => error(
                    operand.range(),
                    format!("cannot write `{}`", operand.text()),
                ),
            },
            OperandKind::Vector => Ok(Dst::Vector(
                operand
                    .elements()
                    .iter()
                    .map(|e| self.dst(e, scope))
                    .collect::<Result<_, _>>()?,
            )),
            OperandKind::Sink => Ok(Dst::Sink),
            _ => error(
                operand.range(),
                format!("`{}` cannot be a destination", operand.text()),
            ),
        }
    }

    fn src(
        &self,
        operand: &Operand<'_>,
        scope: &Scope,
        float_ty: Option<Ty>,
    ) -> Result<Src, DecodeError> {
        match operand.kind() {
            OperandKind::Register(name) => {
                if let Some(reg) = self.lookup_reg(scope, name) {
                    return Ok(Src::Reg(reg));
                }
                if let Some(regs) = self.vector_reg(scope, name) {
                    return Ok(Src::Vector(regs.into_iter().map(Src::Reg).collect()));
                }
                match Special::parse(name, None) {
                    Some(special) => Ok(Src::Special(special)),
                    // A variable may be named with `%` too (`.local .u32 %L1;`).
                    None => match self.lookup_var(scope, name) {
                        Some(var) => Ok(Src::Imm(var.addr)),
                        None => error(operand.range(), format!("undeclared register `{name}`")),
                    },
                }
            }
            OperandKind::Component {
                register,
                component,
            } => {
                if let Some(reg) = self.component_reg(scope, register, component) {
                    return Ok(Src::Reg(reg));
                }
                match Special::parse(register, Some(component)) {
                    Some(special) => Ok(Src::Special(special)),
                    None => error(
                        operand.range(),
                        format!("unsupported register component `{}`", operand.text()),
                    ),
                }
            }
            OperandKind::Negated => {
                let inner = operand.elements();
                let Some(first) = inner.first() else {
                    return error(operand.range(), "`!` without an operand");
                };
                match self.src(first, scope, None)? {
                    Src::Reg(reg) => Ok(Src::NotReg(reg)),
                    _ => error(operand.range(), "`!` applies to predicate registers"),
                }
            }
            OperandKind::Identifier(name) => {
                // Registers may be named without `%` (`.reg .b32 x`).
                if let Some(reg) = self.lookup_reg(scope, name) {
                    return Ok(Src::Reg(reg));
                }
                if let Some(regs) = self.vector_reg(scope, name) {
                    return Ok(Src::Vector(regs.into_iter().map(Src::Reg).collect()));
                }
                if let Some(&pc) = scope.labels.get(name) {
                    return Ok(Src::Target(pc));
                }
                if let Some(&f) = self.functions.get(name) {
                    // A function's address, for an indirect call.
                    return Ok(Src::Imm(FUNCTION_BASE + u64::from(f)));
                }
                if name == "WARP_SZ" {
                    return Ok(Src::Imm(32));
                }
                match self.lookup_var(scope, name) {
                    Some(var) => Ok(Src::Imm(var.addr)),
                    None => error(operand.range(), format!("unknown name `{name}`")),
                }
            }
            OperandKind::Float(text) => match float_literal(text, float_ty) {
                Some(bits) => Ok(Src::Imm(bits)),
                None => error(operand.range(), format!("bad float literal `{text}`")),
            },
            OperandKind::Vector => Ok(Src::Vector(
                operand
                    .elements()
                    .iter()
                    .map(|e| self.src(e, scope, float_ty))
                    .collect::<Result<_, _>>()?,
            )),
            OperandKind::Address { .. } => {
                let elements = operand.elements();
                let Some(first) = elements.first() else {
                    return error(operand.range(), "empty address");
                };
                match self.address(first, scope) {
                    // `[tensorMap, {c0, c1}]` (cp.async.bulk.tensor): the address
                    // and the coordinates; read as a value it is the address.
                    Some((base, offset)) if elements.len() == 2 => {
                        let coords = self.src(&elements[1], scope, None)?;
                        Ok(Src::Vector(vec![
                            Src::Addr(Address { base, offset }),
                            coords,
                        ]))
                    }
                    Some((base, offset)) => Ok(Src::Addr(Address { base, offset })),
                    None => error(
                        operand.range(),
                        format!("unsupported address `{}`", operand.text()),
                    ),
                }
            }
            OperandKind::Sink => Ok(Src::Sink),
            OperandKind::ArgumentList if operand.elements().len() == 1 => {
                self.src(&operand.elements()[0], scope, float_ty)
            }
            OperandKind::Pair => error(operand.range(), "a register pair cannot be a source"),
            _ => {
                // A negative float literal is `-` applied to a float.
                if let Some(Expression::Unary {
                    operator: "-",
                    operand: inner,
                }) = operand.expression()
                {
                    if let OperandKind::Float(text) = inner.kind() {
                        if let Some(bits) = float_literal(text, float_ty) {
                            let ty = float_ty.unwrap_or(Ty::F64);
                            let sign = 1u64 << (ty.bits().min(64) - 1);
                            return Ok(Src::Imm(bits ^ sign));
                        }
                    }
                }
                match self.const_eval(operand, scope) {
                    Some(value) => match float_ty {
                        // An integer written where a float is expected is its value.
                        Some(ty) if matches!(operand.kind(), OperandKind::Integer(_)) => {
                            Ok(Src::Imm(int_as_float(value, ty)))
                        }
                        _ => Ok(Src::Imm(value as u64)),
                    },
                    // `reg + c` as a value (`st.u64 [p], r + 1;`): the sum.
                    None => match self.address(operand, scope) {
                        Some((base @ Some(_), offset)) => Ok(Src::Addr(Address { base, offset })),
                        _ => error(
                            operand.range(),
                            format!("cannot evaluate `{}`", operand.text()),
                        ),
                    },
                }
            }
        }
    }

    /// `reg`, `reg+c`, `var+c`, `c`: the base register (if any) and offset.
    fn address(&self, operand: &Operand<'_>, scope: &Scope) -> Option<(Option<u32>, i64)> {
        match operand.kind() {
            OperandKind::Register(name) => Some((Some(self.lookup_reg(scope, name)?), 0)),
            OperandKind::Identifier(name) if self.lookup_reg(scope, name).is_some() => {
                Some((self.lookup_reg(scope, name), 0))
            }
            _ => match operand.expression() {
                Some(Expression::Binary {
                    left,
                    operator,
                    right,
                }) if operator == "+" || operator == "-" => {
                    let (base_l, a) = self.address(&left, scope)?;
                    let (base_r, b) = self.address(&right, scope)?;
                    match (base_l, base_r, operator) {
                        (base, None, "+") => Some((base, a.wrapping_add(b))),
                        (base, None, _) => Some((base, a.wrapping_sub(b))),
                        (None, base, "+") => Some((base, a.wrapping_add(b))),
                        _ => None,
                    }
                }
                Some(Expression::Parenthesized(inner)) => self.address(&inner, scope),
                _ => Some((None, self.const_eval(operand, scope)? as i64)),
            },
        }
    }

    /// Evaluates a constant expression (variables stand for their addresses).
    fn const_eval(&self, operand: &Operand<'_>, scope: &Scope) -> Option<i128> {
        match operand.kind() {
            OperandKind::Integer(text) => parse_int(text).map(i128::from),
            OperandKind::Identifier("WARP_SZ") => Some(32),
            OperandKind::Identifier(name) => {
                let var = self.lookup_var(scope, name)?;
                Some(i128::from(if self.generic_names.get() {
                    to_generic(var.space, var.addr)
                } else {
                    var.addr
                }))
            }
            OperandKind::ArgumentList if operand.elements().len() == 1 => {
                self.const_eval(&operand.elements()[0], scope)
            }
            _ => {
                let wrap = |v: i128| i128::from(v as i64);
                match operand.expression()? {
                    Expression::Unary { operator, operand } => {
                        let v = self.const_eval(&operand, scope)?;
                        Some(match operator {
                            "-" => wrap(v.wrapping_neg()),
                            "+" => v,
                            "~" => !v,
                            "!" => i128::from(v == 0),
                            _ => return None,
                        })
                    }
                    Expression::Binary {
                        left,
                        operator,
                        right,
                    } => {
                        let a = self.const_eval(&left, scope)? as i64;
                        let b = self.const_eval(&right, scope)? as i64;
                        Some(i128::from(match operator {
                            "+" => a.wrapping_add(b),
                            "-" => a.wrapping_sub(b),
                            "*" => a.wrapping_mul(b),
                            "/" => a.checked_div(b)?,
                            "%" => a.checked_rem(b)?,
                            "<<" => a.wrapping_shl(b as u32),
                            ">>" => a.wrapping_shr(b as u32),
                            "&" => a & b,
                            "|" => a | b,
                            "^" => a ^ b,
                            "&&" => i64::from(a != 0 && b != 0),
                            "||" => i64::from(a != 0 || b != 0),
                            "==" => i64::from(a == b),
                            "!=" => i64::from(a != b),
                            "<" => i64::from(a < b),
                            "<=" => i64::from(a <= b),
                            ">" => i64::from(a > b),
                            ">=" => i64::from(a >= b),
                            _ => return None,
                        }))
                    }
                    Expression::Conditional {
                        condition,
                        consequence,
                        alternative,
                    } => {
                        if self.const_eval(&condition, scope)? != 0 {
                            self.const_eval(&consequence, scope)
                        } else {
                            self.const_eval(&alternative, scope)
                        }
                    }
                    Expression::Parenthesized(inner) => self.const_eval(&inner, scope),
                    // `a[i]`: the address of element `i`.
                    Expression::Subscript { array, index } => {
                        let OperandKind::Identifier(name) = array.kind() else {
                            return None;
                        };
                        let element = self.lookup_var(scope, name)?.element as i128;
                        let base = self.const_eval(&array, scope)?;
                        Some(wrap(base + self.const_eval(&index, scope)? * element))
                    }
                }
            }
        }
    }

    #[allow(dead_code)]
    fn text(&self) -> &str {
        self.text
    }
}

/// Which of `functions` the ones at `roots` can reach through the names its
/// instructions mention (`call f`, `mov.u64 %rd, f` for an indirect call).
fn reachable(functions: &[ptx_syntax::Function<'_>], roots: &[usize]) -> Vec<bool> {
    let index: HashMap<&str, usize> = functions
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((f.name()?.text, i)))
        .collect();
    let mut keep = vec![false; functions.len()];
    for &root in roots {
        keep[root] = true;
    }
    let mut work = roots.to_vec();
    while let Some(f) = work.pop() {
        let mut flat = Vec::new();
        flatten(
            &functions[f]
                .body()
                .map(|b| b.statements())
                .unwrap_or_default(),
            &mut flat,
        );
        for statement in &flat {
            let Statement::Instruction(inst) = statement else {
                continue;
            };
            let mut operands = inst.operands();
            while let Some(operand) = operands.pop() {
                if let OperandKind::Identifier(name) = operand.kind() {
                    if let Some(&g) = index.get(name) {
                        if !keep[g] {
                            keep[g] = true;
                            work.push(g);
                        }
                    }
                }
                if matches!(
                    operand.kind(),
                    OperandKind::ArgumentList | OperandKind::Vector
                ) {
                    operands.extend(operand.elements());
                }
            }
        }
    }
    keep
}

/// The labels declared directly in `statements` (not in nested blocks) and
/// their instruction indices, the first instruction being `pc`.
fn block_labels(statements: &[Statement<'_>], mut pc: u32) -> Vec<(String, u32)> {
    let mut labels = Vec::new();
    for statement in statements {
        match statement {
            Statement::Label(label) => {
                if let Some(name) = label.name() {
                    labels.push((name.text.to_owned(), pc));
                }
            }
            Statement::Instruction(_) => pc += 1,
            Statement::Block(block) => {
                let mut flat = Vec::new();
                flatten(&block.statements(), &mut flat);
                pc += flat
                    .iter()
                    .filter(|s| matches!(s, Statement::Instruction(_)))
                    .count() as u32;
            }
            _ => {}
        }
    }
    labels
}

fn flatten<'a>(statements: &[Statement<'a>], out: &mut Vec<Statement<'a>>) {
    for statement in statements {
        match statement {
            Statement::Block(block) => flatten(&block.statements(), out),
            other => out.push(*other),
        }
    }
}

/// How many leading operands are destinations.
pub(crate) fn destination_count(mnemonic: &str, quals: &Quals) -> usize {
    match mnemonic {
        "bar" | "barrier" => usize::from(quals.has("red")),
        "st" | "sust" | "sured" | "red" | "bra" | "ret" | "exit" | "membar" | "fence" | "trap"
        | "brkpt" | "nanosleep" | "prefetch" | "prefetchu" | "pmevent" | "stmatrix" | "discard"
        | "applypriority" | "cp" | "griddepcontrol" | "setmaxnreg" | "tensormap" => 0,
        "wmma" if quals.has("store") => 0,
        "wgmma" if !quals.has("mma_async") => 0,
        "mbarrier"
            if quals.has("init")
                || quals.has("inval")
                || quals.has("complete_tx")
                || quals.has("expect_tx") && !quals.has("arrive") =>
        {
            0
        }
        "tcgen05" if quals.has("ld") && quals.has("red") => 2,
        "tcgen05" if !quals.has("ld") => 0,
        _ => 1,
    }
}

/// Parses a PTX integer literal (decimal, hex, octal, binary, `U` suffix).
pub fn parse_int(text: &str) -> Option<u64> {
    let body = text.trim().strip_suffix('U').unwrap_or(text.trim());
    let (digits, radix) = if let Some(h) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = body.strip_prefix("0b").or(body.strip_prefix("0B")) {
        (b, 2)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else {
        (body, 10)
    };
    u64::from_str_radix(digits, radix).ok()
}

/// The bits of a float literal for an operand of type `ty`.
pub fn float_literal(text: &str, ty: Option<Ty>) -> Option<u64> {
    let lower = text.to_ascii_lowercase();
    let (value, exact_bits) = if let Some(hex) = lower.strip_prefix("0f") {
        let bits = u32::from_str_radix(hex, 16).ok()?;
        (f64::from(f32::from_bits(bits)), Some((u64::from(bits), 32)))
    } else if let Some(hex) = lower.strip_prefix("0d") {
        let bits = u64::from_str_radix(hex, 16).ok()?;
        (f64::from_bits(bits), Some((bits, 64)))
    } else {
        (text.parse::<f64>().ok()?, None)
    };
    let Some(ty) = ty else {
        // An untyped (bit-typed) destination keeps the literal's own bits.
        return Some(match exact_bits {
            Some((bits, _)) => bits,
            None => value.to_bits(),
        });
    };
    let format = ty.format()?;
    if let Some((bits, width)) = exact_bits {
        if width == format.bits() {
            return Some(bits);
        }
    }
    let bits = format.encode(value, Rounding::Nearest);
    Some(if ty.is_packed() {
        bits | bits << format.bits()
    } else {
        bits
    })
}

fn int_as_float(value: i128, ty: Ty) -> u64 {
    let format = ty.format().unwrap_or(softfloat::F64);
    format.encode(value as f64, Rounding::Nearest)
}

/// The sizes of a declarator's dimensions (`None`: unsized `[]`).
fn dimensions(declarator: &ptx_syntax::Declarator<'_>) -> Vec<Option<usize>> {
    declarator
        .dimensions()
        .into_iter()
        .map(|d| d.map(|t| parse_int(t.text).map_or(1, |v| v as usize)))
        .collect()
}

/// One value or brace group of an initializer.
enum InitNode<'t> {
    Value(&'t str),
    Group(Vec<InitNode<'t>>),
}

fn parse_init(text: &str) -> Vec<InitNode<'_>> {
    fn group<'t>(text: &'t str, at: &mut usize) -> Vec<InitNode<'t>> {
        let mut items = Vec::new();
        let mut start = *at;
        let bytes = text.as_bytes();
        let flush = |from: usize, to: usize, items: &mut Vec<InitNode<'t>>| {
            let item = text[from..to].trim();
            if !item.is_empty() {
                items.push(InitNode::Value(item));
            }
        };
        while *at < bytes.len() {
            match bytes[*at] {
                b'{' => {
                    flush(start, *at, &mut items);
                    *at += 1;
                    items.push(InitNode::Group(group(text, at)));
                    start = *at;
                    continue;
                }
                b'}' => {
                    flush(start, *at, &mut items);
                    *at += 1;
                    return items;
                }
                b',' => {
                    flush(start, *at, &mut items);
                    start = *at + 1;
                }
                // `generic(name)`: its parentheses hold no separators.
                _ => {}
            }
            *at += 1;
        }
        flush(start, *at, &mut items);
        items
    }
    let mut at = 0;
    group(text, &mut at)
}

/// Values of an initializer with their element positions, and how many
/// elements it spans: `5`, `{1, 2, 3}`, `{{1, 2}, {3}}` (a brace group fills
/// one row of the next dimension, the rest of the row staying zero),
/// `0f3F800000`, and addresses: `var`, `var+8`, `generic(var)`,
/// `generic(var)+4` (`address` gives a name's address, generic or not).
fn initializer_values(
    text: &str,
    dims: &[Option<usize>],
    address: &dyn Fn(&str) -> Option<(u64, u64)>,
) -> (Vec<(usize, InitValue)>, usize) {
    let address_value = |s: &str| -> Option<i128> {
        let (base, offset) = match s.find(['+', '-']) {
            Some(at) if at > 0 => {
                let sign = if s[at..].starts_with('-') { -1 } else { 1 };
                (&s[..at], sign * i128::from(parse_int(s[at + 1..].trim())?))
            }
            _ => (s, 0),
        };
        let base = base.trim();
        let (name, generic) = match base
            .strip_prefix("generic(")
            .and_then(|b| b.strip_suffix(')'))
        {
            Some(inner) => (inner.trim(), true),
            None => (base, false),
        };
        let (plain, generic_addr) = address(name)?;
        Some(i128::from(if generic { generic_addr } else { plain }) + offset)
    };
    let value = |s: &str| {
        if let Some(v) = address_value(s) {
            InitValue::Int(v)
        } else if let Some(v) = parse_int(s) {
            InitValue::Int(i128::from(v))
        } else if let Some(v) = s.strip_prefix('-').and_then(parse_int) {
            InitValue::Int(-i128::from(v))
        } else if let Some(bits) = float_literal(s, Some(Ty::F64)) {
            InitValue::Float(f64::from_bits(bits))
        } else if let Some(bits) = s
            .strip_prefix('-')
            .and_then(|t| float_literal(t, Some(Ty::F64)))
        {
            InitValue::Float(-f64::from_bits(bits))
        } else {
            InitValue::Int(0)
        }
    };
    // Elements one brace group of depth d covers: the product of the
    // dimensions after d.
    let stride = |depth: usize| -> usize {
        dims.get(depth..)
            .map(|rest| {
                rest.iter()
                    .fold(1usize, |a, d| a.saturating_mul(d.unwrap_or(1)))
            })
            .unwrap_or(1)
            .clamp(1, 1 << 28)
    };
    fn fill(
        items: &[InitNode<'_>],
        depth: usize,
        start: usize,
        stride: &dyn Fn(usize) -> usize,
        value: &dyn Fn(&str) -> InitValue,
        out: &mut Vec<(usize, InitValue)>,
    ) -> usize {
        let mut cursor = start;
        for item in items {
            match item {
                InitNode::Value(text) => {
                    out.push((cursor, value(text)));
                    cursor += 1;
                }
                InitNode::Group(inner) => {
                    let row = stride(depth + 1);
                    cursor =
                        start.saturating_add((cursor - start).div_ceil(row).saturating_mul(row));
                    fill(inner, depth + 1, cursor, stride, value, out);
                    cursor = cursor.saturating_add(row);
                }
            }
        }
        cursor
    }
    let nodes = parse_init(text);
    let mut out = Vec::new();
    let extent = match nodes.as_slice() {
        [InitNode::Group(items)] => fill(items, 0, 0, &stride, &value, &mut out),
        items => fill(items, 0, 0, &stride, &value, &mut out),
    };
    (out, extent)
}

#[derive(Debug, Clone, Copy)]
enum InitValue {
    Int(i128),
    Float(f64),
}

fn init_bytes(values: &[(usize, InitValue)], ty: Ty, size: usize) -> Vec<u8> {
    let mut bytes = vec![0u8; size];
    let width = ty.bytes();
    for &(index, ref value) in values {
        let bits = match (*value, ty.format()) {
            (InitValue::Int(v), None) => v as u64,
            (InitValue::Float(f), None) => f as i64 as u64,
            (InitValue::Int(v), Some(format)) => format.encode(v as f64, Rounding::Nearest),
            (InitValue::Float(f), Some(format)) => format.encode(f, Rounding::Nearest),
        };
        let start = index.saturating_mul(width);
        let stored = width.min(8);
        if start.saturating_add(stored) > size {
            continue;
        }
        bytes[start..start + stored].copy_from_slice(&bits.to_le_bytes()[..stored]);
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brace_groups_fill_rows() {
        let layout = |text: &str, dims: &[Option<usize>]| {
            let address = |name: &str| (name == "var").then_some((0x100, 0x7a00_0000_0100));
            let (values, extent) = initializer_values(text, dims, &address);
            let values: Vec<String> = values
                .iter()
                .map(|(i, v)| match v {
                    InitValue::Int(n) => format!("{i}:{n}"),
                    InitValue::Float(f) => format!("{i}:{f}"),
                })
                .collect();
            format!("{} / {extent}", values.join(" "))
        };
        assert_eq!(
            layout("{{-1, 2}, {3}}", &[Some(4), Some(2)]),
            "0:-1 1:2 2:3 / 4"
        );
        assert_eq!(
            layout("{{1}, {2}, {var}}", &[Some(4), Some(2)]),
            "0:1 2:2 4:256 / 6"
        );
        assert_eq!(layout("{1, 2, 3}", &[None]), "0:1 1:2 2:3 / 3");
        assert_eq!(
            layout("{{1, 2}, {3, 4}}", &[None, Some(2)]),
            "0:1 1:2 2:3 3:4 / 4"
        );
        assert_eq!(
            layout("{generic(var)+8, var-4, 1.5}", &[Some(3)]),
            "0:134140418588936 1:252 2:1.5 / 3"
        );
        assert_eq!(layout("7", &[]), "0:7 / 1");
    }

    #[test]
    fn float_literals_take_the_operand_type() {
        assert_eq!(
            float_literal("0f3F800000", Some(Ty::F32)),
            Some(0x3f80_0000)
        );
        assert_eq!(float_literal("1.5", Some(Ty::F32)), Some(0x3fc0_0000));
        assert_eq!(float_literal("1.5", Some(Ty::F64)), Some(1.5f64.to_bits()));
        assert_eq!(
            float_literal("0f3F800000", Some(Ty::F64)),
            Some(1.0f64.to_bits())
        );
        assert_eq!(float_literal("0f3F800000", None), Some(0x3f80_0000));
        assert_eq!(float_literal("1.0", Some(Ty::F16)), Some(0x3c00));
    }
}

/// Whether the `.align` of a declaration belongs to its `.ptr` attribute
/// (`.param .u64 .ptr .global .align 8 p`).
fn pointee_alignment(decl: &VariableDecl<'_>) -> bool {
    let (Some(align), Some(at)) = (decl.alignment(), decl.text().find(".ptr")) else {
        return false;
    };
    align.start > decl.range().start + at
}

#[cfg(test)]
mod param_layout {
    use super::*;

    /// Every kernel of `fixtures/param_layout.txt` (ptxas's offsets, read
    /// from the cubin on the GPU machine) gets the same offsets here.
    #[test]
    fn kernel_parameters_sit_where_ptxas_puts_them() {
        let text = include_str!("../fixtures/param_layout.txt");
        let mut checked = 0;
        for line in text.lines() {
            let Some((head, offsets)) = line.split_once("]: ") else {
                continue;
            };
            let Some((name, params)) = head.split_once(" [") else {
                continue;
            };
            if offsets.starts_with("ptxas") {
                continue;
            }
            let ptx = format!(
                ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry {name}({params})\n{{\nret;\n}}\n"
            );
            let parse = Parse::new(&ptx);
            let program = decode(&parse, Mode::Kernel(name)).expect("decodes");
            let entry = &program.functions[program.main];
            let got: Vec<String> = entry
                .kernel_params
                .iter()
                .map(|p| format!("{}:{}", p.offset, p.size))
                .collect();
            assert_eq!(got.join(" "), offsets, "{name}");
            checked += 1;
        }
        assert!(checked >= 10, "the layout fixture lost its kernels");
    }
}

/// A video instruction's source written with an element selection
/// (`%r1.b2`, `%r1.h0`, `%r1.b3210` ...) or a negation (`-%r1`): the
/// register operand, the selector (without its dot) and whether it is
/// negated. `None` for every other operand form.
fn video_operand<'a>(operand: &Operand<'a>) -> Option<(Operand<'a>, Option<String>, bool)> {
    let selector = |operand: &Operand<'a>| match operand.kind() {
        OperandKind::Component { component, .. } => {
            let sel = component.trim_start_matches('.');
            let valid = sel.len() > 1
                && ((sel.starts_with('b') && sel[1..].bytes().all(|c| (b'0'..=b'7').contains(&c)))
                    || (sel.starts_with('h')
                        && sel[1..].bytes().all(|c| (b'0'..=b'3').contains(&c))));
            valid.then(|| sel.to_owned())
        }
        _ => None,
    };
    if let Some(sel) = selector(operand) {
        return Some((*operand, Some(sel), false));
    }
    if let Some(Expression::Unary {
        operator: "-",
        operand: inner,
    }) = operand.expression()
    {
        return match inner.kind() {
            OperandKind::Register(_) => Some((inner, None, true)),
            OperandKind::Component { .. } => selector(&inner).map(|sel| (inner, Some(sel), true)),
            _ => None,
        };
    }
    None
}
