// FlashAttention 3, forward pass, for Hopper (sm_90a): fp16 or bf16 Q, K, V (BF16 = 0 or 1), fp32 accumulation.
//
// The block is three warpgroups (384 threads) with two jobs (warp specialization, Shah et al. 2024, §3.1):
//   warpgroup 0, the producer: one thread issues every copy HBM -> SRAM through the Tensor Memory Accelerator (TMA):
//     Q's 128 rows once, then K_j and V_j into a ring of STAGES stages, each stage guarded by two mbarriers: *full*
//     (the copies landed: the TMA counts the bytes in, arrive.expect_tx said how many) and *empty* (both consumers
//     are done with it); the rest of the producer exits. setmaxnreg gives its registers to the consumers.
//   warpgroups 1 and 2, the consumers: each owns 64 of the block's Br = 128 rows of Q, S, P, m, l and O, and runs
//     FA2's loop with wgmma.mma_async, Hopper's warpgroup matmul: S = Q K_j^T reads both operands from SRAM through
//     matrix descriptors, O += P V_j takes P from registers (the accumulator of S, rounded to 16 bits, is laid out
//     as wgmma's A fragment, as for mma.sync in fa2_mma.cu).
// Two overlaps hide the softmax behind the tensor cores. Within a warpgroup (§3.2): at step j it issues S_j = Q K_j^T,
// then O += P_{j-1} V_{j-1} (the tile before's product), waits for S_j alone (wgmma_wait<1>) and runs the softmax of
// S_j while that product is still in flight. Across warpgroups (ping-pong, §3.1): two named barriers make them take
// turns issuing their wgmmas, so one's softmax runs under the other's products.
//
// Memory levels: HBM is what the tensor maps describe (and L), SRAM the dynamic shared memory `smem`, registers the
// locals. Layout: Q and O are (BH, N, D), K and V (BH, N_kv, D), 16-bit; L = m*scale + log l is (BH, N) float. The
// host makes four 3-D tensor maps (dims D, rows, BH; 128-byte swizzle; boxes of 64 columns: 64 rows for Q and O, Bc
// rows for K and V); TMA fills rows past N or N_kv with zeros and clips stores there, so ragged sizes need no bounds
// test in the kernel, only the mask of keys past N_kv.
// Launch: grid (ceil(N/128), BH), 384 threads, fa3_shared_bytes(Bc, D) bytes of dynamic shared memory. scale > 0.
// Causal, aligned bottom-right as in fa2.cu: row r sees keys up to r + N_kv - N; a row that sees no key gets O = 0
// and L = -inf.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifdef KVSHIM
using u8 = uint8_t;               // bytes of SRAM
using u64 = uint64_t;             // mbarriers and matrix descriptors
#else
using u8 = unsigned char;
using u64 = unsigned long long;
#endif
#include "dynamic_smem.h"
#include "mma_sm80.h"  // pack2: cvt of two floats to a 16-bit pair, as fa2_mma.cu rounds P

// Shared memory of a block: Q (Br x D), the ring of K_j, V_j (STAGES x Bc x D each), 16-bit, then the mbarriers, and
// 1 KiB to round the start up to the 1,024 bytes a 128-byte swizzle atom needs (8 rows of 128 bytes).
constexpr int FA3_BR = 128, FA3_STAGES = 2, FA3_BOX = 64;  // FA3_BOX: columns a TMA box and a swizzle row hold
__host__ __device__ constexpr int fa3_shared_bytes(int Bc, int D) {
    return 1024 + 2*FA3_BR*D + 2*FA3_STAGES*2*Bc*D + 8*(1 + 2*FA3_STAGES);
}

#ifndef KVSHIM
// The PTX, one instruction a function (on the CPU shim, cpu/hopper.h does what each does: KVSHIM).
// region: ptx
#ifndef __cuda_cuda_h__  // cuda.h's own, where a host file included it
struct alignas(64) CUtensorMap { unsigned long long opaque[16]; };  // made on the host by cuTensorMapEncodeTiled
#endif

__device__ __forceinline__ unsigned smem_addr(const void* p) {  // the shared-window address of a pointer into SRAM
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// mbarriers: a 64-bit word in SRAM that counts arrivals and transaction bytes of its current phase
__device__ __forceinline__ void mbar_init(u64* bar, unsigned arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_addr(bar)), "r"(arrivals) : "memory");
}
__device__ __forceinline__ void fence_mbar_init() {  // the inits visible to the async proxy (the TMA) too
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive(u64* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(u64* bar, unsigned bytes) {  // arrive; bytes to come
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_addr(bar)), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void mbar_wait(u64* bar, unsigned parity) {  // until the phase of this parity ends
    unsigned done = 0;
    while (!done)
        asm volatile("{.reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p;}"
                     : "=r"(done) : "r"(smem_addr(bar)), "r"(parity) : "memory");
}

// TMA: a box of the tensor map at coordinates (c0: column, c1: row, c2: batch·head) HBM <-> SRAM
__device__ __forceinline__ void tma_load_3d(void* dst, const CUtensorMap* map, u64* bar, int c0, int c1, int c2) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%2, %3, %4}], [%5];"
                 :: "r"(smem_addr(dst)), "l"(map), "r"(c0), "r"(c1), "r"(c2), "r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, const void* src, int c0, int c1, int c2) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%2, %3, %4}], [%1];"
                 :: "l"(map), "r"(smem_addr(src)), "r"(c0), "r"(c1), "r"(c2) : "memory");
}
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
__device__ __forceinline__ void tma_store_wait() {  // the committed stores have read SRAM
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
}
__device__ __forceinline__ void tma_store_flush() {  // ... and written HBM
    asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}
__device__ __forceinline__ void fence_proxy_async() {  // threads' SRAM writes visible to the TMA's reads
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// named barriers: barrier `id` (1-15; 0 is __syncthreads) completes when `threads` threads have synced or arrived
__device__ __forceinline__ void named_bar_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void named_bar_arrive(int id, int threads) {
    asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(threads) : "memory");
}

// setmaxnreg: the warpgroup's registers a thread, raised (taken from the pool freed by others) or lowered
template <int R> __device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" :: "n"(R));
}
template <int R> __device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" :: "n"(R));
}

// wgmma: fence (registers written before are what it reads), commit (the wgmmas since the last commit are one
// group), wait<N> (until at most N groups are in flight; only then may their accumulators be read)
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" :: "n"(N) : "memory");
}

// A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address, leading and stride byte
// offsets (each >> 4, 14 bits), and the swizzle mode in bits 62-63 (1: 128-byte)
__device__ __forceinline__ u64 make_smem_desc(unsigned offset, unsigned lbo, unsigned sbo, int swizzle) {
    u64 mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : swizzle == 32 ? 3 : 0;
    return u64((offset & 0x3FFFF) >> 4) | u64((lbo & 0x3FFFF) >> 4) << 16 |
           u64((sbo & 0x3FFFF) >> 4) << 32 | mode << 62;
}

// One wgmma.mma_async of shape m64nNk16 (N = 64 or 128, the names below end in N), D (fp32) = A B (+ D): each
// thread holds N/2 floats of D. They are the asm's first operands, %0 .. %(N/2 - 1): KV_ACC_N ("+f"(d[0]), ...) and
// KV_ACC_REGS_N, their list in the instruction; the operands after them (AB, the flag) are numbered from N/2. TYPE:
// "f16" or "bf16", of A and B; TRANS: the transpose bits of the operands in SRAM ("0, 0" for A and B; "1" for B alone)
#define KV_F8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
                 "+f"(d[i + 6]), "+f"(d[i + 7])
#define KV_ACC_64 KV_F8(0), KV_F8(8), KV_F8(16), KV_F8(24)
#define KV_ACC_128 KV_ACC_64, KV_F8(32), KV_F8(40), KV_F8(48), KV_F8(56)
#define KV_ACC_REGS_64 "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
                       "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31"
#define KV_ACC_REGS_128 KV_ACC_REGS_64 ",%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
                        "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
#define KV_WGMMA(N, TYPE, AB, FLAG, TRANS, ...)                                                                        \
    asm volatile("{.reg .pred p; setp.ne.b32 p, " FLAG ", 0; "                                                       \
                 "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " {" KV_ACC_REGS_##N "}, " AB        \
                 ", p, 1, 1, " TRANS ";}" : KV_ACC_##N : __VA_ARGS__)

// d (m64nN, fp32) = a b (+ d if accumulate): a and b from SRAM descriptors, both K-major (rows of Q, rows of K)
template <int N, bool BF16, bool TRANS_B = false>
__device__ __forceinline__ void wgmma_ss(float (&d)[N/2], u64 a, u64 b, bool accumulate) {
    static_assert(!TRANS_B, "fa3 reads both operands of S = Q K^T K-major");
    static_assert(N == 64 || N == 128, "the widths KV_ACC_N lists");
#define KV_SS_OPERANDS "l"(a), "l"(b), "r"(int(accumulate))
    if constexpr (N == 64 && BF16) KV_WGMMA(64, "bf16", "%32, %33", "%34", "0, 0", KV_SS_OPERANDS);
    else if constexpr (N == 64) KV_WGMMA(64, "f16", "%32, %33", "%34", "0, 0", KV_SS_OPERANDS);
    else if constexpr (BF16) KV_WGMMA(128, "bf16", "%64, %65", "%66", "0, 0", KV_SS_OPERANDS);
    else KV_WGMMA(128, "f16", "%64, %65", "%66", "0, 0", KV_SS_OPERANDS);
#undef KV_SS_OPERANDS
}

// d (m64nN, fp32) += a b: a from registers (4 of 16-bit pairs a thread: mma.sync's A fragment, a warp's 16 rows),
// b from an SRAM descriptor, MN-major (V's rows are keys, the k of this product: transposed, the trailing 1)
template <int N, bool BF16, bool TRANS_B = false>
__device__ __forceinline__ void wgmma_rs(float (&d)[N/2], const unsigned (&a)[4], u64 b, bool accumulate) {
    static_assert(TRANS_B, "fa3 reads V (B of O += P V) MN-major");
    static_assert(N == 64 || N == 128, "the widths KV_ACC_N lists");
#define KV_RS_OPERANDS "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(int(accumulate))
    if constexpr (N == 64 && BF16) KV_WGMMA(64, "bf16", "{%32,%33,%34,%35}, %36", "%37", "1", KV_RS_OPERANDS);
    else if constexpr (N == 64) KV_WGMMA(64, "f16", "{%32,%33,%34,%35}, %36", "%37", "1", KV_RS_OPERANDS);
    else if constexpr (BF16) KV_WGMMA(128, "bf16", "{%64,%65,%66,%67}, %68", "%69", "1", KV_RS_OPERANDS);
    else KV_WGMMA(128, "f16", "{%64,%65,%66,%67}, %68", "%69", "1", KV_RS_OPERANDS);
#undef KV_RS_OPERANDS
}

// endregion
#endif

// Keeps the compiler from moving reads of d above the wgmma_wait before it (the asm wgmma wrote d when issued, as
// far as it knows); nothing to do on the CPU
template <int N> __device__ __forceinline__ void fence_operand(float (&d)[N]) {
#ifndef KVSHIM
    for (int i = 0; i < N; i++) asm volatile("" : "+f"(d[i]) :: "memory");
#endif
}

// region: setup
template <int Br, int Bc, int D, int BF16>
__global__ void __launch_bounds__(384, 1) fa3(const __grid_constant__ CUtensorMap tmQ,
                                              const __grid_constant__ CUtensorMap tmK,
                                              const __grid_constant__ CUtensorMap tmV,
                                              const __grid_constant__ CUtensorMap tmO, float* L,
                                              int N, int N_kv, float scale, int causal) {
    static_assert(Br == FA3_BR && (Bc == 64 || Bc == 128) && (D == 64 || D == 128),
                  "two consumer warpgroups of 64 rows; the wgmma widths written out above; D one or two boxes");
    constexpr int STAGES = FA3_STAGES, CB = D/FA3_BOX;  // CB: column boxes of 64 (128 bytes) a row
    constexpr int Q_BYTES = 2*Br*D, KV_BYTES = 2*Bc*D;  // a tile of Q, of K_j or V_j
    int i = blockIdx.x, bh = blockIdx.y, tid = threadIdx.x;
    int wg = tid/128, warp = tid%128/32, lane = tid%32, g = lane/4, t = lane%4;  // warp: within its warpgroup

    // SRAM, from a 1,024-byte boundary: Qs [2 warpgroups][CB][64 rows][64 columns], Ks and Vs [STAGES][CB][Bc][64],
    // each 64-column box as the TMA writes it with the 128-byte swizzle; then the mbarriers
    KV_DYNAMIC_SMEM(u8, smem, 1024);  // u8* smem: extern __shared__ (dynamic_smem.h)
    u8* base = smem + (1024 - smem_addr(smem)%1024)%1024;
    u8 *Qs = base, *Ks = Qs + Q_BYTES, *Vs = Ks + STAGES*KV_BYTES;
    u64* full_q = reinterpret_cast<u64*>(Vs + STAGES*KV_BYTES);
    u64 *full = full_q + 1, *empty = full + STAGES;  // a stage's K_j, V_j have landed; both consumers left it

    int row0 = i*Br, shift = N_kv - N;                  // causal: row r sees keys up to r + shift
    int Tc = (N_kv + Bc - 1)/Bc;                        // tiles of K and V
    int last = min(row0 + Br, N) - 1 + shift;           // the last key this block's last row sees
    if (causal) Tc = last < 0 ? 0 : min(Tc, last/Bc + 1);  // tiles wholly right of the diagonal: never loaded
    if (tid == 0) {
        mbar_init(full_q, 1);                           // the producer's arrive.expect_tx, then the TMA's bytes
        for (int s = 0; s < STAGES; s++) mbar_init(&full[s], 1), mbar_init(&empty[s], 8);  // 8: a consumer warp each
        fence_mbar_init();
    }
    __syncthreads();  // waits for: the mbarriers initialized before any thread or copy uses them
    // endregion

    if (wg == 0) {
        // region: producer_load_q
        // The producer: gives back registers (it keeps 24 a thread), and one thread issues every copy. HBM -> SRAM,
        // once: Q's 128 rows, as 2 x CB boxes of 64 x 64, all counted on full_q (rows past N arrive as zeros)
        setmaxnreg_dec<24>();
        if (warp != 0 || lane != 0 || Tc == 0) return;
        mbar_arrive_expect_tx(full_q, Q_BYTES);
        for (int w = 0; w < 2; w++)
            for (int c = 0; c < CB; c++)
                tma_load_3d(Qs + (w*CB + c)*64*128, &tmQ, full_q, c*FA3_BOX, row0 + 64*w, bh);
        // endregion
        // region: producer_load_kv
        // HBM -> SRAM, tile j into stage j % STAGES once both consumers have released it: its empty barrier's phase
        // (j / STAGES) - 1 has completed (a fresh barrier counts its phase before 0, parity 1, as completed)
        for (int j = 0; j < Tc; j++) {
            int s = j%STAGES, round = j/STAGES;
            mbar_wait(&empty[s], (round & 1) ^ 1);
            mbar_arrive_expect_tx(&full[s], 2*KV_BYTES);  // K_j and V_j: the bytes full[s] waits for
            for (int c = 0; c < CB; c++) {
                tma_load_3d(Ks + s*KV_BYTES + c*Bc*128, &tmK, &full[s], c*FA3_BOX, j*Bc, bh);
                tma_load_3d(Vs + s*KV_BYTES + c*Bc*128, &tmV, &full[s], c*FA3_BOX, j*Bc, bh);
            }
        }
        return;
        // endregion
    }

    // The consumers: warpgroup w = wg - 1 owns rows [64w, 64w + 64) of the block; warp `warp` rows 16 warp.. of
    // those. Registers, per thread: S's accumulator (Bc/2 floats: row g at e < 2 of each 4, g + 8 at e >= 2; key
    // 8n + 2t + e%2 of its n-th 8), P of the tile before (16-bit pairs, wgmma's A fragment), O (D/2 floats), m, l
    setmaxnreg_inc<240>();
    int w = wg - 1, wrow0 = row0 + 64*w + 16*warp;
    u8* Qw = Qs + w*CB*64*128;                     // this warpgroup's rows of Q (and later of O)
    float s[Bc/2], o[D/2] = {};
    unsigned p[Bc/16][4];
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.f, 0.f};
    float scale_log2 = scale*1.4426950408889634f;       // exp(x*scale) = exp2(x*scale*log2(e))

    // S = Q K_j^T, issued (not waited): D/16 wgmmas of k16, A = this warpgroup's 64 rows of Q, B = K_j^T, a row of K_j
    // a column of B; both K-major: 8 rows a 1,024-byte swizzle atom (stride byte offset), k16 = 32 bytes along it
    auto issue_scores = [&](int j) {
        u8* Kj = Ks + j%STAGES*KV_BYTES;
        for (int k = 0; k < D/16; k++) {
            u64 a = make_smem_desc(smem_addr(Qw + k/4*64*128 + k%4*32), 16, 1024, 128);
            u64 b = make_smem_desc(smem_addr(Kj + k/4*Bc*128 + k%4*32), 16, 1024, 128);
            wgmma_ss<Bc, bool(BF16)>(s, a, b, k > 0);
        }
    };
    // O += P V_j, issued: Bc/16 wgmmas of k16 (16 keys), A = P's registers, B = V_j, MN-major: 64 columns a swizzle
    // row, the next 64 at Bc*128 bytes (leading byte offset), 8 keys a 1,024-byte atom (stride), 16 keys 2,048 bytes
    auto issue_pv = [&](int j) {
        u8* Vj = Vs + j%STAGES*KV_BYTES;
        for (int k = 0; k < Bc/16; k++)
            wgmma_rs<D, bool(BF16), true>(o, p[k], make_smem_desc(smem_addr(Vj + k*16*128), Bc*128, 1024, 128), true);
    };
    // region: softmax
    // Registers only: mask S_j, then the online softmax on the fragments: a row's Bc scores are spread over the 4
    // lanes of a quad (two shuffles for its max); l stays a partial sum per lane until the end. Returns nothing;
    // leaves exp2 of the scores in s and each row's rescale factor for o in alpha (o is in flight: not touched here)
    float alpha[2];
    auto softmax = [&](int j) {
        int col0 = j*Bc;
        for (int n = 0; n < Bc/8; n++)
            for (int e = 0; e < 4; e++) {
                int key = col0 + 8*n + 2*t + e%2, row = wrow0 + g + e/2*8;
                if (key >= N_kv || (causal && key > row + shift)) s[4*n + e] = -INFINITY;
            }
        for (int h = 0; h < 2; h++) {                   // h: row g, then row g + 8
            float mx = m[h];
            for (int n = 0; n < Bc/8; n++) mx = fmaxf(mx, fmaxf(s[4*n + 2*h], s[4*n + 2*h + 1]));
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 1));  // the max of lanes t and t^1 ...
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffff, mx, 2));  // ... then of the whole quad
            float ref = mx == -INFINITY ? 0.f : mx*scale_log2;   // all masked so far: exp2 against 0, not NaN
            alpha[h] = exp2f(m[h]*scale_log2 - ref);             // rescales what was summed under the old max
            l[h] *= alpha[h];
            for (int n = 0; n < Bc/8; n++)
                for (int e = 2*h; e < 2*h + 2; e++) {
                    s[4*n + e] = exp2f(s[4*n + e]*scale_log2 - ref);  // s now holds P~_j, in fp32
                    l[h] += s[4*n + e];
                }
            m[h] = mx;
        }
    };
    // endregion
    // P~_j in 16 bits as wgmma's A fragment (keys 16k..16k+15: s[8k..8k+7] as they stand), and o rescaled; only
    // once the O += P V before it has completed (both registers are its operands until then)
    auto to_p = [&]() {
        for (int k = 0; k < Bc/16; k++)
            for (int e = 0; e < 4; e++) p[k][e] = pack2<BF16>(s[8*k + 2*e], s[8*k + 2*e + 1]);
        for (int n = 0; n < D/8; n++)
            for (int e = 0; e < 4; e++) o[4*n + e] *= alpha[e/2];
    };

    if (Tc > 0) {
        // region: pingpong
        // The two consumers take turns to issue their wgmmas: warpgroup w waits at barrier 1 + w for the other to
        // have issued (it arrives there when done), so one's softmax runs while the other's products do. Warpgroup
        // 1 lets warpgroup 0 go first; each issue phase below is one turn, Tc + 1 of them for each.
        auto my_turn = [&]() { named_bar_sync(1 + w, 256); };
        auto your_turn = [&](bool last) { if (!(last && w == 1)) named_bar_arrive(2 - w, 256); };
        if (w == 1) named_bar_arrive(1, 256);
        // endregion
        // region: consumer_wait_full
        // SRAM: wait until Q has landed (full_q's phase 0), then stage 0 (K_0, V_0)
        mbar_wait(full_q, 0);
        mbar_wait(&full[0], 0);
        // endregion
        my_turn();
        wgmma_fence();
        issue_scores(0);
        wgmma_commit();
        your_turn(false);
        wgmma_wait<0>();
        fence_operand(s);
        softmax(0);
        to_p();
        for (int j = 1; j < Tc; j++) {
            // region: scores
            // Tensor cores, SRAM -> registers: S_j = Q K_j^T is issued as soon as stage j has landed, then
            // O += P~_{j-1} V_{j-1} behind it; waiting for one group of two (wait<1>) lets the softmax of S_j start
            // while the product with V_{j-1} still runs
            mbar_wait(&full[j%STAGES], j/STAGES & 1);
            my_turn();
            wgmma_fence();
            issue_scores(j);
            wgmma_commit();
            // endregion
            // region: pv
            issue_pv(j - 1);
            wgmma_commit();
            your_turn(false);
            wgmma_wait<1>();
            fence_operand(s);
            // endregion
            softmax(j);
            wgmma_wait<0>();
            fence_operand(o);
            // region: release_empty
            // Stage (j - 1) % STAGES is read by no wgmma in flight: one arrive a warp on its empty barrier (8 in
            // all) lets the producer refill it
            if (lane == 0) mbar_arrive(&empty[(j - 1)%STAGES]);
            // endregion
            to_p();
        }
        my_turn();
        wgmma_fence();
        issue_pv(Tc - 1);
        wgmma_commit();
        your_turn(true);
        wgmma_wait<0>();
        fence_operand(o);
        if (lane == 0) mbar_arrive(&empty[(Tc - 1)%STAGES]);
    }

    // region: epilogue_store
    // Registers -> SRAM -> HBM: the quad's partial sums make l; O = o / l rounded to 16 bits into this warpgroup's
    // rows of Qs (its Q is read by no wgmma now), in the swizzled layout the TMA store reads (16-byte chunk c of row
    // r at chunk c ^ r%8), then one thread stores the boxes (rows past N are clipped by the TMA). A row that saw no
    // key (l = 0; every row when Tc = 0) gets O = 0 and L = -inf. L from registers: lane t = 0 of each row
    named_bar_sync(3 + w, 128);  // waits for: every warp of this warpgroup done with its Q tile
    for (int h = 0; h < 2; h++) {
        l[h] += __shfl_xor_sync(0xffffffff, l[h], 1);
        l[h] += __shfl_xor_sync(0xffffffff, l[h], 2);
        int r = 16*warp + g + 8*h;                      // row within the warpgroup's 64
        float inv = l[h] > 0.f ? 1.f/l[h] : 0.f;
        for (int n = 0; n < D/8; n++) {
            u8* at = Qw + n/8*64*128 + r*128 + ((n%8) ^ (r%8))*16 + 4*t;
            *reinterpret_cast<unsigned*>(at) = pack2<BF16>(o[4*n + 2*h]*inv, o[4*n + 2*h + 1]*inv);
        }
        if (t == 0 && wrow0 + g + 8*h < N)
            L[(long)bh*N + wrow0 + g + 8*h] = l[h] > 0.f ? m[h]*scale + logf(l[h]) : -INFINITY;
    }
    fence_proxy_async();         // the threads' SRAM writes, visible to the TMA (the async proxy) ...
    named_bar_sync(3 + w, 128);  // waits for: ... the whole warpgroup's O tile in SRAM
    if (warp == 0 && lane == 0) {
        for (int c = 0; c < CB; c++) tma_store_3d(&tmO, Qw + c*64*128, c*FA3_BOX, row0 + 64*w, bh);
        tma_store_commit();
        tma_store_flush();       // the stores have read SRAM and written HBM before the block exits
    }
    // endregion
}
