// Hopper-only instructions written as inline PTX (sm_90a): wgmma, mma.sync,
// ldmatrix/stmatrix, bulk copies, mbarrier, cluster registers, setmaxnreg.
#include <cstdint>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

__device__ __forceinline__ uint32_t smem_u32(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128, 1)
hopper_kernel(const __grid_constant__ uint64_t tmap_dummy, const float *g, float *out, uint64_t desc_a, uint64_t desc_b,
              int flag) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t bar;
  float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  uint32_t b = smem_u32(&bar);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(1));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(4096));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 ::"r"(smem_u32(tile)), "l"(g), "r"(4096), "r"(b) : "memory");
  }
  asm volatile("{\n.reg .pred P1;\nWAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
               "@!P1 bra WAIT;\n}" ::"r"(b), "r"(0));
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\n}"
               : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3) : "l"(desc_a), "l"(desc_b), "r"(flag));
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(0) : "memory");
  uint32_t r0, r1, r2, r3;
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(smem_u32(tile + (threadIdx.x % 32) * 4)));
  asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};"
               ::"r"(smem_u32(tile + 512 + (threadIdx.x % 32) * 4)), "r"(r0), "r"(r1));
  float c[4] = {d0, d1, d2, d3};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(r0), "r"(r1), "r"(r2), "r"(r3), "r"(r0), "r"(r1));
  uint32_t rank, nrank, cid;
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(smem_u32(tile)), "r"(rank ^ 1));
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  float rv;
  asm volatile("ld.shared::cluster.f32 %0, [%1];" : "=f"(rv) : "r"(remote));
  asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];"
               ::"r"(remote), "r"(1u), "r"(b));
  asm volatile("{\n.reg .pred e;\nelect.sync %0|e, %2;\nselp.u32 %1, 1, 0, e;\n}" : "=r"(r3), "=r"(r2) : "r"(0xffffffffu));
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;");
  asm volatile("fence.proxy.async.shared::cta;");
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out), "r"(smem_u32(tile)), "r"(4096) : "memory");
  asm volatile("cp.async.bulk.commit_group;");
  asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(g), "r"(256));
  asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(g));
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
               ::"r"(smem_u32(tile)), "l"(&tmap_dummy), "r"(0), "r"(0), "r"(b) : "memory");
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;");
  uint32_t red;
  asm volatile("redux.sync.add.u32 %0, %1, %2;" : "=r"(red) : "r"(r0), "r"(0xffffffffu));
  asm volatile("multimem.ld_reduce.relaxed.sys.global.add.f32 %0, [%1];" : "=f"(rv) : "l"(g));
  out[threadIdx.x] = c[0] + c[1] + c[2] + c[3] + rank + nrank + cid + rv + red + r2;
}
