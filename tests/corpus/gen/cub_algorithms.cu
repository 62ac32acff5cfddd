// Host-side calls that make nvcc instantiate CUB's device-wide algorithms,
// so that `nvcc -ptx` emits their kernels (a realistic, large PTX sample).
#include <cub/cub.cuh>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>

struct IsPositive {
  __host__ __device__ bool operator()(const float &x) const { return x > 0.f; }
};

void instantiate_all(void *temp, size_t bytes, cudaStream_t s) {
  float *f_in = nullptr, *f_out = nullptr;
  int *i_in = nullptr, *i_out = nullptr, *n_out = nullptr;
  double *d_in = nullptr, *d_out = nullptr;
  uint64_t *u64_in = nullptr, *u64_out = nullptr;
  __half *h_in = nullptr, *h_out = nullptr;
  int *offsets = nullptr;
  int n = 1 << 20;

  cub::DeviceReduce::Sum(temp, bytes, f_in, f_out, n, s);
  cub::DeviceReduce::Max(temp, bytes, i_in, i_out, n, s);
  cub::DeviceReduce::Sum(temp, bytes, d_in, d_out, n, s);
  cub::DeviceReduce::ArgMin(temp, bytes, f_in, f_out, i_out, n, s);
  cub::DeviceScan::InclusiveSum(temp, bytes, i_in, i_out, n, s);
  cub::DeviceScan::ExclusiveSum(temp, bytes, d_in, d_out, n, s);
  cub::DeviceRadixSort::SortPairs(temp, bytes, f_in, f_out, i_in, i_out, n, 0, 32, s);
  cub::DeviceRadixSort::SortKeys(temp, bytes, u64_in, u64_out, n, 0, 64, s);
  cub::DeviceRadixSort::SortKeysDescending(temp, bytes, h_in, h_out, n, 0, 16, s);
  cub::DeviceSegmentedReduce::Sum(temp, bytes, f_in, f_out, 128, offsets, offsets + 1, s);
  cub::DeviceHistogram::HistogramEven(temp, bytes, f_in, i_out, 257, 0.f, 1.f, n, s);
  cub::DeviceSelect::If(temp, bytes, f_in, f_out, n_out, n, IsPositive(), s);
  cub::DeviceRunLengthEncode::Encode(temp, bytes, i_in, i_out, offsets, n_out, n, s);
  cub::DeviceMergeSort::SortKeys(temp, bytes, f_out, n, cuda::std::less<float>(), s);
}
