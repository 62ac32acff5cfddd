// cuda::ptx wrappers for tcgen05 (sm_100a).
#include <cuda/ptx>
#include <cstdint>
namespace ptx = cuda::ptx;

__global__ void cccl_tcgen05(float *out, uint64_t adesc, uint64_t bdesc, uint32_t idesc) {
  __shared__ uint32_t slot;
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x < 32) {
    ptx::tcgen05_alloc(ptx::cta_group_1, &slot, 64);
    ptx::tcgen05_relinquish_alloc_permit(ptx::cta_group_1);
  }
  ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  ptx::tcgen05_fence_after_thread_sync();
  uint32_t taddr = slot;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::tcgen05_mma(ptx::kind_f16, ptx::cta_group_1, taddr, adesc, bdesc, idesc, true);
    ptx::tcgen05_commit(ptx::cta_group_1, &bar);
  }
  uint32_t v[4];
  ptx::tcgen05_ld_32x32b(v, taddr);
  ptx::tcgen05_wait_ld();
  ptx::tcgen05_st_32x32b(taddr, v);
  ptx::tcgen05_wait_st();
  out[threadIdx.x] = __uint_as_float(v[0] + v[1] + v[2] + v[3]);
  __syncthreads();
  if (threadIdx.x < 32) ptx::tcgen05_dealloc(ptx::cta_group_1, taddr, 64);
}
