//! TMA tensor copies: `cp.async.bulk.tensor` (tile mode, 1 to 5
//! dimensions) from global to shared memory, completing on an mbarrier, with
//! `.multicast::cluster`; from shared to global memory in bulk groups, and
//! `cp.reduce.async.bulk.tensor`; `cp.async.bulk.prefetch.tensor` checks its
//! operands.
//!
//! Tensor maps are kernel arguments (`tmap:` specs, [`TensorMapSpec`]) that
//! the launch encodes into a 128-byte object of the interpreter's own layout
//! (the hardware's is opaque): the parameter itself for a `.param .b8 [128]`,
//! or a global copy whose address is passed for a 64-bit parameter.
//!
//! The box lies in shared memory densely, the innermost dimension first, each
//! dimension holding `ceil(box / element stride)` elements; with a 32, 64 or
//! 128-byte swizzle, address bits 4.. (1, 2 or 3 of them) are XORed with the
//! bits from 7 up of the shared-memory address. Elements outside the tensor
//! read as zeros (or, with `oob=nan`, as the GPU's NaN fill) and are not
//! written by stores. The transaction count of a load is the whole box. As on
//! an H100, the first coordinate must start on a 16-byte boundary.

use crate::engine::{lanes, Fault, Machine};
use crate::ir::{Inst, Quals, Space, Src, Ty};
use crate::mem::{atomic, AtomKind};
use crate::memory::{in_rank, resolve, split_cluster};
use crate::Op;

/// An element type of a tensor map (`CUtensorMapDataType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElemType {
    U8,
    U16,
    U32,
    S32,
    U64,
    S64,
    F16,
    F32,
    F64,
    Bf16,
    /// `.f32.ftz` (`CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ`, or set by
    /// `tensormap.replace`): loads and stores copy the elements as f32
    /// does, subnormals included; add reductions flush subnormal operands
    /// and results to zero (measured on the GPU).
    F32Ftz,
    /// `.tf32` and `.tf32.ftz` (`CU_TENSOR_MAP_DATA_TYPE_TFLOAT32(_FTZ)`, or
    /// set by `tensormap.replace`): a load rounds each element to tf32 (see
    /// [`to_tf32`]); stores copy the bits unchanged and add reductions are
    /// f32 additions (`.tf32.ftz` flushing subnormals as `.f32.ftz` does).
    Tf32,
    Tf32Ftz,
}

/// The codes past [`ELEM_TYPES`] (`CUtensorMapDataType`'s) of the f32
/// variants, with their names in `tmap:` arguments.
const F32_VARIANTS: [(u8, &str, ElemType); 3] = [
    (10, "f32.ftz", ElemType::F32Ftz),
    (11, "tf32", ElemType::Tf32),
    (12, "tf32.ftz", ElemType::Tf32Ftz),
];

const ELEM_TYPES: [(&str, ElemType); 10] = [
    ("u8", ElemType::U8),
    ("u16", ElemType::U16),
    ("u32", ElemType::U32),
    ("s32", ElemType::S32),
    ("u64", ElemType::U64),
    ("s64", ElemType::S64),
    ("f16", ElemType::F16),
    ("f32", ElemType::F32),
    ("f64", ElemType::F64),
    ("bf16", ElemType::Bf16),
];

impl ElemType {
    pub fn bytes(self) -> usize {
        match self {
            ElemType::U8 => 1,
            ElemType::U16 | ElemType::F16 | ElemType::Bf16 => 2,
            ElemType::U32
            | ElemType::S32
            | ElemType::F32
            | ElemType::F32Ftz
            | ElemType::Tf32
            | ElemType::Tf32Ftz => 4,
            ElemType::U64 | ElemType::S64 | ElemType::F64 => 8,
        }
    }

    fn ty(self) -> Ty {
        match self {
            ElemType::U8 => Ty::U8,
            ElemType::U16 => Ty::U16,
            ElemType::U32 => Ty::U32,
            ElemType::S32 => Ty::S32,
            ElemType::U64 => Ty::U64,
            ElemType::S64 => Ty::S64,
            ElemType::F16 => Ty::F16,
            ElemType::F32 | ElemType::F32Ftz | ElemType::Tf32 | ElemType::Tf32Ftz => Ty::F32,
            ElemType::F64 => Ty::F64,
            ElemType::Bf16 => Ty::Bf16,
        }
    }

    fn code(self) -> u8 {
        match F32_VARIANTS.iter().find(|(_, _, t)| *t == self) {
            Some((code, _, _)) => *code,
            None => ELEM_TYPES.iter().position(|(_, t)| *t == self).unwrap_or(0) as u8,
        }
    }

    fn of_code(code: u8) -> Option<ElemType> {
        match F32_VARIANTS.iter().find(|(c, _, _)| *c == code) {
            Some((_, _, t)) => Some(*t),
            None => ELEM_TYPES.get(code as usize).map(|(_, t)| *t),
        }
    }

    fn of_name(name: &str) -> Option<ElemType> {
        ELEM_TYPES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .or_else(|| {
                F32_VARIANTS
                    .iter()
                    .find(|(_, n, _)| *n == name)
                    .map(|(_, _, t)| *t)
            })
    }

    /// The name in `tmap:` arguments.
    fn name(self) -> &'static str {
        ELEM_TYPES
            .iter()
            .find(|(_, t)| *t == self)
            .map(|(n, _)| *n)
            .or_else(|| {
                F32_VARIANTS
                    .iter()
                    .find(|(_, _, t)| *t == self)
                    .map(|(_, n, _)| *n)
            })
            .unwrap_or("?")
    }

    /// f32 and its variants (f32.ftz, tf32, tf32.ftz).
    fn is_f32_family(self) -> bool {
        matches!(
            self,
            ElemType::F32 | ElemType::F32Ftz | ElemType::Tf32 | ElemType::Tf32Ftz
        )
    }

    /// The `.ftz` variants: add reductions flush subnormals.
    fn flushes(self) -> bool {
        matches!(self, ElemType::F32Ftz | ElemType::Tf32Ftz)
    }
}

/// An f32 as a tensor map of type tf32 loads it (measured on an H100 for
/// `.tf32` and `.tf32.ftz` alike, `fixtures/CLUSTERS_TMA.md`): the 13 low
/// mantissa bits rounded off to nearest even, subnormals too (not flushed),
/// finite values past the largest tf32 becoming infinities, and every NaN
/// the one pattern 0x7fffe000.
fn to_tf32(bits: u32) -> u32 {
    if bits & 0x7fff_ffff > 0x7f80_0000 {
        return 0x7fff_e000;
    }
    if bits & 0x7fff_ffff == 0x7f80_0000 {
        return bits;
    }
    let half = 0x0fff + ((bits >> 13) & 1);
    bits.wrapping_add(half) & !0x1fff
}

/// The parameters of `cuTensorMapEncodeTiled` that the interpreter models:
/// `tmap:TYPE:DIMS:STRIDES:BOX:SWIZZLE:ARG[:estrides=E,..][:oob=zero|nan]
/// [:interleave=none|16|32]`; with `:lower=W,..:upper=W,..` those of
/// `cuTensorMapEncodeIm2col`, BOX then being `CHANNELS,PIXELS`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMapSpec {
    pub elem: ElemType,
    /// Elements in each dimension, innermost first.
    pub dims: Vec<u64>,
    /// Bytes between consecutive indices of dimensions 1.. (`rank - 1` values).
    pub strides: Vec<u64>,
    /// The box's elements in each dimension.
    pub box_dims: Vec<u32>,
    /// Traversal strides (1 to 8).
    pub element_strides: Vec<u32>,
    /// 0 (none), 32, 64 or 128 bytes.
    pub swizzle: u32,
    /// Out-of-bounds elements read as the NaN fill instead of zeros.
    pub oob_nan: bool,
    /// The buffer argument (its index) that holds the tensor.
    pub buffer: usize,
    /// An im2col map (`cuTensorMapEncodeIm2col`): the box is
    /// `CHANNELS,PIXELS` and these are the bounding box's corners.
    pub im2col: Option<Im2col>,
    /// The interleave layout: 0 none, 1 16 bytes, 2 32 bytes.
    pub interleave: u8,
}

/// The pixel bounding box of an im2col tensor map: lower and upper corners
/// in the W, H, D dimensions (innermost first, `rank - 2` values each).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Im2col {
    pub lower: Vec<i32>,
    pub upper: Vec<i32>,
}

fn numbers(text: &str, what: &str) -> Result<Vec<u64>, String> {
    text.split(',')
        .map(|v| {
            crate::decode::parse_int(v.trim())
                .ok_or_else(|| format!("{what}: `{v}` is not a number"))
        })
        .collect()
}

impl TensorMapSpec {
    /// Parses the part after `tmap:`, checking what `cuTensorMapEncodeTiled` checks.
    pub fn parse(rest: &str) -> Result<TensorMapSpec, String> {
        let parts: Vec<&str> = rest.split(':').collect();
        if parts.len() < 6 {
            return Err(
                "expected tmap:TYPE:DIMS:STRIDES:BOX:SWIZZLE:ARG (STRIDES `-` for one dimension)"
                    .into(),
            );
        }
        let elem = ElemType::of_name(parts[0]).ok_or_else(|| {
            format!(
                "unknown element type `{}` (one of u8 u16 u32 s32 u64 s64 f16 f32 f64 bf16 \
                 f32.ftz tf32 tf32.ftz)",
                parts[0]
            )
        })?;
        let dims = numbers(parts[1], "dimensions")?;
        let rank = dims.len();
        if !(1..=5).contains(&rank) {
            return Err(format!("{rank} dimensions: a tensor map has 1 to 5"));
        }
        let strides = if parts[2] == "-" || parts[2].is_empty() {
            Vec::new()
        } else {
            numbers(parts[2], "strides")?
        };
        if strides.len() != rank - 1 {
            return Err(format!(
                "{} strides for {rank} dimensions: give one per dimension after the first",
                strides.len()
            ));
        }
        let box_dims: Vec<u32> = numbers(parts[3], "box")?
            .into_iter()
            .map(|b| b as u32)
            .collect();
        let is_im2col = parts[6..]
            .iter()
            .any(|o| o.starts_with("lower=") || o.starts_with("upper="));
        if is_im2col && box_dims.len() != 2 {
            return Err("an im2col map's box is CHANNELS,PIXELS".into());
        }
        if !is_im2col && box_dims.len() != rank {
            return Err(format!(
                "{} box sizes for {rank} dimensions",
                box_dims.len()
            ));
        }
        let swizzle = match parts[4] {
            "none" | "0" => 0,
            "32" => 32,
            "64" => 64,
            "128" => 128,
            other => return Err(format!("swizzle `{other}`: none, 32, 64 or 128")),
        };
        let buffer = crate::decode::parse_int(parts[5])
            .ok_or_else(|| format!("`{}` is not an argument index", parts[5]))?
            as usize;
        let mut element_strides = vec![1u32; rank];
        let mut oob_nan = false;
        let mut interleave = 0u8;
        let (mut lower, mut upper) = (None, None);
        let corners = |v: &str, what: &str| -> Result<Vec<i32>, String> {
            v.split(',')
                .map(|x| {
                    x.trim()
                        .parse::<i32>()
                        .map_err(|_| format!("{what}: `{x}` is not a number"))
                })
                .collect()
        };
        for option in &parts[6..] {
            match option.split_once('=') {
                Some(("lower", v)) => lower = Some(corners(v, "lower")?),
                Some(("upper", v)) => upper = Some(corners(v, "upper")?),
                Some(("estrides", v)) => {
                    element_strides = numbers(v, "estrides")?
                        .into_iter()
                        .map(|e| e as u32)
                        .collect();
                }
                Some(("oob", "zero")) => oob_nan = false,
                Some(("oob", "nan")) => oob_nan = true,
                Some(("interleave", "none")) => interleave = 0,
                Some(("interleave", "16")) => interleave = 1,
                Some(("interleave", "32")) => interleave = 2,
                Some(("interleave", other)) => {
                    return Err(format!("interleave `{other}`: none, 16 or 32"))
                }
                Some(("l2", "none" | "64" | "128" | "256")) => {}
                _ => return Err(format!("unknown option `{option}`")),
            }
        }
        if element_strides.len() != rank || element_strides.iter().any(|e| !(1..=8).contains(e)) {
            return Err(format!("estrides: {rank} values from 1 to 8"));
        }
        if dims.iter().any(|&d| d == 0 || d > 1 << 32) {
            return Err("each dimension has 1 to 2^32 elements".into());
        }
        if strides
            .iter()
            .any(|&s| !s.is_multiple_of(16) || s >= 1 << 40)
        {
            return Err("strides must be multiples of 16 below 2^40".into());
        }
        let im2col = match (lower, upper) {
            (None, None) => None,
            (Some(lower), Some(upper)) => {
                // The corners' ranges of cuTensorMapEncodeIm2col: 16, 8 and
                // 5 bits for 3, 4 and 5 dimensions.
                let bits = match rank {
                    3 => 15,
                    4 => 7,
                    5 => 4,
                    _ => return Err("im2col maps have 3 to 5 dimensions".into()),
                };
                let range = -(1i32 << bits)..=(1i32 << bits) - 1;
                if lower.len() != rank - 2 || upper.len() != rank - 2 {
                    return Err(format!(
                        "lower= and upper= give {} values each for {rank} dimensions",
                        rank - 2
                    ));
                }
                if lower.iter().chain(&upper).any(|c| !range.contains(c)) {
                    return Err(format!(
                        "im2col corners of a {rank}-dimensional map are {} to {}",
                        range.start(),
                        range.end()
                    ));
                }
                if !(1..=256).contains(&box_dims[0]) || !(1..=1024).contains(&box_dims[1]) {
                    return Err("an im2col box has 1 to 256 channels and 1 to 1024 pixels".into());
                }
                Some(Im2col { lower, upper })
            }
            _ => return Err("an im2col map needs both lower= and upper=".into()),
        };
        if im2col.is_none() && box_dims.iter().any(|&b| !(1..=256).contains(&b)) {
            return Err("box sizes are 1 to 256".into());
        }
        // The driver's checks as measured (`fixtures/tmap_encode.txt`): the
        // box's inner bytes a multiple of 16 with any interleave (the CUDA
        // documentation states it for no interleave only); with an
        // interleave, 3 to 5 dimensions, any swizzle whatever the inner
        // bytes (the documentation asks for the 32-byte swizzle with the
        // 32-byte interleave), and strides that are multiples of 32 for the
        // 32-byte one.
        let inner = box_dims[0] as usize * elem.bytes();
        if !inner.is_multiple_of(16) {
            return Err(format!(
                "the box's inner dimension is {inner} bytes: it must be a multiple of 16"
            ));
        }
        if interleave == 0 && swizzle != 0 && inner > swizzle as usize {
            return Err(format!(
                "the box's inner dimension ({inner} bytes) exceeds the {swizzle}-byte swizzle"
            ));
        }
        if interleave != 0 {
            if rank < 3 {
                return Err("an interleaved tensor map has 3 to 5 dimensions".into());
            }
            if interleave == 2 && strides.iter().any(|s| !s.is_multiple_of(32)) {
                return Err("with the 32-byte interleave, strides must be multiples of 32".into());
            }
            if im2col.is_some() {
                return Err("interleaved im2col maps are not supported by the interpreter".into());
            }
        }
        // The driver refuses the NaN fill for integer element types
        // (`fixtures/tmap_encode.txt`).
        if oob_nan
            && !matches!(
                elem,
                ElemType::F16
                    | ElemType::Bf16
                    | ElemType::F32
                    | ElemType::F64
                    | ElemType::F32Ftz
                    | ElemType::Tf32
                    | ElemType::Tf32Ftz
            )
        {
            return Err("oob=nan needs a floating-point element type".into());
        }
        Ok(TensorMapSpec {
            elem,
            dims,
            strides,
            box_dims,
            element_strides,
            swizzle,
            oob_nan,
            buffer,
            im2col,
            interleave,
        })
    }

    /// Elements of the box in each dimension: the innermost dimension is
    /// read whole (its element stride is ignored, as on the GPU), the others
    /// every `element stride`-th index.
    fn counts(&self) -> Vec<u64> {
        if self.im2col.is_some() {
            // CHANNELS elements of PIXELS pixels.
            return self.box_dims.iter().map(|&b| u64::from(b)).collect();
        }
        self.box_dims
            .iter()
            .zip(&self.element_strides)
            .enumerate()
            .map(|(d, (&b, &e))| u64::from(if d == 0 { b } else { b.div_ceil(e) }))
            .collect()
    }

    /// Bytes of the box's elements (a load's transaction count).
    pub fn box_bytes(&self) -> u64 {
        if let Some(slice) = self.slice_bytes() {
            return self
                .walked()
                .iter()
                .map(|&d| u64::from(self.box_dims[d].div_ceil(self.element_strides[d])))
                .product::<u64>()
                * slice;
        }
        self.counts().iter().product::<u64>() * self.elem.bytes() as u64
    }

    /// Bytes of the box's shared-memory image: rows padded to the swizzle
    /// span, or the slices of an interleaved map one after another.
    fn image_bytes(&self) -> u64 {
        match self.slice_bytes() {
            Some(_) => self.box_bytes(),
            None => {
                let inner = u64::from(self.box_dims[0]) * self.elem.bytes() as u64;
                self.box_bytes() / inner * self.pitch()
            }
        }
    }

    /// The bytes of one slice of an interleaved map (16 or 32), the unit
    /// its first dimension counts in.
    fn slice_bytes(&self) -> Option<u64> {
        (self.interleave != 0).then(|| 16 * u64::from(self.interleave))
    }

    /// The dimensions a copy through an interleaved map walks, as measured
    /// on the GPU: every one but the second-to-last, whose coordinate stays
    /// the instruction's.
    fn walked(&self) -> Vec<usize> {
        let rank = self.dims.len();
        (0..rank).filter(|&d| d + 2 != rank).collect()
    }

    /// Bytes from one row of the box to the next in shared memory: the
    /// inner dimension, or the swizzle span when it is narrower.
    fn pitch(&self) -> u64 {
        let inner = u64::from(self.box_dims[0]) * self.elem.bytes() as u64;
        inner.max(u64::from(self.swizzle))
    }

    /// The 128-byte object for a tensor at global address `base`.
    pub fn encode(&self, base: u64) -> Vec<u8> {
        let mut out = vec![0u8; 128];
        out[0..4].copy_from_slice(MAGIC);
        out[4] = self.dims.len() as u8;
        out[5] = self.elem.code();
        out[6] = (self.swizzle / 32) as u8;
        out[7] = u8::from(self.oob_nan);
        out[8..16].copy_from_slice(&base.to_le_bytes());
        for (i, d) in self.dims.iter().enumerate() {
            out[16 + 8 * i..24 + 8 * i].copy_from_slice(&d.to_le_bytes());
        }
        for (i, s) in self.strides.iter().enumerate() {
            out[56 + 8 * i..64 + 8 * i].copy_from_slice(&s.to_le_bytes());
        }
        for (i, b) in self.box_dims.iter().enumerate() {
            out[96 + 2 * i..98 + 2 * i].copy_from_slice(&(*b as u16).to_le_bytes());
        }
        for (i, e) in self.element_strides.iter().enumerate() {
            out[106 + i] = *e as u8;
        }
        out[INTERLEAVE] = self.interleave;
        if let Some(im2col) = &self.im2col {
            out[111] = 1;
            for (i, (l, u)) in im2col.lower.iter().zip(&im2col.upper).enumerate() {
                out[112 + 2 * i..114 + 2 * i].copy_from_slice(&(*l as i16).to_le_bytes());
                out[118 + 2 * i..120 + 2 * i].copy_from_slice(&(*u as i16).to_le_bytes());
            }
        }
        out
    }

    fn decode(bytes: &[u8]) -> Option<(TensorMapSpec, u64)> {
        if bytes.len() < 128 || &bytes[0..4] != MAGIC {
            return None;
        }
        let rank = bytes[4] as usize;
        let elem = ElemType::of_code(bytes[5])?;
        let u64_at = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or([0; 8]));
        if !(1..=5).contains(&rank) {
            return None;
        }
        let i16_at = |at: usize| i32::from(i16::from_le_bytes([bytes[at], bytes[at + 1]]));
        let im2col = (bytes[111] == 1 && rank >= 3).then(|| Im2col {
            lower: (0..rank - 2).map(|i| i16_at(112 + 2 * i)).collect(),
            upper: (0..rank - 2).map(|i| i16_at(118 + 2 * i)).collect(),
        });
        let box_rank = if im2col.is_some() { 2 } else { rank };
        let spec = TensorMapSpec {
            elem,
            dims: (0..rank).map(|i| u64_at(16 + 8 * i)).collect(),
            strides: (0..rank - 1).map(|i| u64_at(56 + 8 * i)).collect(),
            box_dims: (0..box_rank)
                .map(|i| u32::from(u16::from_le_bytes([bytes[96 + 2 * i], bytes[97 + 2 * i]])))
                .collect(),
            element_strides: (0..rank).map(|i| u32::from(bytes[106 + i])).collect(),
            swizzle: u32::from(bytes[6]) * 32,
            oob_nan: bytes[7] != 0,
            buffer: 0,
            im2col,
            interleave: bytes[INTERLEAVE],
        };
        Some((spec, u64_at(8)))
    }
}

const MAGIC: &[u8; 4] = b"TMAP";

/// The byte of the interpreter's map layout holding the interleave layout
/// (0 none, 1 16 bytes, 2 32 bytes).
const INTERLEAVE: usize = 124;

/// The bytes the GPU fills out-of-bounds elements with under `oob=nan`:
/// the half-word 0x7ff7 over and over, whatever the element type (f16,
/// bf16, f32, f32.ftz, tf32 and f64 measured on the GPU, interleaved maps
/// included).
const NAN_FILL: [u8; 2] = [0xf7, 0x7f];

#[derive(Debug, Clone)]
pub enum TmaOp {
    /// global → shared, completing on an mbarrier; to every CTA of a mask
    /// with multicast; in im2col mode with the offsets operand.
    Load {
        dims: usize,
        multicast: bool,
        im2col: bool,
    },
    /// shared → global (bulk group), or a reduction into global memory; in
    /// im2col mode (`.im2col_no_offs`) without offsets.
    Store {
        dims: usize,
        reduce: Option<AtomKind>,
        im2col: bool,
    },
    /// `cp.async.bulk.prefetch.tensor`: operands checked, nothing copied.
    Prefetch { dims: usize, im2col: bool },
    /// `tensormap.replace`: one field of the tensor map at an address.
    Replace { field: MapField, space: Space },
    /// `tensormap.cp_fenceproxy`: the 128-byte map copied from shared to
    /// global memory.
    CopyMap,
}

/// A field `tensormap.replace` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapField {
    GlobalAddress,
    /// The zero-based rank (rank - 1).
    Rank,
    BoxDim(usize),
    GlobalDim(usize),
    /// The stride of dimension `ord + 1` in bytes.
    GlobalStride(usize),
    ElementStride(usize),
    /// The element type (the interpreter's code).
    ElemType(u8),
    /// The swizzle span in bytes.
    Swizzle(u32),
    FillNan(bool),
    /// The interleave layout: 0 none, 1 16 bytes, 2 32 bytes.
    Interleave(u8),
}

/// Decodes `tensormap.replace` and `tensormap.cp_fenceproxy`.
fn decode_tensormap(q: &Quals, src: &[Src]) -> Result<TmaOp, String> {
    if q.has("cp_fenceproxy") {
        if src.len() != 3 || !matches!(src[2], Src::Imm(128)) {
            return Err("tensormap.cp_fenceproxy expects [dst], [src], 128".into());
        }
        return Ok(TmaOp::CopyMap);
    }
    if !q.has("replace") {
        return Err("this tensormap operation is not supported".into());
    }
    if !q.has("tile") {
        return Err("tensormap.replace: only .tile mode exists".into());
    }
    let space = q.space.unwrap_or(Space::Generic);
    let ordinal = |at: usize| -> Result<usize, String> {
        match src.get(at) {
            Some(Src::Imm(v)) if *v < 5 => Ok(*v as usize),
            _ => Err("tensormap.replace: the ordinal is an immediate 0 to 4".into()),
        }
    };
    let immediate = || -> Result<u64, String> {
        match src.get(1) {
            Some(Src::Imm(v)) => Ok(*v),
            _ => Err("tensormap.replace: this field's new value is an immediate".into()),
        }
    };
    let (field, operands) = if q.has("global_address") {
        (MapField::GlobalAddress, 2)
    } else if q.has("rank") {
        (MapField::Rank, 2)
    } else if q.has("box_dim") {
        (MapField::BoxDim(ordinal(1)?), 3)
    } else if q.has("global_dim") {
        (MapField::GlobalDim(ordinal(1)?), 3)
    } else if q.has("global_stride") {
        // Strides of dimensions 1 to 4.
        match ordinal(1)? {
            ord @ 0..=3 => (MapField::GlobalStride(ord), 3),
            _ => return Err("tensormap.replace.global_stride: the ordinal is 0 to 3".into()),
        }
    } else if q.has("element_stride") {
        (MapField::ElementStride(ordinal(1)?), 3)
    } else if q.has("elemtype") {
        // The instruction's codes (not CUtensorMapDataType's): u8 u16 u32 s32
        // u64 s64 f16 f32 f32.ftz f64 bf16 tf32 tf32.ftz (13 to 15: packed).
        let code = match immediate()? {
            v @ 0..=7 => v as u8,
            8 => 10,
            9 => 8,
            10 => 9,
            11 => 11,
            12 => 12,
            v @ 13..=15 => {
                return Err(format!(
                    "tensormap.replace.elemtype {v} (a packed type) is not supported by the \
                     interpreter"
                ))
            }
            v => return Err(format!("tensormap.replace.elemtype {v} is undefined")),
        };
        (MapField::ElemType(code), 2)
    } else if q.has("swizzle_mode") {
        let span = match immediate()? {
            0 => 0,
            1 => 32,
            2 => 64,
            3 => 128,
            v => {
                return Err(format!(
                    "tensormap.replace.swizzle_mode {v} is not supported by the interpreter"
                ))
            }
        };
        (MapField::Swizzle(span), 2)
    } else if q.has("fill_mode") {
        match immediate()? {
            0 => (MapField::FillNan(false), 2),
            1 => (MapField::FillNan(true), 2),
            v => return Err(format!("tensormap.replace.fill_mode {v} is undefined")),
        }
    } else if q.has("interleave_layout") {
        match immediate()? {
            v @ 0..=2 => (MapField::Interleave(v as u8), 2),
            v => {
                return Err(format!(
                    "tensormap.replace.interleave_layout {v} is undefined"
                ))
            }
        }
    } else {
        return Err("this tensormap.replace field is not supported by the interpreter".into());
    };
    if src.len() != operands {
        return Err(format!("tensormap.replace expects {operands} operands"));
    }
    Ok(TmaOp::Replace { field, space })
}

fn dims_of(q: &Quals) -> Option<usize> {
    q.words.iter().find_map(|w| match w.as_str() {
        "1d" => Some(1),
        "2d" => Some(2),
        "3d" => Some(3),
        "4d" => Some(4),
        "5d" => Some(5),
        _ => None,
    })
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    if m == "tensormap" {
        return Some(decode_tensormap(q, src).map(Op::Tma));
    }
    if m != "cp" || !q.has("bulk") || !q.has("tensor") {
        return None;
    }
    let Some(dims) = dims_of(q) else {
        return Some(Err("cp.async.bulk.tensor needs .1d to .5d".into()));
    };
    // Loads take `.im2col` (with offsets), stores and reductions
    // `.im2col_no_offs` (ptxas 13.5 accepts neither the other way round).
    let no_offs = q.has("im2col_no_offs");
    let im2col = q.has("im2col") || no_offs;
    if let Some(mode) = q.words.iter().find(|w| {
        (w.starts_with("im2col") && *w != "im2col" && *w != "im2col_no_offs")
            || w.starts_with("tile::")
    }) {
        return Some(Err(format!(
            "cp.async.bulk.tensor .{mode} is not supported by the interpreter (tile and im2col \
             copies are)"
        )));
    }
    if q.words.iter().any(|w| w.starts_with("cta_group")) {
        return Some(Err(
            "cp.async.bulk.tensor .cta_group is not supported by the interpreter".into(),
        ));
    }
    let op = if q.has("prefetch") {
        TmaOp::Prefetch { dims, im2col }
    } else if q.has("reduce") {
        let kind = [
            ("add", AtomKind::Add),
            ("min", AtomKind::Min),
            ("max", AtomKind::Max),
            ("inc", AtomKind::Inc),
            ("dec", AtomKind::Dec),
            ("and", AtomKind::And),
            ("or", AtomKind::Or),
            ("xor", AtomKind::Xor),
        ]
        .into_iter()
        .find(|(w, _)| q.has(w))
        .map(|(_, k)| k);
        let Some(kind) = kind else {
            return Some(Err("cp.reduce.async.bulk.tensor needs an operation".into()));
        };
        TmaOp::Store {
            dims,
            reduce: Some(kind),
            im2col,
        }
    } else if q.words.iter().position(|w| w == "global")
        < q.words.iter().position(|w| w.starts_with("shared"))
    {
        TmaOp::Store {
            dims,
            reduce: None,
            im2col,
        }
    } else {
        if im2col && !(3..=5).contains(&dims) {
            return Some(Err("cp.async.bulk.tensor .im2col needs .3d to .5d".into()));
        }
        TmaOp::Load {
            dims,
            multicast: q.words.iter().any(|w| w.starts_with("multicast")),
            im2col,
        }
    };
    match op {
        TmaOp::Store { .. } if im2col && !no_offs => {
            return Some(Err(
                "cp.async.bulk.tensor stores and reductions take .im2col_no_offs, not .im2col"
                    .into(),
            ))
        }
        TmaOp::Load { .. } | TmaOp::Prefetch { .. } if no_offs => {
            return Some(Err(
                "cp.async.bulk.tensor .im2col_no_offs is for stores and reductions (loads take \
                 .im2col)"
                    .into(),
            ))
        }
        TmaOp::Store { dims, .. } if im2col && !(3..=5).contains(&dims) => {
            return Some(Err(
                "cp.async.bulk.tensor .im2col_no_offs needs .3d to .5d".into()
            ))
        }
        _ => {}
    }
    let needs = match op {
        TmaOp::Load {
            multicast, im2col, ..
        } => 3 + usize::from(multicast) + usize::from(im2col),
        TmaOp::Store { .. } => 2,
        TmaOp::Prefetch { .. } => 1,
        TmaOp::Replace { .. } | TmaOp::CopyMap => 0,
    };
    if src.len() < needs {
        return Some(Err(format!(
            "cp.async.bulk.tensor expects {needs} operands"
        )));
    }
    Some(Ok(Op::Tma(op)))
}

/// The tensor map and coordinates of a `[tensorMap, {c0, ...}]` operand.
fn map_and_coords(
    m: &mut Machine<'_>,
    w: usize,
    src: &Src,
    dims: usize,
    im2col: bool,
    lane: u32,
) -> Result<(TensorMapSpec, u64, Vec<i64>), Fault> {
    let Src::Vector(items) = src else {
        return Err(Fault::at(
            lane,
            "cp.async.bulk.tensor: expected [tensorMap, {coordinates}]",
        ));
    };
    let (Some(map), Some(Src::Vector(coords))) = (items.first(), items.get(1)) else {
        return Err(Fault::at(
            lane,
            "cp.async.bulk.tensor: expected [tensorMap, {coordinates}]",
        ));
    };
    let addr = m.read_lane(w, map, lane);
    let coords: Vec<i64> = coords
        .iter()
        .map(|c| i64::from(m.read_lane(w, c, lane) as u32 as i32))
        .collect();
    let thread = m.thread(w, lane);
    let bytes = m
        .mem
        .slice(thread, Space::Generic, addr, 128, 64)
        .map_err(|e| Fault::at(lane, format!("tensor map: {e}")))?
        .to_vec();
    if bytes[0..4] == *MAGIC && bytes[INTERLEAVE] != 0 && bytes[4] < 3 {
        // Measured on the GPU: a copy through an interleaved map of fewer
        // than 3 dimensions (which the driver refuses to encode) stops it.
        return Err(Fault::at(
            lane,
            format!(
                "cp.async.bulk.tensor through a {}-dimensional map with the {}-byte interleave \
                 layout (interleaved maps have 3 to 5 dimensions): the GPU stops with an illegal \
                 instruction",
                bytes[4],
                16 * bytes[INTERLEAVE]
            ),
        ));
    }
    let Some((spec, base)) = TensorMapSpec::decode(&bytes) else {
        return Err(Fault::at(
            lane,
            format!(
                "the 128 bytes at {addr:#x} are not a tensor map (give one with a tmap: argument)"
            ),
        ));
    };
    if spec.dims.len() != dims || coords.len() != dims {
        return Err(Fault::at(
            lane,
            format!(
                "cp.async.bulk.tensor.{dims}d with a {}-dimensional tensor map and {} coordinates",
                spec.dims.len(),
                coords.len()
            ),
        ));
    }
    if spec.im2col.is_some() != im2col {
        return Err(Fault::at(
            lane,
            format!(
                "cp.async.bulk.tensor in {} mode with {} tensor map",
                if im2col { "im2col" } else { "tile" },
                if im2col {
                    "a tiled"
                } else {
                    "an im2col (lower=/upper=)"
                }
            ),
        ));
    }
    if spec.interleave != 0 && im2col {
        return Err(Fault::at(
            lane,
            "cp.async.bulk.tensor .im2col through an interleaved map is not supported by the \
             interpreter",
        ));
    }
    // A map whose fields `tensormap.replace` left zero describes no box.
    if spec.box_dims.contains(&0) || spec.element_strides.contains(&0) {
        return Err(Fault::at(
            lane,
            format!(
                "cp.async.bulk.tensor: the tensor map's box {:?} or element strides {:?} hold a \
                 zero",
                spec.box_dims, spec.element_strides
            ),
        ));
    }
    // No CTA has more shared memory than this (227 KB on the H100): a larger
    // image cannot be the destination or source of a copy.
    const SHARED_MAX: u64 = 232_448;
    if spec.image_bytes() > SHARED_MAX {
        return Err(Fault::at(
            lane,
            format!(
                "cp.async.bulk.tensor: the box's shared-memory image has {} bytes, more than a \
                 CTA's shared memory ({SHARED_MAX} bytes)",
                spec.image_bytes()
            ),
        ));
    }
    if spec.interleave != 0 {
        // The first coordinate counts slices: no alignment to check.
        return Ok((spec, base, coords));
    }
    if (coords[0] * spec.elem.bytes() as i64).rem_euclid(16) != 0 {
        return Err(Fault::at(
            lane,
            format!(
                "cp.async.bulk.tensor: the first coordinate {} is {} bytes into the row, not a \
                 multiple of 16 (the GPU stops with an illegal instruction)",
                coords[0],
                coords[0] * spec.elem.bytes() as i64
            ),
        ));
    }
    Ok((spec, base, coords))
}

/// The shared-memory address of byte `offset` of a box placed at `start`.
fn swizzled(start: u64, offset: u64, swizzle: u32) -> u64 {
    let (rank, inside) = split_cluster(start);
    let addr = inside + offset;
    let bits = match swizzle {
        32 => 1,
        64 => 3,
        128 => 7,
        _ => 0,
    };
    let addr = addr ^ ((addr >> 7) & bits) << 4;
    match rank {
        Some(r) => in_rank(addr, r),
        None => addr,
    }
}

/// Calls `f(byte offset in the box's shared-memory image, global address or
/// None when out of bounds)` for every element of the box at `coords`. A
/// store (`chunks`) writes whole 16-byte pieces of a row that start inside
/// the tensor, as the GPU does, so elements just past the inner dimension's
/// end count as inside.
fn for_each_element(
    spec: &TensorMapSpec,
    base: u64,
    coords: &[i64],
    chunks: bool,
    mut f: impl FnMut(u64, Option<u64>) -> Result<(), Fault>,
) -> Result<(), Fault> {
    let counts = spec.counts();
    let total: u64 = counts.iter().product();
    let size = spec.elem.bytes() as u64;
    let per_chunk = (16 / size).max(1);
    let pitch = spec.pitch();
    let mut index = vec![0u64; counts.len()];
    for linear in 0..total {
        let mut addr = Some(base);
        for (d, &i) in index.iter().enumerate() {
            let step = if d == 0 {
                1
            } else {
                u64::from(spec.element_strides[d])
            };
            let c = coords[d] + (i * step) as i64;
            let inside = if d == 0 && chunks {
                c >= 0 && ((coords[0] + (i / per_chunk * per_chunk) as i64) as u64) < spec.dims[0]
            } else {
                c >= 0 && (c as u64) < spec.dims[d]
            };
            if !inside {
                addr = None;
                break;
            }
            let stride = if d == 0 { size } else { spec.strides[d - 1] };
            addr = addr.map(|a| a.wrapping_add(c as u64 * stride));
        }
        let row = linear / counts[0];
        f(row * pitch + index[0] * size, addr)?;
        for (d, i) in index.iter_mut().enumerate() {
            *i += 1;
            if *i < counts[d] {
                break;
            }
            *i = 0;
        }
    }
    Ok(())
}

/// Calls `f(byte offset in the shared-memory image, global address or None
/// when out of bounds)` for every slice (16 or 32 bytes) of a copy through
/// an interleaved map, as measured on the GPU (`fixtures/CLUSTERS_TMA.md`):
/// the first dimension counts slices (its size, box, coordinate and element
/// stride are in slices, one slice apart in memory); the walk covers every
/// dimension but the second-to-last, which keeps the instruction's
/// coordinate (and is bounds-checked as the others); the slices lie densely
/// in the image, in the order of the walk, the first dimension fastest.
fn interleaved_elements(
    spec: &TensorMapSpec,
    base: u64,
    coords: &[i64],
    mut f: impl FnMut(u64, Option<u64>) -> Result<(), Fault>,
) -> Result<(), Fault> {
    let Some(slice) = spec.slice_bytes() else {
        return Ok(());
    };
    let walked = spec.walked();
    let counts: Vec<u64> = walked
        .iter()
        .map(|&d| u64::from(spec.box_dims[d].div_ceil(spec.element_strides[d])))
        .collect();
    let total: u64 = counts.iter().product();
    let mut index = vec![0u64; walked.len()];
    for at in 0..total {
        let mut position = coords.to_vec();
        for (k, &d) in walked.iter().enumerate() {
            position[d] += (index[k] * u64::from(spec.element_strides[d])) as i64;
        }
        let inside = position
            .iter()
            .zip(&spec.dims)
            .all(|(&c, &n)| c >= 0 && (c as u64) < n);
        let addr = inside.then(|| {
            position.iter().enumerate().fold(base, |a, (d, &c)| {
                let stride = if d == 0 { slice } else { spec.strides[d - 1] };
                a.wrapping_add(c as u64 * stride)
            })
        });
        f(at * slice, addr)?;
        for (k, i) in index.iter_mut().enumerate() {
            *i += 1;
            if *i < counts[k] {
                break;
            }
            *i = 0;
        }
    }
    Ok(())
}

/// Calls `f(byte offset in the shared-memory image, global address or None
/// when out of bounds)` for every element of an im2col load, as measured on
/// the GPU (`fixtures/CLUSTERS_TMA.md`): the pixels are the positions of the
/// bounding box (from the lower corner to the dimension's size less one
/// plus the upper corner, every traversal-stride-th), W fastest, then H, D
/// and the image N; the load takes PIXELS of them starting at the
/// coordinates' position and image, each pixel CHANNELS elements from the
/// first coordinate at the position plus the offsets; past the last image
/// and outside the tensor the elements are the fill. A store (`chunks`, no
/// offsets) writes whole 16-byte pieces of a pixel's channels that start
/// inside the tensor, as tile stores do.
fn im2col_elements(
    spec: &TensorMapSpec,
    base: u64,
    coords: &[i64],
    offsets: &[i64],
    chunks: bool,
    mut f: impl FnMut(u64, Option<u64>) -> Result<(), Fault>,
) -> Result<(), Fault> {
    let Some(im2col) = &spec.im2col else {
        return Ok(());
    };
    let rank = spec.dims.len();
    let size = spec.elem.bytes() as u64;
    let (channels, pixels) = (u64::from(spec.box_dims[0]), u64::from(spec.box_dims[1]));
    let pitch = spec.pitch();
    let mut position: Vec<i64> = coords[1..rank - 1].to_vec();
    let mut image = coords[rank - 1];
    let inside = |d: usize, c: i64| c >= 0 && (c as u64) < spec.dims[d];
    for pixel in 0..pixels {
        let mut addr = inside(rank - 1, image)
            .then(|| base.wrapping_add(image as u64 * spec.strides[rank - 2]));
        for (i, p) in position.iter().enumerate() {
            let c = p + offsets[i];
            addr = addr
                .filter(|_| inside(i + 1, c))
                .map(|a| a.wrapping_add(c as u64 * spec.strides[i]));
        }
        let per_chunk = (16 / size).max(1);
        for channel in 0..channels {
            let c = coords[0] + channel as i64;
            let first = if chunks {
                coords[0] + (channel / per_chunk * per_chunk) as i64
            } else {
                c
            };
            let at = addr
                .filter(|_| c >= 0 && inside(0, first))
                .map(|a| a.wrapping_add(c as u64 * size));
            f(pixel * pitch + channel * size, at)?;
        }
        // The next position: W first; past the box's end, back to its lower
        // corner and on to the next H (D, then image).
        let mut carry = true;
        for (i, p) in position.iter_mut().enumerate() {
            *p += i64::from(spec.element_strides[i + 1]);
            let last = spec.dims[i + 1] as i64 - 1 + i64::from(im2col.upper[i]);
            if *p <= last {
                carry = false;
                break;
            }
            *p = i64::from(im2col.lower[i]);
        }
        if carry {
            image += i64::from(spec.element_strides[rank - 1]);
        }
    }
    Ok(())
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &TmaOp,
    active: u32,
) -> Result<(), Fault> {
    for lane in lanes(active) {
        let thread = m.thread(w, lane);
        match *op {
            TmaOp::Replace { field, space } => {
                let addr = m.read_lane(w, &inst.src[0], lane);
                let value = m.read_lane(w, inst.src.last().unwrap_or(&inst.src[0]), lane);
                let map = m
                    .mem
                    .slice(thread, space, addr, 128, 1)
                    .map_err(|e| Fault::at(lane, format!("tensormap.replace: {e}")))?;
                replace_field(map, field, value);
            }
            TmaOp::CopyMap => {
                let dst = m.read_lane(w, &inst.src[0], lane);
                let src = m.read_lane(w, &inst.src[1], lane);
                let bytes = m
                    .mem
                    .slice(thread, Space::Shared, src, 128, 1)
                    .map_err(|e| Fault::at(lane, format!("tensormap.cp_fenceproxy source: {e}")))?
                    .to_vec();
                m.mem
                    .slice(thread, Space::Global, dst, 128, 1)
                    .map_err(|e| {
                        Fault::at(lane, format!("tensormap.cp_fenceproxy destination: {e}"))
                    })?
                    .copy_from_slice(&bytes);
            }
            TmaOp::Prefetch { dims, im2col } => {
                map_and_coords(m, w, &inst.src[0], dims, im2col, lane)?;
            }
            TmaOp::Load {
                dims,
                multicast,
                im2col,
            } => {
                let (spec, base, coords) = map_and_coords(m, w, &inst.src[1], dims, im2col, lane)?;
                // The im2col offsets (16-bit values, one per W/H/D dimension).
                let offsets: Vec<i64> = if im2col {
                    let items = Src::elements(inst.src.get(3));
                    if items.len() != dims - 2 {
                        return Err(Fault::at(
                            lane,
                            format!(
                                "cp.async.bulk.tensor.{dims}d .im2col takes {} offsets, found {}",
                                dims - 2,
                                items.len()
                            ),
                        ));
                    }
                    items
                        .iter()
                        .map(|s| (m.read_lane(w, s, lane) & 0xffff) as i64)
                        .collect()
                } else {
                    Vec::new()
                };
                let dst = shared_offset(m.read_lane(w, &inst.src[0], lane), lane)?;
                let bar = shared_offset(m.read_lane(w, &inst.src[2], lane), lane)?;
                let ctas = m.launch.cluster_size();
                let targets: Vec<Option<u32>> = if multicast {
                    let at = 3 + usize::from(im2col);
                    let mask = m.read_lane(w, &inst.src[at], lane) & 0xffff;
                    if mask >> ctas != 0 {
                        return Err(Fault::at(
                            lane,
                            format!(
                                "cp.async.bulk.tensor: ctaMask {mask:#x} names CTAs outside the \
                                 cluster of {ctas}"
                            ),
                        ));
                    }
                    (0..ctas).filter(|r| mask >> r & 1 == 1).map(Some).collect()
                } else {
                    vec![None]
                };
                // An interleaved map's image is a row of one slice per
                // element of its walk.
                let (size, rows, inner, pitch) = match spec.slice_bytes() {
                    Some(slice) => {
                        let slice = slice as usize;
                        (slice, spec.box_bytes() / slice as u64, slice, slice)
                    }
                    None => {
                        let size = spec.elem.bytes();
                        (
                            size,
                            spec.box_bytes() / (u64::from(spec.box_dims[0]) * size as u64),
                            spec.box_dims[0] as usize * size,
                            spec.pitch() as usize,
                        )
                    }
                };
                let mut data = vec![0u8; pitch * rows as usize];
                let tf32 = matches!(spec.elem, ElemType::Tf32 | ElemType::Tf32Ftz);
                let mut each = |offset: u64, addr: Option<u64>| {
                    let slot = &mut data[offset as usize..offset as usize + size];
                    match addr {
                        Some(a) => {
                            slot.copy_from_slice(
                                m.mem
                                    .slice(thread, Space::Global, a, size, 1)
                                    .map_err(|e| Fault::at(lane, format!("tensor source: {e}")))?,
                            );
                            if tf32 {
                                // Each element of the slot (an interleaved
                                // map's slice holds several) is rounded.
                                for word in slot.chunks_exact_mut(4) {
                                    let bits =
                                        u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
                                    word.copy_from_slice(&to_tf32(bits).to_le_bytes());
                                }
                            }
                        }
                        None if spec.oob_nan => {
                            for (i, b) in slot.iter_mut().enumerate() {
                                *b = NAN_FILL[i % 2];
                            }
                        }
                        None => {}
                    }
                    Ok(())
                };
                if im2col {
                    im2col_elements(&spec, base, &coords, &offsets, false, &mut each)?;
                } else if spec.interleave != 0 {
                    interleaved_elements(&spec, base, &coords, &mut each)?;
                } else {
                    for_each_element(&spec, base, &coords, false, &mut each)?;
                }
                for target in targets {
                    let (dst, bar) = match target {
                        Some(r) => (in_rank(dst, r), in_rank(bar, r)),
                        None => (dst, bar),
                    };
                    for (row, bytes) in data.chunks(pitch).enumerate() {
                        for (i, chunk) in bytes[..inner].chunks(16).enumerate() {
                            let offset = (row * pitch + i * 16) as u64;
                            let at = swizzled(dst, offset, spec.swizzle);
                            m.mem
                                .slice(thread, Space::Shared, at, chunk.len(), 1)
                                .map_err(|e| Fault::at(lane, format!("tensor destination: {e}")))?
                                .copy_from_slice(chunk);
                        }
                    }
                    crate::asynccopy::complete_tx(m, bar, spec.box_bytes(), lane)?;
                }
            }
            TmaOp::Store {
                dims,
                reduce,
                im2col,
            } => {
                let (spec, base, coords) = map_and_coords(m, w, &inst.src[0], dims, im2col, lane)?;
                if im2col {
                    im2col_store_check(&spec, &coords, lane)?;
                }
                // Measured on the GPU: .min and .max reductions through f32,
                // f32.ftz, tf32 and tf32.ftz maps stop it with an illegal
                // instruction; the bitwise ones and inc/dec were not tried.
                match reduce {
                    Some(kind @ (AtomKind::Min | AtomKind::Max)) if spec.elem.is_f32_family() => {
                        return Err(Fault::at(
                            lane,
                            format!(
                                "cp.reduce.async.bulk.tensor .{} through a map of type {}: the GPU \
                                 stops with an illegal instruction",
                                if kind == AtomKind::Min { "min" } else { "max" },
                                spec.elem.name()
                            ),
                        ));
                    }
                    Some(kind) if kind != AtomKind::Add && spec.elem.is_f32_family() => {
                        return Err(Fault::at(
                            lane,
                            format!(
                                "cp.reduce.async.bulk.tensor other than .add through a map of type \
                                 {} is not supported by the interpreter",
                                spec.elem.name()
                            ),
                        ));
                    }
                    _ => {}
                }
                let from = shared_offset(m.read_lane(w, &inst.src[1], lane), lane)?;
                let size = spec.elem.bytes();
                let ty = spec.elem.ty();
                // The elements of one unit of the walk: an element, or the
                // elements of a slice of an interleaved map.
                let unit = spec.slice_bytes().unwrap_or(size as u64);
                let mut each = |offset: u64, addr: Option<u64>| {
                    let Some(a) = addr else {
                        return Ok(());
                    };
                    for k in (0..unit).step_by(size) {
                        let at = swizzled(from, offset + k, spec.swizzle);
                        let a = a.wrapping_add(k);
                        let value = m
                            .mem
                            .load(thread, Space::Shared, at, size)
                            .map_err(|e| Fault::at(lane, format!("tensor source: {e}")))?;
                        let value = match reduce {
                            Some(kind) => {
                                let old =
                                    m.mem.load(thread, Space::Global, a, size).map_err(|e| {
                                        Fault::at(lane, format!("tensor destination: {e}"))
                                    })?;
                                atomic(kind, ty, old, value, 0, spec.elem.flushes())
                            }
                            None => value,
                        };
                        m.mem
                            .store(thread, Space::Global, a, size, value)
                            .map_err(|e| Fault::at(lane, format!("tensor destination: {e}")))?;
                    }
                    Ok(())
                };
                if im2col {
                    let offsets = vec![0; dims - 2];
                    im2col_elements(&spec, base, &coords, &offsets, true, &mut each)?;
                } else if spec.interleave != 0 {
                    interleaved_elements(&spec, base, &coords, &mut each)?;
                } else {
                    for_each_element(&spec, base, &coords, true, &mut each)?;
                }
            }
        }
    }
    Ok(())
}

/// The im2col stores and reductions the GPU stops at with an illegal
/// instruction (measured on an H100, `fixtures/CLUSTERS_TMA.md`): a map whose
/// pixel bounding box reaches outside the tensor (a lower corner below zero
/// or an upper corner above it), or a W/H/D coordinate below zero or past
/// the bounding box's last position.
fn im2col_store_check(spec: &TensorMapSpec, coords: &[i64], lane: u32) -> Result<(), Fault> {
    let Some(im2col) = &spec.im2col else {
        return Ok(());
    };
    let stop = "(the GPU stops with an illegal instruction)";
    if im2col.lower.iter().any(|&l| l < 0) || im2col.upper.iter().any(|&u| u > 0) {
        return Err(Fault::at(
            lane,
            format!(
                "cp.async.bulk.tensor .im2col_no_offs: the map's bounding box (lower {:?}, upper \
                 {:?}) reaches outside the tensor {stop}",
                im2col.lower, im2col.upper
            ),
        ));
    }
    let rank = spec.dims.len();
    if let Some(c) = coords[1..rank - 1].iter().find(|&&c| c < 0) {
        return Err(Fault::at(
            lane,
            format!(
                "cp.async.bulk.tensor .im2col_no_offs: the coordinate {c} is below zero {stop}"
            ),
        ));
    }
    // A W/H/D coordinate past the bounding box's last position (the
    // dimension's size - 1 + the upper corner) stops it too; an image past
    // the last one does not (nothing is written).
    for (i, &c) in coords[1..rank - 1].iter().enumerate() {
        let last = spec.dims[i + 1] as i64 - 1 + i64::from(im2col.upper[i]);
        if c > last {
            return Err(Fault::at(
                lane,
                format!(
                    "cp.async.bulk.tensor .im2col_no_offs: the coordinate {c} is past the \
                     bounding box's last position {last} {stop}"
                ),
            ));
        }
    }
    Ok(())
}

/// Writes one field of a tensor map in the interpreter's layout (see
/// [`TensorMapSpec::encode`]); bytes that are not yet a map (the zeros a
/// kernel starts from) become an empty tile-mode map first.
fn replace_field(map: &mut [u8], field: MapField, value: u64) {
    if &map[0..4] != MAGIC {
        map.fill(0);
        map[0..4].copy_from_slice(MAGIC);
    }
    match field {
        MapField::GlobalAddress => map[8..16].copy_from_slice(&value.to_le_bytes()),
        MapField::Rank => map[4] = (value as u8).wrapping_add(1),
        MapField::BoxDim(i) => {
            map[96 + 2 * i..98 + 2 * i].copy_from_slice(&(value as u16).to_le_bytes())
        }
        MapField::GlobalDim(i) => {
            map[16 + 8 * i..24 + 8 * i].copy_from_slice(&(value & 0xffff_ffff).to_le_bytes())
        }
        MapField::GlobalStride(i) => {
            map[56 + 8 * i..64 + 8 * i].copy_from_slice(&value.to_le_bytes())
        }
        MapField::ElementStride(i) => map[106 + i] = value as u8,
        MapField::ElemType(code) => map[5] = code,
        MapField::Swizzle(span) => map[6] = (span / 32) as u8,
        MapField::FillNan(nan) => map[7] = u8::from(nan),
        MapField::Interleave(code) => map[INTERLEAVE] = code,
    }
}

/// A shared-memory operand (shared-space or generic address) as a shared offset.
fn shared_offset(addr: u64, lane: u32) -> Result<u64, Fault> {
    match resolve(Space::Generic, addr) {
        (Space::Shared, offset) => Ok(offset),
        (Space::Global, _) if addr < 1 << 32 => Ok(addr),
        _ => Err(Fault::at(
            lane,
            format!("cp.async.bulk.tensor: address {addr:#x} is not in shared memory"),
        )),
    }
}
