//! `mma.sync` and `mma.sp` / `mma.sp::ordered_metadata` fragment sizes
//! (PTX ISA 9.1 sections 9.7.14.5 and 9.7.14.6).
//!
//! Which shape/type combinations exist is kept as data ([`DENSE`],
//! [`SPARSE`]); the register counts follow from the tile size: a thread
//! holds `rows × cols × element bits / (32 threads × register bits)` of a
//! matrix (A is stored half-size for sparse forms). The one exception is
//! `.m8n8k4` with 16/32-bit floats, whose tile is spread over a quad-pair of
//! 8 threads.

use crate::catalog::{t, v, Case, Slot};
use crate::{vc, Opcode, RegError, VectorCount};

/// One family of valid multiplicand types on a shape: (shape, A/B types,
/// C/D types, required `.kind`).
type Combo = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static str,
);

const F8: &[&str] = &["e4m3", "e5m2"];
const F8F6F4: &[&str] = &["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"];
const F16F32: &[&str] = &["f16", "f32"];

/// Dense `mma.sync` combinations (ptxas 13.5, `fixtures/truth`).
const DENSE: &[Combo] = &[
    ("m8n8k4", &["f16"], F16F32, ""),
    ("m8n8k4", &["f64"], &["f64"], ""),
    // Not in the spec: ptxas 13.5 also accepts the quad-pair m8n8k4 form
    // with .bf16 and .tf32 multiplicands and .f32 accumulators.
    ("m8n8k4", &["bf16", "tf32"], &["f32"], ""),
    ("m16n8k4", &["tf32"], &["f32"], ""),
    ("m16n8k4", &["f64"], &["f64"], ""),
    ("m16n8k8", &["f16"], F16F32, ""),
    ("m16n8k8", &["bf16", "tf32"], &["f32"], ""),
    ("m16n8k8", &["f64"], &["f64"], ""),
    ("m16n8k16", &["f16"], F16F32, ""),
    ("m16n8k16", &["bf16"], &["f32"], ""),
    ("m16n8k16", &["f64"], &["f64"], ""),
    ("m16n8k16", &["s8", "u8"], &["s32"], ""),
    ("m16n8k16", F8, F16F32, ""),
    // Not in the spec: ptxas 13.5 also takes `.kind::f8f6f4` on .m16n8k16
    // with the fp8 types (not the fp6/fp4 ones: "Illegal matrix shape").
    ("m16n8k16", F8, F16F32, "kind::f8f6f4"),
    ("m16n8k32", &["s8", "u8", "s4", "u4"], &["s32"], ""),
    ("m16n8k32", F8, F16F32, ""),
    ("m16n8k32", F8F6F4, F16F32, "kind::f8f6f4"),
    ("m16n8k32", F8F6F4, &["f32"], "kind::mxf8f6f4"),
    ("m16n8k64", &["s4", "u4"], &["s32"], ""),
    ("m16n8k64", &["e2m1"], &["f32"], "kind::mxf4"),
    ("m16n8k64", &["e2m1"], &["f32"], "kind::mxf4nvf4"),
    ("m8n8k16", &["s8", "u8"], &["s32"], ""),
    ("m8n8k32", &["s4", "u4"], &["s32"], ""),
    ("m8n8k128", &["b1"], &["s32"], ""),
    ("m16n8k128", &["b1"], &["s32"], ""),
    ("m16n8k256", &["b1"], &["s32"], ""),
];

/// Sparse `mma.sp` combinations.
const SPARSE: &[Combo] = &[
    ("m16n8k16", &["f16"], F16F32, ""),
    ("m16n8k16", &["bf16", "tf32"], &["f32"], ""),
    ("m16n8k32", &["f16"], F16F32, ""),
    ("m16n8k32", &["bf16"], &["f32"], ""),
    ("m16n8k32", &["s8", "u8"], &["s32"], ""),
    ("m16n8k8", &["tf32"], &["f32"], ""),
    ("m16n8k64", &["s8", "u8", "s4", "u4"], &["s32"], ""),
    // The spec lists only .f32 accumulators here; ptxas 13.5 accepts .f16
    // too (mma.sp::ordered_metadata only, see `counts`).
    ("m16n8k64", F8, F16F32, ""),
    ("m16n8k64", F8F6F4, F16F32, "kind::f8f6f4"),
    ("m16n8k64", F8F6F4, &["f32"], "kind::mxf8f6f4"),
    ("m16n8k128", &["s4", "u4"], &["s32"], ""),
    ("m16n8k128", &["e2m1"], &["f32"], "kind::mxf4"),
    ("m16n8k128", &["e2m1"], &["f32"], "kind::mxf4nvf4"),
];

/// Every shape mma knows, dense or sparse.
pub(crate) const SHAPES: &[&str] = &[
    "m8n8k4",
    "m16n8k4",
    "m16n8k8",
    "m16n8k16",
    "m16n8k32",
    "m16n8k64",
    "m16n8k128",
    "m16n8k256",
    "m8n8k16",
    "m8n8k32",
    "m8n8k128",
];

const TYPES: &[&str] = &[
    "f16", "f32", "f64", "bf16", "tf32", "s8", "u8", "s4", "u4", "b1", "s32", "e4m3", "e5m2",
    "e3m2", "e2m3", "e2m1",
];

/// Bits one element occupies in a register (4/6-bit floats sit in 8-bit
/// containers except for the packed `.mxf4*` kinds).
fn element_bits(ty: &str, kind: &str) -> u32 {
    match ty {
        "f64" => 64,
        "f32" | "s32" | "tf32" => 32,
        "f16" | "bf16" => 16,
        "s4" | "u4" => 4,
        "e2m1" if kind.starts_with("kind::mxf4") => 4,
        "b1" => 1,
        _ => 8,
    }
}

fn dims(shape: &str) -> (u32, u32, u32) {
    let rest = &shape[1..];
    let (m, rest) = rest.split_once('n').unwrap_or(("0", "0k0"));
    let (n, k) = rest.split_once('k').unwrap_or(("0", "0"));
    (
        m.parse().unwrap_or(0),
        n.parse().unwrap_or(0),
        k.parse().unwrap_or(0),
    )
}

pub(crate) fn counts(op: &Opcode) -> Result<Vec<VectorCount>, RegError> {
    let variant = op.components.get(1).map(String::as_str).unwrap_or("");
    let sparse = variant == "sp" || variant == "sp::ordered_metadata";
    let (si, shape) = op.find_in(1, SHAPES).ok_or_else(|| {
        RegError::at(
            op.last(),
            format!("missing mma shape (.{})", SHAPES.join(", .")),
        )
    })?;
    let kind = op
        .components
        .iter()
        .find(|c| c.starts_with("kind::"))
        .map_or("", String::as_str);
    // Types after the shape, in order: dtype, atype, btype, ctype (the block
    // scaled forms add .stype, which is not a matrix type).
    let types: Vec<(usize, &str)> = op.all_in(si + 1, TYPES);
    let [d, a, b, c] = match types.as_slice() {
        [d, a, b, c, ..] => [*d, *a, *b, *c],
        _ => {
            return Err(RegError::at(
                op.last(),
                "mma needs .dtype.atype.btype.ctype after the shape",
            ))
        }
    };
    let table = if sparse { SPARSE } else { DENSE };
    let form = if sparse { "mma.sp" } else { "mma" };
    let on_shape: Vec<&Combo> = table.iter().filter(|r| r.0 == shape).collect();
    if on_shape.is_empty() {
        return Err(RegError::at(si, format!("{form} has no .{shape} shape")));
    }
    let found = on_shape
        .iter()
        .find(|r| r.1.contains(&a.1) && r.1.contains(&b.1) && r.3 == kind);
    let Some(&&(_, ab, cd, _)) = found else {
        let allowed: Vec<String> = on_shape
            .iter()
            .map(|r| {
                let k = if r.3.is_empty() {
                    String::new()
                } else {
                    format!(".{} ", r.3)
                };
                format!("{k}.{}", r.1.join("/."))
            })
            .collect();
        return Err(RegError::at(
            a.0,
            format!(
                "{form}.{shape} does not take .{}/.{} multiplicands here; it takes {}",
                a.1,
                b.1,
                allowed.join(", ")
            ),
        ));
    };
    for (i, ty) in [d, c] {
        if !cd.contains(&ty) {
            return Err(RegError::at(
                i,
                format!(
                    "{form}.{shape} with .{} inputs accumulates in .{}, not .{ty}",
                    a.1,
                    cd.join("/.")
                ),
            ));
        }
    }
    let _ = ab;
    // With .f16/.f32 accumulators, D and C have the same type; only the
    // quad-pair .m8n8k4 form also takes .f16 C into .f32 D (ptxas 13.5:
    // ".dtype must be '.f32' when .ctype is '.f32'", and for the other
    // shapes "Arguments mismatch").
    if cd.len() > 1 && d.1 != c.1 {
        let quad_pair = shape == "m8n8k4" && d.1 == "f32" && c.1 == "f16";
        if !quad_pair {
            let message = if shape == "m8n8k4" {
                format!("{form}.{shape}: .dtype must be .f32 when .ctype is .f32")
            } else {
                format!(
                    "{form}.{shape} with .{} inputs needs .dtype and .ctype of one type (.f16.….f16 or .f32.….f32), not .{} and .{}",
                    a.1, d.1, c.1
                )
            };
            return Err(RegError::at(d.0, message));
        }
    }
    // The block scales: `.scale_vec::2X` of .kind::mxf4nvf4 takes .ue8m0
    // scales only (ptxas 13.5 rejects .ue4m3 there; `.scale_vec::4X` takes both).
    if kind == "kind::mxf4nvf4" && op.find("scale_vec::2X").is_some() {
        if let Some(i) = op.find("ue4m3") {
            return Err(RegError::at(
                i,
                ".kind::mxf4nvf4 with .scale_vec::2X takes .ue8m0 scale factors, not .ue4m3",
            ));
        }
    }
    if variant == "sp" && F8.contains(&a.1) && kind.is_empty() && (d.1 == "f16" || c.1 == "f16") {
        // ptxas 13.5: .f16 accumulation with f8 sparse inputs only exists
        // as mma.sp::ordered_metadata.
        return Err(RegError::at(
            1,
            "sparse f8 mma with .f16 accumulators needs mma.sp::ordered_metadata",
        ));
    }
    let (m, n, k) = dims(shape);
    let quad = shape == "m8n8k4" && a.1 != "f64";
    // Only the quad-pair form takes any layout; the rest is .row.col.
    let layouts = op.all_in(1, &["row", "col"]);
    if !quad && layouts.iter().map(|l| l.1).ne(["row", "col"]) {
        let (i, _) = layouts.first().copied().unwrap_or((si, ""));
        return Err(RegError::at(
            i,
            format!("{form}.{shape} with .{} only exists as .row.col", a.1),
        ));
    }
    if variant == "sp" && kind.starts_with("kind::") {
        return Err(RegError::at(
            1,
            format!(".{kind} on sparse mma needs mma.sp::ordered_metadata, not mma.sp"),
        ));
    }
    let threads = if quad { 8 } else { 32 };
    let reg_bits = |ty: &str| if ty == "f64" { 64 } else { 32 };
    let mut out = Vec::new();
    let who = if quad {
        "8 threads of a quad-pair"
    } else {
        "32 threads"
    };
    let mut push = |operand: usize, role: &str, rows: u32, cols: u32, ty: &str, half: bool| {
        let bits = element_bits(ty, kind);
        let rb = reg_bits(ty);
        let mut total = rows * cols * bits;
        if half {
            total /= 2;
        }
        let regs = total.div_ceil(threads * rb).max(1);
        let sparse_note = if half {
            ", halved for 2:4 sparsity"
        } else {
            ""
        };
        let expl = format!(
            "{} tile {rows}x{cols} .{ty} ({bits}-bit) over {who}{sparse_note} = {regs} × {rb}-bit registers",
            role.to_uppercase()
        );
        out.push(vc(operand, role, regs, rb, expl));
    };
    push(0, "d", m, n, d.1, false);
    push(1, "a", m, k, a.1, sparse);
    push(2, "b", k, n, b.1, false);
    push(3, "c", m, n, c.1, false);
    Ok(out)
}

/// Type signatures tried on every shape: (signature after the layouts, bits
/// of the registers).
const SIGS: &[&str] = &[
    "f16.f16.f16.f16",
    "f32.f16.f16.f32",
    "f32.bf16.bf16.f32",
    "f32.tf32.tf32.f32",
    "f64.f64.f64.f64",
    "s32.s8.s8.s32",
    "s32.u8.s8.s32",
    "s32.s4.s4.s32",
    "s32.u4.u4.s32",
    "f32.e4m3.e5m2.f32",
    "f16.e5m2.e5m2.f16",
    "kind::f8f6f4.f32.e3m2.e2m1.f32",
    "kind::f8f6f4.f16.e2m3.e4m3.f16",
];

/// Catalogue: every shape × type signature, dense and sparse.
pub(crate) fn cases() -> Vec<Case> {
    const PROBES: &[u32] = &[1, 2, 3, 4, 8, 16];
    let mut out = Vec::new();
    let frag = |b: u32| vec![v(b), v(b), v(b), v(b)];
    for shape in SHAPES {
        for sig in SIGS {
            let b = if sig.contains("f64") { 64 } else { 32 };
            for layout in ["row.col", "col.row"] {
                let op = format!("mma.sync.aligned.{shape}.{layout}.{sig}");
                out.push(Case::new("mma", "sm_120a", op, frag(b), PROBES));
            }
            for variant in ["sp", "sp::ordered_metadata"] {
                let op = format!("mma.{variant}.sync.aligned.{shape}.row.col.{sig}");
                let mut ops = frag(b);
                ops.push(Slot::Text("%s".to_owned()));
                ops.push(t("0"));
                out.push(Case::new("mma.sp", "sm_120a", op, ops, PROBES));
            }
        }
        for sig in ["s32.b1.b1.s32.xor.popc", "s32.b1.b1.s32.and.popc"] {
            let op = format!("mma.sync.aligned.{shape}.row.col.{sig}");
            out.push(Case::new("mma", "sm_120a", op, frag(32), PROBES));
        }
        // Block-scaled forms carry scale operands after the fragments.
        for (kind, sig) in [
            (
                "kind::mxf8f6f4.block_scale.scale_vec::1X",
                "f32.e4m3.e2m1.f32.ue8m0",
            ),
            (
                "kind::mxf4.block_scale.scale_vec::2X",
                "f32.e2m1.e2m1.f32.ue8m0",
            ),
            (
                "kind::mxf4nvf4.block_scale.scale_vec::4X",
                "f32.e2m1.e2m1.f32.ue4m3",
            ),
        ] {
            let scale = [t("%s"), t("{0, 0}"), t("%s"), t("{0, 0}")];
            let op = format!("mma.sync.aligned.{shape}.row.col.{kind}.{sig}");
            let mut ops = frag(32);
            ops.extend(scale.iter().cloned());
            out.push(Case::new("mma", "sm_120a", op, ops, PROBES));
            let op = format!("mma.sp::ordered_metadata.sync.aligned.{shape}.row.col.{kind}.{sig}");
            let mut ops = frag(32);
            ops.push(t("%s"));
            ops.push(t("0"));
            ops.extend(scale.iter().cloned());
            out.push(Case::new("mma.sp", "sm_120a", op, ops, PROBES));
        }
    }
    out
}
