// FlashAttention 2, backward pass (Dao, 2023, Algorithm 2), in float32: two kernels.
//
// fa2_bwd_preprocess: block (i, bh) owns rows [i*Br, i*Br + Br) of one (batch·head). It writes the paper's
// D = rowsum(dO ∘ O) (called Delta here, since D is the head dimension) and zeroes those rows of dQ.
//
// fa2_bwd: K and V go on the outer loop this time. Block (j, bh) owns keys [j*Bc, j*Bc + Bc): Kj, Vj and the
// gradients dKj, dVj stay in SRAM for the whole kernel, and every block i of query rows streams past. For each i,
// Pij = exp(Sij - Li) is recomputed from Qi, Kj and the forward's L = m + log l (nothing N x N was stored), and
//     dVj += Pij^T dOi,  dPij = dOi Vj^T,  dSij = Pij ∘ (dPij - Di),  dQi += scale dSij Kj,  dKj += scale dSij^T Qi.
// Every block j adds into the same rows dQi, at the same time on a GPU: dQ is accumulated in HBM with atomicAdd.
//
// Memory levels: HBM is every pointer argument, SRAM is every __shared__ array, registers are the locals.
// Layout: Q, O, dO, dQ are (BH, N, D) row-major; K, V, dK, dV are (BH, N_kv, D); L and Delta are (BH, N).
// Launches: preprocess on grid (ceil(N/Br), BH), then fa2_bwd on grid (ceil(N_kv/Bc), BH); any blockDim.x.
// Causal: query row r sees keys 0..r + N_kv - N (bottom-right aligned, as attention/); a row that sees no key
// has P = 0 throughout, so it adds nothing to dK, dV and its dQ stays 0.

// region: preprocess
template <int Br, int D>
__global__ void fa2_bwd_preprocess(const float* O, const float* dO, float* Delta, float* dQ, int N) {
    int i = blockIdx.x, bh = blockIdx.y, tid = threadIdx.x;
    O += (long)bh*N*D; dO += (long)bh*N*D; dQ += (long)bh*N*D; Delta += (long)bh*N;
    int row0 = i*Br;                                    // first row this block owns
    // HBM -> registers -> HBM: Delta[r] = sum_k dO[r][k] O[r][k], one thread per row; dQ[i] = 0
    for (int r = tid; r < Br; r += blockDim.x) {
        if (row0 + r >= N) continue;
        float acc = 0.f;
        for (int k = 0; k < D; k++) acc += dO[(row0 + r)*D + k]*O[(row0 + r)*D + k];
        Delta[row0 + r] = acc;
    }
    for (int x = tid; x < Br*D; x += blockDim.x)
        if (row0 + x/D < N) dQ[(row0 + x/D)*D + x%D] = 0.f;
}
// endregion

// region: setup
template <int Br, int Bc, int D>
__global__ void fa2_bwd(const float* Q, const float* K, const float* V, const float* dO, const float* L,
                        const float* Delta, float* dQ, float* dK, float* dV, int N, int N_kv, float scale,
                        int causal) {
    int j = blockIdx.x, bh = blockIdx.y, tid = threadIdx.x;
    Q += (long)bh*N*D; dO += (long)bh*N*D; dQ += (long)bh*N*D; L += (long)bh*N; Delta += (long)bh*N;
    K += (long)bh*N_kv*D; V += (long)bh*N_kv*D; dK += (long)bh*N_kv*D; dV += (long)bh*N_kv*D;

    // SRAM: 4*(4*Bc*D + 2*Br*D + 2*Br*Bc + 2*Br) bytes
    __shared__ float Kj[Bc][D], Vj[Bc][D], dKj[Bc][D], dVj[Bc][D];
    __shared__ float Qi[Br][D], dOi[Br][D], Pij[Br][Bc], dSij[Br][Bc], Li[Br], Di[Br];

    int col0 = j*Bc;                                    // first key this block owns
    int Tr = (N + Br - 1)/Br;                           // blocks of query rows
    int first = causal ? max(0, col0 - (N_kv - N))/Br : 0;  // blocks above the first row that sees col0: skipped
    // endregion

    // region: load_kv
    // HBM -> SRAM, once: Kj, Vj = K[j], V[j] (keys past N_kv read as 0); dKj = dVj = 0
    for (int x = tid; x < Bc*D; x += blockDim.x) {
        int c = x/D, k = x%D;
        bool in = col0 + c < N_kv;
        Kj[c][k] = in ? K[(col0 + c)*D + k] : 0.f;
        Vj[c][k] = in ? V[(col0 + c)*D + k] : 0.f;
        dKj[c][k] = 0.f;
        dVj[c][k] = 0.f;
    }
    // (no barrier yet: the first load_q's waits for these too, before any thread reads them)
    // endregion

    for (int i = first; i < Tr; i++) {
        int row0 = i*Br;                                // first query row of this block
        // region: load_q
        // HBM -> SRAM: Qi, dOi = Q[i], dO[i]; Li, Di = L[i], Delta[i] (rows past N read as 0; P masks them)
        for (int x = tid; x < Br*D; x += blockDim.x) {
            int r = x/D, k = x%D;
            bool in = row0 + r < N;
            Qi[r][k] = in ? Q[(row0 + r)*D + k] : 0.f;
            dOi[r][k] = in ? dO[(row0 + r)*D + k] : 0.f;
        }
        for (int r = tid; r < Br; r += blockDim.x) {
            Li[r] = row0 + r < N ? L[row0 + r] : 0.f;
            Di[r] = row0 + r < N ? Delta[row0 + r] : 0.f;
        }
        __syncthreads();  // waits for: Qi, dOi, Li, Di (the first time, Kj, Vj too) in SRAM before any thread uses them
        // endregion

        // region: recompute
        // SRAM -> SRAM: Pij = exp(Qi Kj^T * scale - Li), the forward's softmax rebuilt from L alone; 0 where masked
        // (rows past N, keys past N_kv, keys after the row's diagonal if causal: a row that sees no key is all 0)
        for (int x = tid; x < Br*Bc; x += blockDim.x) {
            int r = x/Bc, c = x%Bc;
            bool masked = row0 + r >= N || col0 + c >= N_kv || (causal && col0 + c > row0 + r + N_kv - N);
            float s = 0.f;
            for (int k = 0; k < D; k++) s += Qi[r][k]*Kj[c][k];
            Pij[r][c] = masked ? 0.f : expf(s*scale - Li[r]);
        }
        __syncthreads();  // waits for: every Pij before dVj and dSij read whole columns and rows of it
        // endregion

        // region: dv
        // SRAM -> SRAM: dVj += Pij^T dOi, one thread per element of dVj
        for (int x = tid; x < Bc*D; x += blockDim.x) {
            int c = x/D, k = x%D;
            float acc = 0.f;
            for (int r = 0; r < Br; r++) acc += Pij[r][c]*dOi[r][k];
            dVj[c][k] += acc;
        }
        // endregion

        // region: ds
        // SRAM -> SRAM: dPij = dOi Vj^T, then dSij = Pij ∘ (dPij - Di), the softmax's Jacobian applied to dPij
        for (int x = tid; x < Br*Bc; x += blockDim.x) {
            int r = x/Bc, c = x%Bc;
            float dp = 0.f;
            for (int k = 0; k < D; k++) dp += dOi[r][k]*Vj[c][k];
            dSij[r][c] = Pij[r][c]*(dp - Di[r]);
        }
        __syncthreads();  // waits for: every dSij before dQ and dKj sum over its rows and columns
        // endregion

        // region: dq
        // SRAM -> HBM: dQ[i] += scale * dSij Kj, an atomic read-modify-write: every block j adds into these rows
        for (int x = tid; x < Br*D; x += blockDim.x) {
            int r = x/D, k = x%D;
            if (row0 + r >= N) continue;
            float acc = 0.f;
            for (int c = 0; c < Bc; c++) acc += dSij[r][c]*Kj[c][k];
            atomicAdd(&dQ[(row0 + r)*D + k], scale*acc);
        }
        // endregion

        // region: dk
        // SRAM -> SRAM: dKj += scale * dSij^T Qi, one thread per element of dKj
        for (int x = tid; x < Bc*D; x += blockDim.x) {
            int c = x/D, k = x%D;
            float acc = 0.f;
            for (int r = 0; r < Br; r++) acc += dSij[r][c]*Qi[r][k];
            dKj[c][k] += scale*acc;
        }
        __syncthreads();  // waits for: every thread done with Qi, dOi, Pij, dSij before the next rows overwrite them
        // endregion
    }

    // region: write_back
    // SRAM -> HBM, once: dK[j] = dKj and dV[j] = dVj, for the keys that exist (each thread writes the elements it
    // accumulated, so no barrier is needed after the loop)
    for (int x = tid; x < Bc*D; x += blockDim.x) {
        int c = x/D, k = x%D;
        if (col0 + c < N_kv) {
            dK[(col0 + c)*D + k] = dKj[c][k];
            dV[(col0 + c)*D + k] = dVj[c][k];
        }
    }
    // endregion
}
