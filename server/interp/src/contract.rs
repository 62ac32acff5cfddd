//! ptxas's contraction of a multiply and an add into one fused
//! multiply-add, applied to a decoded program so that a run gives what the
//! GPU runs (`run` turns it off with `contract: false`).
//!
//! The rules, read from ptxas's sm_90 machine code and checked on the GPU
//! (`tests/interp/contraction.py`, `fixtures/gpu_contraction.jsonl`):
//!
//! - A `mul` (f32 with or without `.ftz`, f64, f16, bf16, f16x2, bf16x2) with
//!   no rounding modifier, no `.sat` and no guard, or a `div.full.f32` /
//!   `div.approx.f32` (whose last step is a multiply by the reciprocal), is
//!   fused into the `add`/`sub` that use its result when every use of the
//!   result is such an `add`/`sub` of the same type with no rounding
//!   modifier and the same `.ftz`, in the same basic block (branch targets
//!   and the instruction after a branch, `ret`, `exit` or `call` start one;
//!   an unused label or `bar.sync` does not), that takes it as one operand.
//!   One more use of any other kind (a store, a `mov`, a comparison, both
//!   operands of one add, a use in another block) keeps the multiply.
//! - The add may carry `.sat` (`FFMA.SAT`) and a guard.
//! - An add of two such products fuses its first operand; the other product
//!   then has a use that is not fused, so it is rounded on its own.
//! - The fused operation reads the multiply's operands as they were at the
//!   multiply (hidden copies when a register is written in between).

use std::collections::HashMap;

use crate::decode::{Program, Slot};
use crate::float::{FloatKind, FloatOp};
use crate::ir::{Dst, RegInfo, Src, Ty};
use crate::Op;

/// A multiply (or divide) that may be fused, or a `neg` of one.
struct Product {
    at: usize,
    /// The multiply whose operands the fused adds take.
    origin: usize,
    /// A `neg` of the multiply's result: the product is negated.
    negated: bool,
    dst: u32,
    /// The instructions that read its result, in order (each once).
    uses: Vec<usize>,
}

/// Fuses what ptxas fuses; returns the number of adds rewritten.
pub fn apply(program: &mut Program) -> usize {
    let n = program.insts.len();
    let block = blocks(program);
    // The instructions that read each register.
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); program.regs.len()];
    for (i, inst) in program.insts.iter().enumerate() {
        let mut regs = Vec::new();
        read_regs(inst, &mut regs);
        regs.sort_unstable();
        regs.dedup();
        for r in regs {
            if let Some(list) = readers.get_mut(r as usize) {
                list.push(i);
            }
        }
    }
    let mut block_start = vec![0usize; n];
    for i in 1..n {
        block_start[i] = if block[i] == block[i - 1] {
            block_start[i - 1]
        } else {
            i
        };
    }
    // A read of `reg` at `i` that an earlier write in its own block covers
    // cannot see a value from elsewhere.
    let mut writers: Vec<Vec<usize>> = vec![Vec::new(); program.regs.len()];
    for (i, inst) in program.insts.iter().enumerate() {
        let mut regs = Vec::new();
        write_regs(inst, &mut regs);
        for r in regs {
            if let Some(list) = writers.get_mut(r as usize) {
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
    }
    let covered = |reg: u32, i: usize| {
        let list = &writers[reg as usize];
        let first = list.partition_point(|&w| w < block_start[i]);
        list.get(first).is_some_and(|&w| w < i)
    };
    let mut products: Vec<Product> = Vec::new();
    for at in 0..n {
        let inst = &program.insts[at];
        let Op::Float(op) = &inst.op else { continue };
        if inst.guard.is_some() || inst.dst.len() != 1 {
            continue;
        }
        let Dst::Reg(dst) = inst.dst[0] else { continue };
        // A product, or a `neg` whose operand is a product used only there.
        let (origin, negated) = if is_product(op) {
            (at, false)
        } else if op.kind == FloatKind::Neg {
            let Some(Src::Reg(t)) = inst.src.first() else {
                continue;
            };
            match products
                .iter()
                .find(|p| p.dst == *t && p.uses == [at] && !p.negated)
            {
                Some(p) => match &program.insts[p.origin].op {
                    Op::Float(mul) if mul.ty == op.ty && mul.ftz == op.ftz => (p.origin, true),
                    _ => continue,
                },
                None => continue,
            }
        } else {
            continue;
        };
        // Uses up to the next write of the register within the block; a
        // read anywhere else that no write of its own block covers keeps it.
        let mut uses = Vec::new();
        let mut end = at + 1;
        let mut redefined = false;
        while end < n && block[end] == block[at] {
            let i = &program.insts[end];
            if reads(i, dst) {
                uses.push(end);
            }
            end += 1;
            if writes(i, dst) {
                redefined = true;
                break;
            }
        }
        // A write later in the block ends the value there; otherwise a read
        // elsewhere that no earlier write of its own block covers may see it.
        let escapes = !redefined
            && readers[dst as usize]
                .iter()
                .any(|&i| (i <= at || i >= end) && !covered(dst, i));
        if escapes || uses.is_empty() {
            continue;
        }
        products.push(Product {
            at,
            origin,
            negated,
            dst,
            uses,
        });
    }
    // Which product each add fuses: its first operand's if that is a
    // candidate, else its second's. Products with a use that does not fuse
    // them drop out until nothing changes.
    let mut alive = vec![true; products.len()];
    // The product each (instruction, register) read refers to.
    let mut reaching: HashMap<(usize, u32), usize> = HashMap::new();
    for (p, product) in products.iter().enumerate() {
        for &u in &product.uses {
            reaching.insert((u, product.dst), p);
        }
    }
    let choice = |alive: &[bool], add: usize| -> Option<usize> {
        let inst = &program.insts[add];
        for operand in 0..2 {
            let Some(Src::Reg(r)) = inst.src.get(operand) else {
                continue;
            };
            if let Some(&p) = reaching.get(&(add, *r)) {
                if alive[p] {
                    return Some(p);
                }
            }
        }
        None
    };
    // The negated product (a `neg` of a multiply) at each instruction.
    let through: HashMap<usize, usize> = products
        .iter()
        .enumerate()
        .filter(|(_, q)| q.negated)
        .map(|(q, other)| (other.at, q))
        .collect();
    loop {
        let mut changed = false;
        for p in 0..products.len() {
            if !alive[p] {
                continue;
            }
            let product = &products[p];
            let Op::Float(mul) = &program.insts[product.at].op else {
                continue;
            };
            if product.negated
                && !alive
                    .iter()
                    .zip(&products)
                    .any(|(&a, q)| a && q.uses == [product.at])
            {
                // The multiply under this `neg` is no longer a candidate.
                alive[p] = false;
                changed = true;
                continue;
            }
            let fine = product.uses.iter().all(|&u| {
                // Fused through the `neg` that uses it.
                let through_neg = through
                    .get(&u)
                    .is_some_and(|&q| alive[q] && products[q].origin == product.origin);
                if through_neg {
                    return true;
                }
                let inst = &program.insts[u];
                let Op::Float(add) = &inst.op else {
                    return false;
                };
                let once = inst
                    .src
                    .iter()
                    .filter(|s| matches!(s, Src::Reg(r) if *r == product.dst))
                    .count()
                    == 1;
                is_sum(add)
                    && add.ty == mul.ty
                    && add.ftz == mul.ftz
                    && once
                    && inst.src.len() == 2
                    && choice(&alive, u) == Some(p)
            });
            if !fine {
                alive[p] = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut rewritten = 0;
    for (p, product) in products.iter().enumerate() {
        if !alive[p] {
            continue;
        }
        if product.uses.iter().all(|&u| {
            !matches!(
                program.insts[u].op,
                Op::Float(FloatOp {
                    kind: FloatKind::Add | FloatKind::Sub,
                    ..
                })
            )
        }) {
            // A multiply fused through the `neg` that uses it.
            continue;
        }
        let mul_inst = program.insts[product.origin].clone();
        let Op::Float(mul) = mul_inst.op else {
            continue;
        };
        // The multiply's operands as the adds must see them.
        let last_use = product.uses.iter().copied().max().unwrap_or(product.at);
        let sources_change = mul_inst.src.iter().take(2).any(|s| match s {
            Src::Reg(r) => (product.origin..last_use).any(|i| writes(&program.insts[i], *r)),
            _ => false,
        });
        let operands: Vec<Src> = if sources_change {
            let function = program.regs[product.dst as usize].function;
            let copies: Vec<Src> = (0..2)
                .map(|k| {
                    let reg = program.regs.len() as u32;
                    program.regs.push(RegInfo {
                        name: format!("%contracted{}.{k}", product.at),
                        ty: program.regs[product.dst as usize].ty,
                        function,
                        nested: true,
                    });
                    Src::Reg(reg)
                })
                .collect();
            let inst = &mut program.insts[product.origin];
            for copy in &copies {
                if let Src::Reg(r) = copy {
                    inst.dst.push(Dst::Reg(*r));
                }
            }
            if let Op::Float(op) = &mut inst.op {
                op.keep_sources = true;
            }
            copies
        } else {
            mul_inst.src.iter().take(2).cloned().collect()
        };
        let divide = match mul.kind {
            FloatKind::DivFull => Some(true),
            FloatKind::DivApprox => Some(false),
            _ => None,
        };
        for &u in &product.uses {
            let inst = &mut program.insts[u];
            let Op::Float(add) = inst.op else { continue };
            let first = matches!(inst.src[0], Src::Reg(r) if r == product.dst);
            let addend = inst.src[usize::from(first)].clone();
            let subtract = add.kind == FloatKind::Sub;
            inst.op = Op::Float(FloatOp {
                kind: FloatKind::Contracted {
                    // c - a·b: the product negated; a·b - c: the addend.
                    negate_product: (subtract && !first) != product.negated,
                    negate_addend: subtract && first,
                    divide,
                },
                ..add
            });
            inst.src = vec![operands[0].clone(), operands[1].clone(), addend];
            rewritten += 1;
        }
    }
    rewritten
}

fn is_product(op: &FloatOp) -> bool {
    let types = matches!(
        op.ty,
        Ty::F32 | Ty::F64 | Ty::F16 | Ty::Bf16 | Ty::F16x2 | Ty::Bf16x2
    );
    match op.kind {
        FloatKind::Mul => op.contractible && types && !op.sat && !op.relu,
        FloatKind::DivFull | FloatKind::DivApprox => op.ty == Ty::F32,
        _ => false,
    }
}

fn is_sum(op: &FloatOp) -> bool {
    matches!(op.kind, FloatKind::Add | FloatKind::Sub) && op.contractible && !op.relu
}

/// Basic-block number of each instruction.
fn blocks(program: &Program) -> Vec<u32> {
    let n = program.insts.len();
    let mut starts = vec![false; n + 1];
    for f in &program.functions {
        starts[(f.start as usize).min(n)] = true;
    }
    for (i, inst) in program.insts.iter().enumerate() {
        match &inst.op {
            Op::Bra => {
                if let Some(Src::Target(t)) = inst.src.first() {
                    starts[(*t as usize).min(n)] = true;
                }
                starts[i + 1] = true;
            }
            Op::Ret | Op::Exit | Op::Call { .. } | Op::CallIndirect { .. } => starts[i + 1] = true,
            _ => {}
        }
    }
    let mut block = 0;
    (0..n)
        .map(|i| {
            if starts[i] {
                block += 1;
            }
            block
        })
        .collect()
}

fn src_reads(src: &Src, reg: u32) -> bool {
    match src {
        Src::Reg(r) | Src::NotReg(r) => *r == reg,
        Src::Vector(items) => items.iter().any(|s| src_reads(s, reg)),
        Src::Addr(a) => a.base == Some(reg),
        _ => false,
    }
}

fn src_regs(src: &Src, out: &mut Vec<u32>) {
    match src {
        Src::Reg(r) | Src::NotReg(r) => out.push(*r),
        Src::Vector(items) => items.iter().for_each(|s| src_regs(s, out)),
        Src::Addr(a) => out.extend(a.base),
        _ => {}
    }
}

/// Every register an instruction reads.
fn read_regs(inst: &crate::ir::Inst, out: &mut Vec<u32>) {
    out.extend(inst.guard.map(|(g, _)| g));
    inst.src.iter().for_each(|s| src_regs(s, out));
    let slots = match &inst.op {
        Op::Call { args, .. } => args.as_slice(),
        Op::CallIndirect { reg, args, .. } => {
            out.push(*reg);
            args.as_slice()
        }
        _ => &[],
    };
    out.extend(slots.iter().filter_map(|s| match s {
        Slot::Reg(r) => Some(*r),
        _ => None,
    }));
}

fn slots_have(slots: &[Slot], reg: u32) -> bool {
    slots.iter().any(|s| matches!(s, Slot::Reg(r) if *r == reg))
}

fn reads(inst: &crate::ir::Inst, reg: u32) -> bool {
    inst.guard.is_some_and(|(g, _)| g == reg)
        || inst.src.iter().any(|s| src_reads(s, reg))
        || match &inst.op {
            Op::Call { args, .. } => slots_have(args, reg),
            Op::CallIndirect { reg: r, args, .. } => *r == reg || slots_have(args, reg),
            _ => false,
        }
}

fn dst_writes(dst: &Dst, reg: u32) -> bool {
    match dst {
        Dst::Reg(r) => *r == reg,
        Dst::Vector(items) => items.iter().any(|d| dst_writes(d, reg)),
        Dst::Sink => false,
    }
}

fn dst_regs(dst: &Dst, out: &mut Vec<u32>) {
    match dst {
        Dst::Reg(r) => out.push(*r),
        Dst::Vector(items) => items.iter().for_each(|d| dst_regs(d, out)),
        Dst::Sink => {}
    }
}

/// Every register an instruction writes.
fn write_regs(inst: &crate::ir::Inst, out: &mut Vec<u32>) {
    inst.dst.iter().for_each(|d| dst_regs(d, out));
    if let Op::Call { rets, .. } | Op::CallIndirect { rets, .. } = &inst.op {
        out.extend(rets.iter().filter_map(|s| match s {
            Slot::Reg(r) => Some(*r),
            _ => None,
        }));
    }
}

fn writes(inst: &crate::ir::Inst, reg: u32) -> bool {
    inst.dst.iter().any(|d| dst_writes(d, reg))
        || match &inst.op {
            Op::Call { rets, .. } | Op::CallIndirect { rets, .. } => slots_have(rets, reg),
            _ => false,
        }
}
