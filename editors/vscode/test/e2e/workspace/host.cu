// A CUDA file with inline PTX: the PTX server attaches to it beside the C++ server.
__device__ int add_one(int x) {
    int y;
    asm("add.s32 %0, %1, 1;" : "=r"(y) : "r"(x));
    return y;
}

__device__ unsigned butterfly(unsigned v) {
    unsigned r;
    asm volatile("shfl.sync.bflly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v));
    return r;
}
