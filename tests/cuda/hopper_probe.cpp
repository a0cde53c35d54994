// A small Hopper kernel for the CPU shim's asynchronous units (tests/cuda/test_cuda_hopper_units.py plants bugs in
// its lines): FA3's pipeline without the softmax. One block of 384 threads: warpgroup 0 is the producer, whose
// thread 0 loads A (128×64) once and K_j, V_j (64×64 each, j < T) into a ring of STAGES stages with TMA (128-byte
// swizzle), each stage guarded by a full and an empty mbarrier; warpgroups 1 and 2 each own 64 rows of A and compute
//     O = sum_j half(A K_j^T) V_j
// with wgmma: S = A K_j^T from two shared-memory descriptors (K-major), then O += P V_j with P = half(S) from
// registers and V_j through an MN-major descriptor; named barriers ping-pong the two warpgroups' products; the
// epilogue writes half(O) into shared memory (swizzled as the TMA store reads it), fences the async proxy and stores
// it with TMA. setmaxnreg moves registers from the producer to the consumers.
//
// argv: schedule (threads, forward, backward), bf16 (0 or 1). stdin: A, K, V as 16-bit bits (128×64, then T·64×64
// twice). stdout: O's bits (128×64).
#include "shim.h"

#include <cstdio>
#include <string>
#include <vector>

constexpr int T = 4, STAGES = 2, ROWS = 128, D = 64, KV = 64;
constexpr unsigned TILE_BYTES = KV * D * 2;

// 128-byte swizzle of a byte offset from a 1024-aligned tile (CU_TENSOR_MAP_SWIZZLE_128B).
inline uint32_t swz128(uint32_t at) { return at ^ (((at >> 7) & 7) << 4); }

template <bool BF16>
__global__ void probe(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmK,
                      const __grid_constant__ CUtensorMap tmV, const __grid_constant__ CUtensorMap tmO) {
    KV_DYNAMIC_SMEM(smem);
    uint8_t* sA = smem;                                 // 128×64 halves: 16 KiB
    uint8_t* sK = sA + ROWS * D * 2;                    // STAGES tiles of 8 KiB
    uint8_t* sV = sK + STAGES * TILE_BYTES;             // STAGES tiles of 8 KiB
    uint8_t* sO = sV + STAGES * TILE_BYTES;             // 128×64 halves
    uint64_t* bars = reinterpret_cast<uint64_t*>(sO + ROWS * D * 2);
    uint64_t *bar_a = bars, *full = bars + 1, *empty = bars + 1 + STAGES;
    int t = threadIdx.x, wg = t / 128, tid = t % 128;
    if (t == 0) {
        mbar_init(bar_a, 1);
        for (int s = 0; s < STAGES; s++) mbar_init(&full[s], 1), mbar_init(&empty[s], 2);
        fence_mbar_init();
    }
    __syncthreads();  // the mbarriers are initialised
    if (wg == 0) {    // producer
        setmaxnreg_dec<40>();
        if (t != 0) return;
        mbar_arrive_expect_tx(bar_a, ROWS * D * 2);
        tma_load_2d(sA, &tmA, bar_a, 0, 0);
        for (int j = 0; j < T; j++) {
            int s = j % STAGES, phase = (j / STAGES) & 1;
            mbar_wait(&empty[s], phase ^ 1);  // the consumers released stage s
            mbar_arrive_expect_tx(&full[s], 2 * TILE_BYTES);  // K_j and V_j
            tma_load_2d(sK + s * TILE_BYTES, &tmK, &full[s], 0, j * KV);
            tma_load_2d(sV + s * TILE_BYTES, &tmV, &full[s], 0, j * KV);
        }
        return;
    }
    setmaxnreg_inc<232>();
    int me = wg - 1, other = 1 - me;
    const int mine = 1 + me, theirs = 1 + other;  // ping-pong barrier ids
    if (me == 1) named_bar_arrive(theirs, 256);   // warpgroup 1 goes first
    float o[D / 2] = {};
    mbar_wait(bar_a, 0);
    for (int j = 0; j < T; j++) {
        int s = j % STAGES, phase = (j / STAGES) & 1;
        mbar_wait(&full[s], phase);  // K_j and V_j landed
        named_bar_sync(mine, 256);   // the other warpgroup has issued its product
        float acc[KV / 2];
        wgmma_fence();
        for (int kk = 0; kk < D / 16; kk++) {
            uint64_t a = make_smem_desc(smem_addr(sA + me * 64 * 128 + kk * 32), 16, 1024, 128);
            uint64_t b = make_smem_desc(smem_addr(sK + s * TILE_BYTES + kk * 32), 16, 1024, 128);
            wgmma_ss<KV, BF16>(acc, a, b, kk > 0);
        }
        wgmma_commit();
        named_bar_arrive(theirs, 256);  // let the other warpgroup issue its product
        wgmma_wait<0>();                // S landed in acc
        for (int kk = 0; kk < KV / 16; kk++) {
            uint32_t p[4];
            for (int r = 0; r < 4; r++) p[r] = kvshim::pack_half2(acc[8 * kk + 2 * r], acc[8 * kk + 2 * r + 1], BF16);
            uint64_t b = make_smem_desc(smem_addr(sV + s * TILE_BYTES + kk * 16 * 128), KV * 128, 1024, 128);
            wgmma_rs<D, BF16, true>(o, p, b, true);
        }
        wgmma_commit();
        wgmma_wait<0>();  // P V_j landed in o: stage s is read
        if (tid == 0) mbar_arrive(&empty[s]);
    }
    for (int i = 0; i < D / 2; i++) {  // half(O) into shared memory, swizzled as the TMA store reads it
        auto [row, col] = kvshim::d_element(tid, i);
        uint16_t h = kvshim::float_to_half(o[i], BF16);
        std::memcpy(sO + swz128(uint32_t((me * 64 + row) * 128 + col * 2)), &h, 2);
    }
    fence_proxy_async();              // the plain stores above are visible to the TMA store
    named_bar_sync(3 + me, 128);      // this warpgroup's rows of O are in shared memory
    if (tid == 0) {
        tma_store_2d(&tmO, sO + me * 64 * 128, 0, me * 64);
        tma_store_commit();
        tma_store_wait();
    }
}

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: hopper_probe threads|forward|backward 0|1\n");
        return 2;
    }
    std::string name = argv[1];
    auto schedule = name == "threads" ? kvshim::Schedule::threads
                    : name == "forward" ? kvshim::Schedule::forward
                                        : kvshim::Schedule::backward;
    bool bf16 = std::string(argv[2]) == "1";
    std::vector<uint16_t> a(ROWS * D), k(T * KV * D), v(T * KV * D), o(ROWS * D, 0x7fad);
    for (auto* x : {&a, &k, &v})
        if (std::fread(x->data(), 2, x->size(), stdin) != x->size()) return 2;
    auto map = [](std::vector<uint16_t>& x, uint64_t rows, uint32_t box_rows) {
        uint64_t dims[] = {D, rows};
        uint32_t box[] = {D, box_rows};
        return kvshim::make_tensor_map(x.data(), 2, 2, dims, box, 128);
    };
    auto tmA = map(a, ROWS, ROWS), tmK = map(k, T * KV, KV), tmV = map(v, T * KV, KV), tmO = map(o, ROWS, 64);
    auto kernel = bf16 ? probe<true> : probe<false>;
    kvshim::launch(kernel, dim3{1, 1, 1}, dim3{384, 1, 1}, schedule, tmA, tmK, tmV, tmO);
    std::fwrite(o.data(), 2, o.size(), stdout);
    return 0;
}
