//! Register counts of PTX load/store and matrix-fragment shapes.
//!
//! Given an instruction (with or without operands), [`register_counts`]
//! answers how many registers each brace-enclosed vector operand must hold,
//! e.g. `tcgen05.ld.sync.aligned.16x256b.x16.b32` needs 64 registers in its
//! destination vector. Impossible combinations (an `NA` cell of a table, a
//! shape an instruction lacks, a type not allowed with a shape) produce a
//! [`RegError`] naming the offending qualifier by its index in the component
//! list (see [`Opcode`]).
//!
//! The counts are kept as data tables in the family modules and were checked
//! against NVIDIA's `ptxas` (see `fixtures/ptxas_labels.tsv` and the
//! `ptxas_labels` test).

use serde::Serialize;
use std::fmt;

pub mod catalog;
mod matrix;
mod mma;
mod rewrite;
mod tcgen05;
mod vector;
mod wgmma;
mod wmma;

pub use rewrite::rewrite_vector;

/// Register requirements of every vector operand of one instruction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegCounts {
    /// The opcode as given (operands stripped), e.g. `tcgen05.ld.sync.aligned.16x64b.x2.b32`.
    pub instruction: String,
    /// One entry per vector (or fragment) operand, in operand order.
    pub vectors: Vec<VectorCount>,
}

/// How many registers one operand takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VectorCount {
    /// 0-based index of the operand in the operand list.
    pub operand: usize,
    /// Number of registers inside the braces.
    pub registers: u32,
    /// Width of each register in bits.
    pub register_bits: u32,
    /// One-line explanation of how the count arises.
    pub explanation: String,
    /// Operand role, e.g. `d`, `a`, `r`, `redval`.
    pub role: String,
}

/// Why no register count exists for an instruction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RegError {
    /// Human readable reason.
    pub message: String,
    /// Index (in [`Opcode::components`]) of the qualifier at fault, if any.
    pub component: Option<usize>,
}

impl fmt::Display for RegError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for RegError {}

impl RegError {
    pub(crate) fn at(component: usize, message: impl Into<String>) -> Self {
        RegError {
            message: message.into(),
            component: Some(component),
        }
    }

    pub(crate) fn general(message: impl Into<String>) -> Self {
        RegError {
            message: message.into(),
            component: None,
        }
    }
}

/// A dotted opcode split into components.
///
/// `tcgen05.ld.sync.aligned.16x64b.x2.pack::16b.b32` becomes
/// `["tcgen05", "ld", "sync", "aligned", "16x64b", "x2", "pack::16b", "b32"]`;
/// `::` sub-qualifiers stay inside their component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opcode {
    /// The opcode text without guard predicate and operands.
    pub text: String,
    /// Components without their leading dots.
    pub components: Vec<String>,
    /// Operand text after the opcode (may be empty).
    pub operands: String,
}

impl Opcode {
    /// Splits `text` (which may carry a `@p` guard and operands) into components.
    pub fn parse(text: &str) -> Result<Opcode, RegError> {
        let mut rest = text.trim_start();
        if let Some(after) = rest.strip_prefix('@') {
            let end = after
                .find(char::is_whitespace)
                .ok_or_else(|| RegError::general("only a guard predicate, no instruction"))?;
            rest = after[end..].trim_start();
        }
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '{' || c == '[' || c == ';' || c == ',')
            .unwrap_or(rest.len());
        let opcode = &rest[..end];
        if opcode.is_empty() {
            return Err(RegError::general("no instruction text"));
        }
        let components: Vec<String> = opcode.split('.').map(str::to_owned).collect();
        if let Some(i) = components.iter().position(String::is_empty) {
            return Err(RegError::at(i, "empty qualifier (two dots in a row)"));
        }
        Ok(Opcode {
            text: opcode.to_owned(),
            components,
            operands: rest[end..].trim().to_owned(),
        })
    }

    /// Index of the first component equal to `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.components.iter().position(|c| c == name)
    }

    /// Index and text of the first component (after the first `skip`) in `set`.
    pub(crate) fn find_in(&self, skip: usize, set: &[&str]) -> Option<(usize, &str)> {
        self.components
            .iter()
            .enumerate()
            .skip(skip)
            .find(|(_, c)| set.contains(&c.as_str()))
            .map(|(i, c)| (i, c.as_str()))
    }

    /// All components (after the first `skip`) in `set`, with their indices.
    pub(crate) fn all_in(&self, skip: usize, set: &[&str]) -> Vec<(usize, &str)> {
        self.components
            .iter()
            .enumerate()
            .skip(skip)
            .filter(|(_, c)| set.contains(&c.as_str()))
            .map(|(i, c)| (i, c.as_str()))
            .collect()
    }

    /// The written operands, split at the commas outside braces and brackets
    /// (empty when the instruction was given without operands).
    pub fn operand_list(&self) -> Vec<&str> {
        let text = self.operands.trim().trim_end_matches(';').trim();
        if text.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        let (mut depth, mut start) = (0i32, 0);
        for (i, ch) in text.char_indices() {
            match ch {
                '{' | '[' => depth += 1,
                '}' | ']' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(text[start..i].trim());
                    start = i + 1;
                }
                _ => {}
            }
        }
        out.push(text[start..].trim());
        out
    }

    /// Index of the last component, used when an error concerns the whole form.
    pub(crate) fn last(&self) -> usize {
        self.components.len() - 1
    }
}

/// Builds one [`VectorCount`].
pub(crate) fn vc(
    operand: usize,
    role: &str,
    registers: u32,
    register_bits: u32,
    explanation: impl Into<String>,
) -> VectorCount {
    VectorCount {
        operand,
        registers,
        register_bits,
        explanation: explanation.into(),
        role: role.to_owned(),
    }
}

/// Register counts of every vector operand of `opcode_text`.
///
/// ```
/// let rc = ptx_regs::register_counts("tcgen05.ld.sync.aligned.16x256b.x16.b32").unwrap();
/// assert_eq!(rc.vectors[0].registers, 64);
/// ```
pub fn register_counts(opcode_text: &str) -> Result<RegCounts, RegError> {
    let op = Opcode::parse(opcode_text)?;
    let c = &op.components;
    let second = c.get(1).map(String::as_str).unwrap_or("");
    let vectors = match (c[0].as_str(), second) {
        ("tcgen05", "ld" | "st") => tcgen05::counts(&op)?,
        ("wmma", _) => wmma::counts(&op)?,
        ("mma", _) => mma::counts(&op)?,
        ("wgmma", _) => wgmma::counts(&op)?,
        ("ldmatrix" | "stmatrix" | "movmatrix", _) => matrix::counts(&op)?,
        ("ld" | "st" | "ldu" | "atom" | "red" | "multimem" | "mov" | "cp", _) => {
            vector::counts(&op)?
        }
        _ => {
            return Err(RegError::at(
                0,
                format!("`{}` has no vector operands this calculator knows", c[0]),
            ))
        }
    };
    Ok(RegCounts {
        instruction: op.text,
        vectors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_components_and_strips_operands() {
        let op = Opcode::parse(
            "@%p1 tcgen05.st.sync.aligned.16x64b.x2.unpack::16b.b32 [%r1], {%r2, %r3};",
        )
        .unwrap();
        assert_eq!(op.text, "tcgen05.st.sync.aligned.16x64b.x2.unpack::16b.b32");
        assert_eq!(op.components[6], "unpack::16b");
        assert_eq!(op.components.len(), 8);
        let err = Opcode::parse("ld..v2.b32").unwrap_err();
        assert_eq!(err.component, Some(1));
    }

    #[test]
    fn json_shape() {
        let rc = register_counts("tcgen05.ld.sync.aligned.16x128b.x4.b32").unwrap();
        let json = serde_json::to_string(&rc).unwrap();
        assert!(
            json.starts_with(r#"{"instruction":"tcgen05.ld.sync.aligned.16x128b.x4.b32","vectors":[{"operand":0,"registers":8,"register_bits":32,"explanation":"#),
            "{json}"
        );
    }

    #[test]
    fn unknown_instruction() {
        let err = register_counts("add.s32").unwrap_err();
        assert_eq!(err.component, Some(0));
    }
}
