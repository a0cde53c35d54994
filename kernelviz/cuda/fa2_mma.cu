// FlashAttention 2, forward pass, on tensor cores: fp16 or bf16 Q, K, V (BF16 = 0 or 1), fp32 accumulation.
//
// A block owns Br = 64 rows of Q and is 4 warps; warp w owns rows [16w, 16w + 16) of them, from start to finish: its
// Q fragments, and its rows of S, P, m, l and O, live in its registers. K and V stream through shared memory (SRAM)
// a tile of Bc keys at a time. Both matmuls are mma.sync.m16n8k16: one warp computes a 16×8 tile of D = A B + C from
// 16-bit A (16×16) and B (16×8) into fp32 accumulators, each lane holding a fragment of each operand
// (kernelviz/cuda/fragments.py lists which lane holds which element; groupID g = lane/4 and t = lane%4 below).
// ldmatrix loads those fragments from SRAM, .trans for V, whose B fragment runs down its columns.
// FA2's register trick: the accumulator fragment of S = Qi Kj^T, rounded to 16 bits, is laid out exactly as the A
// operand of P V, so P goes from one mma to the next without touching shared memory.
//
// Memory levels: HBM is every pointer argument, SRAM every __shared__ array, registers the locals. Layout: Q and O
// are (BH, N, D), K and V are (BH, N_kv, D), 16-bit (fp16 or bf16 bits); L = m + log l is (BH, N) float. Launch:
// grid (ceil(N/Br), BH), 128 threads. scale > 0. Causal, aligned bottom-right as in fa2.cu: row r sees keys up to
// r + N_kv - N; a row that sees no key gets O = 0 and L = -inf.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

// The PTX, one instruction a function, shared with fa2_pipe.cu (on the CPU shim, cpu/warp.h does what it does)
#include "mma_sm80.h"  // mma_m16n8k16 (mma.sync), ldmatrix_x4 (ldmatrix), pack2 (cvt) and fa2_pipe's cp.async

// region: copy
// 16 bytes (8 elements) from src to dst, or zeros when src is null
__device__ __forceinline__ void copy16(unsigned short* dst, const unsigned short* src) {
#ifdef KVSHIM
    if (src) std::memcpy(dst, src, 16);
    else std::memset(dst, 0, 16);
#else
    *reinterpret_cast<uint4*>(dst) = src ? *reinterpret_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
#endif
}
// endregion

// region: setup
template <int Br, int Bc, int D, int BF16>
__global__ void __launch_bounds__(128) fa2_mma(const unsigned short* Q, const unsigned short* K,
                                               const unsigned short* V, unsigned short* O, float* L,
                                               int N, int N_kv, float scale, int causal) {
    static_assert(Br == 64 && Bc % 16 == 0 && D % 16 == 0, "4 warps of 16 rows; tiles of whole 16×16 fragments");
    constexpr int S = D + 8;  // SRAM row stride: 16 bytes of padding put ldmatrix's 8 rows in 8 different banks
    int i = blockIdx.x, bh = blockIdx.y, tid = threadIdx.x;
    int warp = tid/32, lane = tid%32, g = lane/4, t = lane%4;  // g: groupID, t: threadID_in_group
    Q += (long)bh*N*D; K += (long)bh*N_kv*D; V += (long)bh*N_kv*D; O += (long)bh*N*D; L += (long)bh*N;

    // SRAM: 2*(Br + 2*Bc)*(D + 8) bytes. Registers, per lane: Q's A fragments, S and O's accumulators, m and l of
    // its two rows (g and g + 8 of the warp's 16)
    __shared__ __align__(16) unsigned short Qi[Br][S], Kj[Bc][S], Vj[Bc][S];
    unsigned q[D/16][4];
    float s[Bc/8][4], o[D/8][4] = {};
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};

    int row0 = i*Br, wrow0 = row0 + warp*16;            // the block's first row of Q, and the warp's
    int shift = N_kv - N;                               // causal: row r sees keys up to r + shift
    int Tc = (N_kv + Bc - 1)/Bc;                        // tiles of K and V
    int last = min(row0 + Br, N) - 1 + shift;           // the last key this block's last row sees
    if (causal) Tc = last < 0 ? 0 : min(Tc, last/Bc + 1);  // tiles wholly right of the diagonal: never loaded
    float scale_log2 = scale*1.4426950408889634f;       // exp(x*scale) = exp2(x*scale*log2(e))
    // endregion

    // region: no_key
    // No tile to visit (causal with N > N_kv: every row of the block sees no key; or N_kv = 0): registers -> HBM,
    // O[i] = 0 (16-bit zeros) and L[i] = -inf, and return before loading Q, K or V, as flash-attn does. Tc is the
    // same for every thread of the block, so the whole block returns and no barrier or shuffle is left waiting.
    if (Tc == 0) {
        for (int x = tid; x < Br*D; x += blockDim.x)
            if (row0 + x/D < N) O[(long)(row0 + x/D)*D + x%D] = 0;
        for (int r = tid; r < Br; r += blockDim.x)
            if (row0 + r < N) L[row0 + r] = -INFINITY;
        return;
    }
    // endregion

    // region: load_q
    // HBM -> SRAM, once: each warp copies its 16 rows of Q (rows past N as 0), 16 bytes a lane at a time
    for (int x = lane; x < 16*D/8; x += 32) {
        int r = x/(D/8), c = x%(D/8)*8;
        copy16(&Qi[warp*16 + r][c], wrow0 + r < N ? &Q[(long)(wrow0 + r)*D + c] : nullptr);
    }
    __syncwarp();  // waits for: the warp's 16 rows of Qi, written by all its lanes, before ldmatrix reads them
    // endregion

    // region: ldmatrix_q
    // SRAM -> registers, once: ldmatrix gives each lane its A fragments, 16 columns at a time: lanes 0-15 name
    // rows 0-15 at column 0, lanes 16-31 at column 8
    for (int k = 0; k < D/16; k++) ldmatrix_x4<false>(q[k], &Qi[warp*16 + lane%16][k*16 + lane/16*8]);
    // endregion

    for (int j = 0; j < Tc; j++) {
        int col0 = j*Bc;                                // first key of this tile
        // region: load_kv
        // HBM -> SRAM: Kj, Vj = K[j], V[j], 16 bytes a thread at a time (keys past N_kv as 0; scores masks them)
        for (int x = tid; x < Bc*D/8; x += blockDim.x) {
            int c = x/(D/8), k = x%(D/8)*8;
            bool in = col0 + c < N_kv;
            copy16(&Kj[c][k], in ? &K[(long)(col0 + c)*D + k] : nullptr);
            copy16(&Vj[c][k], in ? &V[(long)(col0 + c)*D + k] : nullptr);
        }
        __syncthreads();  // waits for: the whole of Kj and Vj in SRAM before any warp loads fragments of them
        // endregion

        // region: scores
        // SRAM -> registers, tensor cores: S = Qi Kj^T for the warp's 16 rows, 8 keys an mma. B = Kj^T, so a row of
        // Kj is a column of B: ldmatrix without .trans; one x4 gives B for 16 keys (two mmas) and 16 columns of D
        for (int n = 0; n < Bc/8; n++) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.f;
        for (int n = 0; n < Bc/16; n++)
            for (int k = 0; k < D/16; k++) {
                unsigned b[4];
                ldmatrix_x4<false>(b, &Kj[n*16 + lane/16*8 + lane%8][k*16 + lane/8%2*8]);
                mma_m16n8k16<BF16>(s[2*n], q[k], {b[0], b[1]});
                mma_m16n8k16<BF16>(s[2*n + 1], q[k], {b[2], b[3]});
            }
        // endregion

        // region: softmax
        // Registers only: s[n][e] is S at row g (e < 2) or g + 8 (e >= 2) of the warp, key col0 + 8n + 2t + e%2.
        // Mask, then the online softmax on the fragments. A row's Bc scores are spread over the 4 lanes of a quad
        // (lanes 4g..4g+3): its max needs two shuffles across them. l stays a partial sum per lane (its own
        // columns, under the quad's common max) until the end.
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
            float alpha = exp2f(m[h]*scale_log2 - ref);          // rescales what was summed under the old max
            l[h] *= alpha;
            for (int n = 0; n < D/8; n++) o[n][2*h] *= alpha, o[n][2*h + 1] *= alpha;
            for (int n = 0; n < Bc/8; n++)
                for (int e = 2*h; e < 2*h + 2; e++) {
                    s[n][e] = exp2f(s[n][e]*scale_log2 - ref);   // s now holds P~ij, in fp32
                    l[h] += s[n][e];
                }
            m[h] = mx;
        }
        // endregion

        // region: pv
        // Registers -> tensor cores: O += P~ V. P~'s accumulator fragments for keys 16k..16k+15 (s[2k], s[2k+1]),
        // rounded to 16 bits two at a time, are its A fragment as they stand. V is B with keys down its rows, so
        // ldmatrix .trans: one x4 gives B for 16 keys and 16 columns of O (two mmas)
        for (int k = 0; k < Bc/16; k++) {
            unsigned p[4] = {pack2<BF16>(s[2*k][0], s[2*k][1]), pack2<BF16>(s[2*k][2], s[2*k][3]),
                             pack2<BF16>(s[2*k + 1][0], s[2*k + 1][1]), pack2<BF16>(s[2*k + 1][2], s[2*k + 1][3])};
            for (int n = 0; n < D/16; n++) {
                unsigned b[4];
                ldmatrix_x4<true>(b, &Vj[k*16 + lane/8%2*8 + lane%8][n*16 + lane/16*8]);
                mma_m16n8k16<BF16>(o[2*n], p, {b[0], b[1]});
                mma_m16n8k16<BF16>(o[2*n + 1], p, {b[2], b[3]});
            }
        }
        __syncthreads();  // waits for: every warp done with Kj, Vj before the next tile overwrites them
        // endregion
    }

    // region: write_back
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
