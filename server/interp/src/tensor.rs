//! Tensor Memory (tcgen05): allocation, deallocation and the register
//! data-movement instructions `tcgen05.ld` / `tcgen05.st` with every shape
//! of spec section 9.7.16.2 (`.32x32b`, `.16x64b`, `.16x128b`, `.16x256b`,
//! `.16x32bx2`), `.num` repeats, `.pack::16b` / `.unpack::16b` and `.red`.
//!
//! A CTA's Tensor Memory is 128 lanes × 512 columns of 32 bits; an address
//! holds the lane in its upper and the column in its lower 16 bits. Warp `w`
//! reaches lanes `32·(w mod 4)` to `32·(w mod 4) + 31`. Reading or writing
//! columns that are not allocated is a fault. Which lane and column each
//! thread's register maps to follows the data-movement shape figures (and
//! CUTLASS's copy traits, which encode the same layouts); the H100 that
//! checks the other fixtures has no Tensor Memory, so these are not
//! GPU-confirmed.

use crate::engine::{lanes, Fault, Machine};
use crate::ir::{Dst, Inst, Quals, Space, Src, Ty};
use crate::{need, Op};

const LANES: usize = 128;
pub(crate) const COLUMNS: usize = 512;

/// One CTA's Tensor Memory and its allocations.
#[derive(Debug, Clone, Default)]
pub struct TensorMemory {
    cells: Vec<u32>,
    /// Allocated column ranges `(start, count)`.
    allocations: Vec<(u32, u32)>,
}

impl TensorMemory {
    fn allocated(&self, column: u32) -> bool {
        self.allocations
            .iter()
            .any(|&(start, count)| column >= start && column < start + count)
    }

    fn allocate(&mut self, count: u32) -> Result<u32, String> {
        if !count.is_power_of_two() || !(32..=512).contains(&count) {
            return Err(format!(
                "tcgen05.alloc: {count} columns is not a power of two from 32 to 512"
            ));
        }
        if self.cells.is_empty() {
            self.cells = vec![0; LANES * COLUMNS];
        }
        // Aligned first fit, as the hardware hands out column blocks.
        let mut start = 0;
        while start + count <= COLUMNS as u32 {
            let free = self
                .allocations
                .iter()
                .all(|&(s, c)| start + count <= s || start >= s + c);
            if free {
                self.allocations.push((start, count));
                return Ok(start);
            }
            start += count;
        }
        Err(format!(
            "tcgen05.alloc: no {count} free columns of Tensor Memory"
        ))
    }

    fn free(&mut self, column: u32, count: u32) -> Result<(), String> {
        match self
            .allocations
            .iter()
            .position(|&(s, c)| s == column && c == count)
        {
            Some(index) => {
                self.allocations.remove(index);
                Ok(())
            }
            None => Err(format!(
                "tcgen05.dealloc: columns {column}..{} were not allocated as one block",
                column + count
            )),
        }
    }

    /// The allocated column blocks: first column and count, by column.
    pub fn allocations(&self) -> Vec<(u32, u32)> {
        let mut out = self.allocations.clone();
        out.sort_unstable();
        out
    }

    /// The word at `lane`, `column` when that column is allocated.
    pub fn word(&self, lane: u32, column: u32) -> Option<u32> {
        (lane < LANES as u32 && column < COLUMNS as u32 && self.allocated(column))
            .then(|| self.cells[lane as usize * COLUMNS + column as usize])
    }

    fn cell(&mut self, lane: u32, column: u32) -> Result<&mut u32, String> {
        if lane as usize >= LANES || column as usize >= COLUMNS || !self.allocated(column) {
            return Err(format!(
                "Tensor Memory lane {lane}, column {column} is not allocated"
            ));
        }
        Ok(&mut self.cells[lane as usize * COLUMNS + column as usize])
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    S32x32b,
    S16x64b,
    S16x128b,
    S16x256b,
    S16x32bx2,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reduction {
    pub max: bool,
    pub ty: Ty,
    pub abs: bool,
    pub nan: bool,
}

#[derive(Debug, Clone, Copy)]
pub enum TensorOp {
    Alloc,
    Dealloc,
    Ld {
        shape: Shape,
        num: u32,
        pack: bool,
        red: Option<Reduction>,
    },
    St {
        shape: Shape,
        num: u32,
        unpack: bool,
    },
}

pub fn decode(m: &str, q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    if m != "tcgen05" {
        return None;
    }
    let shape = if q.has("32x32b") {
        Some(Shape::S32x32b)
    } else if q.has("16x64b") {
        Some(Shape::S16x64b)
    } else if q.has("16x128b") {
        Some(Shape::S16x128b)
    } else if q.has("16x256b") {
        Some(Shape::S16x256b)
    } else if q.has("16x32bx2") {
        Some(Shape::S16x32bx2)
    } else {
        None
    };
    let num = q
        .words
        .iter()
        .find_map(|w| w.strip_prefix('x').and_then(|n| n.parse::<u32>().ok()))
        .unwrap_or(1);
    let op = if q.has("alloc") {
        if let Err(e) = need(src, 2) {
            return Some(Err(e));
        }
        TensorOp::Alloc
    } else if q.has("dealloc") {
        if let Err(e) = need(src, 2) {
            return Some(Err(e));
        }
        TensorOp::Dealloc
    } else if q.has("ld") || q.has("st") {
        let Some(shape) = shape else {
            return Some(Err("tcgen05.ld/st needs a data-movement shape".into()));
        };
        let split = usize::from(shape == Shape::S16x32bx2);
        if q.has("ld") {
            if let Err(e) = need(src, 1 + split) {
                return Some(Err(e));
            }
            let red = q.has("red").then(|| Reduction {
                max: q.has("max"),
                ty: q.ty().filter(|t| *t != Ty::B32).unwrap_or(Ty::U32),
                abs: q.has("abs"),
                nan: q.has("NaN"),
            });
            TensorOp::Ld {
                shape,
                num,
                pack: q.has("pack::16b"),
                red,
            }
        } else {
            if let Err(e) = need(src, 2 + split) {
                return Some(Err(e));
            }
            TensorOp::St {
                shape,
                num,
                unpack: q.has("unpack::16b"),
            }
        }
    } else if q.has("relinquish_alloc_permit")
        || q.words.iter().any(|w| w.starts_with("wait"))
        || q.has("fence")
        || q.has("commit")
    {
        return Some(Ok(Op::Nop));
    } else {
        return Some(Err(format!(
            "`tcgen05.{}` is not supported by the interpreter",
            q.words.first().map_or("", String::as_str)
        )));
    };
    Some(Ok(Op::Tensor(op)))
}

/// Registers per thread of `shape` repeated `num` times.
pub fn registers(shape: Shape, num: u32) -> u32 {
    match shape {
        Shape::S16x128b => 2 * num,
        Shape::S16x256b => 4 * num,
        _ => num,
    }
}

/// The (lane, column) offsets from the base address that register `r` of
/// lane `t` of the warp maps to (columns in 32-bit units, before packing).
pub fn element(shape: Shape, t: u32, r: u32, split: u32) -> (u32, u32) {
    match shape {
        Shape::S32x32b => (t, r),
        Shape::S16x64b => (t / 4 + 8 * (t % 2), 2 * r + (t / 2) % 2),
        Shape::S16x128b => (t / 4 + 8 * (r % 2), 4 * (r / 2) + t % 4),
        Shape::S16x256b => (t / 4 + 8 * ((r / 2) % 2), 8 * (r / 4) + 2 * (t % 4) + r % 2),
        // An offset past the last column faults as unallocated; clamped so
        // that the column arithmetic cannot overflow.
        Shape::S16x32bx2 => (
            t % 16,
            r + if t >= 16 {
                split.min(COLUMNS as u32)
            } else {
                0
            },
        ),
    }
}

/// The lanes warp `w` may reach, and a check that `lane` is one of them.
fn check_lane(w: usize, lane: u32) -> Result<(), String> {
    let first = 32 * (w as u32 % 4);
    if lane < first || lane >= first + 32 {
        return Err(format!(
            "warp {w} can only access Tensor Memory lanes {first} to {}; this access reaches lane {lane}",
            first + 31
        ));
    }
    Ok(())
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &TensorOp,
    active: u32,
) -> Result<(), Fault> {
    let first = active.trailing_zeros().min(31);
    match *op {
        TensorOp::Alloc => {
            // Warp-collective: one allocation, its address stored to shared memory.
            let dst = m.read_lane(w, &inst.src[0], first);
            let count = m.read_lane(w, &inst.src[1], first) as u32;
            let column = m.tensor.allocate(count).map_err(Fault::new)?;
            let thread = m.thread(w, first);
            m.mem
                .store(thread, Space::Shared, dst, 4, u64::from(column))
                .map_err(|e| Fault::at(first, e))?;
        }
        TensorOp::Dealloc => {
            let taddr = m.read_lane(w, &inst.src[0], first) as u32;
            let count = m.read_lane(w, &inst.src[1], first) as u32;
            m.tensor.free(taddr & 0xffff, count).map_err(Fault::new)?;
        }
        TensorOp::Ld {
            shape,
            num,
            pack,
            red,
        } => {
            let taddr = m.read_lane(w, &inst.src[0], first) as u32;
            let split = inst.src.get(1).map_or(0, |s| m.read_lane(w, s, first)) as u32;
            let regs = registers(shape, num);
            let parts = Dst::elements(inst.dst.first());
            if parts.len() != regs as usize {
                return Err(Fault::new(format!(
                    "this shape loads {regs} registers per thread; the vector has {}",
                    parts.len()
                )));
            }
            let mut values = vec![[0u64; 32]; parts.len()];
            let mut reduced = [0u64; 32];
            for t in lanes(active) {
                let mut acc: Option<u32> = None;
                for (r, value) in values.iter_mut().enumerate() {
                    let (dl, dc) = element(shape, t, r as u32, split);
                    let lane = (taddr >> 16) + dl;
                    check_lane(w, lane).map_err(|e| Fault::at(t, e))?;
                    let bits = if pack {
                        let column = (taddr & 0xffff) + 2 * dc;
                        let lo =
                            *m.tensor.cell(lane, column).map_err(|e| Fault::at(t, e))? & 0xffff;
                        let hi = *m
                            .tensor
                            .cell(lane, column + 1)
                            .map_err(|e| Fault::at(t, e))?
                            & 0xffff;
                        lo | hi << 16
                    } else {
                        *m.tensor
                            .cell(lane, (taddr & 0xffff) + dc)
                            .map_err(|e| Fault::at(t, e))?
                    };
                    value[t as usize] = u64::from(bits);
                    if let Some(red) = red {
                        acc = Some(match acc {
                            None => reduce_one(red, bits),
                            Some(prev) => reduce(red, prev, bits),
                        });
                    }
                }
                reduced[t as usize] = u64::from(acc.unwrap_or(0));
            }
            for (part, value) in parts.iter().zip(&values) {
                m.write(w, part, value, active);
            }
            if red.is_some() {
                m.dst(w, inst, 1, &reduced, active);
            }
        }
        TensorOp::St { shape, num, unpack } => {
            let taddr = m.read_lane(w, &inst.src[0], first) as u32;
            let (split, data) = if shape == Shape::S16x32bx2 {
                (m.read_lane(w, &inst.src[1], first) as u32, inst.src.get(2))
            } else {
                (0, inst.src.get(1))
            };
            let regs = registers(shape, num);
            let parts = Src::elements(data);
            if parts.len() != regs as usize {
                return Err(Fault::new(format!(
                    "this shape stores {regs} registers per thread; the vector has {}",
                    parts.len()
                )));
            }
            let values: Vec<_> = parts.iter().map(|p| m.read(w, p)).collect();
            for t in lanes(active) {
                for (r, value) in values.iter().enumerate() {
                    let (dl, dc) = element(shape, t, r as u32, split);
                    let lane = (taddr >> 16) + dl;
                    check_lane(w, lane).map_err(|e| Fault::at(t, e))?;
                    let bits = value[t as usize] as u32;
                    if unpack {
                        let column = (taddr & 0xffff) + 2 * dc;
                        *m.tensor.cell(lane, column).map_err(|e| Fault::at(t, e))? = bits & 0xffff;
                        *m.tensor
                            .cell(lane, column + 1)
                            .map_err(|e| Fault::at(t, e))? = bits >> 16;
                    } else {
                        *m.tensor
                            .cell(lane, (taddr & 0xffff) + dc)
                            .map_err(|e| Fault::at(t, e))? = bits;
                    }
                }
            }
        }
    }
    Ok(())
}

fn reduce_one(red: Reduction, bits: u32) -> u32 {
    if red.ty == Ty::F32 && red.abs {
        bits & 0x7fff_ffff
    } else {
        bits
    }
}

fn reduce(red: Reduction, a: u32, b: u32) -> u32 {
    let b = reduce_one(red, b);
    match red.ty {
        Ty::F32 => {
            let op = crate::float::FloatOp {
                kind: if red.max {
                    crate::float::FloatKind::Max
                } else {
                    crate::float::FloatKind::Min
                },
                ty: Ty::F32,
                rounding: crate::softfloat::Rounding::Nearest,
                ftz: false,
                sat: false,
                relu: false,
                nan: red.nan,
                xorsign: false,
                abs: false,
                contractible: false,
                keep_sources: false,
            };
            crate::float::scalar(
                &op,
                u64::from(a),
                u64::from(b),
                0,
                false,
                crate::softfloat::F32,
            ) as u32
        }
        Ty::S32 => {
            let pick_a = ((a as i32) < (b as i32)) != red.max;
            if pick_a {
                a
            } else {
                b
            }
        }
        _ => {
            let pick_a = (a < b) != red.max;
            if pick_a {
                a
            } else {
                b
            }
        }
    }
}

/// Whether `op` takes the `.16x32bx2` split offset as its second operand.
pub(crate) fn has_split(op: &TensorOp) -> bool {
    matches!(
        op,
        TensorOp::Ld {
            shape: Shape::S16x32bx2,
            ..
        } | TensorOp::St {
            shape: Shape::S16x32bx2,
            ..
        }
    )
}

/// Which register of which thread holds each word (or 16-bit half, with
/// `.pack::16b`/`.unpack::16b`) of the Tensor Memory tile a `tcgen05.ld` or
/// `tcgen05.st` moves, from [`element`] as [`exec`] uses it: rows are lane
/// offsets from the address, columns 32-bit (or 16-bit) column offsets.
pub(crate) fn fragments(op: &TensorOp, split: u32) -> Option<Vec<crate::debug::Fragment>> {
    use crate::debug::{Fragment, Holder, Place};
    let (shape, num, packed, place) = match *op {
        TensorOp::Ld {
            shape, num, pack, ..
        } => (shape, num, pack, Place::Dst(0)),
        TensorOp::St { shape, num, unpack } => (
            shape,
            num,
            unpack,
            Place::Src(if shape == Shape::S16x32bx2 { 2 } else { 1 }),
        ),
        _ => return None,
    };
    let mut holders = Vec::new();
    for t in 0..32 {
        for r in 0..registers(shape, num) {
            let (row, col) = element(shape, t, r, split);
            if packed {
                for half in 0..2 {
                    holders.push(Holder {
                        row: row as usize,
                        col: 2 * col as usize + half,
                        lane: t,
                        reg: r as usize,
                        part: half as u32,
                    });
                }
            } else {
                holders.push(Holder {
                    row: row as usize,
                    col: col as usize,
                    lane: t,
                    reg: r as usize,
                    part: 0,
                });
            }
        }
    }
    let rows = holders.iter().map(|h| h.row + 1).max().unwrap_or(0);
    let cols = holders.iter().map(|h| h.col + 1).max().unwrap_or(0);
    let (ty, bits, unit) = if packed {
        (Ty::B16, 16, "16-bit")
    } else {
        (Ty::B32, 32, "32-bit")
    };
    Some(vec![Fragment {
        name: format!("Tensor Memory tile: {rows} lanes × {cols} {unit} columns from the address"),
        place,
        rows,
        cols,
        ty,
        bits,
        first_row: 0,
        first_col: 0,
        holders,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (lane, column) of a shape's tile is covered exactly once by the
    /// 32 threads' registers.
    #[test]
    fn every_shape_covers_its_tile_once() {
        for (shape, lanes_in_tile, columns_per_num) in [
            (Shape::S32x32b, 32, 1),
            (Shape::S16x64b, 16, 2),
            (Shape::S16x128b, 16, 4),
            (Shape::S16x256b, 16, 8),
        ] {
            for num in [1, 2, 4] {
                let mut seen = std::collections::HashSet::new();
                for t in 0..32 {
                    for r in 0..registers(shape, num) {
                        let (lane, column) = element(shape, t, r, 0);
                        assert!(lane < lanes_in_tile && column < columns_per_num * num);
                        assert!(seen.insert((lane, column)), "{shape:?} x{num}: duplicate");
                    }
                }
                assert_eq!(seen.len() as u32, lanes_in_tile * columns_per_num * num);
            }
        }
        // .16x32bx2: the second half of the warp lands at the split offset.
        assert_eq!(element(Shape::S16x32bx2, 17, 3, 64), (1, 67));
    }

    #[test]
    fn allocation_is_aligned_first_fit() {
        let mut tmem = TensorMemory::default();
        assert_eq!(tmem.allocate(32), Ok(0));
        assert_eq!(tmem.allocate(64), Ok(64));
        assert_eq!(tmem.allocate(32), Ok(32));
        assert!(tmem.allocate(48).is_err());
        assert!(tmem.cell(0, 200).is_err());
        assert!(tmem.free(64, 64).is_ok());
        assert!(tmem.free(64, 64).is_err());
    }
}
