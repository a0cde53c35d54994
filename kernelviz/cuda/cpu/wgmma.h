// wgmma.mma_async for a warpgroup on the CPU (included by hopper.h; the API is documented there).
//
// An issued wgmma is recorded by each of the warpgroup's 128 threads (its accumulator's address, the descriptors,
// the A registers of wgmma_rs); commit closes a group; wgmma_wait<N> is a rendezvous of the warpgroup, and the
// last thread to arrive completes every group but the newest N for all 128: it reads A and B from shared memory
// through the descriptors (kernelviz/cuda/hopper.py: kv_operand_offset, kv_swizzle), multiplies exactly and sums in
// double, and writes each thread's accumulator by the m64nNk16 fragment layout (KV_WGMMA_D). So an accumulator read
// before the wait that covers it holds the old values, and shared memory is read as late as a GPU may read it: a TMA
// load into the operands of a wgmma still in flight is reported (a ring overrun).
#pragma once

#include <array>

namespace kvshim {

struct WgmmaOp {
    float* acc;
    int n;
    bool bf16, trans_b, from_regs, accumulate;
    uint64_t desc_a, desc_b;
    uint32_t a[4];
};

struct WgmmaThread {
    std::vector<WgmmaOp> open;                     // issued since the last commit
    std::deque<std::vector<WgmmaOp>> groups;       // committed, not yet completed
};

struct Warpgroup {
    int arrived = 0, wait_n = 0;
    unsigned generation = 0;
    std::deque<std::array<std::pair<uint32_t, uint32_t>, 2>> reading;  // shared bytes [lo, hi) of A and B of each op in
                                                                       // flight, in order
    std::string name;
};

struct WgmmaState {
    std::vector<WgmmaThread> threads;
    std::vector<Warpgroup> groups;
};
inline WgmmaState wgmma_state;

inline void reset_wgmma(int threads) {
    wgmma_state.threads.assign(threads, {});
    wgmma_state.groups.assign((threads + WARPGROUP - 1) / WARPGROUP, {});
    for (size_t g = 0; g < wgmma_state.groups.size(); g++)
        wgmma_state.groups[g].name = "a wgmma of warpgroup " + std::to_string(g);
}

inline const char* wgmma_reading(uint32_t lo, uint32_t hi) {
    for (auto& g : wgmma_state.groups)
        for (auto& spans : g.reading)
            for (auto [a, b] : spans)
                if (a < hi && lo < b) return g.name.c_str();
    return nullptr;
}

struct Descriptor {
    uint32_t start, lbo, sbo;
    int width;
};

inline Descriptor decode(uint64_t desc) {
    auto field = [&](int bit, int width) { return uint32_t((desc >> bit) & ((1ull << width) - 1)); };
    if (field(KV_DESC_BASE_BIT, KV_DESC_BASE_WIDTH))
        hopper_error("wgmma: descriptor 0x%016llx has a base offset; only 0 is supported here",
                     (unsigned long long)desc);
    return {field(KV_DESC_START_BIT, KV_DESC_START_WIDTH) << 4, field(KV_DESC_LBO_BIT, KV_DESC_LBO_WIDTH) << 4,
            field(KV_DESC_SBO_BIT, KV_DESC_SBO_WIDTH) << 4,
            KV_DESC_MODE_WIDTH_BYTES[field(KV_DESC_MODE_BIT, KV_DESC_MODE_WIDTH)]};
}

inline uint32_t operand_address(const Descriptor& d, int mn, int k, bool mn_major) {
    return kv_swizzle(d.start + kv_operand_offset(mn, k, d.lbo, d.sbo, d.width, mn_major), d.width);
}

// The bytes an op reads from each operand in shared memory, from the lowest to past the highest ({0, 0} for A from
// registers).
using Spans = std::array<std::pair<uint32_t, uint32_t>, 2>;
inline Spans op_spans(const WgmmaOp& op) {
    Spans spans{};
    for (int which = op.from_regs ? 1 : 0; which < 2; which++) {
        uint32_t lo = ~0u, hi = 0;
        Descriptor d = decode(which ? op.desc_b : op.desc_a);
        for (int k = 0; k < 16; k++)
            for (int mn = 0; mn < (which ? op.n : 64); mn++) {
                uint32_t a = operand_address(d, mn, k, which && op.trans_b);
                lo = std::min(lo, a), hi = std::max(hi, a + 2);
            }
        if (hi > shared.bytes())
            hopper_error("wgmma: an operand reads past the end of shared memory (offset %u)", hi);
        spans[which] = {lo, hi};
    }
    return spans;
}

inline std::pair<int, int> d_element(int thread, int i) {  // (row, col) of accumulator element i of `thread`
    const int* rc = KV_WGMMA_D[thread % WARPGROUP][i % 4];
    return {rc[0], rc[1] + KV_WGMMA_D_COLS_PER_4 * (i >> 2)};
}

inline float operand_half(uint32_t at, bool bf16) {
    check_unfenced(at, "wgmma");
    check_unfenced(at + 1, "wgmma");
    uint16_t h;
    std::memcpy(&h, shared.base() + at, 2);
    return half_to_float(h, bf16);
}

// Op j of the oldest group of each thread of warpgroup g: D = A B (+ D).
inline void run_op(int g, size_t j) {
    auto& lead = wgmma_state.threads[g * WARPGROUP].groups.front()[j];
    for (int u = g * WARPGROUP; u < (g + 1) * WARPGROUP; u++) {
        auto& op = wgmma_state.threads[u].groups.front()[j];
        if (op.n != lead.n || op.bf16 != lead.bf16 || op.trans_b != lead.trans_b || op.from_regs != lead.from_regs ||
            op.accumulate != lead.accumulate || op.desc_b != lead.desc_b || (!op.from_regs && op.desc_a != lead.desc_a))
            hopper_error("wgmma: threads %d and %d of warpgroup %d issued different wgmma (shape, types or "
                         "descriptors)",
                         g * WARPGROUP, u, g);
    }
    static thread_local float A[64][16], B[16][256];
    Descriptor da = decode(lead.desc_a), db = decode(lead.desc_b);
    for (int k = 0; k < 16; k++) {
        if (!lead.from_regs)
            for (int r = 0; r < 64; r++) A[r][k] = operand_half(operand_address(da, r, k, false), lead.bf16);
        for (int c = 0; c < lead.n; c++) B[k][c] = operand_half(operand_address(db, c, k, lead.trans_b), lead.bf16);
    }
    if (lead.from_regs)
        for (int u = 0; u < WARPGROUP; u++)
            for (int i = 0; i < 8; i++) {
                auto [r, k] = d_element(u, i);
                const uint32_t* a = wgmma_state.threads[g * WARPGROUP + u].groups.front()[j].a;
                A[r][k] = half_to_float(half_of(a[i / 2], i), lead.bf16);
            }
    for (int u = 0; u < WARPGROUP; u++) {
        auto& op = wgmma_state.threads[g * WARPGROUP + u].groups.front()[j];
        for (int i = 0; i < op.n / 2; i++) {
            auto [r, c] = d_element(u, i);
            double sum = op.accumulate ? op.acc[i] : 0.0;
            for (int k = 0; k < 16; k++) sum += double(A[r][k]) * double(B[k][c]);
            op.acc[i] = float(sum);
        }
    }
}

// Completes, for warpgroup g, every committed group but the newest `keep`.
inline void complete_groups(int g, int keep) {
    auto& lead = wgmma_state.threads[g * WARPGROUP];
    while (lead.groups.size() > size_t(keep)) {
        for (int u = g * WARPGROUP; u < (g + 1) * WARPGROUP; u++) {
            auto& mine = wgmma_state.threads[u].groups;
            if (mine.size() != lead.groups.size() || mine.front().size() != lead.groups.front().size())
                hopper_error("wgmma_wait: threads %d and %d of warpgroup %d issued or committed different wgmma",
                             g * WARPGROUP, u, g);
        }
        size_t ops = lead.groups.front().size();
        for (size_t j = 0; j < ops; j++) run_op(g, j);
        for (int u = g * WARPGROUP; u < (g + 1) * WARPGROUP; u++) wgmma_state.threads[u].groups.pop_front();
        for (size_t j = 0; j < ops; j++) wgmma_state.groups[g].reading.pop_front();
    }
}

inline void wgmma_issue(float* acc, int n, bool bf16, bool trans_b, uint64_t desc_a, uint64_t desc_b,
                        const uint32_t* a, bool accumulate) {
    std::lock_guard lock(async_lock);
    int t = thread_rank;
    if (async_state.threads % WARPGROUP)
        hopper_error("wgmma: the block's %d threads are not whole warpgroups of 128", async_state.threads);
    WgmmaOp op{acc, n, bf16, trans_b, a != nullptr, accumulate, desc_a, desc_b, {}};
    if (a) std::memcpy(op.a, a, sizeof op.a);
    auto& mine = wgmma_state.threads[t];
    if (t % WARPGROUP == 0) wgmma_state.groups[t / WARPGROUP].reading.push_back(op_spans(op));
    mine.open.push_back(op);
    if (mine.open.size() > 64 || mine.groups.size() > 64) hopper_error("wgmma: more than 64 wgmma or groups in flight");
    changed();
}

}  // namespace kvshim

inline uint64_t make_smem_desc(uint32_t smem_offset, unsigned lbo, unsigned sbo, int swizzle) {
    int mode = swizzle == 0 ? 0 : swizzle == 128 ? 1 : swizzle == 64 ? 2 : swizzle == 32 ? 3 : -1;
    if (mode < 0) kvshim::hopper_error("make_smem_desc: swizzle %d is not 0, 32, 64 or 128 bytes", swizzle);
    for (unsigned v : {smem_offset, lbo, sbo})
        if (v % 16 || v >> 18) kvshim::hopper_error("make_smem_desc: %u is not a multiple of 16 below 2^18", v);
    return uint64_t(smem_offset >> 4) << KV_DESC_START_BIT | uint64_t(lbo >> 4) << KV_DESC_LBO_BIT |
           uint64_t(sbo >> 4) << KV_DESC_SBO_BIT | uint64_t(mode) << KV_DESC_MODE_BIT;
}

inline void wgmma_fence() {}  // registers are read when each thread issues, so there is nothing to order here

inline void wgmma_commit() {
    std::lock_guard lock(kvshim::async_lock);
    auto& mine = kvshim::wgmma_state.threads[kvshim::thread_rank];
    mine.groups.push_back(std::move(mine.open));
    mine.open.clear();
}

template <int N>
void wgmma_wait() {
    static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
    using namespace kvshim;
    int t = thread_rank, g = t / WARPGROUP;
    auto& wg = wgmma_state.groups[g];
    unsigned generation;
    {
        std::lock_guard lock(async_lock);
        if (wg.arrived == 0) wg.wait_n = N;
        if (wg.wait_n != N) hopper_error("wgmma_wait<%d>: other threads of warpgroup %d wait with %d", N, g, wg.wait_n);
        generation = wg.generation;
        changed();
        if (++wg.arrived == WARPGROUP) {
            complete_groups(g, N);
            wg.arrived = 0;
            wg.generation++;
            return;
        }
    }
    sync_now->wait_until(
        t, [&] { return wg.generation != generation; },
        [&] { return format("wgmma_wait<%d> of warpgroup %d (%d of 128 threads arrived)", N, g, wg.arrived); });
}

template <int N, bool BF16, bool TRANS_B = false>
void wgmma_ss(float (&acc)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate) {
    static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma m64nNk16: N is a multiple of 8 up to 256");
    kvshim::wgmma_issue(acc, N, BF16, TRANS_B, desc_a, desc_b, nullptr, accumulate);
}

template <int N, bool BF16, bool TRANS_B = false>
void wgmma_rs(float (&acc)[N / 2], const uint32_t (&a)[4], uint64_t desc_b, bool accumulate) {
    static_assert(N >= 8 && N <= 256 && N % 8 == 0, "wgmma m64nNk16: N is a multiple of 8 up to 256");
    kvshim::wgmma_issue(acc, N, BF16, TRANS_B, 0, desc_b, a, accumulate);
}
