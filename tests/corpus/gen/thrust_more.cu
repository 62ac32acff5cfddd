// Thrust algorithms and libcu++ synchronization primitives (barrier,
// pipeline, memcpy_async), for more variety in nvcc's output.
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/transform.h>
#include <thrust/functional.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;

struct saxpy {
  float a;
  __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

void thrust_algorithms(thrust::device_vector<float> &x, thrust::device_vector<float> &y,
                       thrust::device_vector<int> &keys, thrust::device_vector<double> &vals) {
  thrust::sort_by_key(keys.begin(), keys.end(), vals.begin());
  thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy{2.f});
  thrust::inclusive_scan(y.begin(), y.end(), x.begin());
  thrust::reduce_by_key(keys.begin(), keys.end(), vals.begin(), keys.begin(), vals.begin());
  float m = thrust::reduce(x.begin(), x.end(), 0.f, thrust::maximum<float>());
  (void)m;
}

__global__ void barrier_pipeline(const float *in, float *out) {
  __shared__ float buf[2][256];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  cuda::memcpy_async(block, buf[0], in, sizeof(float) * 256, bar);
  bar.arrive_and_wait();
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  pipe.producer_acquire();
  cuda::memcpy_async(&buf[1][threadIdx.x], &in[256 + threadIdx.x], sizeof(float), pipe);
  pipe.producer_commit();
  pipe.consumer_wait();
  out[threadIdx.x] = buf[0][threadIdx.x] + buf[1][threadIdx.x];
  pipe.consumer_release();
  cg::memcpy_async(block, buf[1], in + 512, sizeof(float) * 256);
  cg::wait(block);
  out[threadIdx.x + 256] = buf[1][255 - threadIdx.x];
}
