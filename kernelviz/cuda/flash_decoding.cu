// Flash decoding (Dao, Haziza, Massa, Sizov, 2023), in float32: one query row per (batch·head) against N keys.
//
// Two kernels. fd_split: block (s, bh) runs the online softmax over its own whole tiles of K and V, tiles
// [s*tiles_per_split, (s+1)*tiles_per_split) of the ceil(N/Bc), tiles_per_split = ceil(ceil(N/Bc) / n_splits) (the
// partition of flash-attn's split-KV kernel, n_blocks_per_split), and writes an unnormalized partial
// O_partial = sum_j e^(q·k_j*scale - m) v_j, its max m and its sum l to HBM. Trailing splits may own no tile: such a
// split writes O = 0, m = -inf, l = 0, which the combine weighs by e^(-inf) = 0.
// fd_combine: block bh merges the n_splits partials with one more rescale, O = sum_s e^(m_s - m_g) O_s / l_g.
//
// Memory levels: HBM is every pointer argument, SRAM is every __shared__ variable, registers are the locals.
// Layout: Q is (BH, D); K, V are (BH, N, D); O_partial is (BH, n_splits, D); m_partial, l_partial are
// (BH, n_splits); O is (BH, D). Launch: fd_split on grid (n_splits, BH), fd_combine on grid (BH), any blockDim.x.
// No causal mask: the one query is the newest token and sees every key.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

// region: split_setup
template <int Bc, int D>
__global__ void fd_split(const float* Q, const float* K, const float* V,
                         float* O_partial, float* m_partial, float* l_partial,
                         int N, float scale, int n_splits, int tiles_per_split) {
    int s = blockIdx.x, bh = blockIdx.y, tid = threadIdx.x;
    Q += (long)bh*D;                                    // one query row per (batch·head)
    K += (long)bh*N*D; V += (long)bh*N*D;
    O_partial += ((long)bh*n_splits + s)*D;
    m_partial += (long)bh*n_splits + s;
    l_partial += (long)bh*n_splits + s;

    int n_start = s*tiles_per_split*Bc;                 // this split's keys: [n_start, n_end), whole tiles,
    int n_end = min(n_start + tiles_per_split*Bc, N);   // the last one maybe short; empty when n_start >= N

    // SRAM: the query, one K/V tile, its scores and the carries, 4*(2*D + 2*Bc*D + Bc + 3) bytes
    __shared__ float Qi[D], Kj[Bc][D], Vj[Bc][D], Sij[Bc];
    __shared__ float mi, li, alpha, Oi[D];
    // endregion

    // region: split_load_q
    // HBM -> SRAM, once: Qi = Q; Oi = 0, mi = -inf, li = 0
    for (int d = tid; d < D; d += blockDim.x) { Qi[d] = Q[d]; Oi[d] = 0.f; }
    if (tid == 0) { mi = -INFINITY; li = 0.f; }
    __syncthreads();  // waits for: Qi and the carries set before any thread reads them
    // endregion

    for (int j = 0; n_start + j*Bc < n_end; j++) {    // j: the tile of this split
        int col0 = n_start + j*Bc;                      // first key of this tile
        int cols = min(Bc, n_end - col0);               // the last tile of a split can be short
        // region: split_load_kv
        // HBM -> SRAM: Kj, Vj = K[col0 : col0 + cols], V[col0 : col0 + cols]
        for (int x = tid; x < cols*D; x += blockDim.x) {
            Kj[x/D][x%D] = K[(col0 + x/D)*D + x%D];
            Vj[x/D][x%D] = V[(col0 + x/D)*D + x%D];
        }
        __syncthreads();  // waits for: the whole tile in SRAM before any thread multiplies with it
        // endregion

        // region: split_scores
        // SRAM -> SRAM: Sij = Qi Kj^T * scale, one key per thread
        for (int c = tid; c < cols; c += blockDim.x) {
            float dot = 0.f;
            for (int k = 0; k < D; k++) dot += Qi[k]*Kj[c][k];
            Sij[c] = dot*scale;
        }
        __syncthreads();  // waits for: every score of the tile before thread 0 reduces them
        // endregion

        // region: split_update
        // Online softmax in SRAM: thread 0 moves the max and the sum and turns Sij into P~ij ...
        if (tid == 0) {
            float m_ij = -INFINITY;
            for (int c = 0; c < cols; c++) m_ij = fmaxf(m_ij, Sij[c]);
            float m_new = fmaxf(mi, m_ij);
            alpha = expf(mi - m_new);                   // rescales what was summed under the old max
            float rowsum = 0.f;
            for (int c = 0; c < cols; c++) { Sij[c] = expf(Sij[c] - m_new); rowsum += Sij[c]; }
            li = alpha*li + rowsum;
            mi = m_new;
        }
        __syncthreads();  // waits for: alpha and P~ij from thread 0 before every thread uses them
        // ... then every thread rescales and accumulates its own columns of Oi (unnormalized)
        for (int d = tid; d < D; d += blockDim.x) {
            float pv = 0.f;
            for (int c = 0; c < cols; c++) pv += Sij[c]*Vj[c][d];
            Oi[d] = alpha*Oi[d] + pv;
        }
        __syncthreads();  // waits for: every thread done with Kj, Vj, Sij before the next tile overwrites them
        // endregion
    }

    // region: split_write
    // SRAM -> HBM: the partial, not divided by li; mi and li are what fd_combine needs to finish it
    for (int d = tid; d < D; d += blockDim.x) O_partial[d] = Oi[d];
    if (tid == 0) { *m_partial = mi; *l_partial = li; }
    // endregion
}

// region: combine_setup
template <int D>
__global__ void fd_combine(const float* O_partial, const float* m_partial, const float* l_partial,
                           float* O, int n_splits) {
    int bh = blockIdx.x, tid = threadIdx.x;
    O_partial += (long)bh*n_splits*D;
    m_partial += (long)bh*n_splits;
    l_partial += (long)bh*n_splits;
    O += (long)bh*D;

    // SRAM: only the reduced values; the partials pass from HBM through registers
    __shared__ float m_global, l_global, acc[D];
    // endregion

    // region: combine_m
    // HBM -> SRAM: m_g = max_s m_s (an empty split has m_s = -inf; at least one split is not empty)
    if (tid == 0) {
        float m_g = -INFINITY;
        for (int s = 0; s < n_splits; s++) m_g = fmaxf(m_g, m_partial[s]);
        m_global = m_g;
    }
    __syncthreads();  // waits for: m_global before any thread rescales with it
    // endregion

    // region: combine_l
    // HBM -> SRAM: l_g = sum_s e^(m_s - m_g) l_s
    if (tid == 0) {
        float l_g = 0.f;
        for (int s = 0; s < n_splits; s++) l_g += expf(m_partial[s] - m_global)*l_partial[s];
        l_global = l_g;
    }
    // endregion

    // region: combine_acc
    // HBM -> SRAM: acc = sum_s e^(m_s - m_g) O_s, one column d per thread
    for (int d = tid; d < D; d += blockDim.x) {
        float a = 0.f;
        for (int s = 0; s < n_splits; s++) a += expf(m_partial[s] - m_global)*O_partial[s*D + d];
        acc[d] = a;
    }
    __syncthreads();  // waits for: l_global from thread 0 (and acc) before the division
    // endregion

    // region: combine_write
    // SRAM -> HBM: O = acc / l_g
    for (int d = tid; d < D; d += blockDim.x) O[d] = acc[d]/l_global;
    // endregion
}
