//! Per-instruction sweeps: one kernel per instruction form, run on many
//! inputs by the GPU (`tests/interp/sweeps.py`) and by the interpreter.
//!
//! Every kernel makes its own inputs from its thread index with splitmix64
//! and a table of special values (a kernel argument), stores them next to
//! its outputs, so the GPU and the interpreter see the same inputs by
//! construction and a recorded row names its inputs verbatim. Rows
//! `0..SPECIAL_ROWS` walk the cartesian product of the tables; later rows
//! mix random bits, table values, table values with random low bits, and
//! table neighbours (±1..4 in the bit pattern).

#![allow(dead_code)]

use std::fmt::Write as _;

pub mod forms;
pub mod record;

/// Rows of one form (a multiple of [`CHUNK`] and of the block size).
pub const ROWS: u32 = 1 << 17;
/// Rows per digest.
pub const CHUNK: u32 = 4096;
/// Rows that enumerate table combinations.
pub const SPECIAL_ROWS: u32 = 16384;
/// Threads per block.
pub const BLOCK: u32 = 256;

/// How an input is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Integers of this many bits: boundaries and powers of two.
    Int(u32),
    /// Floats (bits of the format): specials and their neighbours.
    F16,
    Bf16,
    F32,
    F64,
    /// Two packed halves.
    F16x2,
    Bf16x2,
    /// 32 bits of four bytes with byte boundaries (dp4a, dp2a, prmt).
    Bytes,
    /// Shift amounts, bit positions and lengths.
    Shift,
    /// Lane numbers for shfl.
    Lane,
    /// The shfl clamp/segment operand.
    Clamp,
    /// A few small values, so that lanes of a warp agree (match, vote).
    Small,
    /// A predicate.
    Pred,
}

/// A register's PTX type in the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    B16,
    B32,
    B64,
    Pred,
}

impl Reg {
    fn name(self) -> &'static str {
        match self {
            Reg::B16 => "b16",
            Reg::B32 => "b32",
            Reg::B64 => "b64",
            Reg::Pred => "pred",
        }
    }
}

/// One instruction form.
#[derive(Debug, Clone)]
pub struct Form {
    /// Unique name (the instruction text with placeholders removed).
    pub name: String,
    pub inputs: Vec<(Class, Reg)>,
    pub outputs: Vec<Reg>,
    /// Instruction text; `%i0`.. are inputs, `%o0`.. outputs.
    pub body: String,
    /// The format whose ulps measure an approximate form, or `None` for an
    /// exact one.
    pub approx: Option<&'static str>,
}

impl Form {
    pub fn columns(&self) -> usize {
        self.inputs.len() + self.outputs.len()
    }
}

pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// FNV-1a over the little-endian bytes of `words`.
pub fn fnv(words: &[u64]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for w in words {
        for b in w.to_le_bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

fn dedup(mut v: Vec<u64>) -> Vec<u64> {
    let mut seen = std::collections::HashSet::new();
    v.retain(|x| seen.insert(*x));
    v
}

fn int_table(bits: u32) -> Vec<u64> {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let mut v = vec![
        0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65,
    ];
    for k in 0..bits {
        let p = 1u64 << k;
        v.extend([p, p.wrapping_sub(1), p + 1, p.wrapping_neg() & mask]);
    }
    let top = 1u64 << (bits - 1);
    v.extend([
        top - 1,
        top,
        top + 1,
        mask,
        mask - 1,
        mask - 2,
        0x5555_5555_5555_5555 & mask,
        0xaaaa_aaaa_aaaa_aaaa & mask,
        0x0123_4567_89ab_cdef & mask,
    ]);
    dedup(v.into_iter().map(|x| x & mask).collect())
}

/// Specials of a float format: exponent bits `e`, fraction bits `f`.
fn float_table(e: u32, f: u32) -> Vec<u64> {
    let bias = (1u64 << (e - 1)) - 1;
    let exp = |x: u64| x << f;
    let one = exp(bias);
    let frac_mask = (1u64 << f) - 1;
    let inf = exp((1 << e) - 1);
    let mut base = vec![
        0,
        1,
        2,
        frac_mask,
        frac_mask - 1,
        1 << (f - 1),
        exp(1),
        exp(1) + 1,
        exp((1 << e) - 2) | frac_mask,
        exp((1 << e) - 2),
        inf,
        inf | 1 << (f - 1),
        inf | (1 << (f - 1)) | 1,
        inf | 1,
        inf | frac_mask,
        one,
        one + 1,
        one - 1,
        one | 1 << (f - 1),
        exp(bias - 1),
        exp(bias - 1) | 1 << (f - 1),
        exp(bias + 1),
        exp(bias + 1) | 1 << (f - 1),
        exp(bias + 1) | 1 << (f - 2),
        exp(bias - 2) | 1 << (f - 1),
    ];
    // Powers of two over the whole range, and integers near the integer
    // limits (rounding of float→int).
    for k in (0..(1u64 << e) - 1).step_by(if e > 8 { 64 } else { 1 }) {
        base.push(exp(k));
    }
    for p in [7u64, 8, 15, 16, 23, 24, 31, 32, 52, 53, 63, 64] {
        if bias + p < (1 << e) - 1 {
            base.push(exp(bias + p));
            base.push(exp(bias + p) | 1 << (f - 1));
            base.push(exp(bias + p - 1) | frac_mask);
        }
    }
    let sign = 1u64 << (e + f);
    let mut v = Vec::new();
    for b in base {
        for s in [0, sign] {
            v.push(b | s);
            v.push((b | s).wrapping_sub(1) & (sign | (sign - 1)));
            v.push((b | s).wrapping_add(1));
        }
    }
    dedup(v.into_iter().map(|x| x & (sign | (sign - 1))).collect())
}

fn pairs(element: &[u64], width: u32) -> Vec<u64> {
    let pick: Vec<u64> = element.iter().step_by(3).copied().collect();
    let mut v = Vec::new();
    for &hi in &pick {
        for &lo in &pick {
            v.push(hi << width | lo);
        }
    }
    dedup(v)
}

/// The special values of a class, and the mask of random low bits its
/// "table value with random bits" mode flips.
pub fn table(class: Class) -> (Vec<u64>, u64) {
    match class {
        Class::Int(bits) => (int_table(bits), 0xff),
        Class::F16 => (float_table(5, 10), 0x83ff),
        Class::Bf16 => (float_table(8, 7), 0x807f),
        Class::F32 => (float_table(8, 23), 0x807f_ffff),
        Class::F64 => (float_table(11, 52), 0x800f_ffff_ffff_ffff),
        Class::F16x2 => (pairs(&float_table(5, 10), 16), 0x83ff_83ff),
        Class::Bf16x2 => (pairs(&float_table(8, 7), 16), 0x807f_807f),
        Class::Bytes => {
            let b = [0u64, 1, 2, 0x7f, 0x80, 0x81, 0xfe, 0xff];
            let mut v = Vec::new();
            for x in 0..4096u64 {
                let mut w = 0;
                for k in 0..4 {
                    w |= b[((x >> (3 * k)) & 7) as usize] << (8 * k);
                }
                v.push(w);
            }
            (v, 0x0303_0303)
        }
        Class::Shift => {
            let mut v: Vec<u64> = (0..=72).collect();
            v.extend([
                96,
                127,
                128,
                129,
                254,
                255,
                256,
                257,
                511,
                512,
                0x7fff_ffff,
                0x8000_0000,
                0xffff_ffff,
                0xffff_fffe,
                0xffff_ffe0,
                0xffff_ff00,
            ]);
            (v, 0x1ff)
        }
        Class::Lane => {
            let mut v: Vec<u64> = (0..=33).collect();
            v.extend([63, 64, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0xffff_ffe0]);
            (v, 0x3f)
        }
        Class::Clamp => {
            let mut v = Vec::new();
            for seg in [0u64, 1, 8, 16, 24, 28, 30, 31, 32, 0x1f] {
                for c in [0u64, 1, 7, 15, 16, 0x1f, 0x3f, 0xff] {
                    v.push(seg << 8 | c);
                }
            }
            (v, 0x1f1f)
        }
        Class::Small => ((0..4).collect(), 3),
        Class::Pred => (vec![0, 1], 1),
    }
}

/// The kernel argument with every input's table, and each table's offset
/// (in u64 words) and length.
pub fn tables(form: &Form) -> (Vec<u64>, Vec<(usize, usize, u64)>) {
    let mut all = Vec::new();
    let mut where_ = Vec::new();
    for &(class, _) in &form.inputs {
        let (t, m) = table(class);
        where_.push((all.len(), t.len(), m));
        all.extend(t);
    }
    if all.is_empty() {
        all.push(0);
    }
    (all, where_)
}

/// The seed of a form: FNV of its name.
pub fn seed(form: &Form) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for b in form.name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// Emits `dst = splitmix64(src)` (src, dst: b64 registers; t: scratch).
fn emit_splitmix(out: &mut String, dst: &str, src: &str) {
    let _ = writeln!(out, "  add.u64 {dst}, {src}, 0x9e3779b97f4a7c15;");
    let _ = writeln!(out, "  shr.b64 %t0, {dst}, 30;");
    let _ = writeln!(out, "  xor.b64 {dst}, {dst}, %t0;");
    let _ = writeln!(out, "  mul.lo.u64 {dst}, {dst}, 0xbf58476d1ce4e5b9;");
    let _ = writeln!(out, "  shr.b64 %t0, {dst}, 27;");
    let _ = writeln!(out, "  xor.b64 {dst}, {dst}, %t0;");
    let _ = writeln!(out, "  mul.lo.u64 {dst}, {dst}, 0x94d049bb133111eb;");
    let _ = writeln!(out, "  shr.b64 %t0, {dst}, 31;");
    let _ = writeln!(out, "  xor.b64 {dst}, {dst}, %t0;");
}

/// The PTX module of a form: `.entry sweep(out, tab)`, one row per thread.
pub fn kernel(form: &Form) -> String {
    let (_, where_) = tables(form);
    let cols = form.columns();
    let mut s = String::new();
    s.push_str(".version 8.5\n.target sm_90\n.address_size 64\n\n");
    s.push_str(".visible .entry sweep(.param .u64 out, .param .u64 tab)\n{\n");
    s.push_str("  .reg .b64 %row, %x, %h, %r, %v, %t0, %t1, %base, %tab;\n");
    s.push_str("  .reg .b32 %w0, %w1, %w2;\n  .reg .pred %q;\n");
    for (j, (_, reg)) in form.inputs.iter().enumerate() {
        let _ = writeln!(s, "  .reg .{} %i{j};", reg.name());
    }
    for (j, reg) in form.outputs.iter().enumerate() {
        let _ = writeln!(s, "  .reg .{} %o{j};", reg.name());
    }
    s.push_str("  ld.param.u64 %base, [out];\n  ld.param.u64 %tab, [tab];\n");
    s.push_str("  cvta.to.global.u64 %base, %base;\n  cvta.to.global.u64 %tab, %tab;\n");
    s.push_str("  mov.u32 %w0, %tid.x;\n  mov.u32 %w1, %ctaid.x;\n  mov.u32 %w2, %ntid.x;\n");
    s.push_str(
        "  mul.wide.u32 %row, %w1, %w2;\n  cvt.u64.u32 %t1, %w0;\n  add.u64 %row, %row, %t1;\n",
    );
    let _ = writeln!(s, "  mul.lo.u64 %t1, %row, {};", cols * 8);
    s.push_str("  add.u64 %base, %base, %t1;\n");
    let seed = seed(form);
    let mut stride = 1u64;
    for (j, &(_, reg)) in form.inputs.iter().enumerate() {
        let (off, len, flip) = where_[j];
        let len = len as u64;
        let _ = writeln!(s, "  // input {j}");
        let _ = writeln!(s, "  setp.lt.u64 %q, %row, {SPECIAL_ROWS};");
        let _ = writeln!(s, "  @!%q bra R{j};");
        // Special rows: digit j of the row in the mixed radix of the tables.
        let _ = writeln!(s, "  div.u64 %t1, %row, {stride};");
        let _ = writeln!(s, "  rem.u64 %t1, %t1, {len};");
        let _ = writeln!(s, "  add.u64 %t1, %t1, {off};");
        s.push_str("  shl.b64 %t1, %t1, 3;\n  add.u64 %t1, %t1, %tab;\n");
        s.push_str("  ld.global.u64 %v, [%t1];\n");
        let _ = writeln!(s, "  bra.uni D{j};\nR{j}:");
        let _ = writeln!(
            s,
            "  mad.lo.u64 %x, %row, 8, {};",
            seed.wrapping_add(j as u64)
        );
        emit_splitmix(&mut s, "%h", "%x");
        emit_splitmix(&mut s, "%r", "%h");
        // Table index from the high half of h, mode from its low two bits.
        s.push_str("  shr.b64 %t1, %h, 32;\n");
        let _ = writeln!(s, "  rem.u64 %t1, %t1, {len};");
        let _ = writeln!(s, "  add.u64 %t1, %t1, {off};");
        s.push_str("  shl.b64 %t1, %t1, 3;\n  add.u64 %t1, %t1, %tab;\n");
        s.push_str("  ld.global.u64 %v, [%t1];\n");
        s.push_str("  and.b64 %t1, %h, 3;\n");
        // mode 0: random bits; 1: table ^ (random & flip); 2: table; 3: table + (r&7) - 3.
        let _ = writeln!(s, "  setp.eq.u64 %q, %t1, 0;\n  @%q mov.b64 %v, %r;");
        let _ = writeln!(
            s,
            "  setp.eq.u64 %q, %t1, 1;\n  and.b64 %t0, %r, {flip};\n  @%q xor.b64 %v, %v, %t0;"
        );
        s.push_str(
            "  setp.eq.u64 %q, %t1, 3;\n  and.b64 %t0, %r, 7;\n  sub.u64 %t0, %t0, 3;\n  @%q add.u64 %v, %v, %t0;\n",
        );
        let _ = writeln!(s, "D{j}:");
        match reg {
            Reg::B16 => {
                let _ = writeln!(s, "  cvt.u16.u64 %i{j}, %v;\n  cvt.u64.u16 %v, %i{j};");
            }
            Reg::B32 => {
                let _ = writeln!(s, "  cvt.u32.u64 %i{j}, %v;\n  cvt.u64.u32 %v, %i{j};");
            }
            Reg::B64 => {
                let _ = writeln!(s, "  mov.b64 %i{j}, %v;");
            }
            Reg::Pred => {
                let _ = writeln!(s, "  and.b64 %v, %v, 1;\n  setp.ne.u64 %i{j}, %v, 0;");
            }
        }
        let _ = writeln!(s, "  st.global.u64 [%base+{}], %v;", j * 8);
        stride = stride.saturating_mul(len);
    }
    for (j, reg) in form.outputs.iter().enumerate() {
        let _ = match reg {
            Reg::Pred => writeln!(s, "  setp.ne.u32 %o{j}, %w0, %w0;"),
            r => writeln!(s, "  mov.{} %o{j}, 0;", r.name()),
        };
    }
    let _ = writeln!(s, "  {}", form.body);
    let n = form.inputs.len();
    for (j, reg) in form.outputs.iter().enumerate() {
        match reg {
            Reg::B16 => {
                let _ = writeln!(s, "  cvt.u64.u16 %v, %o{j};");
            }
            Reg::B32 => {
                let _ = writeln!(s, "  cvt.u64.u32 %v, %o{j};");
            }
            Reg::B64 => {
                let _ = writeln!(s, "  mov.b64 %v, %o{j};");
            }
            Reg::Pred => {
                let _ = writeln!(s, "  selp.u64 %v, 1, 0, %o{j};");
            }
        }
        let _ = writeln!(s, "  st.global.u64 [%base+{}], %v;", (n + j) * 8);
    }
    s.push_str("  ret;\n}\n");
    s
}

/// Digest of each chunk of a form's output (rows × columns words).
pub fn chunk_digests(words: &[u64], cols: usize) -> Vec<u64> {
    words.chunks(CHUNK as usize * cols).map(fnv).collect()
}
