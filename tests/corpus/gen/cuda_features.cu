// Device-side CUDA features whose PTX differs from plain arithmetic: cooperative
// groups, cuda::barrier / memcpy_async pipelines, atomics through cuda::atomic_ref,
// printf/assert, textures and surfaces, wmma, fp8/bf16 conversions, clusters.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda/atomic>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <mma.h>
#include <cstdio>
#include <cassert>

namespace cg = cooperative_groups;

__global__ void cg_reduce(const int* in, int* out, int n) {
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<32>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  int s = cg::reduce(warp, v, cg::plus<int>());
  int m = cg::reduce(warp, v, cg::greater<int>());
  if (warp.thread_rank() == 0) { atomicAdd(out, s); atomicMax(out + 1, m); }
  auto t4 = cg::tiled_partition<4>(warp);
  int x = t4.shfl_down(v, 1) + t4.any(v > 3) + (int)t4.ballot(v & 1);
  if (x == 12345) out[2] = x;
}

__global__ void pipeline_copy(const float* in, float* out, int n) {
  __shared__ float tile[2][256];
  auto block = cg::this_thread_block();
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  for (int stage = 0; stage < 2; ++stage) {
    pipe.producer_acquire();
    int i = (blockIdx.x * 2 + stage) * 256 + threadIdx.x;
    if (i < n) cuda::memcpy_async(&tile[stage][threadIdx.x], &in[i], sizeof(float), pipe);
    pipe.producer_commit();
  }
  for (int stage = 0; stage < 2; ++stage) {
    cuda::pipeline_consumer_wait_prior<1>(pipe);
    block.sync();
    int i = (blockIdx.x * 2 + stage) * 256 + threadIdx.x;
    if (i < n) out[i] = tile[stage][threadIdx.x] * 2.0f;
    pipe.consumer_release();
  }
}

__global__ void barrier_copy(const int* in, int* out) {
  __shared__ int buf[128];
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cg::memcpy_async(block, buf, in + blockIdx.x * 128, sizeof(int) * 128);
  cuda::memcpy_async(block, buf, in, sizeof(int) * 64, bar);
  bar.arrive_and_wait();
  out[blockIdx.x * 128 + threadIdx.x] = buf[threadIdx.x] + 1;
}

__global__ void atomics(unsigned long long* p, float* f, double* d, __half2* h) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> a(*p);
  a.fetch_add(1, cuda::memory_order_relaxed);
  a.fetch_or(2, cuda::memory_order_acq_rel);
  unsigned long long expected = 5;
  a.compare_exchange_strong(expected, 7, cuda::memory_order_seq_cst);
  cuda::atomic_ref<float, cuda::thread_scope_system> af(*f);
  af.fetch_add(1.5f);
  atomicAdd(d, 2.0);
  atomicAdd(h, __floats2half2_rn(1.f, 2.f));
  atomicExch_block((int*)p + 3, 4);
  atomicCAS_system((int*)p + 4, 1, 2);
  __threadfence_system();
  __nanosleep(100);
}

__global__ void print_assert(const int* p) {
  if (p[threadIdx.x] < 0) printf("negative at %d: %d (%f)\n", threadIdx.x, p[threadIdx.x], 1.5);
  assert(p[0] != 42);
}

__global__ void textures(cudaTextureObject_t t, cudaSurfaceObject_t s, float* out) {
  float v = tex2D<float>(t, threadIdx.x + 0.5f, blockIdx.x + 0.5f);
  float4 w = tex1Dfetch<float4>(t, threadIdx.x);
  float l = tex2DLod<float>(t, 0.5f, 0.5f, 1.0f);
  surf2Dwrite(v + w.x + l, s, threadIdx.x * 4, blockIdx.x);
  float r; surf2Dread(&r, s, 0, 0);
  out[threadIdx.x] = r;
}

__global__ void conversions(const float* in, __nv_fp8_e4m3* a, __nv_fp8_e5m2* b, __nv_bfloat16* c, __half* d, int* e) {
  int i = threadIdx.x;
  float x = in[i];
  a[i] = __nv_fp8_e4m3(x);
  b[i] = __nv_fp8_e5m2(x);
  c[i] = __float2bfloat16_rz(x);
  d[i] = __float2half_rd(x);
  e[i] = __float2int_ru(x) + __float_as_int(__saturatef(x)) + __popc(i) + __brev(i) + __byte_perm(i, 7, 0x3210);
  __nv_bfloat162 bb = __floats2bfloat162_rn(x, x * 2);
  c[i + 64] = __hfma2(bb, bb, bb).x;
  d[i + 64] = hsqrt(__float2half(x)) + hexp2(__float2half(x));
  e[i + 64] = __vadd4(i, 0x01010101) ^ __vabsdiffu4(i, 3) ^ __dp4a(i, i, 0) ^ __funnelshift_l(i, x > 0, 3);
}

__global__ void wmma_tile(const half* a, const half* b, float* c) {
  using namespace nvcuda;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

#if __CUDA_ARCH__ >= 900
__global__ void __cluster_dims__(2, 1, 1) cluster_kernel(int* out) {
  auto cluster = cg::this_cluster();
  __shared__ int smem[32];
  smem[threadIdx.x % 32] = threadIdx.x;
  cluster.sync();
  int* remote = cluster.map_shared_rank(smem, (cluster.block_rank() + 1) % 2);
  out[blockIdx.x * blockDim.x + threadIdx.x] = remote[threadIdx.x % 32] + cluster.num_blocks();
  cluster.sync();
}
#endif

__global__ void grid_sync(int* data) {
  auto grid = cg::this_grid();
  data[grid.thread_rank()] += 1;
  grid.sync();
  data[grid.thread_rank()] += data[(grid.thread_rank() + 1) % grid.size()];
}
