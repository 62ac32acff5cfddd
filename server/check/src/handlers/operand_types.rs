//! The types of register operands, as every handler reads them: a register's declared type
//! (`.b32`, `.s64`, `.f16x2`, `.pred`, …) as a class and a width, the plain register behind an
//! operand (written with `%` or, to the grammar, as a name), the elements of a vector operand,
//! the width of a type name, and [`Rules`], which reports registers whose type does not fit
//! what an operand reads.

use ptx_syntax::{Operand, OperandKind};

use crate::context::{Ctx, InstInfo};
use crate::scope::{Scope, SymbolKind};
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

/// The declared type of a plain (non-vector) register operand.
pub(crate) fn register_type(scope: &Scope<'_>, operand: &Operand<'_>) -> Option<RegTy> {
    let (OperandKind::Register(name) | OperandKind::Identifier(name)) = operand.kind() else {
        return None;
    };
    let symbol = scope.lookup(name)?;
    if symbol.kind != SymbolKind::Register || symbol.vector.is_some() {
        return None;
    }
    RegTy::parse(symbol.ty?)
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

/// The declared type and its reading of a plain register named `name` (not a vector, not a
/// variable).
pub(crate) fn declared_register<'a>(scope: &Scope<'a>, name: &str) -> Option<(&'a str, RegTy)> {
    let symbol = scope.lookup(name)?;
    if symbol.kind != SymbolKind::Register || symbol.vector.is_some() {
        return None;
    }
    let ty = symbol.ty?;
    Some((ty, RegTy::parse(ty)?))
}

/// The width in bits of a type name (`.b32` 32, `.f16x2` 32, `.pred` 1).
pub(crate) fn type_bits(ty: &str) -> Option<u32> {
    if ty == ".pred" {
        return Some(1);
    }
    let digits: String = ty.chars().filter(char::is_ascii_digit).collect();
    let bits: u32 = digits.parse().ok()?;
    Some(if ty.ends_with("x2") { bits * 2 } else { bits })
}
