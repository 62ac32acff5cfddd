//! Every instruction form the calculator covers, valid or not, with a
//! complete operand list, so fixtures can be generated with ptxas and the
//! calculator can be compared against them. Invalid forms (NA cells, shapes
//! or types an instruction lacks) are listed on purpose: ptxas must reject
//! them at every register count.

use crate::{matrix, mma, tcgen05, vector, wgmma, wmma};

/// One operand of a catalogued instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// Fixed operand text, e.g. `[%ad]` or `16`.
    Text(String),
    /// A brace-enclosed vector of registers of the given width.
    Vector { bits: u32 },
    /// A single register of the given width (written without braces).
    Scalar { bits: u32 },
}

/// One catalogued instruction form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Family name used to group fixtures, e.g. `tcgen05`, `wmma`.
    pub family: &'static str,
    /// `.target` needed by the form.
    pub target: &'static str,
    /// Full dotted opcode.
    pub opcode: String,
    /// Operands in order.
    pub operands: Vec<Slot>,
    /// Register counts to try when the calculator rejects the form.
    pub probes: Vec<u32>,
}

/// Register declarations that the operand texts of [`Case`]s rely on.
pub const DECLARATIONS: &str = "\t.reg .b16 %h<300>;\n\t.reg .b32 %r<300>;\n\t.reg .b64 %rd<300>;\n\t.reg .b32 %t;\n\t.reg .b32 %s;\n\t.reg .b64 %ad;\n\t.reg .pred %p;\n\t.reg .b128 %q;\n";

/// Register name prefix used for vectors of `bits`-wide registers.
pub fn register_prefix(bits: u32) -> &'static str {
    match bits {
        16 => "%h",
        64 => "%rd",
        _ => "%r",
    }
}

impl Case {
    pub(crate) fn new(
        family: &'static str,
        target: &'static str,
        opcode: impl Into<String>,
        operands: Vec<Slot>,
        probes: &[u32],
    ) -> Case {
        Case {
            family,
            target,
            opcode: opcode.into(),
            operands,
            probes: probes.to_vec(),
        }
    }

    /// Writes the instruction with `counts[i]` registers in operand `i`
    /// (ignored for fixed operands).
    pub fn render(&self, counts: &[u32]) -> String {
        let ops: Vec<String> = self
            .operands
            .iter()
            .enumerate()
            .map(|(i, slot)| match slot {
                Slot::Text(t) => t.clone(),
                Slot::Vector { bits } | Slot::Scalar { bits } => {
                    let n = counts.get(i).copied().unwrap_or(1);
                    let prefix = register_prefix(*bits);
                    let regs: Vec<String> = (0..n).map(|k| format!("{prefix}{k}")).collect();
                    if matches!(slot, Slot::Scalar { .. }) && n == 1 {
                        regs[0].clone()
                    } else {
                        format!("{{{}}}", regs.join(", "))
                    }
                }
            })
            .collect();
        format!("{} {};", self.opcode, ops.join(", "))
    }
}

/// Shorthand for a fixed operand.
pub(crate) fn t(text: &str) -> Slot {
    Slot::Text(text.to_owned())
}

/// Shorthand for a vector operand.
pub(crate) fn v(bits: u32) -> Slot {
    Slot::Vector { bits }
}

/// All catalogued forms of all families.
pub fn all_cases() -> Vec<Case> {
    let mut out = Vec::new();
    out.extend(tcgen05_cases());
    out.extend(wmma::cases());
    out.extend(mma::cases());
    out.extend(wgmma::cases());
    out.extend(matrix::cases());
    out.extend(vector::cases());
    out
}

fn tcgen05_cases() -> Vec<Case> {
    const PROBES: &[u32] = &[1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 512];
    let mut out = Vec::new();
    for &(shape, _) in tcgen05::SHAPES {
        let split = shape == "16x32bx2";
        for num in tcgen05::NUMS {
            for pack in ["", ".pack::16b"] {
                let mut ops = vec![v(32), t("[%t]")];
                if split {
                    ops.push(t("16"));
                }
                let op = format!("tcgen05.ld.sync.aligned.{shape}.{num}{pack}.b32");
                out.push(Case::new("tcgen05", "sm_100a", op, ops, PROBES));
            }
            for unpack in ["", ".unpack::16b"] {
                let mut ops = vec![t("[%t]")];
                if split {
                    ops.push(t("16"));
                }
                ops.push(v(32));
                let op = format!("tcgen05.st.sync.aligned.{shape}.{num}{unpack}.b32");
                out.push(Case::new("tcgen05", "sm_100a", op, ops, PROBES));
            }
            for ty in ["max.u32", "min.s32", "min.abs.NaN.f32"] {
                let mut ops = vec![v(32), Slot::Scalar { bits: 32 }, t("[%t]")];
                if split {
                    ops.push(t("16"));
                }
                let op = format!("tcgen05.ld.red.sync.aligned.{shape}.{num}.{ty}");
                out.push(Case::new("tcgen05.ld.red", "sm_103a", op, ops, PROBES));
            }
        }
    }
    out
}
