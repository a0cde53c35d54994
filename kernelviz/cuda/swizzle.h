// Written by `python -m kernelviz.cuda.swizzle` from swizzle.py: the XOR swizzle of a tile's 16-byte
// chunks (CuTe's Swizzle<3,3,3> within an 8-row atom) and shared memory's banks. Not edited by hand.
#pragma once

#define KV_BANKS 32
#define KV_BANK_BYTES 4
#define KV_CHUNK_BYTES 16
#define KV_PHASE_ROWS 8

// The chunk of row `row` where logical chunk `chunk` of a row of `chunks` chunks is stored.
__host__ __device__ __forceinline__ constexpr int kv_swizzle(int row, int chunk, int chunks) {
    return chunks >= 8 ? chunk ^ (row % 8) : chunk ^ (row / (8 / chunks) % chunks);
}
