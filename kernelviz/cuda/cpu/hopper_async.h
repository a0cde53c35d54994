// The block-wide state of Hopper's asynchronous units on the CPU (included by hopper.h): dynamic shared memory,
// copies in flight, mbarriers, named barriers and the register pool of setmaxnreg. The API is documented in hopper.h.
//
// Every function here runs with kvshim::async_lock held (one thread at a time under the forward and backward
// schedules anyway) and waits only through Sync::wait_until, so a wait that can never end is a deadlock report
// (exit status 5), not a hang. A broken rule of the PTX ISA is reported with the thread (exit status 6).
#pragma once

#include <cstdarg>
#include <cstdlib>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace kvshim {

[[noreturn]] inline void hopper_error(const char* format, ...) {
    std::fprintf(stderr, "thread %d: ", thread_rank);
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
    std::_Exit(6);
}

inline std::string format(const char* format, ...) {
    char text[400];
    va_list args;
    va_start(args, format);
    std::vsnprintf(text, sizeof text, format, args);
    va_end(args);
    return text;
}

// Dynamic shared memory and the async proxy's view of it: what TMA and wgmma may read. A copy that lands writes
// both; fence_proxy_async() copies the threads' plain stores into the view; a byte that differs between the two when
// TMA or wgmma reads it was written by a thread with no fence since.
// The memory is the block's one dynamic shared memory (async.h's, sized by the host); `view` is set equal to it (all
// poison) when the block starts.
struct Shared {
    std::vector<uint8_t> view;
    uint8_t* base() { return dynamic.base; }
    uint32_t bytes() const { return uint32_t(dynamic.bytes); }
};
inline Shared shared;

inline void check_unfenced(uint32_t address, const char* reader) {
    if (shared.base()[address] != shared.view[address])
        hopper_error("%s reads shared memory at offset %u that threads wrote with plain stores and no "
                     "fence_proxy_async() since",
                     reader, address);
}

struct Mbarrier {
    unsigned count = 0;  // arrivals a phase expects
    int pending = 0;     // arrivals the current phase still waits for
    long tx = 0;         // its tx-count: bytes expected (expect_tx) less bytes arrived (complete_tx)
    unsigned phase = 0;  // phases completed
};

struct NamedBarrier {
    int count = 0, arrived = 0;
    unsigned generation = 0;
};

struct AsyncState {
    int threads = 0;
    std::deque<std::function<void()>> inflight;  // copies issued, not yet landed
    std::map<uint32_t, Mbarrier> mbarriers;      // by shared-memory offset
    NamedBarrier named[16];
    std::vector<int> regs;  // setmaxnreg: registers per thread
    long regs_free = 0;     // the CTA's pool of registers released and not yet taken
    std::mt19937 random;
};
inline AsyncState async_state;

inline void reset_async(int threads) {
    static unsigned blocks = 0;
    auto& s = async_state;
    s.threads = threads;
    s.inflight.clear();
    s.mbarriers.clear();
    for (auto& b : s.named) b = {};
    s.regs.assign(threads, launch_regs);
    s.regs_free = 0;  // the CTA's pool: what setmaxnreg_dec released
    s.random.seed(async_seed * 7919u + blocks++);
    shared.view.assign(shared.base(), shared.base() + shared.bytes());  // shared_begin poisoned it just before
}

// A copy that lands later: when no thread can run (or at a random point, with async_seed).
inline void issue_async(std::function<void()> land) {
    async_state.inflight.push_back(std::move(land));
    changed();
}

inline bool async_step(bool random) {
    auto& s = async_state;
    if (s.inflight.empty()) return false;
    size_t k = 0;
    if (random) {
        if (!async_seed || s.random() % 3) return false;
        k = s.random() % s.inflight.size();
    }
    auto land = std::move(s.inflight[k]);
    s.inflight.erase(s.inflight.begin() + long(k));
    land();
    changed();
    return true;
}

inline uint32_t offset_of(const void* p, const char* what) {
    auto at = static_cast<const uint8_t*>(p) - shared.base();
    if (at < 0 || at >= shared.bytes())
        hopper_error("%s: the address is not in the dynamic shared memory the host gave (KV_DYNAMIC_SMEM, %u bytes)",
                     what, shared.bytes());
    return uint32_t(at);
}

inline Mbarrier& mbarrier_at(uint64_t* bar, const char* what) {
    uint32_t at = offset_of(bar, what);
    if (at % 8) hopper_error("%s: mbarrier at shared offset %u is not 8-byte aligned", what, at);
    auto found = async_state.mbarriers.find(at);
    if (found == async_state.mbarriers.end())
        hopper_error("%s: mbarrier at shared offset %u used before mbar_init", what, at);
    return found->second;
}

// The current phase completes once no arrival is pending and the tx-count is zero (PTX ISA, mbarrier phases).
inline void settle(Mbarrier& b) {
    if (b.pending == 0 && b.tx == 0) {
        b.phase++;
        b.pending = int(b.count);
    }
}

inline void complete_tx(uint32_t at, unsigned bytes) {
    auto& b = async_state.mbarriers.at(at);
    b.tx -= long(bytes);
    if (b.tx <= -(1L << 20)) hopper_error("mbarrier at shared offset %u: tx-count below -(2^20 - 1)", at);
    settle(b);
}

inline std::string mbarrier_waits(uint32_t at, unsigned parity) {
    auto& b = async_state.mbarriers.at(at);
    return format("mbar_wait(parity %u) on the mbarrier at shared offset %u (phase %u: %d of %u arrivals pending, "
                  "tx-count %ld, %zu copies in flight)",
                  parity, at, b.phase, b.pending, b.count, b.tx, async_state.inflight.size());
}

}  // namespace kvshim

inline uint32_t smem_addr(const void* p) { return kvshim::offset_of(p, "smem_addr"); }

inline void mbar_init(uint64_t* bar, unsigned arrivals) {
    std::lock_guard lock(kvshim::async_lock);
    uint32_t at = kvshim::offset_of(bar, "mbar_init");
    if (at % 8) kvshim::hopper_error("mbar_init: shared offset %u is not 8-byte aligned", at);
    if (arrivals < 1 || arrivals >= (1u << 20)) kvshim::hopper_error("mbar_init: count %u outside 1..2^20-1", arrivals);
    kvshim::async_state.mbarriers[at] = {arrivals, int(arrivals), 0, 0};
    kvshim::changed();
}

inline void fence_mbar_init() {}

inline void mbar_arrive(uint64_t* bar) {
    std::lock_guard lock(kvshim::async_lock);
    auto& b = kvshim::mbarrier_at(bar, "mbar_arrive");
    if (--b.pending < 0) kvshim::hopper_error("mbar_arrive: more arrivals than the count %u of its phase", b.count);
    kvshim::settle(b);
    kvshim::changed();
}

inline void mbar_arrive_expect_tx(uint64_t* bar, unsigned bytes) {
    std::lock_guard lock(kvshim::async_lock);
    auto& b = kvshim::mbarrier_at(bar, "mbar_arrive_expect_tx");
    b.tx += long(bytes);
    if (b.tx >= (1L << 20)) kvshim::hopper_error("mbar_arrive_expect_tx: tx-count above 2^20 - 1");
    if (--b.pending < 0) kvshim::hopper_error("mbar_arrive_expect_tx: more arrivals than the count %u", b.count);
    kvshim::settle(b);
    kvshim::changed();
}

// try_wait.parity: the phase of that parity has completed when the current phase's parity differs from it.
inline void mbar_wait(uint64_t* bar, unsigned parity) {
    uint32_t at;
    const kvshim::Mbarrier* b;
    {
        std::lock_guard lock(kvshim::async_lock);
        b = &kvshim::mbarrier_at(bar, "mbar_wait");
        at = kvshim::offset_of(bar, "mbar_wait");
    }
    kvshim::sync_now->wait_until(
        kvshim::thread_rank, [&] { return (b->phase & 1) != (parity & 1); },
        [&] { return kvshim::mbarrier_waits(at, parity); });
}

namespace kvshim {

// bar.sync / bar.arrive: returns the generation that completes this thread's arrival, and whether it has.
inline std::pair<unsigned, bool> named_arrive(int id, int threads, const char* what) {
    std::lock_guard lock(async_lock);
    if (id < 1 || id > 15) hopper_error("%s: barrier id %d outside 1..15 (0 is __syncthreads())", what, id);
    if (threads < 32 || threads % 32 || threads > async_state.threads)
        hopper_error("%s(%d): %d threads is not a positive multiple of 32 within the block's %d", what, id, threads,
                     async_state.threads);
    auto& b = async_state.named[id];
    if (b.arrived == 0) b.count = threads;
    if (b.count != threads)
        hopper_error("%s(%d, %d): the barrier's other threads arrived with a count of %d", what, id, threads, b.count);
    unsigned generation = b.generation;
    changed();
    if (++b.arrived < b.count) return {generation, false};
    b.arrived = 0;
    b.generation++;
    return {generation, true};
}

}  // namespace kvshim

inline void named_bar_sync(int id, int threads) {
    auto [generation, done] = kvshim::named_arrive(id, threads, "named_bar_sync");
    if (done) return;
    auto& b = kvshim::async_state.named[id];
    kvshim::sync_now->wait_until(
        kvshim::thread_rank, [&] { return b.generation != generation; },
        [&] {
            return kvshim::format("named_bar_sync(%d, %d) (%d of %d threads arrived)", id, threads, b.arrived, b.count);
        });
}

inline void named_bar_arrive(int id, int threads) { kvshim::named_arrive(id, threads, "named_bar_arrive"); }

namespace kvshim {

inline void check_launch_regs(const char* what) {
    if (long(async_state.threads) * launch_regs > 65536)
        hopper_error("%s: %d threads of %d registers exceed the SM's 65536 (kvshim::launch_regs)", what,
                     async_state.threads, launch_regs);
}

}  // namespace kvshim

// setmaxnreg (PTX ISA, "setmaxnreg"): registers move between a warp and its CTA's pool, which holds only what
// decreases released; an increase blocks until the pool has enough.
template <int R>
void setmaxnreg_dec() {
    static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: 24 <= R <= 256, a multiple of 8");
    std::lock_guard lock(kvshim::async_lock);
    kvshim::check_launch_regs("setmaxnreg_dec");
    int& mine = kvshim::async_state.regs[kvshim::thread_rank];
    if (R > mine) kvshim::hopper_error("setmaxnreg_dec<%d>: above this thread's %d registers", R, mine);
    kvshim::async_state.regs_free += mine - R;
    mine = R;
    kvshim::changed();
}

template <int R>
void setmaxnreg_inc() {
    static_assert(R >= 24 && R <= 256 && R % 8 == 0, "setmaxnreg: 24 <= R <= 256, a multiple of 8");
    auto& s = kvshim::async_state;
    int t = kvshim::thread_rank;
    {
        std::lock_guard lock(kvshim::async_lock);
        kvshim::check_launch_regs("setmaxnreg_inc");
        if (R < s.regs[t]) kvshim::hopper_error("setmaxnreg_inc<%d>: below this thread's %d registers", R, s.regs[t]);
    }
    kvshim::sync_now->wait_until(
        t,
        [&] {
            if (s.regs_free < R - s.regs[t]) return false;
            s.regs_free -= R - s.regs[t];
            s.regs[t] = R;
            return true;
        },
        [&] {
            return kvshim::format("setmaxnreg_inc<%d> (it holds %d registers; the CTA's pool holds %ld)", R, s.regs[t],
                                  s.regs_free);
        });
}
