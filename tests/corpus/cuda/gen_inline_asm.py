#!/usr/bin/env python3
"""Writes inline_asm_cases.cu: one kernel per inline-asm statement, valid forms of the
instruction families and systematic mutations of them. Deterministic (no randomness).

usage: gen_inline_asm.py > inline_asm_cases.cu
Each kernel starts with a line `// case NAME`; label_inline_asm.sh compiles every case alone
with nvcc for sm_80, sm_90a and sm_100a and writes inline_asm_labels.tsv.
"""
import re

# (name, template, operand letters: '=r' output, '+r' read-write, 'r' input, 'n' immediate)
BASE = [
    ("add_u32", "add.u32 %0, %1, %2;", "=r r r"),
    ("add_s64", "add.s64 %0, %1, %2;", "=l l l"),
    ("sub_f32", "sub.f32 %0, %1, %2;", "=f f f"),
    ("mul_lo_u32", "mul.lo.u32 %0, %1, %2;", "=r r r"),
    ("mul_wide_u32", "mul.wide.u32 %0, %1, %2;", "=l r r"),
    ("mad_lo_s32", "mad.lo.s32 %0, %1, %2, %3;", "=r r r r"),
    ("mad_hi_u64", "mad.hi.u64 %0, %1, %2, %3;", "=l l l l"),
    ("fma_rn_f32", "fma.rn.f32 %0, %1, %2, %3;", "=f f f f"),
    ("fma_rn_f64", "fma.rn.f64 %0, %1, %2, %3;", "=d d d d"),
    ("fma_rn_f16x2", "fma.rn.f16x2 %0, %1, %2, %3;", "=r r r r"),
    ("fma_rn_f16", "fma.rn.f16 %0, %1, %2, %3;", "=h h h h"),
    ("fma_rn_bf16x2", "fma.rn.bf16x2 %0, %1, %2, %3;", "=r r r r"),
    ("add_f16x2", "add.f16x2 %0, %1, %2;", "=r r r"),
    ("hadd2_rn", "add.rn.f16x2 %0, %1, %2;", "=r r r"),
    ("div_rn_f32", "div.rn.f32 %0, %1, %2;", "=f f f"),
    ("div_approx_f32", "div.approx.f32 %0, %1, %2;", "=f f f"),
    ("rcp_approx_f32", "rcp.approx.ftz.f32 %0, %1;", "=f f"),
    ("rcp_rn_f64", "rcp.rn.f64 %0, %1;", "=d d"),
    ("sqrt_rn_f32", "sqrt.rn.f32 %0, %1;", "=f f"),
    ("rsqrt_approx", "rsqrt.approx.f32 %0, %1;", "=f f"),
    ("ex2_approx", "ex2.approx.ftz.f32 %0, %1;", "=f f"),
    ("lg2_approx", "lg2.approx.f32 %0, %1;", "=f f"),
    ("sin_approx", "sin.approx.f32 %0, %1;", "=f f"),
    ("tanh_approx", "tanh.approx.f32 %0, %1;", "=f f"),
    ("min_s32", "min.s32 %0, %1, %2;", "=r r r"),
    ("max_f32", "max.f32 %0, %1, %2;", "=f f f"),
    ("min_f16x2", "min.f16x2 %0, %1, %2;", "=r r r"),
    ("abs_s32", "abs.s32 %0, %1;", "=r r"),
    ("neg_f64", "neg.f64 %0, %1;", "=d d"),
    ("and_b32", "and.b32 %0, %1, %2;", "=r r r"),
    ("or_b64", "or.b64 %0, %1, %2;", "=l l l"),
    ("xor_b16", "xor.b16 %0, %1, %2;", "=h h h"),
    ("not_b32", "not.b32 %0, %1;", "=r r"),
    ("shl_b32", "shl.b32 %0, %1, %2;", "=r r r"),
    ("shr_u64", "shr.u64 %0, %1, %2;", "=l l r"),
    ("shf_l_wrap", "shf.l.wrap.b32 %0, %1, %2, %3;", "=r r r r"),
    ("lop3", "lop3.b32 %0, %1, %2, %3, 0x96;", "=r r r r"),
    ("prmt", "prmt.b32 %0, %1, %2, %3;", "=r r r r"),
    ("bfe_u32", "bfe.u32 %0, %1, %2, %3;", "=r r r r"),
    ("bfi_b32", "bfi.b32 %0, %1, %2, %3, %4;", "=r r r r r"),
    ("popc_b64", "popc.b64 %0, %1;", "=r l"),
    ("clz_b32", "clz.b32 %0, %1;", "=r r"),
    ("brev_b32", "brev.b32 %0, %1;", "=r r"),
    ("bfind_u32", "bfind.u32 %0, %1;", "=r r"),
    ("fns_b32", "fns.b32 %0, %1, %2, %3;", "=r r r r"),
    ("dp4a", "dp4a.u32.u32 %0, %1, %2, %3;", "=r r r r"),
    ("dp2a", "dp2a.lo.s32.s32 %0, %1, %2, %3;", "=r r r r"),
    ("sad_u32", "sad.u32 %0, %1, %2, %3;", "=r r r r"),
    ("cvt_rn_f32_s32", "cvt.rn.f32.s32 %0, %1;", "=f r"),
    ("cvt_rzi_s32_f32", "cvt.rzi.s32.f32 %0, %1;", "=r f"),
    ("cvt_f64_f32", "cvt.f64.f32 %0, %1;", "=d f"),
    ("cvt_rn_f16_f32", "cvt.rn.f16.f32 %0, %1;", "=h f"),
    ("cvt_f32_f16", "cvt.f32.f16 %0, %1;", "=f h"),
    ("cvt_rn_f16x2_f32", "cvt.rn.f16x2.f32 %0, %1, %2;", "=r f f"),
    ("cvt_rn_bf16x2_f32", "cvt.rn.bf16x2.f32 %0, %1, %2;", "=r f f"),
    ("cvt_u64_u32", "cvt.u64.u32 %0, %1;", "=l r"),
    ("cvt_u32_u64", "cvt.u32.u64 %0, %1;", "=r l"),
    ("cvt_rna_tf32", "cvt.rna.tf32.f32 %0, %1;", "=r f"),
    ("cvt_e4m3x2", "cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;", "=h f f"),
    ("cvt_e2m1x2", "cvt.rn.satfinite.e2m1x2.f32 %0, %1, %2;", "=h f f"),
    ("mov_b32", "mov.b32 %0, %1;", "=r r"),
    ("mov_b64_pack", "mov.b64 %0, {%1, %2};", "=l r r"),
    ("mov_b64_unpack", "mov.b64 {%0, %1}, %2;", "=r =r l"),
    ("mov_b32_pack_h", "mov.b32 %0, {%1, %2};", "=r h h"),
    ("mov_laneid", "mov.u32 %0, %%laneid;", "=r"),
    ("mov_tid", "mov.u32 %0, %%tid.x;", "=r"),
    ("mov_clock64", "mov.u64 %0, %%clock64;", "=l"),
    ("mov_smid", "mov.u32 %0, %%smid;", "=r"),
    ("mov_clusterid", "mov.u32 %0, %%cluster_ctarank;", "=r"),
    ("mov_imm", "mov.u32 %0, %1;", "=r n"),
    ("selp_b32", "{ .reg .pred p; setp.ne.u32 p, %1, 0; selp.b32 %0, %2, %3, p; }", "=r r r r"),
    ("setp_f32", "{ .reg .pred p; setp.lt.f32 p, %1, %2; selp.u32 %0, 1, 0, p; }", "=r f f"),
    ("set_u32_f32", "set.gt.u32.f32 %0, %1, %2;", "=r f f"),
    ("slct", "slct.s32.s32 %0, %1, %2, %3;", "=r r r r"),
    ("ld_global_u32", "ld.global.u32 %0, [%1];", "=r l"),
    ("ld_global_v4_f32", "ld.global.v4.f32 {%0, %1, %2, %3}, [%4];", "=f =f =f =f l"),
    ("ld_global_v2_u64", "ld.global.v2.u64 {%0, %1}, [%2];", "=l =l l"),
    ("ld_global_nc", "ld.global.nc.u32 %0, [%1];", "=r l"),
    ("ld_global_L1_no_alloc", "ld.global.L1::no_allocate.b32 %0, [%1];", "=r l"),
    ("ld_global_L2_128B", "ld.global.L2::128B.b32 %0, [%1];", "=r l"),
    ("ld_acquire_gpu", "ld.acquire.gpu.global.u32 %0, [%1];", "=r l"),
    ("ld_relaxed_sys", "ld.relaxed.sys.global.u64 %0, [%1];", "=l l"),
    ("ld_volatile", "ld.volatile.global.u32 %0, [%1];", "=r l"),
    ("ld_shared_u32", "ld.shared.u32 %0, [%1];", "=r r"),
    ("ld_shared_v2_b32", "ld.shared.v2.b32 {%0, %1}, [%2];", "=r =r r"),
    ("ld_global_off", "ld.global.u32 %0, [%1+16];", "=r l"),
    ("ld_generic", "ld.u32 %0, [%1];", "=r l"),
    ("ld_b16", "ld.global.b16 %0, [%1];", "=h l"),
    ("ld_u8_to_r", "ld.global.u8 %0, [%1];", "=r l"),
    ("ld_global_v8_f32", "ld.global.v8.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];", "=f =f =f =f =f =f =f =f l"),
    ("st_global_u32", "st.global.u32 [%0], %1;", "l r"),
    ("st_global_v2_f64", "st.global.v2.f64 [%0], {%1, %2};", "l d d"),
    ("st_shared_u16", "st.shared.u16 [%0], %1;", "r h"),
    ("st_release_gpu", "st.release.gpu.global.u32 [%0], %1;", "l r"),
    ("st_global_wb", "st.global.wb.u32 [%0], %1;", "l r"),
    ("st_v4_b32", "st.global.v4.b32 [%0], {%1, %2, %3, %4};", "l r r r r"),
    ("cvta_to_shared", "cvta.to.shared.u64 %0, %1;", "=l l"),
    ("cvta_shared_u32", "cvta.to.shared.u32 %0, %1;", "=r r"),
    ("isspacep", "{ .reg .pred p; isspacep.shared p, %1; selp.u32 %0, 1, 0, p; }", "=r l"),
    ("prefetch_l2", "prefetch.global.L2 [%0];", "l"),
    ("prefetch_evict", "prefetch.global.L2::evict_last [%0];", "l"),
    ("atom_add_u32", "atom.global.add.u32 %0, [%1], %2;", "=r l r"),
    ("atom_add_f32", "atom.global.add.f32 %0, [%1], %2;", "=f l f"),
    ("atom_cas_b64", "atom.global.cas.b64 %0, [%1], %2, %3;", "=l l l l"),
    ("atom_exch_shared", "atom.shared.exch.b32 %0, [%1], %2;", "=r r r"),
    ("atom_acq_rel", "atom.acq_rel.gpu.global.add.u32 %0, [%1], %2;", "=r l r"),
    ("atom_add_f16x2", "atom.global.add.noftz.f16x2 %0, [%1], %2;", "=r l r"),
    ("atom_add_v2_f32", "atom.global.v2.f32.add {%0, %1}, [%2], {%3, %4};", "=f =f l f f"),
    ("red_add_u64", "red.global.add.u64 [%0], %1;", "l l"),
    ("red_release", "red.release.gpu.global.add.u32 [%0], %1;", "l r"),
    ("red_async", "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];", "r r r"),
    ("fence_acq_rel", "fence.acq_rel.gpu;", ""),
    ("fence_sc_sys", "fence.sc.sys;", ""),
    ("fence_proxy_async", "fence.proxy.async.shared::cta;", ""),
    ("fence_mbarrier_init", "fence.mbarrier_init.release.cluster;", ""),
    ("membar_gl", "membar.gl;", ""),
    ("bar_sync", "bar.sync 0;", ""),
    ("bar_sync_count", "bar.sync %0, %1;", "r r"),
    ("barrier_sync_aligned", "barrier.sync.aligned 1;", ""),
    ("bar_arrive", "bar.arrive 1, 64;", ""),
    ("bar_red_popc", "bar.red.popc.u32 %0, 0, %1;", "=r r"),
    ("barrier_cluster", "barrier.cluster.arrive;\n\tbarrier.cluster.wait;", ""),
    ("shfl_sync_bfly", "shfl.sync.bfly.b32 %0, %1, %2, 0x1f, %3;", "=r r r r"),
    ("shfl_sync_idx", "shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;", "=r r r"),
    ("vote_ballot", "{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }", "=r r"),
    ("match_any", "match.any.sync.b32 %0, %1, 0xffffffff;", "=r r"),
    ("redux_add", "redux.sync.add.u32 %0, %1, 0xffffffff;", "=r r"),
    ("redux_f32", "redux.sync.max.f32 %0, %1, 0xffffffff;", "=f f"),
    ("activemask", "activemask.b32 %0;", "=r"),
    ("elect_sync", "{ .reg .pred p; elect.sync %0|p, 0xffffffff; }", "=r"),
    ("nanosleep", "nanosleep.u32 %0;", "r"),
    ("trap", "trap;", ""),
    ("pmevent", "pmevent 1;", ""),
    ("griddep_wait", "griddepcontrol.wait;", ""),
    ("griddep_launch", "griddepcontrol.launch_dependents;", ""),
    ("setmaxnreg_inc", "setmaxnreg.inc.sync.aligned.u32 240;", ""),
    ("setmaxnreg_dec", "setmaxnreg.dec.sync.aligned.u32 40;", ""),
    ("mapa", "mapa.shared::cluster.u32 %0, %1, %2;", "=r r r"),
    ("getctarank", "getctarank.shared::cluster.u32 %0, %1;", "=r r"),
    ("mbarrier_init", "mbarrier.init.shared::cta.b64 [%0], %1;", "r r"),
    ("mbarrier_arrive", "mbarrier.arrive.shared::cta.b64 %0, [%1];", "=l r"),
    ("mbarrier_arrive_sink", "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];", "r"),
    ("mbarrier_expect_tx", "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;", "r r"),
    ("mbarrier_try_wait", "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }", "=r r r"),
    ("mbarrier_test_wait", "{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }", "=r r l"),
    ("cp_async_ca", "cp.async.ca.shared.global [%0], [%1], 16;", "r l"),
    ("cp_async_cg", "cp.async.cg.shared.global [%0], [%1], 16, %2;", "r l r"),
    ("cp_async_commit", "cp.async.commit_group;", ""),
    ("cp_async_wait", "cp.async.wait_group 0;", ""),
    ("cp_async_wait_all", "cp.async.wait_all;", ""),
    ("cp_async_bulk_g2s", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];", "r l r r"),
    ("cp_async_bulk_s2g", "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;", "l r r"),
    ("cp_async_bulk_commit", "cp.async.bulk.commit_group;", ""),
    ("cp_async_bulk_wait", "cp.async.bulk.wait_group.read 0;", ""),
    ("cp_async_bulk_tensor_2d", "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];", "r l r r r"),
    ("cp_async_bulk_tensor_s2g", "cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%1}], [%2];", "l r r"),
    ("cp_async_bulk_prefetch", "cp.async.bulk.prefetch.L2.global [%0], %1;", "l r"),
    ("cp_reduce_bulk", "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%0], [%1], %2;", "l r r"),
    ("ldmatrix_x4", "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];", "=r =r =r =r r"),
    ("ldmatrix_x2_trans", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];", "=r =r r"),
    ("stmatrix_x4", "stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};", "r r r r r"),
    ("mma_m16n8k16_f16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};", "=f =f =f =f r r r r r r f f f f"),
    ("mma_m16n8k8_bf16", "mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%7, %8, %9, %10};", "=f =f =f =f r r r f f f f"),
    ("mma_m16n8k8_tf32", "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};", "=f =f =f =f r r r r r r f f f f"),
    ("mma_m16n8k32_s8", "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};", "=r =r =r =r r r r r r r r r r r"),
    ("mma_m16n8k16_f16acc", "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3, %4, %5}, {%6, %7}, {%8, %9};", "=r =r r r r r r r r r"),
    ("mma_m8n8k4_f64", "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};", "=d =d d d d d"),
    ("mma_e4m3", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};", "=f =f =f =f r r r r r r f f f f"),
    ("wgmma_fence", "wgmma.fence.sync.aligned;", ""),
    ("wgmma_commit", "wgmma.commit_group.sync.aligned;", ""),
    ("wgmma_wait", "wgmma.wait_group.sync.aligned 0;", ""),
    ("wgmma_m64n8k16", "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;", "+f +f +f +f l l"),
    ("wgmma_m64n8k8_tf32", "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 {%0, %1, %2, %3}, %4, %5, 1, 1, 1;", "+f +f +f +f l l"),
    ("wgmma_m64n8k32_e4m3", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0, %1, %2, %3}, %4, %5, 1, 1, 1;", "+f +f +f +f l l"),
    ("tcgen05_alloc", "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;", "r"),
    ("tcgen05_dealloc", "tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;", "r"),
    ("tcgen05_relinquish", "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;", ""),
    ("tcgen05_ld_x2", "tcgen05.ld.sync.aligned.32x32b.x2.b32 {%0, %1}, [%2];", "=r =r r"),
    ("tcgen05_st_x1", "tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};", "r r"),
    ("tcgen05_wait_ld", "tcgen05.wait::ld.sync.aligned;", ""),
    ("tcgen05_commit", "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];", "r"),
    ("tcgen05_fence", "tcgen05.fence::before_thread_sync;", ""),
    ("tcgen05_mma", "{ .reg .pred p; setp.ne.u32 p, %4, 0; tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p; }", "r l l r r"),
    ("tcgen05_cp", "tcgen05.cp.cta_group::1.128x256b [%0], %1;", "r l"),
    ("tcgen05_shift", "tcgen05.shift.cta_group::1.down [%0];", "r"),
    ("clusterlaunchcontrol", "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];", "r r"),
    ("multimem_ld_reduce", "multimem.ld_reduce.relaxed.sys.global.add.u32 %0, [%1];", "=r l"),
    ("tensormap_cp_fenceproxy", "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;", "l r"),
    ("st_async", "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];", "r r r"),
    ("applypriority", "applypriority.global.L2::evict_normal [%0], 128;", "l"),
    ("createpolicy", "createpolicy.fractional.L2::evict_last.b64 %0, 1.0;", "=l"),
    ("discard", "discard.global.L2 [%0], 128;", "l"),
    ("multi_line", "{\n\t.reg .b32 t;\n\tadd.u32 t, %1, %2;\n\tshl.b32 %0, t, 1;\n}", "=r r r"),
    ("named_operands", "add.u32 %[out], %[a], %[b];", "=r r r"),
    ("brx_label", "{ .reg .pred p; setp.eq.u32 p, %1, 0; @p bra DONE%=; add.u32 %0, %0, 1; DONE%=: }", "+r r"),
    ("stacksave", "stacksave.u64 %0;", "=l"),
    ("alloca", "alloca.u64 %0, %1;", "=l r"),
    ("testp_finite", "{ .reg .pred p; testp.finite.f32 p, %1; selp.u32 %0, 1, 0, p; }", "=r f"),
    ("copysign", "copysign.f32 %0, %1, %2;", "=f f f"),
    ("ex2_f16x2", "ex2.approx.f16x2 %0, %1;", "=r r"),
    ("vabsdiff", "vabsdiff.u32.u32.u32 %0, %1, %2, %3;", "=r r r r"),
    ("addc", "add.cc.u32 %0, %2, %3;\n\taddc.u32 %1, %4, %5;", "=r =r r r r r"),
]

VARS = {"r": ("unsigned", "r", 16, "pr"), "l": ("unsigned long long", "l", 8, "pl"),
        "h": ("unsigned short", "h", 8, "ph"), "f": ("float", "f", 16, "pf"), "d": ("double", "d", 8, "pd")}


def prelude():
    pro = " \\\n  ".join(
        f"{ty} " + ", ".join(f"{p}{i} = {ptr}[{i}]" for i in range(n)) + ";"
        for ty, p, n, ptr in VARS.values()
    )
    epi = " \\\n  ".join(
        f"{ptr}[0] = " + " + ".join(f"{p}{i}" for i in range(n)) + ";"
        for ty, p, n, ptr in VARS.values()
    )
    return (
        "// Generated by gen_inline_asm.py: one inline-asm statement per kernel.\n"
        "// Labels (nvcc verdict per case and target) are in inline_asm_labels.tsv.\n"
        "#define IN unsigned *pr, unsigned long long *pl, unsigned short *ph, float *pf, double *pd\n"
        f"#define PRO {pro}\n"
        f"#define EPI {epi}\n"
    )



def operands(spec, names=None):
    outs, ins = [], []
    counters = {k: 0 for k in VARS}
    for i, tok in enumerate(spec.split()):
        mod = tok[:-1]
        letter = tok[-1]
        if letter == "n":
            expr = "4"
        else:
            expr = f"{VARS[letter][1]}{counters[letter]}"
            counters[letter] += 1
        name = f"[{names[i]}] " if names else ""
        item = f'{name}"{mod}{letter}"({expr})'
        (outs if mod in ("=", "+") else ins).append(item)
    return outs, ins


def statement(template, spec, names=None):
    outs, ins = operands(spec, names)
    lit = template.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    if not spec:
        return f'asm volatile("{lit}" ::: "memory");'
    return f'asm volatile("{lit}" : {", ".join(outs)} : {", ".join(ins)} : "memory");'


def mutations(name, template, spec):
    toks = spec.split()
    # Opcode typo: the first instruction's root loses its last letter and gains an x.
    m = re.search(r"(?:^|[;{}]\s*|\bp;\s*)([a-z][a-z0-9_]*)\.", template)
    first = re.search(r"\b([a-z][a-z0-9_]+)((?:\.[A-Za-z0-9_:]+)+)", template)
    if first:
        root = first.group(1)
        yield "typo_opcode", template.replace(root + ".", root[:-1] + "x.", 1), spec
        quals = re.findall(r"\.[A-Za-z0-9_:]+", first.group(2))
        if len(quals) >= 1:
            last = quals[-1]
            head = first.group(0)
            yield "drop_last_qualifier", template.replace(head, head[: len(head) - len(last)], 1), spec
            yield "typo_qualifier", template.replace(head, head[: len(head) - len(last)] + last + "x", 1), spec
    # Constraint width: the first register operand binds the other width.
    swap = {"r": "l", "l": "r", "h": "r", "f": "d", "d": "f"}
    for i, t in enumerate(toks):
        if t[-1] in swap:
            t2 = t[:-1] + swap[t[-1]]
            yield f"width_{i}", template, " ".join(toks[:i] + [t2] + toks[i + 1:])
            break
    # A wider-than-needed address register for the last operand.
    if toks and toks[-1] in ("l", "r") and "[%" in template:
        last = len(toks) - 1
        if f"[%{last}" in template:
            t2 = {"l": "r", "r": "l"}[toks[-1]]
            yield "address_width", template, " ".join(toks[:-1] + [t2])
    # A placeholder past the last operand.
    nums = [int(x) for x in re.findall(r"%(\d+)", template)]
    if nums:
        n = max(nums)
        yield "placeholder_range", re.sub(rf"%{n}\b", f"%{len(toks)}", template, count=1), spec
    # A vector one element short.
    vm = re.search(r"\{(%\d+(?:, %\d+)+)\}", template)
    if vm:
        parts = vm.group(1).split(", ")
        yield "vector_short", template.replace(vm.group(0), "{" + ", ".join(parts[:-1]) + "}", 1), spec
    # `%` where the template must say `%%`.
    if "%%" in template:
        yield "single_percent", template.replace("%%", "%", 1), spec


def main():
    print(prelude())
    for name, template, spec in BASE:
        cases = [("valid", template, spec)] + list(mutations(name, template, spec))
        for kind, t, s in cases:
            names = None
            if name == "named_operands" and kind == "valid":
                names = ["out", "a", "b"]
            if names:
                t2 = t
            else:
                t2 = t
            case = f"{name}__{kind}"
            print(f"// case {case}")
            print(f'extern "C" __global__ void {case}(IN) {{ PRO')
            print(f"  {statement(t2, s, names)}")
            print("  EPI }")


if __name__ == "__main__":
    main()
