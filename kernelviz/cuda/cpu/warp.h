// The warp-level CUDA a kernel of this folder uses, for g++ (included by shim.h): __syncwarp(), __shfl_xor_sync(),
// and CPU versions of the PTX that fa2_mma.cu wraps in device functions (mma.sync.m16n8k16, ldmatrix .x4, cvt to
// fp16/bf16 pairs).
//
// Each collective is a rendezvous of the warp's 32 lanes (shim.h: a barrier per warp, or turns): every lane leaves
// its operands in the warp's slots, waits for the others, and then computes its own results from all of them, by
// the fragment layouts of the PTX ISA in fragments.h (written from kernelviz/cuda/fragments.py, the one place they
// are defined; a test holds the two equal). ldmatrix reads a lane's row of shared memory when that lane issues it, not at the rendezvous: a
// kernel that reads rows other lanes wrote without a __syncwarp() between reads what was there before, as it may on
// a GPU. The mask arguments are taken to be the full warp, the only mask these kernels use.
//
// fp16 and bf16 are their bits (uint16_t). Conversions from float round to nearest even (fp16 through g++'s
// _Float16; bf16 by adding to the float's bits); mma multiplies exactly (a product of two fp16 or bf16 values fits
// in a float) and sums in double, rounded to float once: the hardware sums in an order and precision the ISA does
// not specify, so this is one valid reading of it.
//
// ldmatrix also counts what shared memory pays for it (`counters`): each .x4 is 4 phases of 8 lanes' 16-byte rows
// (one 8×8 matrix a phase), and a phase takes as many wavefronts as the most distinct 4-byte words one of the 32
// banks must give (swizzle.h's geometry, from kernelviz/cuda/swizzle.py, whose `wavefronts` is the same count):
// 1 when its 8 rows fall in distinct banks. A row address that is not 16-byte aligned is reported (exit status 6).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "fragments.h"
#include "../swizzle.h"  // kernelviz/cuda/swizzle.h, beside the kernels

namespace kvshim {

inline int lane_id() { return thread_rank % WARP; }

// Leave `count` 32-bit words of this lane's in the warp's slots, wait for the whole warp, and return every lane's.
// One rendezvous is enough: the next collective writes the other set of slots, and the one after it this set again
// only once every lane has arrived at the next, so has done reading this one.
inline const uint32_t (*exchange(const void* mine, int count))[16] {
    auto& slot = warp_slots[thread_rank / WARP].words[collectives++ & 1];
    std::memcpy(slot[lane_id()], mine, 4 * count);
    copies_may_land();
    sync_now->warp_wait(thread_rank);
    return slot;
}

inline float half_to_float(uint16_t h, bool bf16) {
    if (bf16) {
        uint32_t u = uint32_t(h) << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
    _Float16 x;
    std::memcpy(&x, &h, 2);
    return float(x);
}

inline uint16_t float_to_half(float f, bool bf16) {
    if (bf16) {
        uint32_t u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffff) > 0x7f800000) return 0x7fff;  // NaN
        return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
    }
    _Float16 x = _Float16(f);
    uint16_t h;
    std::memcpy(&h, &x, 2);
    return (h & 0x7fff) > 0x7c00 ? 0x7fff : h;  // NaN: one pattern
}

// cvt.rn.{f16x2,bf16x2}.f32: two floats in one register, `lo` in the low half.
inline uint32_t pack_half2(float lo, float hi, bool bf16) {
    return uint32_t(float_to_half(lo, bf16)) | uint32_t(float_to_half(hi, bf16)) << 16;
}

inline uint16_t half_of(uint32_t word, int i) { return uint16_t(i % 2 ? word >> 16 : word & 0xffff); }

// What the launches so far cost shared memory: ldmatrix phases, and the wavefronts they took (conflict-free: equal).
struct Counters {
    std::atomic<long> ldmatrix_phases{0}, ldmatrix_wavefronts{0};
};
inline Counters counters;

// Wavefronts of one phase: the 16-byte rows at `rows` (byte addresses), the most distinct words in one bank.
inline int wavefronts(const uintptr_t (&rows)[KV_PHASE_ROWS]) {
    int most = 1;
    for (int b = 0; b < KV_BANKS; b++) {
        uintptr_t words[KV_PHASE_ROWS * KV_CHUNK_BYTES / KV_BANK_BYTES];
        int distinct = 0;
        for (uintptr_t at : rows)
            for (uintptr_t w = at / KV_BANK_BYTES; w < (at + KV_CHUNK_BYTES) / KV_BANK_BYTES; w++)
                if (int(w % KV_BANKS) == b && std::find(words, words + distinct, w) == words + distinct) words[distinct++] = w;
        most = std::max(most, distinct);
    }
    return most;
}

// ldmatrix.sync.aligned.m8n8.x4{.trans}.shared.b16: this lane gives the address of one 16-byte row.
inline void ldmatrix_x4(uint32_t (&r)[4], const void* row, bool trans) {
    auto at = reinterpret_cast<uintptr_t>(row);
    if (at % KV_CHUNK_BYTES) {
        std::fprintf(stderr, "ldmatrix: lane %d's row address %p is not 16-byte aligned\n", lane_id(), row);
        std::fflush(stderr);
        std::_Exit(6);
    }
    uint32_t mine[6];
    std::memcpy(mine, row, 16);  // read now: this lane issues the load
    std::memcpy(mine + 4, &at, sizeof at);
    auto rows = exchange(mine, 4 + sizeof at / 4);
    if (lane_id() == 0)  // once a warp: its 4 phases
        for (int phase = 0; phase < 4; phase++) {
            uintptr_t addresses[KV_PHASE_ROWS];
            for (int k = 0; k < KV_PHASE_ROWS; k++) std::memcpy(&addresses[k], rows[phase * KV_PHASE_ROWS + k] + 4, sizeof at);
            counters.ldmatrix_phases++;
            counters.ldmatrix_wavefronts += wavefronts(addresses);
        }
    const auto& from = trans ? KV_LDMATRIX_TRANS : KV_LDMATRIX;  // (lane whose row, column in it) of each element
    uint16_t h[8];
    for (int i = 0; i < 8; i++) h[i] = half_of(rows[from[lane_id()][i][0]][from[lane_id()][i][1] / 2], from[lane_id()][i][1]);
    for (int k = 0; k < 4; k++) r[k] = uint32_t(h[2 * k]) | uint32_t(h[2 * k + 1]) << 16;
}

// mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32: D = A B + C for the warp.
inline void mma_m16n8k16(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2], const float (&c)[4], bool bf16) {
    uint32_t mine[6] = {a[0], a[1], a[2], a[3], b[0], b[1]};
    auto all = exchange(mine, 6);
    float A[16][16], B[16][8];
    for (int l = 0; l < WARP; l++) {
        for (int i = 0; i < 8; i++) A[KV_MMA_A[l][i][0]][KV_MMA_A[l][i][1]] = half_to_float(half_of(all[l][i / 2], i), bf16);
        for (int i = 0; i < 4; i++)
            B[KV_MMA_B[l][i][0]][KV_MMA_B[l][i][1]] = half_to_float(half_of(all[l][4 + i / 2], i), bf16);
    }
    float out[4];
    for (int i = 0; i < 4; i++) {
        int row = KV_MMA_C[lane_id()][i][0], col = KV_MMA_C[lane_id()][i][1];
        double sum = c[i];
        for (int k = 0; k < 16; k++) sum += double(A[row][k]) * double(B[k][col]);
        out[i] = float(sum);
    }
    std::memcpy(d, out, sizeof out);
}

}  // namespace kvshim

inline void __syncwarp(unsigned = 0xffffffffu) { kvshim::sync_now->warp_wait(kvshim::thread_rank); }

template <typename T>
T __shfl_xor_sync(unsigned, T value, int lane_mask, int = kvshim::WARP) {
    static_assert(sizeof(T) <= 4 * 16, "a shuffle moves at most 64 bytes here");
    uint32_t mine[16] = {};
    std::memcpy(mine, &value, sizeof(T));
    auto all = kvshim::exchange(mine, (sizeof(T) + 3) / 4);
    T out;
    std::memcpy(&out, all[kvshim::lane_id() ^ lane_mask], sizeof(T));
    return out;
}
