// A TMA load through cpu/harness.cpp's tensor-map argument (tests/cuda/test_cuda_hopper_harness.py): thread 0 loads
// the box of 64 columns × 32 rows at row r0 of `in` (128-byte swizzle) and every thread reads it back from shared
// memory, undoing the swizzle, into `out` (32×64, row-major).
__device__ inline uint32_t unswizzle128(uint32_t at) { return at ^ (((at >> 7) & 7) << 4); }

__global__ void tma_copy(const __grid_constant__ CUtensorMap in, uint16_t* out, int r0) {
    KV_DYNAMIC_SMEM(smem);
    uint64_t* bar = reinterpret_cast<uint64_t*>(smem + 64 * 32 * 2);
    if (threadIdx.x == 0) {
        mbar_init(bar, 1);
        fence_mbar_init();
        mbar_arrive_expect_tx(bar, 64 * 32 * 2);
        tma_load_2d(smem, &in, bar, 0, r0);
    }
    __syncthreads();  // the mbarrier is initialised
    mbar_wait(bar, 0);
    for (int e = threadIdx.x; e < 64 * 32; e += blockDim.x)
        std::memcpy(&out[e], smem + unswizzle128(uint32_t(e / 64 * 128 + e % 64 * 2)), 2);
}
