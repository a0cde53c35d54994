// FlashAttention 2, forward pass, on tensor cores, pipelined: fa2_mma.cu's loop with K and V copied by cp.async into
// a ring of STAGES buffers, so that tile j + 1 travels from HBM while tile j is computed; fp16 or bf16 (BF16 = 0, 1).
//
// A block owns Br rows of Q and is Br/16 warps (FA2's Br = 128: 8 warps); warp w owns rows [16w, 16w + 16), its Q
// fragments, S, P, m, l and O in its registers, as in fa2_mma.cu. What is new:
// - cp.async.cg.shared.global copies 16 bytes from HBM to SRAM without a register on the way and without waiting:
//   the thread goes on, and the copy lands later. commit_group closes the copies issued so far into a group;
//   wait_group N waits until at most the N most recently committed groups of this thread are still in flight (PTX
//   ISA, "cp.async", "cp.async.commit_group", "cp.async.wait_group"). A wait covers only the thread's own copies:
//   __syncthreads() after it makes every thread's visible to every warp.
// - STAGES buffers of K and V: tiles 0 .. STAGES - 2 are issued before the loop; iteration j issues tile
//   j + STAGES - 1 into the buffer tile j - 1 used, waits for tile j's group only, and computes on it while the
//   newer groups fly. STAGES = 1 is no pipeline (issue, wait for it, compute); STAGES = 2 double-buffers.
// - SRAM rows unpadded, their 16-byte chunks XOR-swizzled by the row (swizzle.h, from swizzle.py: CuTe's
//   Swizzle<3,3,3>), so the 8 rows of an ldmatrix phase sit in 8 distinct bank groups with no byte of padding.
//   SWIZZLE = 0 pads rows by 8 elements instead, as fa2_mma.cu does (also conflict-free, larger).
// - Dynamic shared memory (extern __shared__), sized by the host: Br*S + STAGES*2*Bc*S 16-bit elements, S the row
//   stride; over 48 KiB needs cudaFuncSetAttribute(MaxDynamicSharedMemorySize) before the launch.
//
// Layout: Q and O are (BH, N, D), K and V are (BH, N_kv, D), 16-bit; L = m + log l is (BH, N) float; every pointer
// 16-byte aligned (the host checks). Launch: grid (ceil(N/Br), BH), 2*Br threads. scale > 0. Causal, aligned
// bottom-right: row r sees keys up to r + N_kv - N; a row that sees no key gets O = 0 and L = -inf.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#include "dynamic_smem.h"
#include "swizzle.h"

// The PTX, one instruction a function, shared with fa2_mma.cu (on the CPU shim, cpu/warp.h and cpu/async.h do what
// they do: KVSHIM)
#include "mma_sm80.h"  // mma_m16n8k16, ldmatrix_x4, pack2 (cvt), cp_async16, cp_async_commit, cp_async_wait<N>

// region: wait_newer
// wait_group `newer` (0 <= newer <= MAX), its operand an immediate: all but the `newer` newest groups landed
template <int MAX>
__device__ __forceinline__ void cp_async_wait_newer(int newer) {
    if constexpr (MAX == 0) cp_async_wait<0>();  // the last tile: nothing newer in flight, wait for everything
    else if (newer >= MAX) cp_async_wait<MAX>();
    else cp_async_wait_newer<MAX - 1>(newer);
}
// endregion

// region: layout
// Where element (row, col) of a tile sits in SRAM, rows S elements apart: SWIZZLE, the 16-byte chunk col/8 XORed
// with the row (kv_swizzle, swizzle.h); else rows padded (S = D + 8) and the chunk where it is
template <int S, int SWIZZLE>
__device__ __forceinline__ int at(int row, int col) {
    if constexpr (SWIZZLE) return row*S + kv_swizzle(row, col/8, S/8)*8 + col%8;
    else return row*S + col;
}
// endregion

// region: copy_tile
// One tile of K and V: HBM -> SRAM buffers Kj, Vj, a cp.async of 16 bytes per thread and chunk, keys past N_kv as
// zeros (the scores mask them); issued, not waited for
template <int Bc, int D, int S, int SWIZZLE, int THREADS>
__device__ __forceinline__ void copy_tile(unsigned short* Kj, unsigned short* Vj, const unsigned short* K,
                                          const unsigned short* V, int col0, int N_kv, int tid) {
    for (int x = tid; x < Bc*D/8; x += THREADS) {
        int c = x/(D/8), k = x%(D/8)*8;
        bool in = col0 + c < N_kv;
        long row = in ? col0 + c : 0;                   // a row that exists, read for nothing when !in
        cp_async16(&Kj[at<S, SWIZZLE>(c, k)], &K[row*D + k], in);
        cp_async16(&Vj[at<S, SWIZZLE>(c, k)], &V[row*D + k], in);
    }
}
// endregion

// region: setup
template <int Br, int Bc, int D, int STAGES, int SWIZZLE, int BF16>
__global__ void __launch_bounds__(2*Br) fa2_pipe(const unsigned short* Q, const unsigned short* K,
                                                 const unsigned short* V, unsigned short* O, float* L,
                                                 int N, int N_kv, float scale, int causal) {
    static_assert(Br % 16 == 0 && Bc % 16 == 0 && D % 16 == 0 && STAGES >= 1, "whole 16×16 fragments; a buffer");
    static_assert(!SWIZZLE || D == 16 || D == 32 || D % 64 == 0, "the swizzle takes rows of 2, 4 or 8k chunks");
    constexpr int THREADS = 2*Br;                       // Br/16 warps of 32 lanes
    constexpr int S = SWIZZLE ? D : D + 8;              // SRAM row stride, in elements
    int i = blockIdx.x, bh = blockIdx.y, tid = threadIdx.x;
    int warp = tid/32, lane = tid%32, g = lane/4, t = lane%4;  // g: groupID, t: threadID_in_group
    Q += (long)bh*N*D; K += (long)bh*N_kv*D; V += (long)bh*N_kv*D; O += (long)bh*N*D; L += (long)bh*N;

    // SRAM, dynamic (the host sizes it): Qi [Br][S], then STAGES pairs of buffers Kj, Vj [Bc][S]. Registers, per
    // lane: Q's A fragments, S and O's accumulators, m and l of its two rows (g and g + 8 of the warp's 16)
    KV_DYNAMIC_SMEM(unsigned short, sram, 128);  // unsigned short* sram: extern __shared__ (dynamic_smem.h)
    unsigned short* Qi = sram;
    unsigned q[D/16][4];
    float s[Bc/8][4], o[D/8][4] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f}, alpha[2];

    int row0 = i*Br, wrow0 = row0 + warp*16;            // the block's first row of Q, and the warp's
    int shift = N_kv - N;                               // causal: row r sees keys up to r + shift
    int Tc = (N_kv + Bc - 1)/Bc;                        // tiles of K and V
    int last = min(row0 + Br, N) - 1 + shift;           // the last key this block's last row sees
    if (causal) Tc = last < 0 ? 0 : min(Tc, last/Bc + 1);  // tiles wholly right of the diagonal: never loaded
    float scale_log2 = scale*1.4426950408889634f;       // exp(x*scale) = exp2(x*scale*log2(e))
    // endregion

    // region: no_key
    // No tile to visit (causal with N > N_kv: every row of the block sees no key; or N_kv = 0): registers -> HBM,
    // O[i] = 0 and L[i] = -inf, and return before any copy is issued. Tc is the same for the whole block.
    if (Tc == 0) {
        for (int x = tid; x < Br*D; x += THREADS)
            if (row0 + x/D < N) O[(long)(row0 + x/D)*D + x%D] = 0;
        for (int r = tid; r < Br; r += THREADS)
            if (row0 + r < N) L[row0 + r] = -INFINITY;
        return;
    }
    // endregion

    // region: load_q
    // HBM -> SRAM, once: each warp issues its 16 rows of Q (rows past N as 0) as the first group
    for (int x = lane; x < 16*D/8; x += 32) {
        int r = x/(D/8), c = x%(D/8)*8;
        bool in = wrow0 + r < N;
        cp_async16(&Qi[at<S, SWIZZLE>(warp*16 + r, c)], &Q[(long)(in ? wrow0 + r : 0)*D + c], in);
    }
    cp_async_commit();
    // endregion

    // region: prologue
    // Tiles 0 .. STAGES - 2 of K and V in flight before the loop starts, a group each
    for (int j = 0; j < STAGES - 1 && j < Tc; j++) {
        copy_tile<Bc, D, S, SWIZZLE, THREADS>(sram + (Br + j*2*Bc)*S, sram + (Br + j*2*Bc + Bc)*S, K, V, j*Bc, N_kv, tid);
        cp_async_commit();
    }
    // endregion

    // region: ldmatrix_q
    // Q's group landed (the prologue's may still fly), then SRAM -> registers, once: each lane's A fragments
    cp_async_wait_newer<STAGES - 1>(min(STAGES - 1, Tc));
    __syncwarp();  // waits for: the warp's 16 rows of Qi, copied by all its lanes, before ldmatrix reads them
    for (int k = 0; k < D/16; k++) ldmatrix_x4<false>(q[k], &Qi[at<S, SWIZZLE>(warp*16 + lane%16, k*16 + lane/16*8)]);
    // endregion

    for (int j = 0; j < Tc; j++) {
        int col0 = j*Bc;                                // first key of this tile
        unsigned short* Kj = sram + (Br + j%STAGES*2*Bc)*S;
        unsigned short* Vj = Kj + Bc*S;

        // region: issue_copy
        // HBM -> SRAM, in flight: tile j + STAGES - 1 into the buffer tile j - 1 used (every warp is done with it:
        // the barrier at the end of the last iteration), as one group. STAGES = 1: tile j itself, into the only one
        int next = j + STAGES - 1;
        if (next < Tc) {
            unsigned short* Kn = sram + (Br + next%STAGES*2*Bc)*S;
            copy_tile<Bc, D, S, SWIZZLE, THREADS>(Kn, Kn + Bc*S, K, V, next*Bc, N_kv, tid);
            cp_async_commit();
        }
        // endregion

        // region: wait_copy
        // Tile j's group landed; the groups of the tiles after it (at most STAGES - 1) may still be in flight
        cp_async_wait_newer<STAGES - 1>(min(STAGES - 1, Tc - 1 - j));
        __syncthreads();  // waits for: every thread's copies of tile j in SRAM before any warp loads fragments of it
        // endregion

        // region: scores
        // SRAM -> registers, tensor cores: S = Qi Kj^T for the warp's 16 rows, 8 keys an mma. B = Kj^T: ldmatrix
        // without .trans; one x4 gives B for 16 keys (two mmas) and 16 columns of D
        for (int n = 0; n < Bc/8; n++) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
        for (int n = 0; n < Bc/16; n++)
            for (int k = 0; k < D/16; k++) {
                unsigned b[4];
                ldmatrix_x4<false>(b, &Kj[at<S, SWIZZLE>(n*16 + lane/16*8 + lane%8, k*16 + lane/8%2*8)]);
                mma_m16n8k16<BF16>(s[2*n], q[k], {b[0], b[1]});
                mma_m16n8k16<BF16>(s[2*n + 1], q[k], {b[2], b[3]});
            }
        // endregion

        // region: softmax
        // Registers only: s[n][e] is S at row g (e < 2) or g + 8 (e >= 2) of the warp, key col0 + 8n + 2t + e%2.
        // Mask, then the online softmax: the row max over the quad (two shuffles), alpha = exp(m_old - m_new), and
        // s = P~ = exp(s - m_new), summed into this lane's partial l
        for (int n = 0; n < Bc/8; n++)
            for (int e = 0; e < 4; e++) {
                int key = col0 + 8*n + 2*t + e%2, row = wrow0 + g + e/2*8;
                if (key >= N_kv || (causal && key > row + shift)) s[n][e] = -INFINITY;
            }
        for (int h = 0; h < 2; h++) {                   // h: row g, then row g + 8
            float mx = m[h];
            for (int n = 0; n < Bc/8; n++) mx = fmaxf(mx, fmaxf(s[n][2*h], s[n][2*h + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 1));  // the max of lanes t and t^1 ...
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 2));  // ... then of the whole quad
            float ref = mx == -INFINITY ? 0.f : mx*scale_log2;   // all masked so far: exp2 against 0, not NaN
            alpha[h] = exp2f(m[h]*scale_log2 - ref);             // rescales what was summed under the old max
            float sum = 0.f;
            for (int n = 0; n < Bc/8; n++)
                for (int e = 2*h; e < 2*h + 2; e++) {
                    s[n][e] = exp2f(s[n][e]*scale_log2 - ref);   // s now holds P~ij, in fp32
                    sum += s[n][e];
                }
            l[h] = alpha[h]*l[h] + sum;
            m[h] = mx;
        }
        // endregion

        // region: rescale
        // Registers only: O, summed under the old max, scaled by alpha to the new one before P~ V is added
        for (int n = 0; n < D/8; n++)
            for (int e = 0; e < 4; e++) o[n][e] *= alpha[e/2];
        // endregion

        // region: pv
        // Registers -> tensor cores: O += P~ V. P~'s accumulator fragments for keys 16k..16k+15, rounded to 16 bits
        // two at a time, are its A fragment as they stand; V with keys down its rows: ldmatrix .trans
        for (int k = 0; k < Bc/16; k++) {
            unsigned p[4] = {pack2<BF16>(s[2*k][0], s[2*k][1]), pack2<BF16>(s[2*k][2], s[2*k][3]),
                             pack2<BF16>(s[2*k + 1][0], s[2*k + 1][1]), pack2<BF16>(s[2*k + 1][2], s[2*k + 1][3])};
            for (int n = 0; n < D/16; n++) {
                unsigned b[4];
                ldmatrix_x4<true>(b, &Vj[at<S, SWIZZLE>(k*16 + lane/8%2*8 + lane%8, n*16 + lane/16*8)]);
                mma_m16n8k16<BF16>(o[2*n], p, {b[0], b[1]});
                mma_m16n8k16<BF16>(o[2*n + 1], p, {b[2], b[3]});
            }
        }
        // endregion

        // region: release
        __syncthreads();  // waits for: every warp done with buffer j % STAGES before a later tile's copies refill it
        // endregion
    }

    // region: write_o
    // Registers -> HBM, once: the quad's partial sums make l; O = o / l, two 16-bit columns a lane a store, and
    // L = m*scale + log l by lane t = 0, for the rows that exist; a row that saw no key (l = 0) gets O = 0, L = -inf
    for (int h = 0; h < 2; h++) {
        l[h] += __shfl_xor_sync(0xffffffff, l[h], 1);
        l[h] += __shfl_xor_sync(0xffffffff, l[h], 2);
        int row = wrow0 + g + 8*h;
        if (row >= N) continue;
        float inv = l[h] > 0.f ? 1.f/l[h] : 0.f;
        for (int n = 0; n < D/8; n++)
            *reinterpret_cast<unsigned*>(&O[(long)row*D + 8*n + 2*t]) = pack2<BF16>(o[n][2*h]*inv, o[n][2*h + 1]*inv);
        if (t == 0) L[row] = l[h] > 0.f ? m[h]*scale + logf(l[h]) : -INFINITY;
    }
    // endregion
}
