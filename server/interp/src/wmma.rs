//! Warp-level matrix multiply-accumulate (wmma) fragments.

use crate::engine::{Fault, Machine};
use crate::ir::{Inst, Quals, Src};
use crate::Op;

#[derive(Debug, Clone, Copy)]
pub enum WmmaOp {}

pub fn decode(_m: &str, _q: &Quals, _src: &[Src]) -> Option<Result<Op, String>> {
    None
}

pub fn exec(_m: &mut Machine<'_>, _w: usize, _inst: &Inst, op: &WmmaOp, _active: u32) -> Result<(), Fault> {
    match *op {}
}
