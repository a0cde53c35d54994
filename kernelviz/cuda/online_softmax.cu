// Online softmax with its output, in one pass (Milakov and Gimelshein, 2018), in float32: the loop of the Online
// softmax page, and the loop at the heart of every Flash Attention kernel.
//
// One block per row: block row reads its N scores x and the rows of V in tiles of Bc, and keeps three carries in
// SRAM: the running max m, the running sum l = sum_c e^(x_c - m) (the page's l) and the output
// o = sum_c e^(x_c - m) v_c / l (the page's o'), kept normalized after every tile. When a tile brings a larger
// score, factor = e^(m_old - m_new) moves what came before onto the new max. o is written to HBM once, at the end.
//
// Memory levels: HBM is every pointer argument, SRAM is every __shared__ variable, registers are the locals.
// Layout: X is (BH, N); V is (BH, N, D); O is (BH, D); m_out and l_out are (BH). Launch: grid (BH), any blockDim.x.
// Every row holds at least one finite score (N >= 1), so m is finite from the first tile on.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

// region: setup
template <int Bc, int D>
__global__ void online_softmax(const float* X, const float* V, float* O, float* m_out, float* l_out, int N) {
    int row = blockIdx.x, tid = threadIdx.x;
    X += (long)row*N; V += (long)row*N*D;               // this block's row of scores and its values
    O += (long)row*D; m_out += row; l_out += row;

    // SRAM: one tile of scores and values, and the carries, 4*(Bc + Bc*D + D + 3) bytes
    __shared__ float xi[Bc], vi[Bc][D];
    __shared__ float m, l, factor, o[D];

    int T = (N + Bc - 1)/Bc;                              // tiles of the row
    // endregion

    // region: init
    // SRAM, once: m = -inf, l = 0, o = 0
    for (int k = tid; k < D; k += blockDim.x) o[k] = 0.f;
    if (tid == 0) { m = -INFINITY; l = 0.f; }
    __syncthreads();  // waits for: the carries set before any thread reads them
    // endregion

    for (int i = 0; i < T; i++) {
        int col0 = i*Bc;                                 // first score of this tile
        int cols = min(Bc, N - col0);                    // the last tile can be short
        // region: load
        // HBM -> SRAM: xi, vi = x[col0 : col0 + cols], V[col0 : col0 + cols]
        for (int c = tid; c < cols; c += blockDim.x) xi[c] = X[col0 + c];
        for (int x = tid; x < cols*D; x += blockDim.x) vi[x/D][x%D] = V[(col0 + x/D)*D + x%D];
        __syncthreads();  // waits for: the whole tile in SRAM before thread 0 reduces it
        // endregion

        // region: new_max
        // SRAM, thread 0: the new max, and the factor that moves what came before onto it (1 unless the max grew)
        if (tid == 0) {
            float m_new = m;
            for (int c = 0; c < cols; c++) m_new = fmaxf(m_new, xi[c]);
            factor = expf(m - m_new);                   // e^(m_old - m_new); 0 on the first tile, where l = o = 0
            m = m_new;
        }
        // endregion

        // region: update
        // SRAM, thread 0: l_new = l factor + sum_c e^(xi_c - m); xi becomes this tile's weights e^(xi_c - m) / l_new
        if (tid == 0) {
            float l_new = l*factor;
            for (int c = 0; c < cols; c++) { xi[c] = expf(xi[c] - m); l_new += xi[c]; }
            for (int c = 0; c < cols; c++) xi[c] /= l_new;
            factor *= l/l_new;                          // o was divided by the old l: o = o l factor / l_new + ...
            l = l_new;
        }
        __syncthreads();  // waits for: the weights and the factor from thread 0 before every thread uses them
        // ... then every thread rescales its own columns of o and adds the tile's weighted values
        for (int k = tid; k < D; k += blockDim.x) {
            float wv = 0.f;
            for (int c = 0; c < cols; c++) wv += xi[c]*vi[c][k];
            o[k] = factor*o[k] + wv;
        }
        __syncthreads();  // waits for: every thread done with xi, vi, factor before the next tile overwrites them
        // endregion
    }

    // region: write
    // SRAM -> HBM, once: O = o, already normalized; m and l too, what a combine of several rows' parts would need
    // (the loop's last __syncthreads() already waited for every column of o)
    for (int k = tid; k < D; k += blockDim.x) O[k] = o[k];
    if (tid == 0) { *m_out = m; *l_out = l; }
    // endregion
}
