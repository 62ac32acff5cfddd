//! Clusters of one CTA: `mapa` to the CTA's own rank. The interpreter runs
//! every CTA as its own cluster (`%cluster_nctarank` is 1, `%clusterid` is
//! `%ctaid`), so a `.shared::cluster` address names the CTA's own shared
//! memory and `mapa` of rank 0 returns its address unchanged.

use crate::engine::{lanes, Fault, Machine};
use crate::ir::{Inst, Quals, Src};
use crate::Op;

#[derive(Debug, Clone)]
pub enum ClusterOp {
    Mapa,
}

pub fn decode(m: &str, _q: &Quals, src: &[Src]) -> Option<Result<Op, String>> {
    if m != "mapa" {
        return None;
    }
    if src.len() < 2 {
        return Some(Err("mapa needs an address and a CTA rank".into()));
    }
    Some(Ok(Op::Cluster(ClusterOp::Mapa)))
}

pub fn exec(
    m: &mut Machine<'_>,
    w: usize,
    inst: &Inst,
    op: &ClusterOp,
    active: u32,
) -> Result<(), Fault> {
    let ClusterOp::Mapa = op;
    let mut out = [0u64; 32];
    for lane in lanes(active) {
        let rank = m.read_lane(w, &inst.src[1], lane) & 0xffff_ffff;
        if rank != 0 {
            return Err(Fault::at(
                lane,
                format!(
                    "mapa: CTA rank {rank} is outside the cluster (the interpreter runs every \
                     CTA as a cluster of one)"
                ),
            ));
        }
        out[lane as usize] = m.read_lane(w, &inst.src[0], lane);
    }
    if let Some(dst) = inst.dst.first() {
        m.write(w, dst, &out, active);
    }
    Ok(())
}
