// The CUDA a kernel of this folder uses, for g++: the same .cu source compiles and runs on the CPU.
//
// A launch runs the blocks of the grid one after another. The threads of a block are real std::threads, and
// __syncthreads() is a barrier across them. __shared__ variables become function statics: one copy per kernel
// instantiation, shared by the threads of the block that runs now (blocks never overlap, so that is exact).
//
// Schedules (kvshim::Schedule), for the threads of a block between two barriers:
//   threads   all run at once, as the OS schedules them (std::barrier);
//   forward   one at a time, thread 0 first, each until its next barrier (a warp's lanes before the next warp's):
//             deterministic;
//   backward  the same, last thread first.
// A kernel that leaves out a __syncthreads() it needs gives a wrong answer under forward or backward every time.
//
// atomicAdd(float*, float) is atomic across the threads of a block, which run at once under Schedule::threads:
// one lock serializes every atomicAdd. Blocks never overlap here, so two blocks cannot lose each other's update
// as they can on a GPU; instead the harness may `watch` an output that blocks share (FA2 backward's dQ): it keeps
// a shadow copy that only atomicAdd also adds into, in the same order, and an element that differs from its shadow
// afterwards was changed by a plain store, which on a GPU races with the other blocks' adds (a lost update).
//
// Warps (cpu/warp.h): threads 32w..32w+31 of a block are warp w. A warp's collectives (__syncwarp(),
// __shfl_xor_sync(), and the emulated mma.sync and ldmatrix of fa2_mma.cu) are a rendezvous of its 32 lanes: under
// Schedule::threads a barrier per warp; under forward and backward the lane hands its turn on, and the warp's lanes
// run again once all of them have arrived. Threads at barriers that can never all be reached (a lane at
// __syncthreads() while the rest of its warp waits at a collective) are a deadlock: reported, exit status 5.
#pragma once

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <semaphore>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define KVSHIM 1  // a kernel's device functions take their CPU versions (fa2_mma.cu: mma, ldmatrix, cvt)

using std::max;
using std::min;

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};
struct uint3 {
    unsigned x = 0, y = 0, z = 0;
};

inline thread_local uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;

namespace kvshim {

enum class Schedule { threads, forward, backward };

constexpr int WARP = 32;

using Ready = std::function<bool()>;
using Waits = std::function<std::string()>;  // what a waiting thread waits on, for a deadlock report

// Hopper's asynchronous units (cpu/hopper.h): one copy in flight is completed (the oldest, or when `random` one at
// random from kvshim::async_seed, or none by chance); false when none completed. block_begin/block_end: a block's
// state before its threads start and after they all return. async_lock guards it under Schedule::threads.
inline bool async_step(bool random);
inline void block_begin(int threads);
inline void block_end();
inline std::recursive_mutex async_lock;
inline std::atomic<unsigned long> progress{0};  // bumped by every change of the asynchronous units' state

// What __syncthreads() and a warp's rendezvous do for the block that runs now.
struct Sync {
    virtual ~Sync() = default;
    virtual void begin(int) {}            // a thread starts
    virtual void wait(int t) = 0;         // a thread reaches __syncthreads()
    virtual void warp_wait(int t) = 0;    // a thread reaches a collective of its warp
    virtual void end(int t) = 0;          // a thread returns from the kernel
    // A thread waits until `ready()` (an mbarrier phase, a named barrier, ...): called without async_lock held;
    // `ready` and `waits` are called with it held (or while no other thread runs).
    virtual void wait_until(int t, const Ready& ready, const Waits& waits) = 0;
};

struct Concurrent : Sync {
    std::barrier<> bar;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
    explicit Concurrent(int n) : bar(n) {
        for (int w = 0; w * WARP < n; w++) warps.push_back(std::make_unique<std::barrier<>>(std::min(WARP, n - w * WARP)));
    }
    void wait(int) override { bar.arrive_and_wait(); }
    void warp_wait(int t) override { warps[t / WARP]->arrive_and_wait(); }
    void end(int t) override {
        bar.arrive_and_drop();
        warps[t / WARP]->arrive_and_drop();
    }
    // Spin, completing copies in flight now and then; 10 s without any change is a deadlock (exit status 5).
    void wait_until(int t, const Ready& ready, const Waits& waits) override {
        auto seen = progress.load();
        auto since = std::chrono::steady_clock::now();
        for (unsigned spin = 0;; spin++) {
            {
                std::lock_guard lock(async_lock);
                if (ready()) return;
                if (spin % 64 == 63 && async_step(true)) continue;
                // the oldest copy lands every 4096 spins of a thread, or after 50 ms without progress: 384 threads
                // sharing two cores reach 4096 spins only after seconds (fa3's block)
                bool stalled = std::chrono::steady_clock::now() - since > std::chrono::milliseconds(50);
                if ((spin % 4096 == 4095 || stalled) && async_step(false)) continue;
                if (progress.load() != seen) {
                    seen = progress.load();
                    since = std::chrono::steady_clock::now();
                } else if (std::chrono::steady_clock::now() - since > std::chrono::seconds(10)) {
                    std::fprintf(stderr, "deadlock: thread %d waits at %s; nothing changed for 10 s\n", t, waits().c_str());
                    std::fflush(stderr);
                    std::_Exit(5);
                }
            }
            std::this_thread::yield();
        }
    }
};

// One thread runs at a time. A thread hands its turn on when it waits (at __syncthreads() or at its warp's
// rendezvous) and when it returns, to the next thread in `order` (cyclically) that may run, one of its own warp if
// one may: a warp runs as far ahead of the others as it can, to its next __syncthreads(), as a warp may on a GPU,
// so a barrier missing between warps shows. A barrier lets its threads run again once every thread of its scope
// still running has reached it (the block for __syncthreads(), the warp for a rendezvous). With block barriers
// alone this is the round robin: every thread reaches barrier k before any thread passes it.
//
// A thread in wait_until may run again once its condition holds. When no thread may run, a copy in flight completes
// (the oldest first) and the threads are looked at again: copies complete as late as they can, unless
// kvshim::async_seed asks for random points; only with no copy left in flight is it a deadlock.
struct Turns : Sync {
    enum State { ready, at_block, at_warp, at_cond, done };
    int n;
    std::vector<int> order, rank;
    std::vector<State> state;
    std::vector<const Ready*> cond;
    std::vector<const Waits*> waits_on;
    std::vector<std::unique_ptr<std::binary_semaphore>> turn;  // thread t runs while it holds turn[t]
    explicit Turns(int n_, bool reverse) : n(n_), rank(n_), state(n_, ready), cond(n_), waits_on(n_) {
        for (int k = 0; k < n; k++) order.push_back(reverse ? n - 1 - k : k);
        for (int k = 0; k < n; k++) rank[order[k]] = k;
        for (int t = 0; t < n; t++) turn.push_back(std::make_unique<std::binary_semaphore>(t == order[0] ? 1 : 0));
    }
    void begin(int t) override { turn[t]->acquire(); }
    // Threads [lo, hi) still running that all wait at `where` may run again.
    void release(int lo, int hi, State where) {
        for (int u = lo; u < hi; u++)
            if (state[u] != done && state[u] != where) return;
        for (int u = lo; u < hi; u++)
            if (state[u] == where) state[u] = ready;
    }
    void release_all(int t) {
        release(0, n, at_block);
        int w0 = t / WARP * WARP;
        release(w0, std::min(n, w0 + WARP), at_warp);
    }
    // Hand the turn from t to the next thread in order that may run and return it (t itself, if it is the one);
    // -1 when every thread has returned. Threads that wait but none may run: a deadlock, reported (exit status 5).
    int pick(int t) {
        for (int same = 1; same >= 0; same--)  // a lane of t's own warp first, then any thread
            for (int k = 1; k <= n; k++) {
                int u = order[(rank[t] + k) % n];
                if (same && u / WARP != t / WARP) continue;
                if (state[u] == at_cond && (*cond[u])()) state[u] = ready;
                if (state[u] == ready) return u;
            }
        return -1;
    }
    int hand_on(int t) {
        std::lock_guard lock(async_lock);
        async_step(true);
        for (;;) {
            int u = pick(t);
            if (u >= 0) {
                if (u != t) turn[u]->release();
                return u;
            }
            if (!async_step(false)) break;
        }
        bool stuck = false;
        for (int u = 0; u < n; u++)
            if (state[u] != done) {
                stuck = true;
                if (state[u] == at_cond)
                    std::fprintf(stderr, "deadlock: thread %d waits at %s\n", u, (*waits_on[u])().c_str());
                else
                    std::fprintf(stderr, "deadlock: thread %d waits at %s that not every thread of its %s reaches\n", u,
                                 state[u] == at_block ? "a __syncthreads()" : "a warp collective",
                                 state[u] == at_block ? "block" : "warp");
            }
        if (stuck) {
            std::fflush(stderr);
            std::_Exit(5);
        }
        return -1;
    }
    void block(int t, State where) {
        state[t] = where;
        release_all(t);
        if (hand_on(t) != t) turn[t]->acquire();
    }
    void wait_until(int t, const Ready& ready_now, const Waits& waits) override {
        {
            std::lock_guard lock(async_lock);
            if (ready_now()) return;
        }
        cond[t] = &ready_now;
        waits_on[t] = &waits;
        block(t, at_cond);
    }
    void wait(int t) override { block(t, at_block); }
    void warp_wait(int t) override { block(t, at_warp); }
    void end(int t) override {
        state[t] = done;
        release_all(t);
        hand_on(t);
    }
};

// Where the lanes of a warp leave their registers for a collective (cpu/warp.h): two sets, used in turn, so that a
// lane may write the next collective's while the others still read this one's.
struct WarpSlots {
    uint32_t words[2][WARP][16];
};

inline thread_local Sync* sync_now = nullptr;
inline thread_local int thread_rank = 0;
inline thread_local WarpSlots* warp_slots = nullptr;  // the block's, one a warp
inline thread_local unsigned collectives = 0;         // this thread's warp collectives so far

// kernel<<<grid, block>>>(args...), run on the CPU.
template <typename... Params, typename... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, Schedule schedule, Args... args) {
    gridDim = grid;
    blockDim = block;
    int n = block.x * block.y * block.z;
    if (n < 1 || n > 1024) throw std::invalid_argument("blockDim must hold 1 to 1024 threads");
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++) {
                std::unique_ptr<Sync> sync;
                if (schedule == Schedule::threads) sync = std::make_unique<Concurrent>(n);
                else sync = std::make_unique<Turns>(n, schedule == Schedule::backward);
                std::vector<WarpSlots> slots((n + WARP - 1) / WARP);
                block_begin(n);
                std::vector<std::thread> threads;
                for (int t = 0; t < n; t++)
                    threads.emplace_back([&, t] {
                        threadIdx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
                        blockIdx = {bx, by, bz};
                        sync_now = sync.get();
                        thread_rank = t;
                        warp_slots = slots.data();
                        collectives = 0;
                        sync->begin(t);
                        kernel(args...);
                        sync->end(t);
                    });
                for (auto& thread : threads) thread.join();
                block_end();
            }
}

}  // namespace kvshim

inline void __syncthreads() { kvshim::sync_now->wait(kvshim::thread_rank); }

namespace kvshim {

// Memory that blocks share and may change only through atomicAdd: [base, base + shadow.size()).
struct Watched {
    float* base = nullptr;
    std::vector<float> shadow;
};
inline std::mutex atomic_lock;
inline Watched watched;

// Watch `n` floats from `base`: from now on they may change only through atomicAdd (see the top of this file).
inline void watch(float* base, size_t n) { watched = {base, std::vector<float>(base, base + n)}; }

// The index of the first watched float that a plain store changed, or -1; stops watching.
inline long unwatch() {
    long bad = -1;
    for (size_t k = 0; k < watched.shadow.size() && bad < 0; k++)
        if (std::memcmp(&watched.base[k], &watched.shadow[k], sizeof(float)) != 0) bad = long(k);
    watched = {};
    return bad;
}

}  // namespace kvshim

inline float atomicAdd(float* address, float value) {
    std::lock_guard lock(kvshim::atomic_lock);
    float old = *address;
    *address = old + value;
    auto& w = kvshim::watched;
    if (w.base && address >= w.base && address < w.base + w.shadow.size()) w.shadow[address - w.base] += value;
    return old;
}

#include "warp.h"
#include "hopper.h"
