// CUTLASS 3.x (CuTe) Hopper GEMMs: warp-specialized TMA + wgmma mainloops
// with TMA epilogues, in clusters (TMA multicast of A or B).
//
//   CONFIG=1: f16 x f16 -> f32 (C f16), 128x128x64 tiles, cluster 2x1,
//             KernelTmaWarpSpecializedCooperative (two consumer warp groups
//             share each tile), persistent tile scheduler.
//   CONFIG=2: bf16 x bf16 -> bf16 (C bf16), 64x128x64 tiles, cluster 1x2,
//             KernelTmaWarpSpecializedPingpong (the consumer warp groups
//             alternate tiles, ordered by named barriers).
//   CONFIG=3: e4m3 x e4m3 -> bf16 (C bf16), 128x128x128 tiles, cluster 2x2
//             (A and B multicast), KernelTmaWarpSpecializedCooperative with
//             the fp8 mainloop that adds the tensor-core sums into separate
//             f32 accumulators.
//   CONFIG=4: f16 x f16 -> f16 with B row-major (MN-major in shared
//             memory), 128x64x64 tiles, no cluster, KernelTmaWarpSpecialized
//             (one tile per CTA) and an epilogue that stores from registers.
//
// Two builds of this file per configuration:
//   nvcc -std=c++17 -arch=sm_90a -ptx -DEMIT_KERNEL -DCONFIG=N -I CUTLASS/include
//        -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL cutlass_gemm.cu -o cutlass_gemm_N.ptx
//   nvcc -std=c++17 -arch=sm_90a -DCONFIG=N -I CUTLASS/include
//        -DCUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL cutlass_gemm.cu -o gemm_N -lcuda
// The first is the kernel's PTX (`cutlass::device_kernel<GemmKernel>`); the
// second is a host program that builds the kernel's parameters with CUTLASS
// (`GemmKernel::to_underlying_arguments`, which encodes the TMA descriptors),
// launches the PTX (`gemm_N PTX NAME`) twice through the driver API with
// the cluster shape, and prints one line in the format of the interpreter's
// real-kernel fixtures: the parameter struct as a `struct:` argument whose
// pointer fields name buffer arguments and whose tensor maps are `tmap:`
// specs (the parameters CUTLASS passed to cuTensorMapEncodeTiled), the
// buffers, and the output buffer as the GPU left it.

#include <cuda.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// Every cuTensorMapEncodeTiled call CUTLASS makes is recorded (with
// CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL its wrapper calls the function by
// name, which the macro below redirects here).
struct Encoded {
  CUtensorMap map;
  int dtype;
  unsigned rank;
  void* addr;
  cuuint64_t dims[5];
  cuuint64_t strides[4];
  cuuint32_t box[5];
  cuuint32_t estrides[5];
  int interleave, swizzle, l2, oob;
};
static std::vector<Encoded> encoded;

static CUresult recorded_encode_tiled(CUtensorMap* map, CUtensorMapDataType dtype, cuuint32_t rank,
                                      void* addr, const cuuint64_t* dims, const cuuint64_t* strides,
                                      const cuuint32_t* box, const cuuint32_t* estrides,
                                      CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                      CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  CUresult r = cuTensorMapEncodeTiled(map, dtype, rank, addr, dims, strides, box, estrides,
                                      interleave, swizzle, l2, oob);
  if (r == CUDA_SUCCESS) {
    Encoded e{};
    e.map = *map;
    e.dtype = dtype;
    e.rank = rank;
    e.addr = addr;
    for (unsigned i = 0; i < rank; ++i) {
      e.dims[i] = dims[i];
      e.box[i] = box[i];
      e.estrides[i] = estrides[i];
      if (i + 1 < rank) e.strides[i] = strides[i];
    }
    e.interleave = interleave;
    e.swizzle = swizzle;
    e.l2 = l2;
    e.oob = oob;
    encoded.push_back(e);
  }
  return r;
}
#define cuTensorMapEncodeTiled recorded_encode_tiled

#include "cute/tensor.hpp"
#include "cutlass/epilogue/collective/collective_builder.hpp"
#include "cutlass/gemm/collective/collective_builder.hpp"
#include "cutlass/gemm/dispatch_policy.hpp"
#include "cutlass/gemm/kernel/gemm_universal.hpp"
#include "cutlass/util/packed_stride.hpp"

using namespace cute;

#ifndef CONFIG
#define CONFIG 1
#endif

#if CONFIG == 1
using ElementA = cutlass::half_t;
using ElementB = cutlass::half_t;
using ElementC = cutlass::half_t;
using ElementD = float;
using TileShape = Shape<_128, _128, _64>;
using ClusterShape = Shape<_2, _1, _1>;
using KernelSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
static const int M = 256, N = 256, K = 256, SMS = 2;
static const char* NAME = "cutlass_gemm_f16_f32_coop_2x1";
#elif CONFIG == 2
using ElementA = cutlass::bfloat16_t;
using ElementB = cutlass::bfloat16_t;
using ElementC = cutlass::bfloat16_t;
using ElementD = cutlass::bfloat16_t;
using TileShape = Shape<_64, _128, _64>;
using ClusterShape = Shape<_1, _2, _1>;
using KernelSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
static const int M = 128, N = 256, K = 384, SMS = 4;
static const char* NAME = "cutlass_gemm_bf16_pingpong_1x2";
#elif CONFIG == 3
using ElementA = cutlass::float_e4m3_t;
using ElementB = cutlass::float_e4m3_t;
using ElementC = cutlass::bfloat16_t;
using ElementD = cutlass::bfloat16_t;
using TileShape = Shape<_128, _128, _128>;
using ClusterShape = Shape<_2, _2, _1>;
using KernelSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
static const int M = 256, N = 256, K = 512, SMS = 4;
static const char* NAME = "cutlass_gemm_e4m3_coop_2x2";
#else
#define B_ROW_MAJOR 1
using ElementA = cutlass::half_t;
using ElementB = cutlass::half_t;
using ElementC = cutlass::half_t;
using ElementD = cutlass::half_t;
using TileShape = Shape<_128, _64, _64>;
using ClusterShape = Shape<_1, _1, _1>;
using KernelSchedule = cutlass::gemm::KernelTmaWarpSpecialized;
using EpilogueSchedule = cutlass::epilogue::NoSmemWarpSpecialized;
static const int M = 256, N = 128, K = 192, SMS = 8;
static const char* NAME = "cutlass_gemm_f16_mn_major_b";
#endif

using LayoutA = cutlass::layout::RowMajor;
#ifdef B_ROW_MAJOR
using LayoutB = cutlass::layout::RowMajor;
#else
using LayoutB = cutlass::layout::ColumnMajor;
#endif
using LayoutC = cutlass::layout::RowMajor;
using ElementAccumulator = float;
constexpr int AlignA = 16 / sizeof(ElementA);
constexpr int AlignB = 16 / sizeof(ElementB);
constexpr int AlignC = 16 / sizeof(ElementC);
constexpr int AlignD = 16 / sizeof(ElementD);

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, ElementAccumulator, ElementAccumulator,
    ElementC, LayoutC, AlignC, ElementD, LayoutC, AlignD, EpilogueSchedule>::CollectiveOp;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementA, LayoutA, AlignA, ElementB,
    LayoutB, AlignB, ElementAccumulator, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
        sizeof(typename CollectiveEpilogue::SharedStorage))>,
    KernelSchedule>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>,
                                                        CollectiveMainloop, CollectiveEpilogue>;

#ifdef EMIT_KERNEL
// Instantiates the kernel for the PTX build.
void* kernel_address() { return (void*)cutlass::device_kernel<GemmKernel>; }
#else

static void check_cu(CUresult r, const char* what) {
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    fprintf(stderr, "%s: %s\n", what, name ? name : "?");
    exit(1);
  }
}

static void check_rt(cudaError_t r, const char* what) {
  if (r != cudaSuccess) {
    fprintf(stderr, "%s: %s\n", what, cudaGetErrorName(r));
    exit(1);
  }
}

static std::string hex(const void* data, size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  const unsigned char* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    s.push_back(digits[p[i] >> 4]);
    s.push_back(digits[p[i] & 15]);
  }
  return s;
}

// xorshift64*, seeded: the inputs are reproducible.
static uint64_t state = 0x2026112709400000ull;
static double uniform() {
  state ^= state >> 12;
  state ^= state << 25;
  state ^= state >> 27;
  return double((state * 0x2545F4914F6CDD1Dull) >> 11) / double(1ull << 53);
}

struct Buffer {
  std::vector<unsigned char> host;
  void* dev = nullptr;
};

template <class T>
static Buffer random_buffer(size_t n) {
  std::vector<T> v(n);
  for (auto& x : v) x = T(float(uniform() * 2.0 - 1.0));
  Buffer b;
  b.host.resize(n * sizeof(T));
  memcpy(b.host.data(), v.data(), b.host.size());
  return b;
}

static const char* dtype_name(int t) {
  switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return "u8";
    case CU_TENSOR_MAP_DATA_TYPE_UINT16: return "u16";
    case CU_TENSOR_MAP_DATA_TYPE_UINT32: return "u32";
    case CU_TENSOR_MAP_DATA_TYPE_INT32: return "s32";
    case CU_TENSOR_MAP_DATA_TYPE_UINT64: return "u64";
    case CU_TENSOR_MAP_DATA_TYPE_INT64: return "s64";
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16: return "f16";
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32: return "f32";
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return "f64";
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return "bf16";
  }
  fprintf(stderr, "tensor map data type %d has no tmap: name\n", t);
  exit(1);
}

static std::string join(const void* values, bool wide, unsigned n) {
  std::string s;
  for (unsigned i = 0; i < n; ++i) {
    unsigned long long v = wide ? ((const cuuint64_t*)values)[i] : ((const cuuint32_t*)values)[i];
    s += (i ? "," : "") + std::to_string(v);
  }
  return s;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s KERNEL.ptx FILE-IN-REPO\n", argv[0]);
    return 2;
  }
  check_rt(cudaFree(nullptr), "cudaFree");
  // The kernel's PTX, its entry named by the one `.entry`.
  FILE* f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  std::string ptx;
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) ptx.append(chunk, got);
  fclose(f);
  size_t at = ptx.find(".entry ");
  if (at == std::string::npos) {
    fprintf(stderr, "no .entry in %s\n", argv[1]);
    return 1;
  }
  at += 7;
  std::string entry = ptx.substr(at, ptx.find_first_of("( \n", at) - at);

  // A (M x K, K-major), B (N x K, K-major; K x N, N-major with
  // B_ROW_MAJOR), C and D (M x N, row-major).
  std::vector<Buffer> buffers;
  buffers.push_back(random_buffer<ElementA>(size_t(M) * K));
  buffers.push_back(random_buffer<ElementB>(size_t(N) * K));
  buffers.push_back(random_buffer<ElementC>(size_t(M) * N));
  Buffer d;
  d.host.assign(size_t(M) * N * sizeof(ElementD), 0);
  buffers.push_back(d);
  for (auto& b : buffers) {
    check_rt(cudaMalloc(&b.dev, b.host.size()), "cudaMalloc");
    check_rt(cudaMemcpy(b.dev, b.host.data(), b.host.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  auto stride_a = cutlass::make_cute_packed_stride(typename GemmKernel::StrideA{}, {M, K, 1});
  auto stride_b = cutlass::make_cute_packed_stride(typename GemmKernel::StrideB{}, {N, K, 1});
  auto stride_c = cutlass::make_cute_packed_stride(typename GemmKernel::StrideC{}, {M, N, 1});
  auto stride_d = cutlass::make_cute_packed_stride(typename GemmKernel::StrideD{}, {M, N, 1});
  cutlass::KernelHardwareInfo hw;
  hw.device_id = 0;
  hw.sm_count = SMS;  // fewer CTAs than tiles: each CTA loops over several
  typename GemmKernel::Arguments args{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {M, N, K, 1},
      {(ElementA*)buffers[0].dev, stride_a, (ElementB*)buffers[1].dev, stride_b},
      {{1.0f, 0.5f}, (ElementC*)buffers[2].dev, stride_c, (ElementD*)buffers[3].dev, stride_d},
      hw};
  if (GemmKernel::can_implement(args) != true) {
    fprintf(stderr, "can_implement: no\n");
    return 1;
  }
  size_t workspace_size = GemmKernel::get_workspace_size(args);
  if (workspace_size) {
    Buffer w;
    w.host.assign(workspace_size, 0);
    check_rt(cudaMalloc(&w.dev, workspace_size), "cudaMalloc");
    check_rt(cudaMemset(w.dev, 0, workspace_size), "cudaMemset");
    buffers.push_back(w);
  }
  if (GemmKernel::initialize_workspace(args, workspace_size ? buffers.back().dev : nullptr) !=
      cutlass::Status::kSuccess) {
    fprintf(stderr, "initialize_workspace failed\n");
    return 1;
  }
  if (workspace_size) {
    check_rt(cudaMemcpy(buffers.back().host.data(), buffers.back().dev, workspace_size,
                        cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  typename GemmKernel::Params params =
      GemmKernel::to_underlying_arguments(args, workspace_size ? buffers.back().dev : nullptr);
  dim3 grid = GemmKernel::get_grid_shape(params);
  dim3 block = GemmKernel::get_block_shape();
  int smem = GemmKernel::SharedStorageSize;
  int cluster[3] = {size<0>(ClusterShape{}), size<1>(ClusterShape{}), size<2>(ClusterShape{})};

  // The parameter struct as the interpreter's `struct:` argument.
  const unsigned char* pbytes = reinterpret_cast<const unsigned char*>(&params);
  size_t psize = sizeof(params);
  std::string fields;
  std::vector<bool> covered(psize, false);
  for (auto& e : encoded) {
    size_t off = psize;
    for (size_t o = 0; o + 128 <= psize; o += 64) {
      if (memcmp(pbytes + o, &e.map, 128) == 0) {
        off = o;
        break;
      }
    }
    if (off == psize) continue;  // a descriptor CUTLASS encoded but did not keep
    int arg = -1;
    for (size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i].dev == e.addr) arg = int(i + 1);
    if (arg < 0 || e.interleave != 0 || e.swizzle > 3) {
      fprintf(stderr, "tensor map at %zu: address %p, interleave %d, swizzle %d not expressible\n",
              off, e.addr, e.interleave, e.swizzle);
      return 1;
    }
    static const int span[4] = {0, 32, 64, 128};
    std::string spec = std::string("tmap:") + dtype_name(e.dtype) + ":" +
                       join(e.dims, true, e.rank) + ":" +
                       (e.rank > 1 ? join(e.strides, true, e.rank - 1) : std::string("-")) + ":" +
                       join(e.box, false, e.rank) + ":" + std::to_string(span[e.swizzle]) + ":" +
                       std::to_string(arg) + ":estrides=" + join(e.estrides, false, e.rank);
    if (e.oob) spec += ":oob=nan";
    fields += ";" + std::to_string(off) + "=" + spec;
    for (size_t k = off; k < off + 128; ++k) covered[k] = true;
  }
  for (size_t o = 0; o + 8 <= psize; o += 8) {
    if (covered[o]) continue;
    uint64_t v;
    memcpy(&v, pbytes + o, 8);
    for (size_t i = 0; i < buffers.size(); ++i) {
      uint64_t base = uint64_t(buffers[i].dev);
      if (v >= base && v < base + buffers[i].host.size()) {
        fields += ";" + std::to_string(o) + "=&" + std::to_string(i + 1);
        if (v != base) fields += "+" + std::to_string(v - base);
      }
    }
  }

  // Two launches of the PTX; bytes that differ between them are volatile.
  CUmodule module;
  check_cu(cuModuleLoadData(&module, ptx.c_str()), "cuModuleLoadData");
  CUfunction fn;
  check_cu(cuModuleGetFunction(&fn, module, entry.c_str()), "cuModuleGetFunction");
  check_cu(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem),
           "cuFuncSetAttribute");
  std::vector<std::vector<unsigned char>> outs;
  for (int run = 0; run < 2; ++run) {
    check_rt(cudaMemset(buffers[3].dev, 0, buffers[3].host.size()), "cudaMemset");
    CUlaunchAttribute attr;
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster[0];
    attr.value.clusterDim.y = cluster[1];
    attr.value.clusterDim.z = cluster[2];
    CUlaunchConfig config{};
    config.gridDimX = grid.x;
    config.gridDimY = grid.y;
    config.gridDimZ = grid.z;
    config.blockDimX = block.x;
    config.blockDimY = block.y;
    config.blockDimZ = block.z;
    config.sharedMemBytes = smem;
    config.attrs = &attr;
    config.numAttrs = 1;
    void* kernel_params[] = {&params};
    check_cu(cuLaunchKernelEx(&config, fn, kernel_params, nullptr), "cuLaunchKernelEx");
    check_cu(cuCtxSynchronize(), "cuCtxSynchronize");
    std::vector<unsigned char> out(buffers[3].host.size());
    check_rt(cudaMemcpy(out.data(), buffers[3].dev, out.size(), cudaMemcpyDeviceToHost),
             "cudaMemcpy");
    outs.push_back(out);
  }
  std::string volatile_ranges;
  for (size_t k = 0; k < outs[0].size();) {
    if (outs[0][k] == outs[1][k]) {
      ++k;
      continue;
    }
    size_t s = k;
    while (k < outs[0].size() && outs[0][k] != outs[1][k]) ++k;
    volatile_ranges += std::string(volatile_ranges.empty() ? "" : ",") + "[4," +
                       std::to_string(s) + "," + std::to_string(k) + "]";
  }

  // A host check of the sum (f64), to see that the launch computed the GEMM.
  double worst = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double s = 0;
      for (int k = 0; k < K; ++k) {
#ifdef B_ROW_MAJOR
        size_t b_at = size_t(k) * N + j;
#else
        size_t b_at = size_t(j) * K + k;
#endif
        s += double(float(((ElementA*)buffers[0].host.data())[size_t(i) * K + k])) *
             double(float(((ElementB*)buffers[1].host.data())[b_at]));
      }
      s += 0.5 * double(float(((ElementC*)buffers[2].host.data())[size_t(i) * N + j]));
      double got = double(float(((ElementD*)outs[0].data())[size_t(i) * N + j]));
      worst = std::max(worst, std::abs(got - s));
    }
  fprintf(stderr, "%s: entry %s, grid %u,%u,%u block %u smem %d params %zu bytes, %zu maps; "
          "largest error against f64 %.3g\n", NAME, entry.c_str(), grid.x, grid.y, grid.z, block.x,
          smem, psize, encoded.size(), worst);

  printf("{\"name\": \"%s\", \"file\": \"%s\", \"entry\": \"%s\", \"grid\": [%u, %u, %u], "
         "\"block\": [%u, %u, %u], \"smem\": %d, \"cluster\": [%d, %d, %d], \"args\": [\"struct:%s%s\"",
         NAME, argv[2], entry.c_str(), grid.x, grid.y, grid.z, block.x, block.y, block.z, smem,
         cluster[0], cluster[1], cluster[2], hex(pbytes, psize).c_str(), fields.c_str());
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (i == 3)
      printf(", \"zeros:%zu\"", buffers[i].host.size());
    else
      printf(", \"buf:hex:%s\"", hex(buffers[i].host.data(), buffers[i].host.size()).c_str());
  }
  printf("], \"buffers\": [{\"arg\": 4, \"hex\": \"%s\"}], \"volatile\": [%s]}\n",
         hex(outs[0].data(), outs[0].size()).c_str(), volatile_ranges.c_str());
  return 0;
}
#endif
