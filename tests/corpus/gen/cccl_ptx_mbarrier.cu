// cuda::ptx wrappers for mbarrier, fences and bulk copies (sm_90a and newer).
#include <cuda/ptx>
#include <cstdint>
namespace ptx = cuda::ptx;

__global__ void cccl_bulk(const float *g, float *out) {
  __shared__ alignas(128) float tile[1024];
  __shared__ alignas(8) uint64_t bar;
  if (threadIdx.x == 0) {
    ptx::mbarrier_init(&bar, 1);
    ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
  }
  __syncthreads();
  uint64_t state = 0;
  if (threadIdx.x == 0) {
    state = ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, 4096);
    ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, tile, g, 4096, &bar);
  } else {
    state = ptx::mbarrier_arrive(&bar);
  }
  while (!ptx::mbarrier_try_wait(&bar, state)) {
  }
  while (!ptx::mbarrier_try_wait_parity(&bar, 0)) {
  }
  ptx::fence_proxy_async(ptx::space_shared);
  if (threadIdx.x == 0) {
    ptx::cp_async_bulk(ptx::space_global, ptx::space_shared, out, tile, 4096);
    ptx::cp_async_bulk_commit_group();
    ptx::cp_async_bulk_wait_group_read(ptx::n32_t<0>());
  }
  ptx::fence(ptx::sem_acq_rel, ptx::scope_gpu);
  out[threadIdx.x + 1024] = tile[threadIdx.x] + (float)ptx::get_sreg_clusterid_x() + (float)ptx::get_sreg_laneid();
}
