//! `wgmma.mma_async` (and `.sp`) register fragments (PTX ISA 9.1 section
//! 9.7.15): the accumulator D, spread over the 128 threads of a warpgroup,
//! and the A matrix when it comes from registers instead of a descriptor.

use crate::catalog::{t, v, Case, Slot};
use crate::{vc, Opcode, RegError, VectorCount};

/// Multiplicand types: (types, dense K, accumulator types, integer N set,
/// sparse form exists).
type Row = (
    &'static [&'static str],
    u32,
    &'static [&'static str],
    bool,
    bool,
);

const TYPES: &[Row] = &[
    (&["f16"], 16, &["f16", "f32"], false, true),
    (&["bf16"], 16, &["f32"], false, true),
    (&["tf32"], 8, &["f32"], false, true),
    (&["e4m3", "e5m2"], 32, &["f16", "f32"], false, true),
    (&["s8", "u8"], 32, &["s32"], true, true),
    (&["b1"], 256, &["s32"], true, false),
];

const ALL_TYPES: &[&str] = &[
    "f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "b1", "f32", "s32",
];

/// Valid N: multiples of 8 up to 256; integer and single-bit forms use
/// multiples of 8 up to 32 and then multiples of 16.
fn n_ok(n: u32, integer: bool) -> bool {
    n.is_multiple_of(8) && (8..=256).contains(&n) && (!integer || n <= 32 || n.is_multiple_of(16))
}

fn parse_shape(s: &str) -> Option<(u32, u32, u32)> {
    let rest = s.strip_prefix('m')?;
    let (m, rest) = rest.split_once('n')?;
    let (n, k) = rest.split_once('k')?;
    Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?))
}

pub(crate) fn counts(op: &Opcode) -> Result<Vec<VectorCount>, RegError> {
    if op.components.get(1).map(String::as_str) != Some("mma_async") {
        return Err(RegError::at(
            1,
            "only wgmma.mma_async has register fragments",
        ));
    }
    let sparse = op.components.get(2).map(String::as_str) == Some("sp");
    let (si, (m, n, k)) = op
        .components
        .iter()
        .enumerate()
        .find_map(|(i, c)| parse_shape(c).map(|s| (i, s)))
        .ok_or_else(|| RegError::at(op.last(), "missing .m64nNkK shape"))?;
    let types = op.all_in(si + 1, ALL_TYPES);
    let [(di, dt), (ai, at), (_, bt)] = match types.as_slice() {
        [d, a, b, ..] => [*d, *a, *b],
        _ => {
            return Err(RegError::at(
                op.last(),
                "wgmma.mma_async needs .dtype.atype.btype after the shape",
            ))
        }
    };
    let row = TYPES
        .iter()
        .find(|r| r.0.contains(&at) && r.0.contains(&bt))
        .ok_or_else(|| RegError::at(ai, format!("wgmma has no .{at} × .{bt} multiplication")))?;
    let (_, dense_k, dtypes, integer, has_sparse) = *row;
    if sparse && !has_sparse {
        return Err(RegError::at(
            2,
            format!("wgmma.mma_async.sp has no .{at} form"),
        ));
    }
    let want_k = if sparse { dense_k * 2 } else { dense_k };
    if m != 64 {
        return Err(RegError::at(si, "wgmma shapes have M = 64"));
    }
    if k != want_k {
        return Err(RegError::at(
            si,
            format!(".{at} wgmma needs K = {want_k}, not {k}"),
        ));
    }
    if !n_ok(n, integer) {
        let rule = if integer {
            "8, 16, 24, 32, then multiples of 16 up to 256"
        } else {
            "a multiple of 8 from 8 to 256"
        };
        return Err(RegError::at(
            si,
            format!("N = {n} is not valid for .{at} wgmma: N must be {rule}"),
        ));
    }
    if !dtypes.contains(&dt) {
        return Err(RegError::at(
            di,
            format!(
                ".{at} wgmma accumulates in .{}, not .{dt}",
                dtypes.join("/.")
            ),
        ));
    }
    let (d_regs, d_expl) = if dt == "f16" {
        (
            n / 4,
            format!(
                "D is 64x{n} over 128 threads = {} .f16 each, packed two per register = N/4 = {}",
                n / 2,
                n / 4
            ),
        )
    } else {
        (
            n / 2,
            format!(
                "D is 64x{n} over 128 threads = N/2 = {} .{dt} registers",
                n / 2
            ),
        )
    };
    let a_expl = format!(
        "A from registers (instead of a descriptor): 64x{k}{} .{at} over 128 threads = 4 × 32-bit registers",
        if sparse { " with half the elements kept (sparse)" } else { "" }
    );
    // A is a fragment only when it comes from registers: written operands
    // with a descriptor (a 64-bit register, no braces) in place of A leave
    // it out; without operands both forms are possible and A is listed.
    let operands = op.operand_list();
    let a_in_registers = operands.get(1).is_none_or(|a| a.starts_with('{'));
    let mut out = vec![vc(0, "d", d_regs, 32, d_expl)];
    if a_in_registers {
        out.push(vc(1, "a", 4, 32, a_expl));
    }
    Ok(out)
}

/// Catalogue: every type signature × N from 8 to 256 in steps of 8, dense
/// and sparse, with A taken from registers.
pub(crate) fn cases() -> Vec<Case> {
    let sigs: &[(&str, u32, &str)] = &[
        ("f16.f16.f16", 16, "f16"),
        ("f32.f16.f16", 16, "f16"),
        ("f32.bf16.bf16", 16, "f16"),
        ("f32.tf32.tf32", 8, "tf32"),
        ("f16.e4m3.e5m2", 32, "f8"),
        ("f32.e5m2.e4m3", 32, "f8"),
        ("s32.s8.s8", 32, "int"),
        ("s32.u8.s8", 32, "int"),
        ("s32.b1.b1.and.popc", 256, "int"),
    ];
    let mut out = Vec::new();
    for &(sig, k, class) in sigs {
        for n in (8..=256).step_by(8) {
            let probes = [1, 2, 4, n / 4, n / 2, n];
            for sparse in [false, true] {
                if sparse && sig.contains("b1") {
                    continue;
                }
                let k = if sparse { k * 2 } else { k };
                let sp = if sparse { ".sp" } else { "" };
                let op = format!("wgmma.mma_async{sp}.sync.aligned.m64n{n}k{k}.{sig}");
                let mut ops: Vec<Slot> = vec![v(32), v(32), t("%ad")];
                if sparse {
                    ops.push(t("%s"));
                    ops.push(t("0"));
                }
                ops.push(t("%p"));
                match class {
                    "f16" => ops.extend([t("1"), t("1"), t("0")]),
                    "tf32" | "f8" => ops.extend([t("1"), t("1")]),
                    _ => {}
                }
                out.push(Case::new("wgmma", "sm_90a", op, ops, &probes));
            }
        }
    }
    out
}
