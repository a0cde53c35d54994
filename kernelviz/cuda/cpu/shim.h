// The CUDA a kernel of this folder uses, for g++: the same .cu source compiles and runs on the CPU.
//
// A launch runs the blocks of the grid one after another. The threads of a block are real std::threads, and
// __syncthreads() is a barrier across them. __shared__ variables become function statics: one copy per kernel
// instantiation, shared by the threads of the block that runs now (blocks never overlap, so that is exact).
//
// Schedules (kvshim::Schedule), for the threads of a block between two barriers:
//   threads   all run at once, as the OS schedules them (std::barrier);
//   forward   one at a time, thread 0 first, each until its next barrier: deterministic;
//   backward  the same, last thread first.
// A kernel that leaves out a __syncthreads() it needs gives a wrong answer under forward or backward every time.
//
// atomicAdd(float*, float) is atomic across the threads of a block, which run at once under Schedule::threads:
// one lock serializes every atomicAdd. Blocks never overlap here, so two blocks cannot lose each other's update
// as they can on a GPU; instead the harness may `watch` an output that blocks share (FA2 backward's dQ): it keeps
// a shadow copy that only atomicAdd also adds into, in the same order, and an element that differs from its shadow
// afterwards was changed by a plain store, which on a GPU races with the other blocks' adds (a lost update).
#pragma once

#include <algorithm>
#include <barrier>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static

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

// What __syncthreads() does for the block that runs now.
struct Sync {
    virtual ~Sync() = default;
    virtual void begin(int) {}            // a thread starts
    virtual void wait(int t) = 0;         // a thread reaches __syncthreads()
    virtual void end(int t) = 0;          // a thread returns from the kernel
};

struct Concurrent : Sync {
    std::barrier<> bar;
    explicit Concurrent(int n) : bar(n) {}
    void wait(int) override { bar.arrive_and_wait(); }
    void end(int) override { bar.arrive_and_drop(); }
};

// One thread runs at a time, in `order`; a thread hands its turn on at each barrier and when it returns.
// Every thread reaches barrier k before any thread passes it, as __syncthreads() promises.
struct Turns : Sync {
    std::mutex mu;
    std::condition_variable cv;
    std::vector<int> order;
    std::vector<bool> done;
    size_t pos = 0;
    explicit Turns(int n, bool reverse) : done(n, false) {
        for (int t = 0; t < n; t++) order.push_back(reverse ? n - 1 - t : t);
    }
    void begin(int t) override {
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return order[pos] == t; });
    }
    void pass(std::unique_lock<std::mutex>& lock) {  // hand the turn to the next thread still running
        for (size_t k = 0; k < order.size(); k++) {
            pos = (pos + 1) % order.size();
            if (!done[order[pos]]) break;
        }
        lock.unlock();
        cv.notify_all();
    }
    void wait(int t) override {
        std::unique_lock lock(mu);
        pass(lock);
        lock.lock();
        cv.wait(lock, [&] { return order[pos] == t; });
    }
    void end(int t) override {
        std::unique_lock lock(mu);
        done[t] = true;
        pass(lock);
    }
};

inline thread_local Sync* sync_now = nullptr;
inline thread_local int thread_rank = 0;

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
                std::vector<std::thread> threads;
                for (int t = 0; t < n; t++)
                    threads.emplace_back([&, t] {
                        threadIdx = {t % block.x, t / block.x % block.y, t / (block.x * block.y)};
                        blockIdx = {bx, by, bz};
                        sync_now = sync.get();
                        thread_rank = t;
                        sync->begin(t);
                        kernel(args...);
                        sync->end(t);
                    });
                for (auto& thread : threads) thread.join();
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
