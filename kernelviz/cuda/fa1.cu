// FlashAttention 1, forward pass (Dao et al., 2022, Algorithm 1), in float32.
//
// One block per (batch·head). The outer loop runs over the Tc tiles of K and V, which stay in SRAM for a whole
// pass over Q; the inner loop runs over the Tr blocks of Br rows of Q. The running output O, sum l and max m
// live in HBM: every inner step reads Qi, Oi, li, mi from HBM and writes Oi, li, mi back, and O is kept
// normalized (divided by l) after every step. That round trip is what FlashAttention 2 removes.
//
// Memory levels: HBM is every pointer argument, SRAM is every __shared__ array, registers are the locals.
// Layout: Q and O are (BH, N, D) row-major, K and V are (BH, N_kv, D), l and m are (BH, N). Launch: grid (BH), any
// blockDim.x. Causal, aligned bottom-right as in attention/: query row r sees keys 0..r + N_kv - N, so the last query
// row sees every key, and when N > N_kv the first N - N_kv rows see none (their O is 0, l is 0 and m is -inf).
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

// region: setup
template <int Br, int Bc, int D>
__global__ void fa1(const float* Q, const float* K, const float* V, float* O, float* l, float* m,
                    int N, int N_kv, float scale, int causal) {
    int bh = blockIdx.x, tid = threadIdx.x;
    Q += (long)bh*N*D; K += (long)bh*N_kv*D; V += (long)bh*N_kv*D;
    O += (long)bh*N*D; l += (long)bh*N; m += (long)bh*N;

    // SRAM: one K/V tile, one Q block and its carries, 4*(2*Bc*D + 2*Br*D + Br*Bc + 2*Br) bytes
    __shared__ float Kj[Bc][D], Vj[Bc][D], Qi[Br][D], Oi[Br][D];
    __shared__ float Sij[Br][Bc], mi[Br], li[Br];

    int Tr = (N + Br - 1)/Br, Tc = (N_kv + Bc - 1)/Bc; // blocks of Q rows; tiles of K and V
    int shift = N_kv - N;                               // causal: row r sees keys up to r + shift

    // HBM: the carries start there, O = 0, l = 0, m = -inf
    for (int x = tid; x < N*D; x += blockDim.x) O[x] = 0.f;
    for (int r = tid; r < N; r += blockDim.x) { l[r] = 0.f; m[r] = -INFINITY; }
    __syncthreads();  // waits for: the initial O, l, m in HBM before any thread reads them back
    // endregion

    for (int j = 0; j < Tc; j++) {
        int col0 = j*Bc;                                // first key of this tile
        // region: load_kv
        // HBM -> SRAM, once per outer step: Kj, Vj = K[j], V[j] (keys past N_kv read as 0; scores masks them)
        for (int x = tid; x < Bc*D; x += blockDim.x) {
            int c = x/D, k = x%D;
            bool in = col0 + c < N_kv;
            Kj[c][k] = in ? K[(col0 + c)*D + k] : 0.f;
            Vj[c][k] = in ? V[(col0 + c)*D + k] : 0.f;
        }
        __syncthreads();  // waits for: the whole of Kj and Vj in SRAM before any thread multiplies with them
        // endregion

        // causal: the blocks of Q whose rows all come before this tile's first key (row r + shift < col0) see none
        // of it, so start at the block holding row col0 - shift (the last block always sees every tile)
        for (int i = causal ? max(0, col0 - shift)/Br : 0; i < Tr; i++) {
            int row0 = i*Br;                            // first row of this block of Q
            // region: load_q_carries
            // HBM -> SRAM, on every inner step: Qi = Q[i] and the carries Oi, li, mi as the last K/V tile left them
            for (int x = tid; x < Br*D; x += blockDim.x) {
                int r = x/D, k = x%D;
                bool in = row0 + r < N;
                Qi[r][k] = in ? Q[(row0 + r)*D + k] : 0.f;
                Oi[r][k] = in ? O[(row0 + r)*D + k] : 0.f;
            }
            for (int r = tid; r < Br; r += blockDim.x) {
                bool in = row0 + r < N;
                mi[r] = in ? m[row0 + r] : -INFINITY;
                li[r] = in ? l[row0 + r] : 0.f;
            }
            __syncthreads();  // waits for: Qi and the carries in SRAM before scores and update read them
            // endregion

            // region: scores
            // SRAM -> SRAM: Sij = Qi Kj^T * scale; keys past N_kv, and keys past the row's diagonal if causal, -inf
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
            // Online softmax in SRAM, one thread per row, keeping Oi normalized: Oi = (li e^(mi-m_new) Oi + P~ij Vj)
            // / l_new. A row that has seen only masked keys keeps m_new = -inf and l_new = 0 (exp is taken against 0
            // then, and Oi stays 0): never NaN.
            for (int r = tid; r < Br; r += blockDim.x) {
                float m_ij = -INFINITY;
                for (int c = 0; c < Bc; c++) m_ij = fmaxf(m_ij, Sij[r][c]);
                float m_new = fmaxf(mi[r], m_ij);
                float m_ref = m_new == -INFINITY ? 0.f : m_new;  // what exp subtracts
                float rowsum = 0.f;
                for (int c = 0; c < Bc; c++) {
                    Sij[r][c] = expf(Sij[r][c] - m_ref);    // Sij now holds P~ij, relative to m_new
                    rowsum += Sij[r][c];
                }
                float l_old = li[r]*expf(mi[r] - m_ref);    // the old sum, rescaled to the new max
                float l_new = l_old + rowsum;
                for (int k = 0; k < D; k++) {
                    float pv = 0.f;
                    for (int c = 0; c < Bc; c++) pv += Sij[r][c]*Vj[c][k];
                    Oi[r][k] = l_new > 0.f ? (l_old*Oi[r][k] + pv)/l_new : 0.f;  // divided by l on every step
                }
                mi[r] = m_new; li[r] = l_new;
            }
            __syncthreads();  // waits for: every row's new Oi, li, mi before they are written out
            // endregion

            // region: write_back
            // SRAM -> HBM, on every inner step: Oi, li, mi go back for the next K/V tile to read again
            for (int x = tid; x < Br*D; x += blockDim.x) {
                int r = x/D, k = x%D;
                if (row0 + r < N) O[(row0 + r)*D + k] = Oi[r][k];
            }
            for (int r = tid; r < Br; r += blockDim.x)
                if (row0 + r < N) { m[row0 + r] = mi[r]; l[row0 + r] = li[r]; }
            // No barrier: the next load_q_carries has each thread overwrite only the elements it wrote back here.
            // endregion
        }
    }
}
