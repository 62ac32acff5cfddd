//! Operand typing, one module that every handler reads:
//! * a register's declared type (`.b32`, `.s64`, `.f16x2`, `.pred`, …) as a class and a width
//!   ([`RegTy`]) and the register classes operands name ([`int32`], [`int64`], [`float32`],
//!   [`word32`], [`pred`]);
//! * the symbol or plain register behind an operand (written with `%` or, to the grammar, as
//!   a name), the elements of a vector operand, the width of a type name;
//! * symbols by name, of any kind ([`any_symbol`], [`declared_type`]) or of one
//!   ([`symbol_of`]), the registers at the base of addresses ([`address_registers`]) and the
//!   parameterized `.reg` declarations of a block ([`counted_registers`]);
//! * [`Rules`], which reports registers whose type does not fit what an operand reads, and
//!   [`Rules::scalar`] for operands that are one register, not a vector;
//! * instruction types ([`Ty`]) and which register types they take: exactly (section 6.1,
//!   [`exact_fits`]) or wider (9.4.1, Tables 27–28, [`relaxed_fits`]), with the wording of
//!   both ([`type_name`], [`wanted`]), and the types an address register may not have
//!   ([`narrow`], [`integer_of`]);
//! * the register types and constants that atomic and multimem data of a given type takes
//!   ([`scalar_registers`], [`element_registers`], [`constant_fits`]).

use ptx_syntax::{Block, Operand, OperandKind, Statement, Token};

use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, Symbol, SymbolKind};
use crate::Diagnostic;

/// What a register's declared type says about its contents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Class {
    Bits,
    Int,
    Float,
    /// `.f16x2`
    HalfPair,
    Pred,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RegTy {
    pub class: Class,
    pub bits: u32,
}

impl RegTy {
    pub fn parse(ty: &str) -> Option<RegTy> {
        let ty = ty.trim_start_matches('.');
        if ty == "pred" {
            return Some(RegTy {
                class: Class::Pred,
                bits: 1,
            });
        }
        if ty == "f16x2" || ty == "bf16x2" {
            return Some(RegTy {
                class: Class::HalfPair,
                bits: 32,
            });
        }
        let (head, digits) = ty.split_at_checked(1)?;
        let class = match head {
            "b" => Class::Bits,
            "s" | "u" => Class::Int,
            "f" => Class::Float,
            _ => return None,
        };
        Some(RegTy {
            class,
            bits: digits.parse().ok()?,
        })
    }
}

/// 32 bits, not floating point or a predicate (`.s32` coordinates, offsets, counts).
pub(crate) fn int32(ty: RegTy) -> bool {
    ty.bits == 32 && matches!(ty.class, Class::Bits | Class::Int)
}

/// 64 bits, not floating point (descriptors, handles).
pub(crate) fn int64(ty: RegTy) -> bool {
    ty.bits == 64 && matches!(ty.class, Class::Bits | Class::Int)
}

/// 32 bits, not integer (`.f32` levels, gradients, depth values).
pub(crate) fn float32(ty: RegTy) -> bool {
    ty.bits == 32 && matches!(ty.class, Class::Bits | Class::Float)
}

/// Any 32-bit register but a predicate.
pub(crate) fn word32(ty: RegTy) -> bool {
    ty.bits == 32 && ty.class != Class::Pred
}

/// Any 16-bit register but a predicate.
pub(crate) fn word16(ty: RegTy) -> bool {
    ty.bits == 16 && ty.class != Class::Pred
}

/// A `.pred` register.
pub(crate) fn pred(ty: RegTy) -> bool {
    ty.class == Class::Pred
}

/// The symbol `name` names, whatever its kind (register, variable, label or function).
pub(crate) fn any_symbol<'s, 'a>(scope: &'s Scope<'a>, name: &str) -> Option<&'s Symbol<'a>> {
    scope.lookup(name)
}

/// The symbol `name` names if it is of `kind` (a variable, not a register of that name).
pub(crate) fn symbol_of<'s, 'a>(
    scope: &'s Scope<'a>,
    name: &str,
    kind: SymbolKind,
) -> Option<&'s Symbol<'a>> {
    scope.lookup(name).filter(|symbol| symbol.kind == kind)
}

/// The declared type of whatever `name` names, whatever its kind: a register, a vector register
/// (its element type) or a variable.
pub(crate) fn declared_type<'a>(scope: &Scope<'a>, name: &str) -> Option<&'a str> {
    any_symbol(scope, name)?.ty
}

/// [`declared_type`] with the type read as an instruction type ([`Ty`]).
pub(crate) fn declared_ty<'a>(scope: &Scope<'a>, name: &str) -> Option<(&'a str, Ty)> {
    let ty = declared_type(scope, name)?;
    Some((ty, Ty::parse(ty)?))
}

/// The register at the base of each address operand (`%rd1` of `[%rd1+8]`) with its declared
/// type ([`declared_ty`], of whatever the name names), in operand order; addresses whose first
/// register has no such type are left out.
pub(crate) fn address_registers<'i, 's>(
    info: &InstInfo<'i>,
    scope: &Scope<'s>,
) -> Vec<(Token<'i>, &'s str, Ty)> {
    info.operands
        .iter()
        .filter(|operand| matches!(operand.kind(), OperandKind::Address { .. }))
        .filter_map(|operand| {
            // The first register, written with `%` or without (an identifier to the grammar
            // that names a register).
            // A `%` name that the module declares as a variable (`.global .u32 %x;`) is
            // the variable's address, not a register.
            let register = operand
                .registers()
                .into_iter()
                .filter(|t| {
                    any_symbol(scope, t.text).is_none_or(|s| s.kind == SymbolKind::Register)
                })
                .chain(
                    operand
                        .identifiers()
                        .into_iter()
                        .filter(|t| symbol_of(scope, t.text, SymbolKind::Register).is_some()),
                )
                .min_by_key(|t| t.start)?;
            let (text, ty) = declared_ty(scope, register.text)?;
            Some((register, text, ty))
        })
        .collect()
}

/// The name of a plain name operand (`%r1`, `x`, `fn`), whether written with `%` (a register
/// to the grammar) or without (an identifier).
pub(crate) fn plain_name<'o>(operand: &Operand<'o>) -> Option<&'o str> {
    let (OperandKind::Register(name) | OperandKind::Identifier(name)) = operand.kind() else {
        return None;
    };
    Some(name)
}

/// The symbol that a plain name operand (`%r1`, `x`, `fn`) names, with the name.
pub(crate) fn named_symbol<'s, 'a, 'o>(
    scope: &'s Scope<'a>,
    operand: &Operand<'o>,
) -> Option<(&'o str, &'s Symbol<'a>)> {
    let name = plain_name(operand)?;
    Some((name, any_symbol(scope, name)?))
}

/// The name, declared type and class of a plain register operand, whether written with `%`
/// (a register to the grammar) or without (an identifier).
pub(crate) fn register_operand<'a>(
    op: &Operand<'a>,
    scope: &Scope<'a>,
) -> Option<(&'a str, &'a str, RegTy)> {
    let name = plain_name(op)?;
    let (ty, reg) = declared_register(scope, name)?;
    Some((name, ty, reg))
}

/// The declared type of a plain (non-vector) register operand.
pub(crate) fn register_type(scope: &Scope<'_>, operand: &Operand<'_>) -> Option<RegTy> {
    Some(declared_register(scope, plain_name(operand)?)?.1)
}

/// The name and the declared type, read as an instruction type ([`Ty`]), of a plain
/// (non-vector) register operand.
pub(crate) fn register_ty<'o>(scope: &Scope<'_>, operand: &Operand<'o>) -> Option<(&'o str, Ty)> {
    let name = plain_name(operand)?;
    Some((name, Ty::parse(plain_register_type(scope, name)?)?))
}

/// The elements of a vector operand, or the operand itself.
pub(crate) fn parts<'a>(operand: &Operand<'a>) -> Vec<Operand<'a>> {
    match operand.kind() {
        OperandKind::Vector => operand.elements(),
        _ => vec![*operand],
    }
}

pub(crate) fn is_vector(operand: &Operand<'_>) -> bool {
    matches!(operand.kind(), OperandKind::Vector)
}

pub(crate) struct Rules<'c, 'a, 'i, 's> {
    pub ctx: &'c mut Ctx<'a>,
    pub info: &'c InstInfo<'i>,
    pub scope: &'c Scope<'s>,
    pub section: &'static str,
}

impl Rules<'_, '_, '_, '_> {
    pub fn error(&mut self, code: &'static str, range: ptx_syntax::TextRange, message: String) {
        self.ctx
            .report(Diagnostic::error(code, range, message).section(self.section));
    }

    pub fn opcode(&self) -> &str {
        self.info.opcode_text()
    }

    /// A vector where the instruction takes one register (`txq`, `suq`, `istypep`,
    /// `tcgen05.alloc`'s column count).
    pub fn scalar(&mut self, operand: &Operand<'_>) {
        if is_vector(operand) {
            let message = format!("`{}` takes one register here, not a vector", self.opcode());
            self.error("operand-kind", operand.range(), message);
        }
    }

    /// Registers of `operand` (or its elements) whose type does not fit: `fits` sees the
    /// register type, `want` names what is expected.
    pub fn registers(
        &mut self,
        operand: &Operand<'_>,
        what: &str,
        want: &str,
        fits: impl Fn(RegTy) -> bool,
    ) {
        for part in parts(operand) {
            let Some(ty) = register_type(self.scope, &part) else {
                continue;
            };
            if !fits(ty) {
                let message = format!(
                    "`{}` is a {}-bit {} register; the {what} of `{}` needs {want}",
                    part.text(),
                    ty.bits,
                    class_name(ty.class),
                    self.opcode()
                );
                self.error("operand-type", part.range(), message);
            }
        }
    }
}

pub(crate) fn class_name(class: Class) -> &'static str {
    match class {
        Class::Bits => "bit-size",
        Class::Int => "integer",
        Class::Float => "floating-point",
        Class::HalfPair => "half-pair",
        Class::Pred => "predicate",
    }
}

/// The declared type of a plain register named `name` (not a vector, not a variable), as
/// written (`.b32`, also a type [`RegTy`] does not read, such as `.bf16`).
pub(crate) fn plain_register_type<'a>(scope: &Scope<'a>, name: &str) -> Option<&'a str> {
    let symbol = symbol_of(scope, name, SymbolKind::Register)?;
    if symbol.vector.is_some() {
        return None;
    }
    symbol.ty
}

/// The declared type and its reading of a plain register named `name` (not a vector, not a
/// variable).
pub(crate) fn declared_register<'a>(scope: &Scope<'a>, name: &str) -> Option<(&'a str, RegTy)> {
    let ty = plain_register_type(scope, name)?;
    Some((ty, RegTy::parse(ty)?))
}

/// The declared type of the register named `name`, the element type of a vector register
/// included; `None` for other names.
pub(crate) fn register_type_name<'a>(scope: &Scope<'a>, name: &str) -> Option<&'a str> {
    symbol_of(scope, name, SymbolKind::Register)?.ty
}

/// The width in bits of a type name (`.b32` 32, `.f16x2` 32, `.pred` 1).
pub(crate) fn type_bits(ty: &str) -> Option<u32> {
    if ty == ".pred" {
        return Some(1);
    }
    let name = ty.trim_start_matches('.');
    // `.f16x2`, `.e4m3x4`: a packed type is its element's bits times the count after `x`.
    let (base, count) = match name.rsplit_once('x') {
        Some((base, n)) if !base.is_empty() && n.parse::<u32>().is_ok() => {
            (base, n.parse::<u32>().ok()?)
        }
        _ => (name, 1),
    };
    // The alternate floating-point formats (5.2.3) are named by their exponent and mantissa
    // bits: `.e2m1` is 4 bits, the others a byte each.
    let bits = if base == "e2m1" {
        4
    } else if base.starts_with('e') || base.starts_with("ue") || base == "s2f6" {
        8
    } else {
        let digits: String = base.chars().filter(char::is_ascii_digit).collect();
        digits.parse().ok()?
    };
    Some(bits * count)
}

/// A floating-point type name (`.f32`, `.f16x2`, `.bf16`, …), read from its spelling.
pub(crate) fn is_float_type(ty: &str) -> bool {
    ty.starts_with(".f") || ty.starts_with(".bf")
}

/// A signed or unsigned integer type name (`.u32`, `.s16x2`, …), read from its spelling.
pub(crate) fn is_integer_type(ty: &str) -> bool {
    ty.starts_with(".u") || ty.starts_with(".s")
}

/// A float type against an integer one, either way round; bit-size types go with either, and
/// a missing `expected` type with anything.
pub(crate) fn float_against_integer(expected: Option<&str>, actual: &str) -> bool {
    expected.is_some_and(|e| {
        is_float_type(e) && is_integer_type(actual) || is_integer_type(e) && is_float_type(actual)
    })
}

/// The array length (the product of its dimensions, 0 for `[]`) and the `.align` of the
/// variable whose name is at `name` in `text`, read from its declaration (`.param .align 8
/// .b8 p[16];`).
pub(crate) fn variable_shape(
    text: &str,
    name: ptx_syntax::TextRange,
) -> (Option<u64>, Option<u64>) {
    let start = text[..name.start]
        .rfind([';', '{', '\n'])
        .map_or(0, |i| i + 1);
    let end = text[name.end..]
        .find([';', ',', ')'])
        .map_or(text.len(), |i| name.end + i);
    let before = &text[start..name.start];
    let after = text[name.end..end].trim();
    let align = before
        .split_whitespace()
        .skip_while(|w| *w != ".align")
        .nth(1)
        .and_then(|w| w.parse().ok());
    let array = after.strip_prefix('[').map(|rest| {
        rest.split(['[', ']'])
            .filter(|p| !p.trim().is_empty())
            .map(|p| p.trim().parse::<u64>().unwrap_or(0))
            .product()
    });
    (array, align)
}

/// The parameterized `.reg` declarations (`%r<8>`) of `block` and the blocks inside it: the
/// count's token, the prefix and the count.
pub(crate) fn counted_registers<'a>(block: Block<'a>, out: &mut Vec<(Token<'a>, String, u64)>) {
    for statement in block.statements() {
        match statement {
            Statement::Variable(var) if var.state_space().is_some_and(|s| s.text == ".reg") => {
                for declarator in var.declarators() {
                    if let (Some(name), Some(token), Some(count)) = (
                        declarator.name(),
                        declarator.count_token(),
                        declarator.count(),
                    ) {
                        out.push((token, name.text.to_owned(), count));
                    }
                }
            }
            Statement::Block(inner) => counted_registers(inner, out),
            _ => {}
        }
    }
}

// Instruction types and the registers they take.

/// What an instruction type (`.b32`, `.s16`, `.f16x2`, `.bf16`, …) or a register's declared
/// type says about an operand, finer than [`Class`]: signed and unsigned apart, and the packed
/// types that have no register type of their own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Bits,
    Signed,
    Unsigned,
    Float,
    Pred,
    /// `.f16x2`: a pair of halves in a 32-bit register (`.f16x2` or `.b32`).
    HalfPair,
    /// `.u16x2`, `.s16x2` (9.7.1.1–2, 9.7.1.12–13): a pair of 16-bit integers in a `.b32` or
    /// `.f16x2` register (ptxas 13.5 "Arguments mismatch" for `.u32`, `.s32`, `.f32`
    /// registers and for every constant).
    IntPair,
    /// `.bf16`, `.bf16x2` and the packed pair of singles `.f32x2` (9.7.3, sm_100): no
    /// register type of their own, only bit-size registers of their size.
    Brain,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ty {
    pub kind: Kind,
    pub bits: u32,
}

impl Ty {
    /// Fundamental types only (`.b8` … `.b128`, `.s/.u8` … `64`, `.f16/.f32/.f64`, `.pred`).
    pub fn parse(name: &str) -> Option<Ty> {
        let name = name.trim_start_matches('.');
        match name {
            "pred" => {
                return Some(Ty {
                    kind: Kind::Pred,
                    bits: 1,
                })
            }
            "f16x2" => {
                return Some(Ty {
                    kind: Kind::HalfPair,
                    bits: 32,
                })
            }
            "u16x2" | "s16x2" => {
                return Some(Ty {
                    kind: Kind::IntPair,
                    bits: 32,
                })
            }
            "bf16" | "bf16x2" | "f32x2" => {
                return Some(Ty {
                    kind: Kind::Brain,
                    bits: match name {
                        "bf16" => 16,
                        "bf16x2" => 32,
                        _ => 64,
                    },
                })
            }
            _ => {}
        }
        let (kind, digits) = match name.split_at_checked(1)? {
            ("b", d) => (Kind::Bits, d),
            ("s", d) => (Kind::Signed, d),
            ("u", d) => (Kind::Unsigned, d),
            ("f", d) => (Kind::Float, d),
            _ => return None,
        };
        let bits: u32 = digits.parse().ok()?;
        let valid = match kind {
            Kind::Bits => matches!(bits, 8 | 16 | 32 | 64 | 128),
            Kind::Signed | Kind::Unsigned => matches!(bits, 8 | 16 | 32 | 64),
            Kind::Float => matches!(bits, 16 | 32 | 64),
            Kind::Pred | Kind::HalfPair | Kind::IntPair | Kind::Brain => false,
        };
        valid.then_some(Ty { kind, bits })
    }

    pub fn is_int(self) -> bool {
        matches!(self.kind, Kind::Signed | Kind::Unsigned)
    }

    /// The half-precision and packed floating-point instruction types, which take no constant
    /// operand (ptxas: "Arguments mismatch" for `add.f16 %h, %h, 1.0`, `add.bf16x2 %r, %r,
    /// 0x3c003c00`, `add.f32x2 %rd, %rd, 1.0`).
    pub fn is_half_float(self) -> bool {
        matches!(self.kind, Kind::HalfPair | Kind::IntPair | Kind::Brain)
            || (self.kind == Kind::Float && self.bits == 16)
    }
}

/// At most 16 bits and not a predicate (`.b8` … `.s16`, `.f16`, `.bf16`): too narrow to hold
/// an address.
pub(crate) fn narrow(ty: Ty) -> bool {
    ty.kind != Kind::Pred && ty.bits <= 16
}

/// An integer or bit-size type of `bits` bits (`.b32`, `.s32`, `.u32` for 32).
pub(crate) fn integer_of(ty: Ty, bits: u32) -> bool {
    address_fits(ty) && ty.bits == bits
}

/// Section 6.1: same size, and a bit type on either side or both integer or both float.
/// `.bf16`/`.bf16x2` take only bit-size registers and `.f16x2` a `.f16x2` or `.b32` one
/// (section 5.2.3 allows no `.bf16` register; ptxas rejects `.f16`, `.u16`, `.f32` there).
pub(crate) fn exact_fits(instr: Ty, reg: Ty) -> bool {
    if instr.kind == Kind::Pred || reg.kind == Kind::Pred {
        return instr.kind == reg.kind;
    }
    // ptxas 13.5 also takes a `.f16x2` register for a 32-bit integer operand (`vadd.u32…`,
    // `bfe.u32`, `dp4a` sources).
    if reg.kind == Kind::HalfPair && instr.is_int() {
        return instr.bits == 32;
    }
    if matches!(instr.kind, Kind::HalfPair | Kind::IntPair | Kind::Brain)
        || matches!(reg.kind, Kind::HalfPair | Kind::Brain)
    {
        return instr.bits == reg.bits
            && (reg.kind == Kind::Bits
                || (instr.kind == Kind::Bits && reg.kind == Kind::HalfPair)
                || (matches!(instr.kind, Kind::HalfPair | Kind::IntPair)
                    && reg.kind == Kind::HalfPair));
    }
    instr.bits == reg.bits
        && (instr.kind == Kind::Bits
            || reg.kind == Kind::Bits
            || (instr.is_int() && reg.is_int())
            || (instr.kind == Kind::Float && reg.kind == Kind::Float))
}

/// Section 9.4.1, Tables 27 and 28.
pub(crate) fn relaxed_fits(instr: Ty, reg: Ty) -> bool {
    if instr.kind == Kind::Pred || reg.kind == Kind::Pred {
        return instr.kind == reg.kind;
    }
    if matches!(instr.kind, Kind::HalfPair | Kind::IntPair | Kind::Brain) {
        return (reg.kind == Kind::Bits && reg.bits >= instr.bits)
            || (instr.kind == Kind::HalfPair && reg.kind == Kind::HalfPair);
    }
    // ptxas 13.5 takes a `.f16x2` register for bit-size and integer types up to 32 bits
    // (`ld.global.u32 %x, [a]`, `cvt.u32.u16 %x, %h`), not for floats.
    if reg.kind == Kind::HalfPair {
        return (instr.kind == Kind::Bits || instr.is_int()) && instr.bits <= 32;
    }
    match reg.kind {
        Kind::Bits => reg.bits >= instr.bits,
        Kind::Signed | Kind::Unsigned => {
            (instr.kind == Kind::Bits || instr.is_int()) && reg.bits >= instr.bits
        }
        Kind::Float => match instr.kind {
            Kind::Bits => reg.bits >= instr.bits,
            Kind::Float => reg.bits == instr.bits,
            _ => false,
        },
        Kind::Pred | Kind::HalfPair | Kind::IntPair | Kind::Brain => false,
    }
}

/// Whether an operand of type `ty` may be an address (a variable's name, `v+4`): integer and
/// bit-size types may, floating-point, half and predicate types not.
pub(crate) fn address_fits(ty: Ty) -> bool {
    matches!(ty.kind, Kind::Bits | Kind::Signed | Kind::Unsigned)
}

pub(crate) fn type_name(ty: Ty) -> String {
    match ty.kind {
        Kind::Bits => format!("b{}", ty.bits),
        Kind::Signed => format!("s{}", ty.bits),
        Kind::Unsigned => format!("u{}", ty.bits),
        Kind::Float => format!("f{}", ty.bits),
        Kind::Pred => "pred".to_owned(),
        Kind::HalfPair => "f16x2".to_owned(),
        Kind::IntPair => "u16x2".to_owned(),
        Kind::Brain if ty.bits == 16 => "bf16".to_owned(),
        Kind::Brain if ty.bits == 64 => "f32x2".to_owned(),
        Kind::Brain => "bf16x2".to_owned(),
    }
}

pub(crate) fn wanted(ty: Ty, relaxed: bool) -> String {
    let bits = ty.bits;
    match (ty.kind, relaxed) {
        (Kind::Pred, _) => "a .pred register".to_owned(),
        (Kind::HalfPair | Kind::IntPair, false) => "a .f16x2 or .b32 register".to_owned(),
        (Kind::Brain, false) => format!("a .b{bits} register"),
        (Kind::HalfPair | Kind::IntPair | Kind::Brain, true) => {
            format!("a bit-size register of at least {bits} bits")
        }
        (Kind::Float, false) => format!("a .f{bits} or .b{bits} register"),
        (Kind::Float, true) => {
            format!("a .f{bits} register or a bit-size register of at least {bits} bits")
        }
        (Kind::Bits, false) => format!("a {bits}-bit register"),
        (Kind::Bits, true) => format!("a register of at least {bits} bits"),
        (_, false) => format!("a .b{bits}, .s{bits} or .u{bits} register"),
        (_, true) => format!("an integer or bit-size register of at least {bits} bits"),
    }
}

// The data of atomic and multimem instructions.

/// Register types (without dot) that a scalar operand of instruction type `ty` may have
/// (ptxas 13.5, every pair probed with declared registers): bit-size types take any register
/// of their size, integer types also a `.f16x2` one, floating-point types only their own or
/// a bit-size one; `.bf16` data lives in bit-size registers, packed 8-bit floats (multimem)
/// in any register of their size.
pub(crate) fn scalar_registers(ty: &str) -> &'static [&'static str] {
    match ty {
        "b16" | "e5m2x2" | "e4m3x2" => &["b16", "u16", "s16", "f16"],
        "b32" | "e5m2x4" | "e4m3x4" => &["b32", "u32", "s32", "f32", "f16x2"],
        "e5m2" | "e4m3" => &["b8", "u8", "s8"],
        "b64" => &["b64", "u64", "s64", "f64"],
        "b128" => &["b128"],
        "u32" | "s32" => &["b32", "u32", "s32", "f16x2"],
        "u64" | "s64" => &["b64", "u64", "s64"],
        "f32" => &["b32", "f32"],
        "f64" => &["b64", "f64"],
        "f16" => &["b16", "f16"],
        "bf16" => &["b16"],
        "f16x2" => &["b32", "f16x2"],
        "bf16x2" => &["b32"],
        _ => &[],
    }
}

/// The same for the elements of a `.vN` vector: ptxas takes integer registers for `.f16` and
/// `.f32` elements too.
pub(crate) fn element_registers(ty: &str) -> &'static [&'static str] {
    match ty {
        "f16" => &["b16", "u16", "s16", "f16"],
        "f32" => &["b32", "u32", "s32", "f32"],
        other => scalar_registers(other),
    }
}

/// Whether a constant may stand for a scalar value of type `ty` (ptxas 13.5): integers for
/// the bit and integer types and the packed 8-bit float quads; `0f…` for the 32-bit ones,
/// `0d…` and decimal floats for `.b64`, any float for `.f32`/`.f64`; nothing for the 16-bit
/// floats.
pub(crate) fn constant_fits(ty: &str, kind: &OperandKind<'_>, text: &str) -> bool {
    let float = matches!(kind, OperandKind::Float(_));
    if !float {
        return matches!(
            ty,
            "b16" | "b32" | "b64" | "b128" | "u32" | "s32" | "u64" | "s64" | "e5m2x4" | "e4m3x4"
        );
    }
    let single = text.starts_with("0f") || text.starts_with("0F");
    match ty {
        "f32" | "f64" => true,
        "b32" | "e5m2x4" | "e4m3x4" => single,
        "b64" => !single,
        _ => false,
    }
}
