//! Debugging: a [`Session`] owns a machine and runs it until a stop
//! condition — a line or function breakpoint hit by any warp, a step of the
//! focused warp (over, into a `call`, out of a `.func`), a pause request, a
//! fault or the end of the launch — and then tells where every warp is and
//! what its registers and memories hold.
//!
//! The session issues instructions one at a time through
//! [`Machine::issue`], the same body the plain run loops over, scheduling the
//! warps of a CTA as [`Machine::run_cta`] does; a run without a debugger is
//! thus unchanged. Watch expressions and breakpoint conditions are a small
//! expression language over registers, special registers, kernel parameter
//! names and memory (see [`Session::evaluate`]).

mod data;
mod layout;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ptx_syntax::Parse;

use crate::decode::Program;
use crate::engine::{lanes, Issue, Machine};
use crate::ir::{mask, sext, Space, Special, Ty};
use crate::run::{parse_value, prepare_kernel, prepare_snippet, Setup};
use crate::softfloat;
use crate::{KernelOptions, RunError, SnippetOptions};

pub use data::{Access, DataBreakpointSpec, DataInfo};
pub use layout::{cell_text, instruction_layout, CellView, LayoutView, MatrixView};
pub(crate) use layout::{Fragment, Holder, Place};

/// A program and launch ready to be debugged; each [`Session`] started from
/// it begins afresh (a restart is a new session).
#[derive(Debug, Clone)]
pub struct DebugTarget {
    setup: Setup,
    max_steps: u64,
    /// The program's text (instruction text for the layout view).
    source: String,
}

impl DebugTarget {
    /// A snippet (a file without `.entry`) with the options of a run.
    pub fn snippet(parse: &Parse, options: &SnippetOptions) -> Result<DebugTarget, RunError> {
        Ok(DebugTarget {
            setup: prepare_snippet(parse, options)?,
            max_steps: options.max_steps,
            source: parse.text().to_owned(),
        })
    }

    /// A kernel launch with the options of a run.
    pub fn kernel(parse: &Parse, options: &KernelOptions) -> Result<DebugTarget, RunError> {
        let setup = prepare_kernel(parse, options)?;
        if setup.launch.cluster_size() > 1 {
            return Err(RunError::usage(
                "a debug session runs one CTA at a time: launches with clusters of several \
                 CTAs can be run, not debugged",
            ));
        }
        Ok(DebugTarget {
            setup,
            max_steps: options.max_steps,
            source: parse.text().to_owned(),
        })
    }

    fn program(&self) -> &Program {
        &self.setup.program
    }

    /// The 1-based line of instruction `pc`.
    pub fn line_of(&self, pc: u32) -> usize {
        self.program().line_of(pc)
    }

    /// Where a breakpoint on `line` (1-based) takes effect: the first
    /// instruction on that line or, if none is there, on the nearest line
    /// after it; with that line.
    pub fn resolve_line(&self, line: usize) -> Option<(u32, usize)> {
        let prog = self.program();
        let mut best: Option<(usize, u32)> = None;
        for (pc, inst) in prog.insts.iter().enumerate() {
            if inst.implicit {
                continue;
            }
            let at = prog.line_of(pc as u32);
            if at >= line && best.is_none_or(|(l, _)| at < l) {
                best = Some((at, pc as u32));
            }
        }
        best.map(|(l, pc)| (pc, l))
    }

    /// The first instruction of the kernel or `.func` named `name`, with its line.
    pub fn resolve_function(&self, name: &str) -> Option<(u32, usize)> {
        let prog = self.program();
        let f = prog.functions.iter().find(|f| f.name == name)?;
        Some((f.start, prog.line_of(f.start)))
    }

    /// The name of the function instruction `pc` belongs to (the kernel's or
    /// `.func`'s name; empty for a snippet's body).
    pub fn function_name(&self, pc: u32) -> &str {
        &self.program().functions[function_of(self.program(), pc)].name
    }

    /// Threads per CTA.
    pub fn threads_per_cta(&self) -> u32 {
        self.setup.launch.ntid.iter().product()
    }
}

/// The function instruction `pc` belongs to: bodies are decoded one after
/// another, so the one with the greatest start at or before `pc`.
fn function_of(prog: &Program, pc: u32) -> usize {
    prog.functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.start <= pc)
        .max_by_key(|(_, f)| f.start)
        .map_or(prog.main, |(i, _)| i)
}

/// A line breakpoint as a client asks for it.
#[derive(Debug, Clone, Default)]
pub struct BreakpointSpec {
    /// 1-based line.
    pub line: usize,
    /// Stop only for lanes where this expression is non-zero:
    /// `%tid.x == 5 && %r3 > 0`.
    pub condition: Option<String>,
    /// Stop from the Nth hit on: `N`, `>= N`, `> N`, `== N`, `% N` (every Nth).
    pub hit_condition: Option<String>,
    /// Print this instead of stopping; `{EXPR}` parts are evaluated.
    pub log_message: Option<String>,
}

/// Whether a breakpoint could be placed, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreakpointState {
    pub id: usize,
    pub verified: bool,
    /// The line it took effect on (the asked one when unverified).
    pub line: usize,
    pub message: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HitCondition {
    AtLeast(u64),
    Above(u64),
    Exactly(u64),
    Every(u64),
}

impl HitCondition {
    fn parse(text: &str) -> Result<HitCondition, String> {
        let t = text.trim();
        let (make, rest): (fn(u64) -> HitCondition, &str) = if let Some(r) = t.strip_prefix(">=") {
            (HitCondition::AtLeast, r)
        } else if let Some(r) = t.strip_prefix("==") {
            (HitCondition::Exactly, r)
        } else if let Some(r) = t.strip_prefix('>') {
            (HitCondition::Above, r)
        } else if let Some(r) = t.strip_prefix('%') {
            (HitCondition::Every, r)
        } else {
            (HitCondition::AtLeast, t)
        };
        let n: u64 = rest
            .trim()
            .parse()
            .map_err(|_| format!("hit condition `{text}`: expected N, >= N, > N, == N or % N"))?;
        if matches!(make(n), HitCondition::Every(0)) {
            return Err(format!("hit condition `{text}`: % 0 never hits"));
        }
        Ok(make(n))
    }

    fn admits(self, hits: u64) -> bool {
        match self {
            HitCondition::AtLeast(n) => hits >= n,
            HitCondition::Above(n) => hits > n,
            HitCondition::Exactly(n) => hits == n,
            HitCondition::Every(n) => hits.is_multiple_of(n),
        }
    }
}

#[derive(Debug, Clone)]
enum LogPart {
    Text(String),
    Expr(Watch),
}

#[derive(Debug, Clone)]
struct Breakpoint {
    id: usize,
    pc: u32,
    condition: Option<Expr>,
    hit: Option<HitCondition>,
    log: Option<Vec<LogPart>>,
    hits: u64,
    /// Set by a function breakpoint (replaced apart from line breakpoints).
    function: bool,
}

/// How to resume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    Continue,
    /// Run the focused warp to its next line in the same or an outer frame.
    Over,
    /// Run the focused warp one instruction, entering a called `.func`.
    Into,
    /// Run the focused warp until it returns from its current `.func`.
    Out,
}

/// Why a session stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// Before the first instruction.
    Entry,
    /// Breakpoints (their ids) hit.
    Breakpoint(Vec<usize>),
    Step,
    Pause,
    /// A fault at the instruction about to run; the launch cannot go on.
    Fault(String),
    /// Data breakpoints (their ids) hit by the instruction just run: what
    /// it accessed, where, and the old and new values.
    Data {
        ids: Vec<usize>,
        description: String,
    },
}

/// Where a resumed session ended up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Stopped {
        reason: StopReason,
        warp: usize,
        lane: u32,
    },
    /// Every CTA ran to its end (`faulted`: the launch ended at a fault
    /// reported before).
    Finished { faulted: bool },
}

/// The result of [`Session::resume`]: the outcome and the lines logpoints printed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resumed {
    pub outcome: Outcome,
    pub logs: Vec<String>,
}

/// A warp of the current CTA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarpView {
    pub index: usize,
    /// Lanes that hold a thread, that exited, that wait at a barrier.
    pub valid: u32,
    pub exited: u32,
    pub blocked: u32,
    /// Live lanes grouped by program counter, the one issuing next first:
    /// more than one group means the warp diverged.
    pub groups: Vec<(u32, u32)>,
}

/// One frame of a lane's call stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameView {
    /// The kernel's or `.func`'s name (empty: a snippet's body).
    pub function: String,
    pub pc: u32,
    pub line: usize,
    /// Byte range of the instruction.
    pub range: ptx_syntax::TextRange,
}

/// A register's value in one lane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegView {
    pub name: String,
    pub ty: &'static str,
    pub bits: u64,
    pub width: u32,
}

impl RegView {
    /// The value as its declared type (hex for bit types, 0/1 for predicates).
    pub fn text(&self) -> String {
        let ty = Ty::parse(self.ty).unwrap_or(Ty::B32);
        format_as(self.bits, ty)
    }

    /// The value read as each width-fitting view: hex, unsigned, signed and
    /// the float formats.
    pub fn views(&self) -> Vec<(&'static str, String)> {
        let b = self.bits;
        let w = self.width;
        if w == 1 {
            return Vec::new();
        }
        let mut out = vec![
            ("hex", hex(b, w)),
            ("unsigned", (b & mask(w)).to_string()),
            ("signed", sext(b, w).to_string()),
        ];
        let list: &[View] = match w {
            64 => &[View::F64, View::F32x2],
            32 => &[View::F32, View::F16x2, View::Bf16x2],
            16 => &[View::F16, View::Bf16],
            _ => &[],
        };
        for &view in list {
            out.push((view.name(), view.format(b)));
        }
        out
    }
}

fn hex(bits: u64, width: u32) -> String {
    let digits = (width as usize).div_ceil(4).max(1);
    format!("0x{:0digits$x}", bits & mask(width))
}

/// The views of bits an expression may ask for with `as`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum View {
    Hex,
    Unsigned,
    Signed,
    F16,
    Bf16,
    F16x2,
    Bf16x2,
    F32x2,
    F32,
    F64,
    Typed(Ty),
}

impl View {
    fn parse(word: &str) -> Option<View> {
        Some(match word {
            "hex" | "x" => View::Hex,
            "unsigned" | "u" => View::Unsigned,
            "signed" | "s" => View::Signed,
            "f16" => View::F16,
            "bf16" => View::Bf16,
            "f16x2" => View::F16x2,
            "bf16x2" => View::Bf16x2,
            "f32x2" => View::F32x2,
            "f32" => View::F32,
            "f64" => View::F64,
            other => View::Typed(Ty::parse(other).filter(|t| *t != Ty::B128)?),
        })
    }

    fn name(self) -> &'static str {
        match self {
            View::Hex => "hex",
            View::Unsigned => "unsigned",
            View::Signed => "signed",
            View::F16 => "f16",
            View::Bf16 => "bf16",
            View::F16x2 => "f16x2",
            View::Bf16x2 => "bf16x2",
            View::F32x2 => "f32x2",
            View::F32 => "f32",
            View::F64 => "f64",
            View::Typed(t) => t.name(),
        }
    }

    /// Bytes of one element read from memory.
    fn bytes(self) -> usize {
        match self {
            View::Hex | View::Unsigned | View::Signed | View::F32 | View::F16x2 | View::Bf16x2 => 4,
            View::F16 | View::Bf16 => 2,
            View::F64 | View::F32x2 => 8,
            View::Typed(t) => t.bytes(),
        }
    }

    fn format(self, bits: u64) -> String {
        let float = |f: softfloat::Format, b: u64| float_text(f.to_f64(b));
        match self {
            View::Hex => hex(bits, 64 - bits.leading_zeros().max(32) + 32),
            View::Unsigned => bits.to_string(),
            View::Signed => (bits as i64).to_string(),
            View::F16 => float(softfloat::F16, bits & 0xffff),
            View::Bf16 => float(softfloat::BF16, bits & 0xffff),
            View::F16x2 => format!(
                "({}, {})",
                float(softfloat::F16, bits & 0xffff),
                float(softfloat::F16, bits >> 16 & 0xffff)
            ),
            View::Bf16x2 => format!(
                "({}, {})",
                float(softfloat::BF16, bits & 0xffff),
                float(softfloat::BF16, bits >> 16 & 0xffff)
            ),
            View::F32x2 => format!(
                "({:?}, {:?})",
                f32::from_bits(bits as u32),
                f32::from_bits((bits >> 32) as u32)
            ),
            View::F32 => format!("{:?}", f32::from_bits(bits as u32)),
            View::F64 => format!("{:?}", f64::from_bits(bits)),
            View::Typed(ty) => format_as(bits, ty),
        }
    }
}

fn float_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_owned()
    } else {
        format!("{x:?}")
    }
}

/// `bits` read as a value of `ty`.
fn format_as(bits: u64, ty: Ty) -> String {
    let w = ty.bits().min(64);
    match ty {
        Ty::Pred => (bits & 1).to_string(),
        Ty::F32 => format!("{:?}", f32::from_bits(bits as u32)),
        Ty::F64 => format!("{:?}", f64::from_bits(bits)),
        Ty::F16x2 => View::F16x2.format(bits),
        Ty::Bf16x2 => View::Bf16x2.format(bits),
        t if t.is_signed() && !matches!(t, Ty::S16x2) => sext(bits, w).to_string(),
        Ty::U8 | Ty::U16 | Ty::U32 | Ty::U64 => (bits & mask(w)).to_string(),
        t => match t.format() {
            Some(f) if !matches!(t, Ty::E4m3x2 | Ty::E5m2x2) => {
                float_text(f.to_f64(bits & mask(w)))
            }
            _ => hex(bits, w),
        },
    }
}

// ------------------------------------------------------------------ expressions

#[derive(Debug, Clone)]
enum Expr {
    Int(i128),
    Float(f64),
    Reg(u32),
    Special(Special),
    /// A kernel parameter: its offset and size in the parameter space.
    Param(u64, usize),
    Unary(char, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    /// A 32-bit load from a (generic) address.
    Load(Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Val {
    Int(i128),
    Float(f64),
}

impl Val {
    fn float(self) -> f64 {
        match self {
            Val::Int(i) => i as f64,
            Val::Float(f) => f,
        }
    }

    fn int(self) -> i128 {
        match self {
            Val::Int(i) => i,
            Val::Float(f) => f as i128,
        }
    }

    fn truthy(self) -> bool {
        match self {
            Val::Int(i) => i != 0,
            Val::Float(f) => f != 0.0,
        }
    }

    fn text(self) -> String {
        match self {
            Val::Int(i) => i.to_string(),
            Val::Float(f) => float_text(f),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Num(Val),
    Op(&'static str),
}

const OPS: [&str; 24] = [
    "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "<", ">", "+", "-", "*", "/", "%", "&", "|",
    "^", "!", "~", "(", ")", "[", "]",
];

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let word = |i: usize| {
            let mut j = i;
            while j < bytes.len()
                && (bytes[j].is_ascii_alphanumeric()
                    || matches!(bytes[j], b'_' | b'$' | b'.' | b'%'))
            {
                j += 1;
            }
            j
        };
        if c.is_ascii_digit() {
            let j = word(i);
            let t = &text[i..j];
            let value = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                i128::from_str_radix(h, 16).map(Val::Int).ok()
            } else if let Ok(v) = t.parse::<i128>() {
                Some(Val::Int(v))
            } else {
                t.parse::<f64>().map(Val::Float).ok()
            };
            out.push(Token::Num(
                value.ok_or_else(|| format!("`{t}` is not a number"))?,
            ));
            i = j;
        } else if c == '%' || c == '_' || c == '$' || c.is_ascii_alphabetic() {
            let j = word(i + 1);
            out.push(Token::Name(text[i..j].to_owned()));
            i = j;
        } else {
            let op = OPS
                .iter()
                .find(|op| text[i..].starts_with(**op))
                .ok_or_else(|| {
                    let c = text[i..].chars().next().unwrap_or(c);
                    format!("unexpected `{c}` in `{text}`")
                })?;
            out.push(Token::Op(op));
            i += op.len();
        }
    }
    Ok(out)
}

/// Resolves names against a program, preferring registers of one function.
struct Names<'a> {
    prog: &'a Program,
    function: usize,
}

impl Names<'_> {
    fn register(&self, name: &str) -> Option<u32> {
        let prog = self.prog;
        let matching = || {
            prog.regs
                .iter()
                .enumerate()
                .filter(move |(_, r)| r.name == name)
        };
        matching()
            .find(|(_, r)| r.function == self.function)
            .or_else(|| matching().find(|(_, r)| r.function == usize::MAX))
            .or_else(|| matching().next())
            .map(|(i, _)| i as u32)
    }

    fn resolve(&self, name: &str) -> Result<Expr, String> {
        if let Some(r) = self.register(name) {
            return Ok(Expr::Reg(r));
        }
        if name.starts_with('%') {
            let (base, comp) = match name.rfind('.') {
                Some(dot) => (&name[..dot], Some(&name[dot..])),
                None => (name, None),
            };
            if let Some(s) = Special::parse(base, comp) {
                return Ok(Expr::Special(s));
            }
            return Err(format!("no register `{name}`"));
        }
        let entry = &self.prog.functions[self.prog.main];
        if let Some(p) = entry.kernel_params.iter().find(|p| p.name == name) {
            return Ok(Expr::Param(p.offset, p.size.min(8)));
        }
        Err(format!(
            "`{name}` is neither a register nor a kernel parameter"
        ))
    }
}

struct Parser<'a> {
    tokens: Vec<Token>,
    at: usize,
    names: &'a Names<'a>,
}

const LEVELS: [&[&str]; 10] = [
    &["||"],
    &["&&"],
    &["|"],
    &["^"],
    &["&"],
    &["==", "!="],
    &["<", "<=", ">", ">="],
    &["<<", ">>"],
    &["+", "-"],
    &["*", "/", "%"],
];

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn binary(&mut self, level: usize) -> Result<Expr, String> {
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut left = self.binary(level + 1)?;
        loop {
            let op = match self.peek() {
                Some(Token::Op(op)) if LEVELS[level].contains(op) => *op,
                _ => return Ok(left),
            };
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = Expr::Binary(op, Box::new(left), Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        match self.peek().cloned() {
            Some(Token::Op(op @ ("-" | "!" | "~"))) => {
                self.at += 1;
                let inner = self.unary()?;
                Ok(Expr::Unary(
                    op.chars().next().unwrap_or('-'),
                    Box::new(inner),
                ))
            }
            Some(Token::Op("(")) => {
                self.at += 1;
                let inner = self.binary(0)?;
                self.expect(")")?;
                Ok(inner)
            }
            Some(Token::Op("[")) => {
                self.at += 1;
                let inner = self.binary(0)?;
                self.expect("]")?;
                Ok(Expr::Load(Box::new(inner)))
            }
            Some(Token::Num(Val::Int(i))) => {
                self.at += 1;
                Ok(Expr::Int(i))
            }
            Some(Token::Num(Val::Float(f))) => {
                self.at += 1;
                Ok(Expr::Float(f))
            }
            Some(Token::Name(name)) => {
                self.at += 1;
                self.names.resolve(&name)
            }
            Some(Token::Op(op)) => Err(format!("unexpected `{op}`")),
            None => Err("the expression ends too early".to_owned()),
        }
    }

    fn expect(&mut self, op: &str) -> Result<(), String> {
        match self.peek() {
            Some(Token::Op(o)) if *o == op => {
                self.at += 1;
                Ok(())
            }
            _ => Err(format!("expected `{op}`")),
        }
    }
}

fn compile(text: &str, names: &Names<'_>) -> Result<Expr, String> {
    let tokens = tokenize(text)?;
    let mut parser = Parser {
        tokens,
        at: 0,
        names,
    };
    let expr = parser.binary(0)?;
    if parser.at != parser.tokens.len() {
        return Err(format!("unexpected text after the expression in `{text}`"));
    }
    Ok(expr)
}

/// A watch: an expression or a memory range, a view and a lane.
#[derive(Debug, Clone)]
struct Watch {
    /// `[ADDR]`: read memory at the address rather than take the value.
    memory: bool,
    expr: Expr,
    view: Option<View>,
    count: Option<usize>,
    lane: Option<u32>,
    /// A register named alone (its type gives the default view).
    reg: Option<u32>,
}

fn compile_watch(text: &str, names: &Names<'_>) -> Result<Watch, String> {
    let mut rest = text.trim();
    let mut lane = None;
    if let Some(at) = rest.rfind("@lane") {
        let n = rest[at + 5..].trim();
        lane = Some(
            n.parse::<u32>()
                .ok()
                .filter(|&l| l < 32)
                .ok_or_else(|| format!("`@lane {n}`: a lane is 0 to 31"))?,
        );
        rest = rest[..at].trim();
    }
    let mut view = None;
    let mut count = None;
    if let Some(at) = rest.rfind(" as ") {
        let mut word = rest[at + 4..].trim();
        if let Some(open) = word.find('[') {
            let n = word[open + 1..].trim_end_matches(']').trim();
            count = Some(
                n.parse::<usize>()
                    .ok()
                    .filter(|&c| (1..=4096).contains(&c))
                    .ok_or_else(|| format!("`{word}`: a count is 1 to 4096"))?,
            );
            word = &word[..open];
        }
        view = Some(View::parse(word).ok_or_else(|| format!("unknown view `{word}`"))?);
        rest = rest[..at].trim();
    }
    let expr = compile(rest, names)?;
    let (memory, expr) = match expr {
        Expr::Load(inner) if rest.starts_with('[') && rest.ends_with(']') => (true, *inner),
        other => (false, other),
    };
    if count.is_some() && !memory {
        return Err("a count (`as f32[8]`) needs a memory operand `[ADDR]`".to_owned());
    }
    let reg = match expr {
        Expr::Reg(r) if !memory => Some(r),
        _ => None,
    };
    Ok(Watch {
        memory,
        expr,
        view,
        count,
        lane,
        reg,
    })
}

/// What [`Session::evaluate`] found: one text, and for arrays their elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evaluated {
    pub text: String,
    pub items: Vec<String>,
    /// The address a memory operand read.
    pub address: Option<u64>,
}

// ------------------------------------------------------------------ session

/// A debug session: the machine, the scheduler's place and the breakpoints.
#[derive(Debug)]
pub struct Session<'p> {
    target: &'p DebugTarget,
    m: Machine<'p>,
    /// Linear index of the running CTA.
    cta: u32,
    /// The warp the scheduler runs next, and whether one of this round yielded.
    cur: usize,
    round_yielded: bool,
    breakpoints: Vec<Breakpoint>,
    data: Vec<data::DataBreakpoint>,
    /// Per instruction: a breakpoint is there.
    armed: Vec<bool>,
    next_id: usize,
    pause: Arc<AtomicBool>,
    /// The fault the launch stopped at.
    faulted: Option<String>,
    finished: bool,
    started: bool,
    /// The last stop came after an instruction (a data breakpoint): the one
    /// about to issue has not had its breakpoints checked yet.
    after_access: bool,
}

impl<'p> Session<'p> {
    pub fn new(target: &'p DebugTarget) -> Session<'p> {
        let setup = &target.setup;
        let mut m = Machine::new(
            &setup.program,
            setup.memory.clone(),
            setup.launch,
            target.max_steps,
        );
        m.start_cta([0, 0, 0]);
        apply_sets(&mut m, &setup.sets);
        Session {
            target,
            m,
            cta: 0,
            cur: 0,
            round_yielded: false,
            breakpoints: Vec::new(),
            data: Vec::new(),
            armed: vec![false; setup.program.insts.len()],
            next_id: 1,
            pause: Arc::new(AtomicBool::new(false)),
            faulted: None,
            finished: false,
            started: false,
            after_access: false,
        }
    }

    /// A flag that, once set from another thread, stops a running
    /// [`Session::resume`] with [`StopReason::Pause`].
    pub fn pause_flag(&self) -> Arc<AtomicBool> {
        self.pause.clone()
    }

    pub fn target(&self) -> &'p DebugTarget {
        self.target
    }

    /// The running CTA's index `(x, y, z)` and linear index.
    pub fn cta(&self) -> ([u32; 3], u32) {
        (self.m.launch.ctaid, self.cta)
    }

    /// Warp-instruction issues so far.
    pub fn steps(&self) -> u64 {
        self.m.steps
    }

    fn names(&self, pc: u32) -> Names<'p> {
        Names {
            prog: self.m.prog,
            function: function_of(self.m.prog, pc),
        }
    }

    fn breakpoint(&mut self, pc: u32, spec: &BreakpointSpec) -> Result<Breakpoint, String> {
        let names = self.names(pc);
        let condition = match spec.condition.as_deref().map(str::trim) {
            Some(c) if !c.is_empty() => {
                Some(compile(c, &names).map_err(|e| format!("condition: {e}"))?)
            }
            _ => None,
        };
        let hit = match spec.hit_condition.as_deref().map(str::trim) {
            Some(h) if !h.is_empty() => Some(HitCondition::parse(h)?),
            _ => None,
        };
        let log = match spec.log_message.as_deref() {
            Some(text) => Some(log_parts(text, &names)?),
            None => None,
        };
        let id = self.next_id;
        self.next_id += 1;
        Ok(Breakpoint {
            id,
            pc,
            condition,
            hit,
            log,
            hits: 0,
            function: false,
        })
    }

    fn rearm(&mut self) {
        self.armed.fill(false);
        for b in &self.breakpoints {
            if let Some(slot) = self.armed.get_mut(b.pc as usize) {
                *slot = true;
            }
        }
    }

    /// Replaces the line breakpoints.
    pub fn set_breakpoints(&mut self, specs: &[BreakpointSpec]) -> Vec<BreakpointState> {
        self.breakpoints.retain(|b| b.function);
        let mut states = Vec::new();
        for spec in specs {
            let placed = self
                .target
                .resolve_line(spec.line)
                .ok_or_else(|| format!("no instruction on line {} or after it", spec.line))
                .and_then(|(pc, line)| Ok((self.breakpoint(pc, spec)?, line)));
            states.push(match placed {
                Ok((b, line)) => {
                    let state = BreakpointState {
                        id: b.id,
                        verified: true,
                        line,
                        message: None,
                    };
                    self.breakpoints.push(b);
                    state
                }
                Err(message) => {
                    let id = self.next_id;
                    self.next_id += 1;
                    BreakpointState {
                        id,
                        verified: false,
                        line: spec.line,
                        message: Some(message),
                    }
                }
            });
        }
        self.rearm();
        states
    }

    /// Replaces the function breakpoints: kernel or `.func` names, each with
    /// an optional condition and hit condition.
    pub fn set_function_breakpoints(
        &mut self,
        specs: &[(String, BreakpointSpec)],
    ) -> Vec<BreakpointState> {
        self.breakpoints.retain(|b| !b.function);
        let mut states = Vec::new();
        for (name, spec) in specs {
            let placed = self
                .target
                .resolve_function(name)
                .ok_or_else(|| format!("no kernel or .func named `{name}`"))
                .and_then(|(pc, line)| Ok((self.breakpoint(pc, spec)?, line)));
            states.push(match placed {
                Ok((b, line)) => {
                    let state = BreakpointState {
                        id: b.id,
                        verified: true,
                        line,
                        message: None,
                    };
                    self.breakpoints.push(Breakpoint {
                        function: true,
                        ..b
                    });
                    state
                }
                Err(message) => {
                    let id = self.next_id;
                    self.next_id += 1;
                    BreakpointState {
                        id,
                        verified: false,
                        line: 0,
                        message: Some(message),
                    }
                }
            });
        }
        self.rearm();
        states
    }

    /// Checks the breakpoints at `pc` for the lanes of warp `w` about to
    /// issue there: the ids of those that stop and the first lane that
    /// satisfied them; logpoints print into `logs`.
    fn hit(
        &mut self,
        w: usize,
        pc: u32,
        lanes_at: u32,
        logs: &mut Vec<String>,
    ) -> Option<(Vec<usize>, u32)> {
        let mut ids = Vec::new();
        let mut stop_lane = None;
        for i in 0..self.breakpoints.len() {
            if self.breakpoints[i].pc != pc {
                continue;
            }
            let lane = match self.breakpoints[i].condition.clone() {
                None => Some(lanes_at.trailing_zeros()),
                Some(c) => lanes(lanes_at).find(|&l| self.eval(&c, w, l).is_ok_and(Val::truthy)),
            };
            let Some(lane) = lane else {
                continue;
            };
            let b = &mut self.breakpoints[i];
            b.hits += 1;
            if b.hit.is_some_and(|h| !h.admits(b.hits)) {
                continue;
            }
            if let Some(parts) = b.log.clone() {
                let line = self.log_line(&parts, w, lane);
                logs.push(line);
                continue;
            }
            ids.push(self.breakpoints[i].id);
            stop_lane.get_or_insert(lane);
        }
        stop_lane.map(|lane| (ids, lane))
    }

    fn log_line(&mut self, parts: &[LogPart], w: usize, lane: u32) -> String {
        let mut out = String::new();
        for part in parts {
            match part {
                LogPart::Text(t) => out.push_str(t),
                LogPart::Expr(watch) => match self.watch(watch, w, lane) {
                    Ok(v) => out.push_str(&v.text),
                    Err(e) => {
                        out.push('<');
                        out.push_str(&e);
                        out.push('>');
                    }
                },
            }
        }
        out
    }

    fn eval(&mut self, e: &Expr, w: usize, lane: u32) -> Result<Val, String> {
        Ok(match e {
            Expr::Int(i) => Val::Int(*i),
            Expr::Float(f) => Val::Float(*f),
            Expr::Reg(r) => {
                let bits = self.m.warps[w].regs[*r as usize * 32 + lane as usize];
                let ty = self.m.prog.regs[*r as usize].ty;
                reg_value(bits, ty)
            }
            Expr::Special(s) => Val::Int(i128::from(self.m.special(w, lane, *s))),
            Expr::Param(offset, size) => {
                let bytes = self
                    .m
                    .mem
                    .kernel_params
                    .get(*offset as usize..*offset as usize + size);
                let mut buf = [0u8; 8];
                if let Some(b) = bytes {
                    buf[..*size].copy_from_slice(b);
                }
                Val::Int(i128::from(u64::from_le_bytes(buf)))
            }
            Expr::Unary(op, inner) => {
                let v = self.eval(inner, w, lane)?;
                match (op, v) {
                    ('-', Val::Float(f)) => Val::Float(-f),
                    ('-', Val::Int(i)) => Val::Int(i.wrapping_neg()),
                    ('!', v) => Val::Int(i128::from(!v.truthy())),
                    (_, v) => Val::Int(!v.int()),
                }
            }
            Expr::Binary(op, a, b) => {
                let a = self.eval(a, w, lane)?;
                // `&&` and `||` do not evaluate their right side needlessly.
                match *op {
                    "&&" if !a.truthy() => return Ok(Val::Int(0)),
                    "||" if a.truthy() => return Ok(Val::Int(1)),
                    _ => {}
                }
                let b = self.eval(b, w, lane)?;
                binary(op, a, b)?
            }
            Expr::Load(addr) => {
                let addr = self.eval(addr, w, lane)?.int() as u64;
                let bytes = self.read(w, lane, addr, 4)?;
                Val::Int(i128::from(u32::from_le_bytes([
                    bytes[0], bytes[1], bytes[2], bytes[3],
                ])))
            }
        })
    }

    fn read(&mut self, w: usize, lane: u32, addr: u64, len: usize) -> Result<Vec<u8>, String> {
        let thread = self.m.thread(w, lane);
        self.m
            .mem
            .slice(thread, Space::Generic, addr, len, 1)
            .map(|b| b.to_vec())
    }

    fn watch(&mut self, watch: &Watch, w: usize, lane: u32) -> Result<Evaluated, String> {
        let lane = watch.lane.unwrap_or(lane);
        if self.m.warps[w].valid >> lane & 1 == 0 {
            return Err(format!("lane {lane} of warp {w} holds no thread"));
        }
        if watch.memory {
            let addr = self.eval(&watch.expr, w, lane)?.int() as u64;
            let view = watch.view.unwrap_or(View::Hex);
            let size = view.bytes();
            let count = watch.count.unwrap_or(1);
            let bytes = self.read(w, lane, addr, size * count)?;
            let items: Vec<String> = bytes
                .chunks(size)
                .map(|c| {
                    let mut buf = [0u8; 8];
                    buf[..c.len()].copy_from_slice(c);
                    let bits = u64::from_le_bytes(buf);
                    match view {
                        View::Hex => hex(bits, size as u32 * 8),
                        View::Signed => sext(bits, size as u32 * 8).to_string(),
                        _ => view.format(bits),
                    }
                })
                .collect();
            let text = if watch.count.is_some() {
                format!("[{}]", items.join(", "))
            } else {
                items.first().cloned().unwrap_or_default()
            };
            return Ok(Evaluated {
                text,
                items: if watch.count.is_some() {
                    items
                } else {
                    Vec::new()
                },
                address: Some(addr),
            });
        }
        let text = match (watch.reg, watch.view) {
            (Some(r), view) => {
                let info = &self.m.prog.regs[r as usize];
                let bits = self.m.warps[w].regs[r as usize * 32 + lane as usize];
                match view {
                    None => format_as(bits, info.ty),
                    Some(View::Hex) => hex(bits, info.bits()),
                    Some(View::Signed) => sext(bits, info.bits()).to_string(),
                    Some(View::Unsigned) => (bits & mask(info.bits())).to_string(),
                    Some(v) => v.format(bits),
                }
            }
            (None, None) => self.eval(&watch.expr, w, lane)?.text(),
            (None, Some(view)) => {
                let v = self.eval(&watch.expr, w, lane)?;
                match (view, v) {
                    (View::Hex, Val::Int(i)) => format!("{:#x}", i as u64),
                    (_, Val::Int(i)) => view.format(i as u64),
                    (_, Val::Float(f)) => float_text(f),
                }
            }
        };
        Ok(Evaluated {
            text,
            items: Vec::new(),
            address: None,
        })
    }

    /// Evaluates a watch expression for `lane` of warp `w`, names resolved in
    /// the function at `pc`: a register `%r1`, a special register `%tid.x`, a
    /// kernel parameter name, arithmetic and comparisons (`%r1 + 4 > %r2`),
    /// a view `%f2 as f16x2` (hex, unsigned, signed, f16, bf16, f16x2,
    /// bf16x2, f32, f64, f32x2 or a PTX type), memory `[buf+16] as f32[8]`,
    /// another lane `%r1@lane 7`.
    pub fn evaluate(
        &mut self,
        text: &str,
        w: usize,
        lane: u32,
        pc: u32,
    ) -> Result<Evaluated, String> {
        if w >= self.m.warps.len() {
            return Err(format!("no warp {w}"));
        }
        let watch = compile_watch(text, &self.names(pc))?;
        self.watch(&watch, w, lane)
    }

    /// Sets register `name` of `lane` of warp `w` (resolved in the function
    /// at `pc`) from a value text (`5`, `-1`, `1.5`, `0x3f800000`).
    pub fn set_register(
        &mut self,
        name: &str,
        value: &str,
        w: usize,
        lane: u32,
        pc: u32,
    ) -> Result<RegView, String> {
        let r = self
            .names(pc)
            .register(name)
            .ok_or_else(|| format!("no register `{name}`"))?;
        let info = &self.m.prog.regs[r as usize];
        let bits = parse_value(value, info.ty)?;
        let slot = self
            .m
            .warps
            .get_mut(w)
            .and_then(|warp| warp.regs.get_mut(r as usize * 32 + lane as usize))
            .ok_or_else(|| format!("no lane {lane} in warp {w}"))?;
        *slot = bits & mask(info.bits());
        Ok(RegView {
            name: info.name.clone(),
            ty: info.ty.name(),
            bits: *slot,
            width: info.bits(),
        })
    }

    /// Runs until a stop condition: `focus` is the warp a step is about.
    pub fn resume(&mut self, how: Resume, focus: usize) -> Resumed {
        let mut logs = Vec::new();
        if self.finished || self.faulted.is_some() {
            self.finished = true;
            return Resumed {
                outcome: Outcome::Finished {
                    faulted: self.faulted.is_some(),
                },
                logs,
            };
        }
        self.pause.store(false, Ordering::Relaxed);
        let depth_of = |m: &Machine<'_>, w: usize, lanes: u32| {
            m.warps[w].depth(lanes.trailing_zeros().min(31))
        };
        // The focused warp's call depth where the step starts.
        let start_depth = if focus < self.m.warps.len() {
            let (_, at) = self.m.next_issue(focus);
            (at != 0).then(|| depth_of(&self.m, focus, at))
        } else {
            None
        };
        let how = if start_depth.is_none() {
            Resume::Continue
        } else {
            how
        };
        let start_depth = start_depth.unwrap_or(0);
        // The instruction the session stopped before runs without its
        // breakpoint firing again.
        let mut first = self.started && !std::mem::take(&mut self.after_access);
        self.started = true;
        let mut focus_issued = false;
        loop {
            if self.cur >= self.m.warps.len() {
                let released = self.m.release();
                if std::mem::take(&mut self.round_yielded) || released {
                    self.cur = 0;
                    continue;
                }
                if self.m.warps.iter().any(|w| w.blocked != 0) {
                    let fault = self.m.deadlock_fault();
                    return self.fault(fault, logs);
                }
                if !self.next_cta() {
                    self.finished = true;
                    return Resumed {
                        outcome: Outcome::Finished { faulted: false },
                        logs,
                    };
                }
                continue;
            }
            let w = self.cur;
            if std::mem::take(&mut self.m.yielded) {
                self.round_yielded = true;
                self.cur += 1;
                continue;
            }
            let (pc, at) = self.m.next_issue(w);
            if at == 0 {
                self.cur += 1;
                continue;
            }
            if !std::mem::take(&mut first) {
                let stop = |reason| Resumed {
                    outcome: Outcome::Stopped {
                        reason,
                        warp: w,
                        lane: at.trailing_zeros(),
                    },
                    logs: Vec::new(),
                };
                if self.pause.load(Ordering::Relaxed) {
                    self.pause.store(false, Ordering::Relaxed);
                    return Resumed {
                        logs,
                        ..stop(StopReason::Pause)
                    };
                }
                if w == focus && focus_issued {
                    let depth = depth_of(&self.m, w, at);
                    let done = match how {
                        Resume::Continue => false,
                        Resume::Into => true,
                        Resume::Over => depth <= start_depth,
                        Resume::Out => depth < start_depth,
                    };
                    if done {
                        return Resumed {
                            logs,
                            ..stop(StopReason::Step)
                        };
                    }
                }
                if self.armed[pc as usize] {
                    if let Some((ids, lane)) = self.hit(w, pc, at, &mut logs) {
                        return Resumed {
                            outcome: Outcome::Stopped {
                                reason: StopReason::Breakpoint(ids),
                                warp: w,
                                lane,
                            },
                            logs,
                        };
                    }
                }
            }
            // Data breakpoints cost nothing here while none is set.
            let watching = !self.data.is_empty();
            let probes = if watching {
                self.probe(w, pc, at)
            } else {
                Vec::new()
            };
            match self.m.issue(w) {
                Ok(Issue::Issued) => {
                    focus_issued |= w == focus;
                    if watching {
                        match self.data_hit(w, pc, probes, logs) {
                            Ok(stop) => {
                                self.after_access = true;
                                return stop;
                            }
                            Err(kept) => logs = kept,
                        }
                    }
                }
                Ok(Issue::Yielded) => {
                    self.round_yielded = true;
                    self.cur += 1;
                }
                Ok(Issue::Idle) => self.cur += 1,
                Err(fault) => return self.fault(fault, logs),
            }
        }
    }

    fn fault(&mut self, fault: crate::engine::Located, logs: Vec<String>) -> Resumed {
        let per_warp = 32;
        let warp = (fault.thread / per_warp) as usize;
        let lane = fault.thread % per_warp;
        self.faulted = Some(fault.message.clone());
        Resumed {
            outcome: Outcome::Stopped {
                reason: StopReason::Fault(fault.message),
                warp,
                lane,
            },
            logs,
        }
    }

    /// Starts the next CTA; false after the last.
    fn next_cta(&mut self) -> bool {
        let [gx, gy, gz] = self.target.setup.grid;
        let next = self.cta + 1;
        if u64::from(next) >= u64::from(gx) * u64::from(gy) * u64::from(gz) {
            return false;
        }
        self.cta = next;
        self.m
            .start_cta([next % gx, next / gx % gy, next / (gx * gy)]);
        apply_sets(&mut self.m, &self.target.setup.sets);
        if !self.data.is_empty() {
            self.refresh_data();
        }
        self.cur = 0;
        self.round_yielded = false;
        true
    }

    /// Whether every CTA ran to its end.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The warps of the current CTA.
    pub fn warps(&self) -> Vec<WarpView> {
        (0..self.m.warps.len()).map(|w| self.warp(w)).collect()
    }

    /// One warp of the current CTA.
    pub fn warp(&self, w: usize) -> WarpView {
        let warp = &self.m.warps[w];
        let live = warp.valid & !warp.exited;
        let mut groups: Vec<(u32, u32)> = Vec::new();
        for lane in lanes(live) {
            let pc = self.pc_of(w, lane);
            match groups.iter_mut().find(|g| g.0 == pc) {
                Some(g) => g.1 |= 1 << lane,
                None => groups.push((pc, 1 << lane)),
            }
        }
        // Runnable lanes at the smallest program counter issue next.
        groups.sort_by_key(|&(pc, l)| (l & !warp.blocked == 0, pc));
        WarpView {
            index: w,
            valid: warp.valid,
            exited: warp.exited,
            blocked: warp.blocked,
            groups,
        }
    }

    /// The instruction `lane` of warp `w` runs next (the faulting one after
    /// a fault; the barrier it waits at while blocked).
    pub fn pc_of(&self, w: usize, lane: u32) -> u32 {
        let warp = &self.m.warps[w];
        let pc = warp.lane_pc(lane);
        if warp.blocked >> lane & 1 == 1 {
            pc.saturating_sub(1)
        } else {
            pc
        }
    }

    /// The call stack of `lane` of warp `w`, innermost first.
    pub fn frames(&self, w: usize, lane: u32) -> Vec<FrameView> {
        let prog = self.m.prog;
        let frame = |pc: u32| FrameView {
            function: prog.functions[function_of(prog, pc)].name.clone(),
            pc,
            line: prog.line_of(pc),
            range: prog
                .insts
                .get(pc as usize)
                .map_or(0..0, |i| i.range.clone()),
        };
        let mut out = vec![frame(self.pc_of(w, lane))];
        let calls: Vec<(u32, u32)> = self.m.warps[w].calls(lane).collect();
        for &(_, return_pc) in calls.iter().rev() {
            out.push(frame(return_pc.saturating_sub(1)));
        }
        out
    }

    /// The registers of the function at `pc` in `lane` of warp `w`
    /// (predicates apart: `predicates` true lists only them).
    pub fn registers(&self, w: usize, lane: u32, pc: u32, predicates: bool) -> Vec<RegView> {
        let prog = self.m.prog;
        let function = function_of(prog, pc);
        let snippet = prog.functions[prog.main].name.is_empty() && function == prog.main;
        prog.regs
            .iter()
            .enumerate()
            .filter(|(_, r)| r.function == function || (snippet && r.function == usize::MAX))
            .filter(|(_, r)| (r.ty == Ty::Pred) == predicates)
            .map(|(i, r)| RegView {
                name: r.name.clone(),
                ty: r.ty.name(),
                bits: self.m.warps[w].regs[i * 32 + lane as usize],
                width: r.bits(),
            })
            .collect()
    }

    /// The special registers of `lane` of warp `w`: name and value.
    pub fn specials(&self, w: usize, lane: u32) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        for (name, make) in [
            ("%tid", Special::Tid as fn(u8) -> Special),
            ("%ntid", Special::Ntid),
            ("%ctaid", Special::Ctaid),
            ("%nctaid", Special::Nctaid),
        ] {
            for (d, c) in ["x", "y", "z"].iter().enumerate() {
                out.push((
                    format!("{name}.{c}"),
                    self.m.special(w, lane, make(d as u8)),
                ));
            }
        }
        for (name, s) in [
            ("%laneid", Special::Laneid),
            ("%warpid", Special::Warpid),
            ("%nwarpid", Special::Nwarpid),
            ("%lanemask_lt", Special::LanemaskLt),
            ("%clock64", Special::Clock64),
            ("%dynamic_smem_size", Special::DynamicSmemSize),
        ] {
            out.push((name.to_owned(), self.m.special(w, lane, s)));
        }
        out
    }

    /// The CTA's mbarriers: shared-memory offset and state, by offset.
    pub fn mbarriers(&self) -> Vec<(u64, String)> {
        let mut out: Vec<(u64, String)> = self
            .m
            .mbarriers
            .iter()
            .map(|(&offset, b)| (offset, b.describe()))
            .collect();
        out.sort_unstable();
        out
    }

    /// The CTA's static shared memory and its dynamic shared memory.
    pub fn shared(&self) -> (&[u8], &[u8]) {
        (&self.m.mem.shared, &self.m.mem.dynamic_shared)
    }

    /// The generic address of byte `offset` of the static (or dynamic)
    /// shared memory.
    pub fn shared_address(&self, dynamic: bool, offset: u64) -> u64 {
        let base = if dynamic {
            crate::memory::DYNAMIC_SHARED_BASE
        } else {
            0
        };
        crate::memory::to_generic(Space::Shared, base + offset)
    }

    /// The buffer arguments: argument index, parameter name, address and
    /// current bytes.
    pub fn buffers(&self) -> Vec<(usize, String, u64, &[u8])> {
        let prog = self.m.prog;
        let params = &prog.functions[prog.main].kernel_params;
        self.target
            .setup
            .buffers
            .iter()
            .map(|&(arg, addr, len)| {
                let bytes = self
                    .m
                    .mem
                    .global
                    .iter()
                    .find(|r| r.base == addr)
                    .map_or(&[][..], |r| &r.bytes[..len.min(r.bytes.len())]);
                let name = params.get(arg).map_or_else(String::new, |p| p.name.clone());
                (arg, name, addr, bytes)
            })
            .collect()
    }

    /// `len` bytes at a generic address as `lane` of warp `w` sees it.
    pub fn read_memory(
        &mut self,
        w: usize,
        lane: u32,
        addr: u64,
        len: usize,
    ) -> Result<Vec<u8>, String> {
        if w >= self.m.warps.len() {
            return Err(format!("no warp {w}"));
        }
        self.read(w, lane, addr, len)
    }
}

fn apply_sets(m: &mut Machine<'_>, sets: &[(u32, u64)]) {
    for warp in &mut m.warps {
        for &(reg, bits) in sets {
            for lane in 0..32 {
                warp.regs[reg as usize * 32 + lane] = bits;
            }
        }
    }
}

fn reg_value(bits: u64, ty: Ty) -> Val {
    let w = ty.bits().min(64);
    match ty {
        Ty::F32 | Ty::F64 | Ty::F16 | Ty::Bf16 => {
            Val::Float(ty.format().map_or(0.0, |f| f.to_f64(bits & mask(w))))
        }
        t if t.is_signed() => Val::Int(i128::from(sext(bits, w))),
        _ => Val::Int(i128::from(bits & mask(w))),
    }
}

fn binary(op: &str, a: Val, b: Val) -> Result<Val, String> {
    let float = matches!(a, Val::Float(_)) || matches!(b, Val::Float(_));
    let cmp = |r: bool| Val::Int(i128::from(r));
    Ok(match op {
        "==" => cmp(if float {
            a.float() == b.float()
        } else {
            a.int() == b.int()
        }),
        "!=" => cmp(if float {
            a.float() != b.float()
        } else {
            a.int() != b.int()
        }),
        "<" => cmp(if float {
            a.float() < b.float()
        } else {
            a.int() < b.int()
        }),
        "<=" => cmp(if float {
            a.float() <= b.float()
        } else {
            a.int() <= b.int()
        }),
        ">" => cmp(if float {
            a.float() > b.float()
        } else {
            a.int() > b.int()
        }),
        ">=" => cmp(if float {
            a.float() >= b.float()
        } else {
            a.int() >= b.int()
        }),
        "&&" => cmp(a.truthy() && b.truthy()),
        "||" => cmp(a.truthy() || b.truthy()),
        "+" if float => Val::Float(a.float() + b.float()),
        "-" if float => Val::Float(a.float() - b.float()),
        "*" if float => Val::Float(a.float() * b.float()),
        "/" if float => Val::Float(a.float() / b.float()),
        "+" => Val::Int(a.int().wrapping_add(b.int())),
        "-" => Val::Int(a.int().wrapping_sub(b.int())),
        "*" => Val::Int(a.int().wrapping_mul(b.int())),
        "/" | "%" if b.int() == 0 => return Err("division by zero".to_owned()),
        "/" => Val::Int(a.int().wrapping_div(b.int())),
        "%" => Val::Int(a.int().wrapping_rem(b.int())),
        "&" => Val::Int(a.int() & b.int()),
        "|" => Val::Int(a.int() | b.int()),
        "^" => Val::Int(a.int() ^ b.int()),
        "<<" => Val::Int(
            a.int()
                .checked_shl(b.int().clamp(0, 127) as u32)
                .unwrap_or(0),
        ),
        ">>" => Val::Int(a.int() >> b.int().clamp(0, 127)),
        _ => return Err(format!("unknown operator `{op}`")),
    })
}

/// Splits a log message into text and `{EXPR}` parts.
fn log_parts(text: &str, names: &Names<'_>) -> Result<Vec<LogPart>, String> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        if open > 0 {
            parts.push(LogPart::Text(rest[..open].to_owned()));
        }
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("log message: `{{` without `}}` in `{text}`"))?;
        let inner = &rest[open + 1..open + close];
        parts.push(LogPart::Expr(
            compile_watch(inner, names).map_err(|e| format!("log message `{{{inner}}}`: {e}"))?,
        ));
        rest = &rest[open + close + 1..];
    }
    if !rest.is_empty() {
        parts.push(LogPart::Text(rest.to_owned()));
    }
    Ok(parts)
}
