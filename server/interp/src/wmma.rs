//! Warp-level matrix multiply-accumulate (`wmma.load`, `wmma.store`,
//! `wmma.mma`) for every shape and element type: `.m16n16k16`, `.m32n8k16`,
//! `.m8n32k16` with `.f16`/`.bf16`/`.s8`/`.u8` multiplicands and
//! `.f16`/`.f32`/`.s32` accumulators, `.m16n16k8` `.tf32`, `.m8n8k32`
//! `.s4`/`.u4`, `.m8n8k128` `.b1` (`.xor`/`.and` with `.popc`) and `.m8n8k4`
//! `.f64`.
//!
//! The spec leaves the distribution of matrix elements over the lanes'
//! registers to the implementation. [`LAYOUTS`] holds the one an sm_90 GPU
//! uses, measured by `tests/interp/wmma_fixtures.py`: every distribution is
//! linear — number a lane's elements by the flat index
//! `lane · 2^(r + e) + register · 2^e + element` (element `e` bits within
//! a register, `r` bits of register number) and each set bit of that index
//! adds (by XOR) one (row, column) offset. A zero offset means the registers
//! repeat (f16 A and B fragments hold each element twice). Row-major and
//! column-major loads give the same distribution; the layout only changes
//! where an element lies in memory. Sub-byte elements lie lowest bits first
//! (`.s4` element `2i` in the low nibble of byte `i`, `.b1` element `8i + j`
//! in bit `j`).
//!
//! The products and sums are those of `mma.sync` with the same types
//! ([`crate::matrix::dot`]); `.f64` rounds each fused step in the given mode.
//! Measured (`fixtures/wmma_kernels.jsonl`): `.m16n16k8` `.tf32` sums its
//! eight products in two steps of four, the first step's result cut to f32
//! and used as the second's accumulator, as two `mma.sync.m16n8k4` would;
//! summing all eight at once differs from the GPU in 59 to 78 elements of D
//! in each of the four layouts.

use crate::engine::{lanes, Fault, Lanes, Machine};
use crate::ir::{Dst, Inst, Quals, Space, Src, Ty};
use crate::softfloat::Rounding;
use crate::Op;

/// Products per tensor-core step of a `.tf32` `wmma.mma` (module comment).
const TF32_STEP: usize = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fragment {
    A,
    B,
    C,
}

/// Element types of `wmma` matrices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    F16,
    Bf16,
    Tf32,
    F32,
    F64,
    S32,
    S8,
    U8,
    S4,
    U4,
    B1,
}

impl Elem {
    fn parse(word: &str) -> Option<Elem> {
        Some(match word {
            "f16" => Elem::F16,
            "bf16" => Elem::Bf16,
            "tf32" => Elem::Tf32,
            "f32" => Elem::F32,
            "f64" => Elem::F64,
            "s32" => Elem::S32,
            "s8" => Elem::S8,
            "u8" => Elem::U8,
            "s4" => Elem::S4,
            "u4" => Elem::U4,
            "b1" => Elem::B1,
            _ => return None,
        })
    }

    fn bits(self) -> u32 {
        match self {
            Elem::F16 | Elem::Bf16 => 16,
            Elem::Tf32 | Elem::F32 | Elem::S32 => 32,
            Elem::F64 => 64,
            Elem::S8 | Elem::U8 => 8,
            Elem::S4 | Elem::U4 => 4,
            Elem::B1 => 1,
        }
    }

    /// Elements per fragment register (`.f64` registers hold one).
    fn per_register(self) -> usize {
        (32 / self.bits()).max(1) as usize
    }

    /// The type the tensor-core arithmetic of `mma` reads.
    fn ty(self) -> Ty {
        match self {
            Elem::F16 => Ty::F16,
            Elem::Bf16 => Ty::Bf16,
            Elem::Tf32 => Ty::Tf32,
            Elem::F32 => Ty::F32,
            Elem::F64 => Ty::F64,
            Elem::S32 => Ty::S32,
            // 4-bit elements are widened to 8 bits before the product.
            Elem::S8 | Elem::S4 => Ty::S8,
            Elem::U8 | Elem::U4 | Elem::B1 => Ty::U8,
        }
    }

    /// Multiplicand types that share a distribution.
    fn class(self) -> Class {
        match self {
            Elem::F16 => Class::F16,
            Elem::Bf16 => Class::Bf16,
            Elem::S8 | Elem::U8 => Class::I8,
            Elem::Tf32 => Class::Tf32,
            Elem::S4 | Elem::U4 => Class::I4,
            Elem::B1 => Class::B1,
            Elem::F64 => Class::F64,
            Elem::F32 | Elem::S32 => Class::Acc,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    F16,
    Bf16,
    I8,
    Tf32,
    I4,
    B1,
    F64,
    /// Any accumulator (`.f16` accumulators pack two elements per register
    /// and share the flat numbering of `.f32`/`.s32` ones).
    Acc,
}

/// One measured distribution: (M, N, K), fragment, multiplicand class and the
/// (row, column) offset of each bit of the flat element index, lowest first.
struct Layout {
    shape: (u32, u32, u32),
    fragment: Fragment,
    class: Class,
    bases: &'static [(u8, u8)],
}

const fn layout(
    shape: (u32, u32, u32),
    fragment: Fragment,
    class: Class,
    bases: &'static [(u8, u8)],
) -> Layout {
    Layout {
        shape,
        fragment,
        class,
        bases,
    }
}

const M16N16K16: (u32, u32, u32) = (16, 16, 16);
const M32N8K16: (u32, u32, u32) = (32, 8, 16);
const M8N32K16: (u32, u32, u32) = (8, 32, 16);
const M16N16K8: (u32, u32, u32) = (16, 16, 8);
const M8N8K32: (u32, u32, u32) = (8, 8, 32);
const M8N8K128: (u32, u32, u32) = (8, 8, 128);
const M8N8K4: (u32, u32, u32) = (8, 8, 4);

/// Accumulator distribution of the 16×16 tiles (and of m16n16k8).
const C16X16: &[(u8, u8)] = &[
    (0, 1),
    (8, 0),
    (0, 8),
    (0, 2),
    (0, 4),
    (1, 0),
    (2, 0),
    (4, 0),
];
/// Accumulator distribution of the 8×8 tiles.
const C8X8: &[(u8, u8)] = &[(0, 1), (0, 2), (0, 4), (1, 0), (2, 0), (4, 0)];

/// The sm_90 distributions (`fixtures/wmma_kernels.jsonl`, `load_*` cases).
#[rustfmt::skip]
const LAYOUTS: &[Layout] = {
    use Class::*;
    use Fragment::{A, B, C};
    &[
        layout(M16N16K16, A, F16, &[(0, 1), (8, 0), (0, 8), (0, 0), (0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]),
        layout(M16N16K16, B, F16, &[(1, 0), (8, 0), (0, 8), (0, 0), (2, 0), (4, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M16N16K16, A, Bf16, &[(0, 1), (8, 0), (0, 8), (0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]),
        layout(M16N16K16, B, Bf16, &[(1, 0), (8, 0), (0, 8), (2, 0), (4, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M16N16K16, A, I8, &[(0, 1), (0, 2), (8, 0), (0, 4), (0, 8), (1, 0), (2, 0), (4, 0)]),
        layout(M16N16K16, B, I8, &[(1, 0), (2, 0), (0, 8), (4, 0), (8, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M16N16K16, C, Acc, C16X16),
        layout(M32N8K16, A, F16, &[(0, 1), (8, 0), (0, 8), (16, 0), (0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]),
        layout(M32N8K16, B, F16, &[(1, 0), (8, 0), (0, 0), (0, 0), (2, 0), (4, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M32N8K16, A, Bf16, &[(0, 1), (8, 0), (0, 8), (16, 0), (0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]),
        layout(M32N8K16, B, Bf16, &[(1, 0), (8, 0), (2, 0), (4, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M32N8K16, A, I8, &[(0, 1), (0, 2), (8, 0), (16, 0), (0, 4), (0, 8), (1, 0), (2, 0), (4, 0)]),
        layout(M32N8K16, B, I8, &[(1, 0), (2, 0), (4, 0), (8, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M32N8K16, C, Acc, &[(0, 1), (8, 0), (16, 0), (0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]),
        layout(M8N32K16, A, F16, &[(0, 1), (0, 8), (0, 0), (0, 0), (0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]),
        layout(M8N32K16, B, F16, &[(1, 0), (0, 8), (8, 0), (0, 16), (2, 0), (4, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M8N32K16, A, Bf16, &[(0, 1), (0, 8), (0, 2), (0, 4), (1, 0), (2, 0), (4, 0)]),
        layout(M8N32K16, B, Bf16, &[(1, 0), (0, 8), (8, 0), (0, 16), (2, 0), (4, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M8N32K16, A, I8, &[(0, 1), (0, 2), (0, 4), (0, 8), (1, 0), (2, 0), (4, 0)]),
        layout(M8N32K16, B, I8, &[(1, 0), (2, 0), (0, 8), (0, 16), (4, 0), (8, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M8N32K16, C, Acc, &[(1, 0), (0, 8), (0, 16), (2, 0), (4, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M16N16K8, A, Tf32, &[(8, 0), (0, 4), (0, 1), (0, 2), (1, 0), (2, 0), (4, 0)]),
        layout(M16N16K8, B, Tf32, &[(4, 0), (0, 8), (1, 0), (2, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M16N16K8, C, Acc, C16X16),
        layout(M8N8K32, A, I4, &[(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (1, 0), (2, 0), (4, 0)]),
        layout(M8N8K32, B, I4, &[(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M8N8K32, C, Acc, C8X8),
        layout(M8N8K128, A, B1, &[(0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (0, 32), (0, 64), (1, 0), (2, 0), (4, 0)]),
        layout(M8N8K128, B, B1, &[(1, 0), (2, 0), (4, 0), (8, 0), (16, 0), (32, 0), (64, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M8N8K128, C, Acc, C8X8),
        layout(M8N8K4, A, F64, &[(0, 1), (0, 2), (1, 0), (2, 0), (4, 0)]),
        layout(M8N8K4, B, F64, &[(1, 0), (2, 0), (0, 1), (0, 2), (0, 4)]),
        layout(M8N8K4, C, Acc, C8X8),
    ]
};

/// A fragment's distribution resolved for one element type.
#[derive(Debug, Clone, Copy)]
pub struct Frag {
    elem: Elem,
    /// Rows and columns of the matrix.
    rows: u32,
    cols: u32,
    bases: &'static [(u8, u8)],
}

impl Frag {
    fn new(shape: (u32, u32, u32), fragment: Fragment, elem: Elem) -> Option<Frag> {
        let (m, n, k) = shape;
        let (rows, cols) = match fragment {
            Fragment::A => (m, k),
            Fragment::B => (k, n),
            Fragment::C => (m, n),
        };
        let class = if fragment == Fragment::C {
            // f16 accumulators share the flat numbering of f32 ones.
            matches!(elem, Elem::F16 | Elem::F32 | Elem::S32 | Elem::F64).then_some(Class::Acc)?
        } else {
            elem.class()
        };
        let entry = LAYOUTS
            .iter()
            .find(|l| l.shape == shape && l.fragment == fragment && l.class == class)?;
        Some(Frag {
            elem,
            rows,
            cols,
            bases: entry.bases,
        })
    }

    fn per_register(&self) -> usize {
        self.elem.per_register()
    }

    /// Registers per lane.
    fn registers(&self) -> usize {
        (1usize << self.bases.len()) / 32 / self.per_register()
    }

    /// (row, column) of element `e` of register `i` of `lane`.
    fn element(&self, lane: u32, i: usize, e: usize) -> (usize, usize) {
        let flat = (lane as usize * self.registers() + i) * self.per_register() + e;
        let (mut r, mut c) = (0usize, 0usize);
        for (bit, &(br, bc)) in self.bases.iter().enumerate() {
            if flat >> bit & 1 == 1 {
                r ^= br as usize;
                c ^= bc as usize;
            }
        }
        (r, c)
    }

    /// The default stride: the length of the leading dimension.
    fn default_stride(&self, row: bool) -> u64 {
        u64::from(if row { self.cols } else { self.rows })
    }

    /// Bit offset of element (r, c) from the matrix start.
    fn bit_offset(&self, row: bool, r: usize, c: usize, stride: u64) -> u64 {
        let index = if row {
            r as u64 * stride + c as u64
        } else {
            c as u64 * stride + r as u64
        };
        index * u64::from(self.elem.bits())
    }
}

#[derive(Debug, Clone, Copy)]
pub enum WmmaOp {
    Load { frag: Frag, row: bool, space: Space },
    Store { frag: Frag, row: bool, space: Space },
    Mma(Mma),
}

#[derive(Debug, Clone, Copy)]
pub struct Mma {
    a: Frag,
    b: Frag,
    c: Frag,
    d: Frag,
    satfinite: bool,
    rounding: Rounding,
    /// `.b1`: `.and` (true) or `.xor` (false) before the population count.
    and: bool,
}

fn shape_of(q: &Quals) -> Option<(u32, u32, u32)> {
    q.words.iter().find_map(|w| {
        let rest = w.strip_prefix('m')?;
        let (m, rest) = rest.split_once('n')?;
        let (n, k) = rest.split_once('k')?;
        Some((m.parse().ok()?, n.parse().ok()?, k.parse().ok()?))
    })
}

fn name(shape: (u32, u32, u32)) -> String {
    format!("m{}n{}k{}", shape.0, shape.1, shape.2)
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    if m != "wmma" {
        return None;
    }
    Some(decode_wmma(q, src).map(Op::Wmma))
}

fn decode_wmma(q: &Quals, src: &[Src]) -> Result<WmmaOp, String> {
    let shape = shape_of(q).ok_or("wmma needs a shape such as .m16n16k16")?;
    let space = q.space.unwrap_or(Space::Generic);
    let elems: Vec<Elem> = q.words.iter().filter_map(|w| Elem::parse(w)).collect();
    let frag = |fragment: Fragment, elem: Elem| {
        Frag::new(shape, fragment, elem).ok_or_else(|| {
            format!(
                "wmma: .{} has no {} fragment of this element type",
                name(shape),
                match fragment {
                    Fragment::A => "A",
                    Fragment::B => "B",
                    Fragment::C => "accumulator",
                }
            )
        })
    };
    let row = q.has("row");
    if q.has("load") {
        let fragment = if q.has("a") {
            Fragment::A
        } else if q.has("b") {
            Fragment::B
        } else {
            Fragment::C
        };
        let &[elem] = elems.as_slice() else {
            return Err("wmma.load needs one element type".into());
        };
        if src.is_empty() {
            return Err("wmma.load needs an address".into());
        }
        Ok(WmmaOp::Load {
            frag: frag(fragment, elem)?,
            row,
            space,
        })
    } else if q.has("store") {
        let &[elem] = elems.as_slice() else {
            return Err("wmma.store needs one element type".into());
        };
        if src.len() < 2 {
            return Err("wmma.store needs an address and a fragment".into());
        }
        Ok(WmmaOp::Store {
            frag: frag(Fragment::C, elem)?,
            row,
            space,
        })
    } else if q.has("mma") {
        let (d, a, b, c) = match *elems.as_slice() {
            // `.dtype.ctype`: f16 multiplicands.
            [d, c] => (d, Elem::F16, Elem::F16, c),
            [d, a, b, c] => (d, a, b, c),
            _ => return Err("wmma.mma needs .dtype.ctype or .dtype.atype.btype.ctype".into()),
        };
        if a != b {
            return Err("wmma.mma: A and B must have the same element type".into());
        }
        let integer = matches!(a, Elem::S8 | Elem::U8 | Elem::S4 | Elem::U4 | Elem::B1);
        if integer != (d == Elem::S32 && c == Elem::S32) {
            return Err("wmma.mma: integer multiplicands need .s32 accumulators".into());
        }
        if a == Elem::B1 && !(q.has("popc") && (q.has("and") || q.has("xor"))) {
            return Err("wmma.mma with .b1 needs .xor.popc or .and.popc".into());
        }
        if src.len() < 3 {
            return Err("wmma.mma needs a, b and c fragments".into());
        }
        Ok(WmmaOp::Mma(Mma {
            a: frag(Fragment::A, a)?,
            b: frag(Fragment::B, b)?,
            c: frag(Fragment::C, c)?,
            d: frag(Fragment::C, d)?,
            satfinite: q.has("satfinite"),
            rounding: q.rounding.unwrap_or(Rounding::Nearest),
            and: q.has("and"),
        }))
    } else {
        Err("wmma needs .load, .store or .mma".into())
    }
}

/// Bits of an element: `width` bits at `offset` within `word`.
fn field(word: u64, offset: usize, width: u32) -> u64 {
    word >> offset & crate::ir::mask(width)
}

fn load(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    frag: &Frag,
    row: bool,
    space: Space,
    active: u32,
) -> Result<(), Fault> {
    let count = frag.registers();
    let parts = Dst::elements(inst.dst.first());
    if parts.len() != count {
        return Err(Fault::new(format!(
            "wmma.load needs {count} destination registers, found {}",
            parts.len()
        )));
    }
    let bits = frag.elem.bits();
    let mut values = vec![[0u64; 32]; count];
    for lane in lanes(active) {
        let base = m.read_lane(w, &inst.src[0], lane);
        let stride = inst
            .src
            .get(1)
            .map_or(frag.default_stride(row), |s| m.read_lane(w, s, lane));
        let thread = m.thread(w, lane);
        for (i, value) in values.iter_mut().enumerate() {
            let mut word = 0u64;
            for e in 0..frag.per_register() {
                let (r, c) = frag.element(lane, i, e);
                let offset = frag.bit_offset(row, r, c, stride);
                let size = (bits as usize).div_ceil(8);
                let addr = base.wrapping_add(offset / 8);
                let raw = m
                    .mem
                    .load(thread, space, addr, size)
                    .map_err(|err| Fault::at(lane, err))?;
                let element = if bits < 8 {
                    field(raw, (offset % 8) as usize, bits)
                } else {
                    raw
                };
                word |= element << (e as u32 * bits);
            }
            value[lane as usize] = word;
        }
    }
    for (part, value) in parts.iter().zip(&values) {
        m.write(w, part, value, active);
    }
    Ok(())
}

fn store(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    frag: &Frag,
    row: bool,
    space: Space,
    active: u32,
) -> Result<(), Fault> {
    let count = frag.registers();
    let parts = Src::elements(inst.src.get(1));
    if parts.len() != count {
        return Err(Fault::new(format!(
            "wmma.store needs {count} source registers, found {}",
            parts.len()
        )));
    }
    let bits = frag.elem.bits();
    let values: Vec<Lanes> = parts.iter().map(|p| m.read(w, p)).collect();
    let places: Vec<(u32, u64, u64)> = lanes(active)
        .map(|lane| {
            let base = m.read_lane(w, &inst.src[0], lane);
            let stride = inst
                .src
                .get(2)
                .map_or(frag.default_stride(row), |s| m.read_lane(w, s, lane));
            (lane, base, stride)
        })
        .collect();
    // Register by register, as the GPU's stores go: where a stride below the
    // default makes elements overlap, the later register's element stays.
    for (i, value) in values.iter().enumerate() {
        for e in 0..frag.per_register() {
            for &(lane, base, stride) in &places {
                let (r, c) = frag.element(lane, i, e);
                let offset = frag.bit_offset(row, r, c, stride);
                let element = field(value[lane as usize], e * bits as usize, bits);
                let thread = m.thread(w, lane);
                m.mem
                    .store(
                        thread,
                        space,
                        base.wrapping_add(offset / 8),
                        bits as usize / 8,
                        element,
                    )
                    .map_err(|err| Fault::at(lane, err))?;
            }
        }
    }
    Ok(())
}

/// The whole matrix a fragment operand holds, as raw element bits.
fn gather(
    m: &Machine<'_>,
    w: usize,
    src: Option<&Src>,
    frag: &Frag,
) -> Result<Vec<Vec<u64>>, Fault> {
    let parts = Src::elements(src);
    let count = frag.registers();
    if parts.len() != count {
        return Err(Fault::new(format!(
            "wmma.mma: a fragment of {count} registers is needed, found {}",
            parts.len()
        )));
    }
    let bits = frag.elem.bits();
    let mut tile = vec![vec![0u64; frag.cols as usize]; frag.rows as usize];
    for (i, part) in parts.iter().enumerate() {
        let value = m.read(w, part);
        for lane in 0..32u32 {
            for e in 0..frag.per_register() {
                let (r, c) = frag.element(lane, i, e);
                let mut element = field(value[lane as usize], e * bits as usize, bits);
                if frag.elem == Elem::S4 && element & 8 != 0 {
                    // Sign-extended to the 8 bits `mma`'s s8 products read.
                    element |= 0xf0;
                }
                tile[r][c] = element;
            }
        }
    }
    Ok(tile)
}

fn mma(m: &mut Machine<'_>, w: usize, inst: &Inst, op: &Mma, active: u32) -> Result<(), Fault> {
    if active != u32::MAX {
        return Err(Fault::new(format!(
            "wmma.mma needs all 32 lanes of the warp (only {} are active)",
            active.count_ones()
        )));
    }
    let a = gather(m, w, inst.src.first(), &op.a)?;
    let b = gather(m, w, inst.src.get(1), &op.b)?;
    let c = gather(m, w, inst.src.get(2), &op.c)?;
    let k = op.a.cols as usize;
    let (rows, cols) = (op.d.rows as usize, op.d.cols as usize);
    let mut d = vec![vec![0u64; cols]; rows];
    for (r, out) in d.iter_mut().enumerate() {
        for (col, slot) in out.iter_mut().enumerate() {
            let a_row: Vec<u64> = (0..k).map(|i| a[r][i]).collect();
            let b_col: Vec<u64> = (0..k).map(|i| b[i][col]).collect();
            *slot = if op.a.elem == Elem::B1 {
                let ones: u32 = a_row
                    .iter()
                    .zip(&b_col)
                    .map(|(&x, &y)| if op.and { x & y } else { x ^ y } as u32)
                    .sum();
                c[r][col].wrapping_add(u64::from(ones)) & 0xffff_ffff
            } else {
                crate::matrix::dot(
                    op.d.elem.ty(),
                    op.a.elem.ty(),
                    op.b.elem.ty(),
                    op.c.elem.ty(),
                    op.satfinite,
                    op.rounding,
                    &a_row,
                    &b_col,
                    c[r][col],
                    if op.a.elem == Elem::Tf32 {
                        TF32_STEP
                    } else {
                        k
                    },
                )
            };
        }
    }
    let parts = Dst::elements(inst.dst.first());
    let count = op.d.registers();
    if parts.len() != count {
        return Err(Fault::new(format!(
            "wmma.mma needs {count} destination registers, found {}",
            parts.len()
        )));
    }
    let bits = op.d.elem.bits();
    for (i, part) in parts.iter().enumerate() {
        let mut value = [0u64; 32];
        for lane in 0..32u32 {
            for e in 0..op.d.per_register() {
                let (r, col) = op.d.element(lane, i, e);
                value[lane as usize] |= d[r][col] << (e as u32 * bits);
            }
        }
        m.write(w, part, &value, active);
    }
    Ok(())
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &WmmaOp,
    active: u32,
) -> Result<(), Fault> {
    match op {
        WmmaOp::Load { frag, row, space } => load(m, w, inst, frag, *row, *space, active),
        WmmaOp::Store { frag, row, space } => store(m, w, inst, frag, *row, *space, active),
        WmmaOp::Mma(op) => mma(m, w, inst, op, active),
    }
}

/// The holders of every matrix element of `op`'s fragments, from the
/// measured distributions [`exec`] uses (the fragment-layout view of a
/// debug session); f16 A and B fragments list each element's two copies.
pub(crate) fn fragments(op: &WmmaOp) -> Vec<crate::debug::Fragment> {
    use crate::debug::{Fragment, Holder, Place};
    let show = |name: &str, place: Place, f: &Frag| {
        let per = f.per_register();
        let mut holders = Vec::new();
        for lane in 0..32u32 {
            for i in 0..f.registers() {
                for e in 0..per {
                    let (row, col) = f.element(lane, i, e);
                    holders.push(Holder {
                        row,
                        col,
                        lane,
                        reg: i,
                        part: e as u32,
                    });
                }
            }
        }
        let bits = f.elem.bits();
        let ty = match f.elem {
            Elem::S4 | Elem::U4 | Elem::B1 => Ty::B8,
            other => other.ty(),
        };
        Fragment {
            name: format!(
                "{name}: {}×{} .{}",
                f.rows,
                f.cols,
                format!("{:?}", f.elem).to_lowercase()
            ),
            place,
            rows: f.rows as usize,
            cols: f.cols as usize,
            ty,
            bits,
            first_row: 0,
            first_col: 0,
            holders,
        }
    };
    match op {
        WmmaOp::Load { frag, .. } => vec![show("fragment", Place::Dst(0), frag)],
        WmmaOp::Store { frag, .. } => vec![show("fragment", Place::Src(1), frag)],
        WmmaOp::Mma(mma) => vec![
            show("A", Place::Src(0), &mma.a),
            show("B", Place::Src(1), &mma.b),
            show("C", Place::Src(2), &mma.c),
            show("D", Place::Dst(0), &mma.d),
        ],
    }
}
