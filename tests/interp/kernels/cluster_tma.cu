// Cluster and TMA kernels written with the CUDA APIs (cooperative groups,
// cuda::barrier and the libcu++ bulk-tensor copies), compiled by
// `nvcc -arch=sm_90a -ptx` into cluster_tma_sm_90a.ptx and launched by
// tests/interp/cluster_fixtures.py.
#include <cooperative_groups.h>
#include <cuda.h>
#include <cuda/barrier>

namespace cg = cooperative_groups;
namespace cde = cuda::device::experimental;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

// 128 bins per CTA, 256 per cluster of two: every thread adds its values
// into the bin's owner through distributed shared memory.
extern "C" __global__ void __cluster_dims__(2, 1, 1)
    cluster_histogram(const unsigned *in, unsigned *out, int n) {
  extern __shared__ unsigned bins[];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned rank = cluster.block_rank();
  for (int i = threadIdx.x; i < 128; i += blockDim.x)
    bins[i] = 0;
  cluster.sync();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned v = in[i] & 255;
    unsigned *dst = cluster.map_shared_rank(bins, v / 128);
    atomicAdd(dst + v % 128, 1u);
  }
  cluster.sync();
  unsigned id = blockIdx.x / 2;
  for (int i = threadIdx.x; i < 128; i += blockDim.x)
    out[id * 256 + rank * 128 + i] = bins[i];
}

// Launched with a cluster shape: rank 0 sums every CTA's values.
extern "C" __global__ void cluster_reduce(const float *in, float *out) {
  __shared__ float vals[96];
  cg::cluster_group cluster = cg::this_cluster();
  unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
  vals[threadIdx.x] = in[block * 96 + threadIdx.x];
  cluster.sync();
  if (cluster.block_rank() == 0) {
    float sum = 0;
    for (unsigned r = 0; r < cluster.num_blocks(); ++r)
      sum += *cluster.map_shared_rank(&vals[threadIdx.x], r);
    dim3 idx = cluster.block_index();
    dim3 dims = cluster.dim_blocks();
    unsigned cid = block / cluster.num_blocks();
    out[cid * 96 + threadIdx.x] = sum + idx.x + idx.y + 10.0f * dims.x + 100.0f * dims.y;
  }
  cluster.sync();
}

// A 32 x 16 f32 tile in through TMA, updated, out through TMA.
extern "C" __global__ void tma_tile_update(const __grid_constant__ CUtensorMap in_map,
                                           const __grid_constant__ CUtensorMap out_map,
                                           const float *in_buf, float *out_buf, int x0, int y0) {
  __shared__ alignas(128) float tile[16][32];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  int x = x0 + blockIdx.x * 32, y = y0 + blockIdx.y * 16;
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &in_map, x, y, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  for (int i = threadIdx.x; i < 16 * 32; i += blockDim.x)
    tile[i / 32][i % 32] = tile[i / 32][i % 32] * 2.0f + (float)(i & 7);
  cde::fence_proxy_async_shared_cta();
  __syncthreads();
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_shared_to_global(&out_map, x, y, &tile);
    cde::cp_async_bulk_commit_group();
    cde::cp_async_bulk_wait_group_read<0>();
    (&bar)->~block_barrier();
  }
}

// A 64 x 32 f16 box with the 128-byte swizzle, dumped as it lies in shared memory.
extern "C" __global__ void tma_swizzle_dump(const __grid_constant__ CUtensorMap map,
                                            const void *unused, const void *tensor,
                                            unsigned char *out) {
  __shared__ alignas(1024) unsigned char tile[4096];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0) {
    init(&bar, blockDim.x);
    cde::fence_proxy_async_shared_cta();
  }
  __syncthreads();
  block_barrier::arrival_token token;
  if (threadIdx.x == 0) {
    cde::cp_async_bulk_tensor_2d_global_to_shared(&tile, &map, blockIdx.x * 64, blockIdx.y * 32, bar);
    token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
  } else {
    token = bar.arrive();
  }
  bar.wait(std::move(token));
  unsigned cta = blockIdx.y * gridDim.x + blockIdx.x;
  for (int i = threadIdx.x; i < 4096; i += blockDim.x)
    out[cta * 4096 + i] = tile[i];
}
