//! Warp collectives: `shfl.sync`, `vote.sync`, `match.sync`, `redux.sync`,
//! `activemask` and `elect.sync`. The participating lanes are those that
//! execute the instruction together (and are in the member mask).

use crate::engine::{lanes, Fault, Machine};
use crate::float::{scalar, FloatKind, FloatOp};
use crate::ir::{mask, sext, Inst, Quals, Src, Ty};
use crate::softfloat::{self, Rounding};
use crate::{need, Op};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduxKind {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

#[derive(Debug, Clone, Copy)]
pub enum WarpOp {
    Shfl(ShflMode),
    Vote(VoteMode),
    Match {
        all: bool,
        bits: u32,
    },
    Redux {
        kind: ReduxKind,
        ty: Ty,
        abs: bool,
        nan: bool,
    },
    Activemask,
    Elect,
}

pub fn decode(m: &str, q: &Quals, _n_dst: usize, src: &[Src]) -> Option<Result<Op, String>> {
    let (op, n) = match m {
        "shfl" => {
            let mode = if q.has("up") {
                ShflMode::Up
            } else if q.has("down") {
                ShflMode::Down
            } else if q.has("bfly") {
                ShflMode::Bfly
            } else if q.has("idx") {
                ShflMode::Idx
            } else {
                return Some(Err("shfl needs a mode".into()));
            };
            (WarpOp::Shfl(mode), if q.has("sync") { 4 } else { 3 })
        }
        "vote" => {
            let mode = if q.has("all") {
                VoteMode::All
            } else if q.has("any") {
                VoteMode::Any
            } else if q.has("uni") {
                VoteMode::Uni
            } else if q.has("ballot") {
                VoteMode::Ballot
            } else {
                return Some(Err("vote needs a mode".into()));
            };
            (WarpOp::Vote(mode), 1)
        }
        "match" => (
            WarpOp::Match {
                all: q.has("all"),
                bits: q.ty().map_or(32, |t| t.bits().min(64)),
            },
            2,
        ),
        "redux" => {
            let kind = [
                ("add", ReduxKind::Add),
                ("min", ReduxKind::Min),
                ("max", ReduxKind::Max),
                ("and", ReduxKind::And),
                ("or", ReduxKind::Or),
                ("xor", ReduxKind::Xor),
            ]
            .iter()
            .find(|(w, _)| q.has(w))
            .map(|(_, k)| *k);
            let Some(kind) = kind else {
                return Some(Err("redux needs an operation".into()));
            };
            (
                WarpOp::Redux {
                    kind,
                    ty: q.ty().unwrap_or(Ty::U32),
                    abs: q.has("abs"),
                    nan: q.has("NaN"),
                },
                2,
            )
        }
        "activemask" => (WarpOp::Activemask, 0),
        "elect" => (WarpOp::Elect, 1),
        _ => return None,
    };
    if let Err(e) = need(src, n) {
        return Some(Err(e));
    }
    Some(Ok(Op::Warp(op)))
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &WarpOp,
    active: u32,
) -> Result<(), Fault> {
    let mut d = [0u64; 32];
    let mut p = [0u64; 32];
    match *op {
        WarpOp::Shfl(mode) => {
            let a = m.src(w, inst, 0);
            let b = m.src(w, inst, 1);
            let c = m.src(w, inst, 2);
            for lane in lanes(active) {
                let l = lane as usize;
                let bval = (b[l] & 0x1f) as u32;
                let cval = (c[l] & 0x1f) as u32;
                let segmask = (c[l] >> 8 & 0x1f) as u32;
                let max_lane = (lane & segmask) | (cval & !segmask);
                let min_lane = lane & segmask;
                let (j, ok) = match mode {
                    ShflMode::Up => {
                        let j = lane as i32 - bval as i32;
                        (j, j >= max_lane as i32)
                    }
                    ShflMode::Down => {
                        let j = (lane + bval) as i32;
                        (j, j <= max_lane as i32)
                    }
                    ShflMode::Bfly => {
                        let j = (lane ^ bval) as i32;
                        (j, j <= max_lane as i32)
                    }
                    ShflMode::Idx => {
                        let j = (min_lane | (bval & !segmask)) as i32;
                        (j, j <= max_lane as i32)
                    }
                };
                let source = if ok { j as usize & 31 } else { l };
                // A source lane that does not execute this shfl gives 0 on
                // the GPU (measured under divergence: fixtures/gpu_patterns.jsonl).
                d[l] = if active >> source & 1 == 1 {
                    a[source]
                } else {
                    0
                };
                p[l] = u64::from(ok);
            }
        }
        WarpOp::Vote(mode) => {
            let a = m.src(w, inst, 0);
            let members = active & member_mask(m, w, inst, 1, active);
            let ballot = lanes(members)
                .filter(|&l| a[l as usize] & 1 == 1)
                .fold(0u32, |acc, l| acc | 1 << l);
            let value = match mode {
                VoteMode::All => u64::from(ballot == members),
                VoteMode::Any => u64::from(ballot != 0),
                VoteMode::Uni => u64::from(ballot == members || ballot == 0),
                VoteMode::Ballot => u64::from(ballot),
            };
            d = [value; 32];
        }
        WarpOp::Match { all, bits } => {
            let a = m.src(w, inst, 0);
            let members = active & member_mask(m, w, inst, 1, active);
            let mk = mask(bits);
            let all_equal = lanes(members)
                .all(|l| a[l as usize] & mk == a[members.trailing_zeros() as usize & 31] & mk);
            for lane in lanes(active) {
                let l = lane as usize;
                if all {
                    d[l] = if all_equal { u64::from(members) } else { 0 };
                    p[l] = u64::from(all_equal);
                } else {
                    d[l] = u64::from(
                        lanes(members)
                            .filter(|&o| a[o as usize] & mk == a[l] & mk)
                            .fold(0u32, |acc, o| acc | 1 << o),
                    );
                }
            }
        }
        WarpOp::Redux { kind, ty, abs, nan } => {
            let a = m.src(w, inst, 0);
            let members = active & member_mask(m, w, inst, 1, active);
            let value = redux(kind, ty, abs, nan, lanes(members).map(|l| a[l as usize]));
            d = [value; 32];
        }
        WarpOp::Activemask => d = [u64::from(active); 32],
        WarpOp::Elect => {
            let members = active & member_mask(m, w, inst, 0, active);
            let leader = members.trailing_zeros();
            for lane in lanes(active) {
                d[lane as usize] = u64::from(leader.min(31));
                p[lane as usize] = u64::from(lane == leader);
            }
            // `elect.sync d|p`: d is the leader's lane, p says whether this lane leads.
            m.dst(w, inst, 0, &d, active);
            m.dst(w, inst, 1, &p, active);
            return Ok(());
        }
    }
    m.dst(w, inst, 0, &d, active);
    m.dst(w, inst, 1, &p, active);
    Ok(())
}

/// The member mask as the executing lanes hold it: every lane names the
/// same mask (the spec leaves differing masks undefined), so the lowest
/// executing lane's register is read. Lanes outside a divergent branch may
/// hold anything there.
fn member_mask(m: &Machine<'_>, w: usize, inst: &Inst, index: usize, active: u32) -> u32 {
    let lane = active.trailing_zeros().min(31);
    inst.src
        .get(index)
        .map_or(u32::MAX, |s| m.read_lane(w, s, lane) as u32)
}

fn redux(kind: ReduxKind, ty: Ty, abs: bool, nan: bool, values: impl Iterator<Item = u64>) -> u64 {
    if ty == Ty::F32 {
        let op = FloatOp {
            kind: if kind == ReduxKind::Max {
                FloatKind::Max
            } else {
                FloatKind::Min
            },
            ty,
            rounding: Rounding::Nearest,
            ftz: false,
            sat: false,
            relu: false,
            nan,
            xorsign: false,
            abs: false,
            contractible: false,
            keep_sources: false,
        };
        let format = softfloat::F32;
        return values
            .map(|v| {
                if abs {
                    format.abs(v & 0xffff_ffff)
                } else {
                    v & 0xffff_ffff
                }
            })
            .reduce(|x, y| scalar(&op, x, y, 0, false, format))
            .unwrap_or(0);
    }
    let values = values.map(|v| v & 0xffff_ffff);
    let signed = ty.is_signed();
    match kind {
        ReduxKind::Add => values.fold(0u64, |acc, v| acc.wrapping_add(v)) & 0xffff_ffff,
        ReduxKind::And => values.fold(0xffff_ffff, |acc, v| acc & v),
        ReduxKind::Or => values.fold(0, |acc, v| acc | v),
        ReduxKind::Xor => values.fold(0, |acc, v| acc ^ v),
        ReduxKind::Min | ReduxKind::Max => {
            let key = |v: u64| if signed { sext(v, 32) } else { v as i64 };
            let best = if kind == ReduxKind::Min {
                values.min_by_key(|&v| key(v))
            } else {
                values.max_by_key(|&v| key(v))
            };
            best.unwrap_or(0)
        }
    }
}
