// Paged decoding (Kwon et al., 2023: PagedAttention) with grouped-query heads (Ainslie et al., 2023), in float32:
// one new query token per sequence of a batch, its keys and values in pages of a shared pool.
//
// Token t of sequence b is row t % PAGE of page block_table[b][t / PAGE] of the pool; query head hq reads K/V head
// hq / G (G = H_q / H_kv query heads share each K/V head).
//
// Two kernels. paged_decode: block (s, b*H_kv + h) loads the G query rows of K/V head h's group once, then walks
// sequence b's block table over the pages of its split s, loading each page once for all G heads (the last page
// only as far as the sequence goes), and runs the online softmax for the G rows. With one split it writes
// O = Og / l; with more it writes the unnormalized partials and paged_combine merges them, as flash decoding does:
// O = sum_s e^(m_s - m_g) O_s / l_g.
//
// Memory levels: HBM is every pointer argument, SRAM is every __shared__ variable, registers are the locals.
// Layout: Q and O are (B, H_q, D); K_pages, V_pages are (pages, PAGE, H_kv, D); block_table is (B, max_pages) and
// seq_lens (B,), int; O_partial is (B, H_q, n_splits, D), m_partial and l_partial (B, H_q, n_splits).
// Launch: paged_decode on grid (n_splits, B*H_kv), paged_combine (n_splits > 1) on grid (B*H_q), any blockDim.x.
// The host checks what the kernel reads before launching (kernels.check_inputs): every seq_lens[b] >= 1 (0 is
// refused: a sequence with no token has no softmax, O would be 0/0), within its row of block_table, and every
// entry the kernel reads a page of the pool. Offsets into the pool are 64-bit (pool_offset): a pool may pass 2^31
// elements, and an int offset would wrap there.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif

// Element index of row `row`, K/V head `h`, of page `page` in a pool (pages, PAGE, H_kv, D): 64-bit throughout
// (tests/cuda/test_cuda_paged.py calls it on the CPU with pages past 2^31 elements)
__host__ __device__ inline long pool_offset(int page, int row, int h, int page_rows, int H_kv, int D) {
    return (((long)page*page_rows + row)*H_kv + h)*D;
}

// region: decode_setup
template <int G, int PAGE, int D>
__global__ void paged_decode(const float* Q, const float* K_pages, const float* V_pages,
                             const int* block_table, const int* seq_lens,
                             float* O_partial, float* m_partial, float* l_partial, float* O,
                             int H_kv, int max_pages, float scale, int n_splits) {
    int s = blockIdx.x, b = blockIdx.y / H_kv, h = blockIdx.y % H_kv, tid = threadIdx.x;
    int H_q = H_kv*G;
    int len = seq_lens[b];                              // HBM -> registers: this sequence's tokens
    int n_pages = (len + PAGE - 1)/PAGE;                // its pages; the last may be partly filled
    int per_split = (n_pages + n_splits - 1)/n_splits;
    int p_start = min(s*per_split, n_pages), p_end = min(p_start + per_split, n_pages);  // maybe empty
    long q_row = (long)b*H_q + h*G;                     // the group's first query head: rows q_row .. q_row + G-1
    block_table += (long)b*max_pages;                   // sequence b's row of the table

    // SRAM: the group's queries, one page of K and V, its scores and the carries,
    // 4*(2*G*D + 2*PAGE*D + G*PAGE + 3*G) + 4 bytes (the last 4: the page's index)
    __shared__ float Qg[G][D], Kp[PAGE][D], Vp[PAGE][D], Sg[G][PAGE];
    __shared__ float mi[G], li[G], alpha[G], Og[G][D];
    __shared__ int page;
    // endregion

    // region: load_q
    // HBM -> SRAM, once: Qg = Q[b, h*G : h*G + G], the G query heads that share K/V head h; Og = 0, m = -inf, l = 0
    for (int x = tid; x < G*D; x += blockDim.x) { Qg[x/D][x%D] = Q[q_row*D + x]; Og[x/D][x%D] = 0.f; }
    for (int r = tid; r < G; r += blockDim.x) { mi[r] = -INFINITY; li[r] = 0.f; }
    __syncthreads();  // waits for: Qg and the carries set before any thread reads them
    // endregion

    for (int p = p_start; p < p_end; p++) {            // p: the sequence's logical page
        // region: read_table
        // HBM -> SRAM: the physical page that holds tokens p*PAGE .. p*PAGE + PAGE-1 of sequence b
        if (tid == 0) page = block_table[p];
        // (from the second page on, this barrier also waits for every thread to be done with the previous page,
        // its scores and alpha, before the loads below overwrite them)
        __syncthreads();  // waits for: the page's index before any thread loads from the page
        int rows = min(PAGE, len - p*PAGE);             // the last page: only the tokens the sequence has
        // endregion

        // region: load_page
        // HBM -> SRAM, once for all G heads: Kp, Vp = rows 0 .. rows-1 of head h of the page
        for (int x = tid; x < rows*D; x += blockDim.x) {
            long at = pool_offset(page, x/D, h, PAGE, H_kv, D) + x%D;  // row x/D, head h of the page: 64-bit
            Kp[x/D][x%D] = K_pages[at];
            Vp[x/D][x%D] = V_pages[at];
        }
        __syncthreads();  // waits for: the whole page in SRAM before any thread multiplies with it
        // endregion

        // region: scores
        // SRAM -> SRAM: Sg = Qg Kp^T * scale, each of the G heads against each row of the page
        for (int x = tid; x < G*rows; x += blockDim.x) {
            int r = x/rows, c = x%rows;
            float dot = 0.f;
            for (int k = 0; k < D; k++) dot += Qg[r][k]*Kp[c][k];
            Sg[r][c] = dot*scale;
        }
        __syncthreads();  // waits for: every score of the page before each head's thread reduces its row
        // endregion

        // region: update
        // Online softmax in SRAM: one thread per head moves its max and sum and turns its scores into P~ ...
        for (int r = tid; r < G; r += blockDim.x) {
            float m_new = mi[r];
            for (int c = 0; c < rows; c++) m_new = fmaxf(m_new, Sg[r][c]);
            alpha[r] = expf(mi[r] - m_new);             // rescales what was summed under the old max
            float rowsum = 0.f;
            for (int c = 0; c < rows; c++) { Sg[r][c] = expf(Sg[r][c] - m_new); rowsum += Sg[r][c]; }
            li[r] = alpha[r]*li[r] + rowsum;
            mi[r] = m_new;
        }
        __syncthreads();  // waits for: alpha and P~ of every head before any thread uses them
        // ... then every thread rescales and accumulates its own elements of Og (unnormalized)
        for (int x = tid; x < G*D; x += blockDim.x) {
            int r = x/D, d = x%D;
            float pv = 0.f;
            for (int c = 0; c < rows; c++) pv += Sg[r][c]*Vp[c][d];
            Og[r][d] = alpha[r]*Og[r][d] + pv;
        }
        // no barrier here: the next page's first barrier waits for this work; each thread writes below only the
        // elements of Og, mi, li it updated itself
        // endregion
    }

    // region: write
    // SRAM -> HBM. One split: O = Og / l, finished here. Several: the partial, not divided by l, with m and l
    if (n_splits == 1) {
        for (int x = tid; x < G*D; x += blockDim.x) O[q_row*D + x] = Og[x/D][x%D]/li[x/D];
    } else {                                            // a split with no page writes m = -inf, l = 0, Og = 0
        for (int x = tid; x < G*D; x += blockDim.x)
            O_partial[((q_row + x/D)*n_splits + s)*D + x%D] = Og[x/D][x%D];
        for (int r = tid; r < G; r += blockDim.x) {
            m_partial[(q_row + r)*n_splits + s] = mi[r];
            l_partial[(q_row + r)*n_splits + s] = li[r];
        }
    }
    // endregion
}

// region: combine_setup
template <int D>
__global__ void paged_combine(const float* O_partial, const float* m_partial, const float* l_partial,
                              float* O, int n_splits) {
    long row = blockIdx.x;                              // one query head of one sequence: b*H_q + hq
    int tid = threadIdx.x;
    O_partial += row*n_splits*D;
    m_partial += row*n_splits;
    l_partial += row*n_splits;
    O += row*D;

    // SRAM: only the reduced values; the partials pass from HBM through registers
    __shared__ float m_global, l_global, acc[D];
    // endregion

    // region: combine
    // HBM -> SRAM: m_g = max_s m_s (an empty split has m_s = -inf; the sequence's first split is never empty),
    // then l_g = sum_s e^(m_s - m_g) l_s and acc = sum_s e^(m_s - m_g) O_s
    if (tid == 0) {
        float m_g = -INFINITY, l_g = 0.f;
        for (int s = 0; s < n_splits; s++) m_g = fmaxf(m_g, m_partial[s]);
        for (int s = 0; s < n_splits; s++) l_g += expf(m_partial[s] - m_g)*l_partial[s];
        m_global = m_g; l_global = l_g;
    }
    __syncthreads();  // waits for: m_global and l_global from thread 0 before any thread rescales with them
    for (int d = tid; d < D; d += blockDim.x) {
        float a = 0.f;
        for (int s = 0; s < n_splits; s++) a += expf(m_partial[s] - m_global)*O_partial[s*D + d];
        acc[d] = a;
    }
    // endregion

    // region: combine_write
    // SRAM -> HBM: O = acc / l_g (each thread divides the columns it summed)
    for (int d = tid; d < D; d += blockDim.x) O[d] = acc[d]/l_global;
    // endregion
}
