// FlashAttention 2, forward pass (Dao, 2023, Algorithm 1), in float32.
//
// The outer loop, over blocks of Br rows of Q, is the grid: block (i, bh) owns rows [i*Br, i*Br + Br) of one
// (batch·head) from start to finish. The inner loop, over the Tc tiles of Bc rows of K and V, is the loop below.
// Qi, Oi, mi and li stay in SRAM for the whole inner loop; only K and V stream in, and O and L = m + log l are
// written to HBM once, at the end.
//
// Memory levels: HBM is every pointer argument, SRAM is every __shared__ array, registers are the locals.
// Layout: Q and O are (BH, N, D) row-major, K and V are (BH, N_kv, D), L is (BH, N). Launch: grid (ceil(N/Br), BH),
// any blockDim.x. Causal, aligned bottom-right as in attention/: query row r sees keys 0..r + N_kv - N, so the last
// query row sees every key, and when N > N_kv the first N - N_kv rows see none (their O is 0 and their L is -inf).
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

// region: setup
template <int Br, int Bc, int D>
__global__ void fa2(const float* Q, const float* K, const float* V, float* O, float* L,
                    int N, int N_kv, float scale, int causal) {
    int i = blockIdx.x, bh = blockIdx.y, tid = threadIdx.x;
    Q += (long)bh*N*D; K += (long)bh*N_kv*D; V += (long)bh*N_kv*D; O += (long)bh*N*D; L += (long)bh*N;

    // SRAM: this block's tiles and carries, 4*(2*Br*D + 2*Bc*D + Br*Bc + 2*Br) bytes
    __shared__ float Qi[Br][D], Oi[Br][D], Kj[Bc][D], Vj[Bc][D];
    __shared__ float Sij[Br][Bc], mi[Br], li[Br];

    int row0 = i*Br;                                    // first row of Q this block owns
    int shift = N_kv - N;                               // causal: row r sees keys up to r + shift
    int Tc = (N_kv + Bc - 1)/Bc;                        // tiles of K and V
    int last = min(row0 + Br, N) - 1 + shift;           // the last key this block's last row sees
    if (causal) Tc = last < 0 ? 0 : min(Tc, last/Bc + 1);  // tiles wholly right of the diagonal: never loaded
    // endregion

    // region: no_key
    // No tile to visit (causal with N > N_kv: every row of the block sees no key; or N_kv = 0): registers -> HBM,
    // O[i] = 0 and L[i] = -inf (the log of an empty sum), and return before loading Q, K or V, as flash-attn does.
    // Tc is the same for every thread of the block, so the whole block returns and no __syncthreads() is skipped.
    if (Tc == 0) {
        for (int x = tid; x < Br*D; x += blockDim.x)
            if (row0 + x/D < N) O[(row0 + x/D)*D + x%D] = 0.f;
        for (int r = tid; r < Br; r += blockDim.x)
            if (row0 + r < N) L[row0 + r] = -INFINITY;
        return;
    }
    // endregion

    // region: load_q
    // HBM -> SRAM, once: Qi = Q[i] (rows past N read as 0); Oi = 0, mi = -inf, li = 0
    for (int x = tid; x < Br*D; x += blockDim.x) {
        int r = x/D, k = x%D;
        Qi[r][k] = row0 + r < N ? Q[(row0 + r)*D + k] : 0.f;
        Oi[r][k] = 0.f;
    }
    for (int r = tid; r < Br; r += blockDim.x) { mi[r] = -INFINITY; li[r] = 0.f; }
    __syncthreads();  // waits for: all of Qi, Oi, mi, li set before any thread reads them
    // endregion

    for (int j = 0; j < Tc; j++) {
        int col0 = j*Bc;                                // first key of this tile
        // region: load_kv
        // HBM -> SRAM: Kj, Vj = K[j], V[j] (keys past N_kv read as 0; scores masks them)
        for (int x = tid; x < Bc*D; x += blockDim.x) {
            int c = x/D, k = x%D;
            bool in = col0 + c < N_kv;
            Kj[c][k] = in ? K[(col0 + c)*D + k] : 0.f;
            Vj[c][k] = in ? V[(col0 + c)*D + k] : 0.f;
        }
        __syncthreads();  // waits for: the whole of Kj and Vj in SRAM before any thread multiplies with them
        // endregion

        // region: scores
        // SRAM -> SRAM: Sij = Qi Kj^T * scale; keys past N_kv, and keys past the row's diagonal if causal, get -inf
        for (int x = tid; x < Br*Bc; x += blockDim.x) {
            int r = x/Bc, c = x%Bc;
            float s = 0.f;
            for (int k = 0; k < D; k++) s += Qi[r][k]*Kj[c][k];
            bool masked = col0 + c >= N_kv || (causal && col0 + c > row0 + r + shift);
            Sij[r][c] = masked ? -INFINITY : s*scale;
        }
        __syncthreads();  // waits for: every score of the tile before a row of it is reduced
        // endregion

        // region: update
        // Online softmax in SRAM, one thread per row: rescale mi, li, Oi to the new max, then add this tile.
        // A row that has seen only masked keys keeps m_new = -inf: exp is then taken against 0, giving 0, not NaN.
        for (int r = tid; r < Br; r += blockDim.x) {
            float m_ij = -INFINITY;
            for (int c = 0; c < Bc; c++) m_ij = fmaxf(m_ij, Sij[r][c]);
            float m_new = fmaxf(mi[r], m_ij);
            float m_ref = m_new == -INFINITY ? 0.f : m_new;  // what exp subtracts
            float alpha = expf(mi[r] - m_ref);          // rescales what was summed under the old max
            float rowsum = 0.f;
            for (int c = 0; c < Bc; c++) {
                Sij[r][c] = expf(Sij[r][c] - m_ref);    // Sij now holds P~ij
                rowsum += Sij[r][c];
            }
            li[r] = alpha*li[r] + rowsum;
            for (int k = 0; k < D; k++) {
                float pv = 0.f;
                for (int c = 0; c < Bc; c++) pv += Sij[r][c]*Vj[c][k];
                Oi[r][k] = alpha*Oi[r][k] + pv;         // unnormalized: divided by li once, at the end
            }
            mi[r] = m_new;
        }
        __syncthreads();  // waits for: every row done with Kj, Vj, Sij before the next tile overwrites them
        // endregion
    }

    // region: write_back
    // SRAM -> HBM, once: O[i] = Oi / li and L[i] = mi + log(li), for the rows that exist; a row that saw no key
    // (li = 0) gets O = 0 and L = -inf (the loop's last __syncthreads(), or load_q's, waited for the final values)
    for (int x = tid; x < Br*D; x += blockDim.x) {
        int r = x/D, k = x%D;
        if (row0 + r < N) O[(row0 + r)*D + k] = li[r] > 0.f ? Oi[r][k]/li[r] : 0.f;
    }
    for (int r = tid; r < Br; r += blockDim.x)
        if (row0 + r < N) L[row0 + r] = li[r] > 0.f ? mi[r] + logf(li[r]) : -INFINITY;
    // endregion
}
