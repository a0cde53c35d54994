// The kernel of hopper_probe.cpp (see there), kept apart so that the tests can build planted variants of it into
// one program: it uses T, STAGES, ROWS, D, KV and TILE_BYTES from there.

// 128-byte swizzle of a byte offset from a 1024-aligned tile (CU_TENSOR_MAP_SWIZZLE_128B).
inline uint32_t swz128(uint32_t at) { return at ^ (((at >> 7) & 7) << 4); }

template <bool BF16>
__global__ void probe(const __grid_constant__ CUtensorMap tmA, const __grid_constant__ CUtensorMap tmK,
                      const __grid_constant__ CUtensorMap tmV, const __grid_constant__ CUtensorMap tmO) {
    KV_DYNAMIC_SMEM(uint8_t, smem, 1024);
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
