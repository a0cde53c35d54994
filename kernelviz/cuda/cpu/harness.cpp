// Runs one kernel of this folder on the CPU through shim.h; kernelviz/cuda/cpu.py builds and drives it.
//
// Built with -DKV_FILE="path/to/kernel.cu", -DKV_FA1, -DKV_FA2, -DKV_FA2_MMA, -DKV_FA2_BWD, -DKV_FD or -DKV_SOFTMAX
// (which kernel), and
// -DKV_CONFIGS="C(Br,Bc,D) ..." (the template instances to build; flash decoding and online softmax have Br = 1).
// argv: BH N N_kv D Br Bc threads schedule causal n_splits scale; stdin: Q, K, V as float32 (K and V have N_kv rows
// per BH for FA1 and FA2, N_kv = N for the others; Q has 1 row per BH for
// flash decoding; online softmax reads X, one row of N scores per BH, and V; FA2's backward reads Q, K, V, O, dO
// and L); stdout: the outputs as float32, in the order cpu.py reads them.
// Paged decoding (kernels.py says how its sizes map onto these): argv BH = B*H_kv, N = N_kv = max_pages, Br = G,
// Bc = PAGE, then two more, B and the pool's pages; stdin Q, K_pages, V_pages as float32 and block_table, seq_lens
// as int32.
// FA2 on tensor cores (fa2_mma): Q, K, V in and O out as 16-bit fp16 or bf16 bits, L as float32; one extra argv,
// 1 for bf16 and 0 for fp16.
//
// Every buffer sits between two guard zones filled with a NaN pattern, and every output starts filled with it:
// a read past an input gives NaN in the answer, and a write past an output, or an output element never written,
// is reported (exit status 3).
#include "shim.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include KV_FILE

namespace {

constexpr uint32_t POISON = 0x7fc0dead;  // a quiet NaN no arithmetic produces
constexpr uint16_t POISON16 = 0x7fad;     // a NaN both as fp16 and as bf16, which no conversion produces (0x7fff)
constexpr size_t GUARD = 4096;            // elements on each side of a buffer

// A buffer of float (or of 16-bit fp16/bf16 bits, E = uint16_t) between guard zones.
template <typename E>
struct BufferOf {
    std::string name;
    size_t n;
    std::vector<E> mem;
    static E poison() {
        if constexpr (sizeof(E) == 2) {
            return POISON16;
        } else {
            E f;
            std::memcpy(&f, &POISON, 4);
            return f;
        }
    }
    BufferOf(std::string name_, size_t n_) : name(std::move(name_)), n(n_), mem(n_ + 2 * GUARD, poison()) {}
    E* ptr() { return mem.data() + GUARD; }
    static bool poisoned(E x) {
        E p = poison();
        return std::memcmp(&x, &p, sizeof(E)) == 0;
    }
    bool check(bool output) const {  // guards intact; for an output, every element written
        for (size_t k = 0; k < mem.size(); k++) {
            bool inside = k >= GUARD && k < GUARD + n;
            if (!inside && !poisoned(mem[k])) {
                long at = long(k) - long(GUARD);
                std::fprintf(stderr, "write out of bounds: %s[%ld] (size %zu)\n", name.c_str(), at, n);
                return false;
            }
            if (inside && output && poisoned(mem[k])) {
                std::fprintf(stderr, "never written: %s[%zu] (size %zu)\n", name.c_str(), k - GUARD, n);
                return false;
            }
        }
        return true;
    }
    void read() {
        if (std::fread(ptr(), sizeof(E), n, stdin) != n) throw std::runtime_error("short input for " + name);
    }
    void write() { std::fwrite(ptr(), sizeof(E), n, stdout); }
};
using Buffer = BufferOf<float>;
using Buffer16 = BufferOf<uint16_t>;

struct Args {
    int BH, N, N_kv, D, Br, Bc, threads, causal, n_splits;
    kvshim::Schedule schedule;
    float scale;
    std::vector<int> extra;  // what a kernel needs beyond these (paged decoding: B, pages of the pool)
};

template <typename In = Buffer, typename Out = Buffer>
int finish(std::vector<In*> inputs, std::vector<Out*> outputs) {
    bool ok = true;
    for (auto* b : inputs) ok = b->check(false) && ok;
    for (auto* b : outputs) ok = b->check(true) && ok;
    if (!ok) return 3;
    for (auto* b : outputs) b->write();
    return 0;
}

#ifdef KV_FA2
template <int Br, int Bc, int D>
int run(const Args& a) {
    Buffer Q("Q", size_t(a.BH) * a.N * D), K("K", size_t(a.BH) * a.N_kv * D), V("V", K.n), O("O", Q.n);
    Buffer L("L", size_t(a.BH) * a.N);
    Q.read(), K.read(), V.read();
    dim3 grid{unsigned((a.N + Br - 1) / Br), unsigned(a.BH), 1}, block{unsigned(a.threads), 1, 1};
    kvshim::launch(fa2<Br, Bc, D>, grid, block, a.schedule, Q.ptr(), K.ptr(), V.ptr(), O.ptr(), L.ptr(), a.N,
                   a.N_kv, a.scale, a.causal);
    return finish({&Q, &K, &V}, {&O, &L});
}
#endif

#ifdef KV_FA2_MMA
// Q, K, V and O are fp16 or bf16 bits (argv's first extra: 1 for bf16), L is float.
template <int BF16, int Br, int Bc, int D>
int run_mma(const Args& a) {
    Buffer16 Q("Q", size_t(a.BH) * a.N * D), K("K", size_t(a.BH) * a.N_kv * D), V("V", K.n), O("O", Q.n);
    Buffer L("L", size_t(a.BH) * a.N);
    Q.read(), K.read(), V.read();
    dim3 grid{unsigned((a.N + Br - 1) / Br), unsigned(a.BH), 1}, block{unsigned(a.threads), 1, 1};
    kvshim::launch(fa2_mma<Br, Bc, D, BF16>, grid, block, a.schedule, Q.ptr(), K.ptr(), V.ptr(), O.ptr(), L.ptr(),
                   a.N, a.N_kv, a.scale, a.causal);
    bool ok = finish<Buffer16, Buffer16>({&Q, &K, &V}, {&O}) == 0 && L.check(true);
    if (!ok) return 3;
    L.write();
    return 0;
}

template <int Br, int Bc, int D>
int run(const Args& a) {
    return a.extra.at(0) ? run_mma<1, Br, Bc, D>(a) : run_mma<0, Br, Bc, D>(a);
}
#endif

#ifdef KV_FA2_BWD
template <int Br, int Bc, int D>
int run(const Args& a) {
    size_t rows = size_t(a.BH) * a.N;
    Buffer Q("Q", rows * D), K("K", Q.n), V("V", Q.n), O("O", Q.n), dO("dO", Q.n), L("L", rows);
    Buffer Delta("D", rows), dQ("dQ", Q.n), dK("dK", Q.n), dV("dV", Q.n);
    Q.read(), K.read(), V.read(), O.read(), dO.read(), L.read();
    dim3 block{unsigned(a.threads), 1, 1};
    kvshim::launch(fa2_bwd_preprocess<Br, D>, dim3{unsigned((a.N + Br - 1) / Br), unsigned(a.BH), 1}, block,
                   a.schedule, O.ptr(), dO.ptr(), Delta.ptr(), dQ.ptr(), a.N);
    kvshim::watch(dQ.ptr(), dQ.n);  // blocks j share dQ: only atomicAdd may change it now
    kvshim::launch(fa2_bwd<Br, Bc, D>, dim3{unsigned((a.N + Bc - 1) / Bc), unsigned(a.BH), 1}, block, a.schedule,
                   Q.ptr(), K.ptr(), V.ptr(), dO.ptr(), L.ptr(), Delta.ptr(), dQ.ptr(), dK.ptr(), dV.ptr(), a.N,
                   a.N, a.scale, a.causal);
    if (long bad = kvshim::unwatch(); bad >= 0) {
        std::fprintf(stderr, "not atomic: dQ[%ld] was changed by a plain store, not atomicAdd (on a GPU the blocks "
                     "that add into it race, and updates are lost)\n", bad);
        return 3;
    }
    return finish({&Q, &K, &V, &O, &dO, &L}, {&Delta, &dQ, &dK, &dV});
}
#endif

#ifdef KV_FA1
template <int Br, int Bc, int D>
int run(const Args& a) {
    Buffer Q("Q", size_t(a.BH) * a.N * D), K("K", size_t(a.BH) * a.N_kv * D), V("V", K.n), O("O", Q.n);
    Buffer l("l", size_t(a.BH) * a.N), m("m", l.n);
    Q.read(), K.read(), V.read();
    dim3 grid{unsigned(a.BH), 1, 1}, block{unsigned(a.threads), 1, 1};
    kvshim::launch(fa1<Br, Bc, D>, grid, block, a.schedule, Q.ptr(), K.ptr(), V.ptr(), O.ptr(), l.ptr(), m.ptr(),
                   a.N, a.N_kv, a.scale, a.causal);
    return finish({&Q, &K, &V}, {&O, &l, &m});
}
#endif

#ifdef KV_FD
template <int Br, int Bc, int D>
int run(const Args& a) {
    static_assert(Br == 1, "flash decoding has one query row");
    Buffer Q("Q", size_t(a.BH) * D), K("K", size_t(a.BH) * a.N * D), V("V", K.n);
    Buffer Op("O_partial", size_t(a.BH) * a.n_splits * D), mp("m_partial", size_t(a.BH) * a.n_splits);
    Buffer lp("l_partial", mp.n), O("O", Q.n);
    Q.read(), K.read(), V.read();
    int tiles_per_split = ((a.N + Bc - 1) / Bc + a.n_splits - 1) / a.n_splits;  // kernels.tiles_per_split
    dim3 block{unsigned(a.threads), 1, 1};
    kvshim::launch(fd_split<Bc, D>, dim3{unsigned(a.n_splits), unsigned(a.BH), 1}, block, a.schedule, Q.ptr(),
                   K.ptr(), V.ptr(), Op.ptr(), mp.ptr(), lp.ptr(), a.N, a.scale, a.n_splits,
                   tiles_per_split);
    kvshim::launch(fd_combine<D>, dim3{unsigned(a.BH), 1, 1}, block, a.schedule, Op.ptr(), mp.ptr(), lp.ptr(),
                   O.ptr(), a.n_splits);
    return finish({&Q, &K, &V}, {&Op, &mp, &lp, &O});
}
#endif

#ifdef KV_SOFTMAX
template <int Br, int Bc, int D>
int run(const Args& a) {
    static_assert(Br == 1, "online softmax has one row per block");
    Buffer X("X", size_t(a.BH) * a.N), V("V", size_t(a.BH) * a.N * D);
    Buffer O("O", size_t(a.BH) * D), m("m_out", a.BH), l("l_out", a.BH);
    X.read(), V.read();
    dim3 grid{unsigned(a.BH), 1, 1}, block{unsigned(a.threads), 1, 1};
    kvshim::launch(online_softmax<Bc, D>, grid, block, a.schedule, X.ptr(), V.ptr(), O.ptr(), m.ptr(), l.ptr(), a.N);
    return finish({&X, &V}, {&O, &m, &l});
}
#endif

#ifdef KV_PAGED
// An int input between guard zones of POISON's bits: a page index read past the table is ~2^31, far outside the
// pool, and the kernel crashes on it rather than reading a page that happens to be there.
struct Ints {
    size_t n;
    std::vector<int> mem;
    explicit Ints(size_t n_) : n(n_), mem(n_ + 2 * GUARD, int(POISON)) {}
    int* ptr() { return mem.data() + GUARD; }
    void read(const char* name) {
        if (std::fread(ptr(), sizeof(int), n, stdin) != n) throw std::runtime_error(std::string("short input for ") + name);
    }
};

template <int G, int PAGE, int D>
int run(const Args& a) {
    int B = a.extra.at(0), pool = a.extra.at(1), H_kv = a.BH / B, max_pages = a.N;
    size_t rows = size_t(B) * H_kv * G;  // query heads of the batch: B*H_q
    Buffer Q("Q", rows * D), Kp("K_pages", size_t(pool) * PAGE * H_kv * D), Vp("V_pages", Kp.n);
    Ints table(size_t(B) * max_pages), lens(B);
    int parts = a.n_splits > 1 ? a.n_splits : 0;  // one split writes O itself: no partials
    Buffer Op("O_partial", rows * parts * D), mp("m_partial", rows * parts), lp("l_partial", mp.n), O("O", Q.n);
    Q.read(), Kp.read(), Vp.read(), table.read("block_table"), lens.read("seq_lens");
    dim3 block{unsigned(a.threads), 1, 1};
    kvshim::launch(paged_decode<G, PAGE, D>, dim3{unsigned(a.n_splits), unsigned(a.BH), 1}, block, a.schedule,
                   Q.ptr(), Kp.ptr(), Vp.ptr(), table.ptr(), lens.ptr(), Op.ptr(), mp.ptr(), lp.ptr(),
                   O.ptr(), H_kv, max_pages, a.scale, a.n_splits);
    if (a.n_splits > 1)
        kvshim::launch(paged_combine<D>, dim3{unsigned(rows), 1, 1}, block, a.schedule, Op.ptr(), mp.ptr(), lp.ptr(),
                       O.ptr(), a.n_splits);
    return finish({&Q, &Kp, &Vp}, {&Op, &mp, &lp, &O});
}
#endif

}  // namespace

int main(int argc, char** argv) {
    if (argc < 12) {
        std::fprintf(stderr, "usage: %s BH N N_kv D Br Bc threads schedule causal n_splits scale [extra ...]\n", argv[0]);
        return 2;
    }
    Args a;
    a.BH = std::atoi(argv[1]), a.N = std::atoi(argv[2]), a.N_kv = std::atoi(argv[3]), a.D = std::atoi(argv[4]);
    a.Br = std::atoi(argv[5]), a.Bc = std::atoi(argv[6]), a.threads = std::atoi(argv[7]);
    std::string schedule = argv[8];
    a.schedule = schedule == "forward"    ? kvshim::Schedule::forward
                 : schedule == "backward" ? kvshim::Schedule::backward
                                          : kvshim::Schedule::threads;
    a.causal = std::atoi(argv[9]), a.n_splits = std::atoi(argv[10]), a.scale = std::strtof(argv[11], nullptr);
    for (int k = 12; k < argc; k++) a.extra.push_back(std::atoi(argv[k]));
    try {
#define C(R, B, W) \
    if (a.Br == R && a.Bc == B && a.D == W) return run<R, B, W>(a);
        KV_CONFIGS
#undef C
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    std::fprintf(stderr, "not built for tiles Br=%d Bc=%d D=%d\n", a.Br, a.Bc, a.D);
    return 4;
}
