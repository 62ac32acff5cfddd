// Kernels that touch many instruction families through CUDA intrinsics:
// integer bit tricks, video-style SIMD, half/bf16/fp8 math, atomics, warp
// collectives, cp.async pipelines, cooperative groups, wmma fragments.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <mma.h>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/warp/warp_reduce.cuh>
#include <cuda/functional>
#include <cstdint>
namespace cg = cooperative_groups;
using namespace nvcuda;

__global__ void int_ops(const unsigned *a, const unsigned *b, unsigned *out, long long *wide) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x = a[i], y = b[i];
  unsigned r = __funnelshift_l(x, y, i) ^ __funnelshift_rc(x, y, i);
  r += __byte_perm(x, y, 0x5410) + __brev(x) + __clz(y) + __popc(x) + __ffs(y);
  r += __dp4a(x, y, r) + __dp2a_lo(x, y, r);
  r += __vabsdiffu4(x, y) + __vadd2(x, y) + __vsetgtu4(x, y) + __vmaxs2(x, y);
  r += __umulhi(x, y) + __mulhi((int)x, (int)y) + __sad(x, y, r) + __fns(x, 0, 1);
  r += __usad(x, y, 3) + __hadd((int)x, (int)y) + __rhadd((int)x, (int)y);
  long long w = (long long)x * (long long)y + __mul64hi(wide[i], wide[i + 1]);
  w += __umul64hi(w, 7) + __clzll(w) + __popcll(w) + __brevll(w);
  out[i] = r / (y | 1) + r % (x | 1);
  wide[i] = w / (long long)(x | 1);
}

__global__ void float_ops(const float *a, const double *b, float *out, double *dout, int *iout) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = a[i];
  double d = b[i];
  float r = __fdividef(x, 3.f) + __sinf(x) + __cosf(x) + __expf(x) + __logf(x) + __powf(x, 2.5f);
  r += sqrtf(x) + rsqrtf(x) + __frcp_rn(x) + __fsqrt_rz(x) + __fadd_rd(x, r) + __fmul_ru(x, r);
  r += __fmaf_rz(x, r, 1.f) + fminf(x, r) + fmaxf(x, r) + copysignf(x, r) + truncf(x) + rintf(x);
  r += floorf(x) + ceilf(x) + roundf(x) + fabsf(x) + __saturatef(x) + erff(x) + tanhf(x);
  double e = sqrt(d) + rsqrt(d) + d / (double)x + __dadd_rn(d, 1.0) + fma(d, d, d) + exp(d) + log1p(d);
  iout[i] = __float2int_rn(r) + __float2int_rz(r) + __double2int_rd(e) + (int)__float2uint_ru(x) + isnan(r) + isinf(e) + signbit(r);
  out[i] = r + __int2float_rn(iout[i]) + __uint2float_rz(i) + (float)__double2float_rd(e) + __ll2float_rn((long long)i);
  dout[i] = e + __longlong_as_double(__double_as_longlong(e) ^ 1) + __hiloint2double(__double2hiint(e), 5);
}

__global__ void half_ops(const __half2 *a, const __nv_bfloat162 *b, __half2 *out, __nv_bfloat162 *bout,
                         __nv_fp8x2_storage_t *f8, float *fout) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  __half2 h = a[i];
  __nv_bfloat162 bb = b[i];
  __half2 r = __hfma2(h, h, h) + __hmul2(h, h) + __hsub2_sat(h, h) + __hmax2(h, h) + __hmin2_nan(h, h);
  r = __hadd2(r, h2sqrt(h)) + h2exp(h) + __habs2(h) + __hneg2(h) + __h2div(r, h);
  __half s = __hfma(__low2half(r), __high2half(r), __float2half_rn(2.f));
  __nv_bfloat162 br = __hfma2(bb, bb, bb) + __hmul2(bb, bb) + __hmax2(bb, bb);
  br = __hfma2_relu(br, bb, bb);
  f8[i] = __nv_cvt_float2_to_fp8x2(make_float2(__half2float(s), 1.f), __NV_SATFINITE, __NV_E4M3);
  f8[i + 1] = __nv_cvt_halfraw2_to_fp8x2(r, __NV_SATFINITE, __NV_E5M2);
  fout[i] = __bfloat162float(br.x) + __half2float(__hge(s, s)) + __low2float(__hisnan2(r));
  out[i] = r;
  bout[i] = br;
}

__global__ void atomics(int *ia, unsigned *ua, unsigned long long *ula, float *fa, double *da, __half2 *ha,
                        __nv_bfloat162 *ba) {
  int i = threadIdx.x;
  atomicAdd(ia, i); atomicSub(ia + 1, i); atomicExch(ia + 2, i); atomicMin(ia + 3, i); atomicMax(ia + 4, i);
  atomicInc(ua, 17u); atomicDec(ua + 1, 17u); atomicCAS(ua + 2, 0u, (unsigned)i);
  atomicAnd(ua + 3, i); atomicOr(ua + 4, i); atomicXor(ua + 5, i);
  atomicAdd(ula, 1ull); atomicCAS(ula + 1, 0ull, 5ull); atomicMax(ula + 2, (unsigned long long)i);
  atomicAdd(fa, 1.f); atomicAdd(da, 1.0); atomicAdd(ha, __float2half2_rn(1.f)); atomicAdd(ba, ba[1]);
  atomicAdd_block(ia + 5, 1); atomicAdd_system(ia + 6, 1); atomicExch(fa + 1, 2.f);
  __threadfence(); __threadfence_block(); __threadfence_system();
  if (atomicAdd(ia + 7, 0) == 3) __nanosleep(100);
}

__global__ void warp_ops(const int *in, int *out, float *fout) {
  int v = in[threadIdx.x];
  unsigned m = __activemask();
  v += __shfl_sync(m, v, 3) + __shfl_up_sync(m, v, 1) + __shfl_down_sync(m, v, 2, 16) + __shfl_xor_sync(m, v, 4);
  v += __all_sync(m, v > 0) + __any_sync(m, v < 0) + __popc(__ballot_sync(m, v & 1)) + __uni_sync(m, v);
  v += __match_any_sync(m, v) + __reduce_add_sync(m, v) + __reduce_min_sync(m, (unsigned)v) + __reduce_or_sync(m, v);
  int pred;
  v += __match_all_sync(m, v, &pred) + pred;
  float f = __shfl_xor_sync(m, (float)v, 1);
  __syncwarp(m);
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<32>(block);
  v += cg::reduce(tile, v, cg::plus<int>());
  typedef cub::BlockReduce<int, 256> BR;
  typedef cub::BlockScan<float, 256> BS;
  typedef cub::WarpReduce<int> WR;
  __shared__ typename BR::TempStorage br;
  __shared__ typename BS::TempStorage bs;
  __shared__ typename WR::TempStorage wr[8];
  int total = BR(br).Sum(v);
  block.sync();
  BS(bs).InclusiveSum(f, f);
  int w = WR(wr[threadIdx.x / 32]).Reduce(v, cuda::maximum<>());
  __syncthreads_count(v > 0);
  __syncthreads_or(v > 3);
  out[threadIdx.x] = total + w + __syncthreads_and(v > 1);
  fout[threadIdx.x] = f;
  if (threadIdx.x == 0) out[0] += (int)clock64() + (int)__activemask() + (int)clock();
}

__global__ void async_copy(const float4 *g, float4 *out) {
  __shared__ float4 s[256];
  __pipeline_memcpy_async(&s[threadIdx.x], &g[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  float4 v = s[(threadIdx.x + 1) % 256];
  v.x += __ldg(&g[threadIdx.x].y) + __ldcs(&g[threadIdx.x].z) + __ldlu(&g[threadIdx.x].w) + __ldcv(&g[0].x);
  __stcg(&out[threadIdx.x], v);
  __stwt(&out[threadIdx.x + 256].x, v.y);
}

__global__ void wmma_f16(const half *a, const half *b, float *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void wmma_other(const __nv_bfloat16 *a, const signed char *i8, const double *d, const float *t, int *ci,
                           double *cd, float *cf) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, __nv_bfloat16, wmma::row_major> ba;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, __nv_bfloat16, wmma::row_major> bb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, float> bc;
  wmma::load_matrix_sync(ba, a, 16);
  wmma::load_matrix_sync(bb, a, 8);
  wmma::fill_fragment(bc, 0.f);
  wmma::mma_sync(bc, ba, bb, bc);
  wmma::store_matrix_sync(cf, bc, 8, wmma::mem_col_major);
  wmma::fragment<wmma::matrix_a, 8, 32, 16, signed char, wmma::col_major> ia;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, signed char, wmma::col_major> ib;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> ic;
  wmma::load_matrix_sync(ia, i8, 8);
  wmma::load_matrix_sync(ib, i8, 32);
  wmma::fill_fragment(ic, 0);
  wmma::mma_sync(ic, ia, ib, ic, true);
  wmma::store_matrix_sync(ci, ic, 32, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> da;
  wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> db;
  wmma::fragment<wmma::accumulator, 8, 8, 4, double> dc;
  wmma::load_matrix_sync(da, d, 4);
  wmma::load_matrix_sync(db, d, 4);
  wmma::load_matrix_sync(dc, cd, 8, wmma::mem_row_major);
  wmma::mma_sync(dc, da, db, dc);
  wmma::store_matrix_sync(cd, dc, 8, wmma::mem_row_major);
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> ta;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> tb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> tc;
  wmma::load_matrix_sync(ta, t, 8);
  wmma::load_matrix_sync(tb, t, 8);
  for (int k = 0; k < ta.num_elements; k++) ta.x[k] = wmma::__float_to_tf32(ta.x[k]);
  wmma::fill_fragment(tc, 0.f);
  wmma::mma_sync(tc, ta, tb, tc);
  wmma::store_matrix_sync(cf + 256, tc, 16, wmma::mem_row_major);
}

__device__ __noinline__ float helper(float x, int n) {
  float acc = 0;
  for (int k = 0; k < n; k++) acc = fmaf(acc, x, (float)k);
  return acc;
}

__global__ void calls_and_locals(float *out, int n) {
  float local[32];
  for (int k = 0; k < 32; k++) local[k] = helper((float)k, n + k);
  out[threadIdx.x] = local[threadIdx.x % 32] + local[(threadIdx.x * 7) % 32];
  if (n < 0) __trap();
  if (n == 77) asm volatile("exit;");
  cg::grid_group grid = cg::this_grid();
  grid.sync();
}

__constant__ float cbank[64];
__device__ int gcounter = 42;
__device__ float gtable[4] = {1.f, 2.f, 3.f, 4.f};

__global__ void globals_and_const(float *out, cudaTextureObject_t tex, cudaSurfaceObject_t surf) {
  out[threadIdx.x] = cbank[threadIdx.x % 64] * gtable[threadIdx.x % 4] + gcounter + tex1Dfetch<float>(tex, threadIdx.x) +
                     tex2D<float>(tex, 0.5f, threadIdx.x);
  float4 v = tex2DLod<float4>(tex, 0.25f, 0.75f, 1.0f);
  surf2Dwrite(v.x, surf, threadIdx.x * 4, 1);
  float sv;
  surf2Dread(&sv, surf, 0, 0);
  out[threadIdx.x + 64] = sv + v.y;
}
