//! Tensor Memory (tcgen05): allocation and data movement.

use crate::engine::{Fault, Machine};
use crate::ir::{Inst, Quals, Src};
use crate::Op;

#[derive(Debug, Clone, Default)]
pub struct TensorMemory {}

#[derive(Debug, Clone, Copy)]
pub enum TensorOp {}

pub fn decode(_m: &str, _q: &Quals, _src: &[Src]) -> Option<Result<Op, String>> {
    None
}

pub fn exec(_m: &mut Machine<'_>, _w: usize, _inst: &Inst, op: &TensorOp, _active: u32) -> Result<(), Fault> {
    match *op {}
}
