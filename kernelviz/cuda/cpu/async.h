// Copies in flight, for g++ (included by shim.h): cp.async, cp.async.commit_group and cp.async.wait_group as
// mma_sm80.h wraps them, and the block's dynamic shared memory (extern __shared__), the one of every kernel:
// KV_DYNAMIC_SMEM(T, name, ALIGN) (dynamic_smem.h on a GPU) names a `T*` to it, here the block's buffer of the bytes
// the host gave (kvshim::dynamic_bytes), from a 1,024-byte boundary (ALIGN 1,024 at most: fa3.cu's swizzle atom).
//
// A cp.async of 16 bytes does not write shared memory when it is issued: its bytes (read from global memory then;
// the kernels' inputs do not change during a launch) wait in the issuing thread's list, in the group it is part of
// (the copies since that thread's last commit_group), and land later, at a point of the thread's own choosing:
//   random  at each of the thread's later shim calls (a cp.async, commit, wait, __syncthreads(), a warp collective)
//           every copy still in flight lands with probability 1/2, from a generator seeded per launch, block and
//           thread (the harness seeds it per schedule);
//   late    as late as the PTX ISA allows: only when a wait_group covers it, or when the thread returns.
// Either way a copy has landed once wait_group N returns, unless it is in one of the N newest committed groups (or
// in no committed group yet). A kernel that reads a buffer before the wait that covers its copies, or refills a
// buffer another warp still reads, therefore reads stale bytes under some schedule, and under `late` every time:
// dynamic shared memory starts each block filled with the NaN pattern 0x7fad (16-bit), so a read of what never
// landed gives NaN. A cp.async whose shared or global address is not 16-byte aligned (the PTX ISA requires it of a
// 16-byte copy) is reported, as a write past the dynamic shared memory the host sized is (exit status 6, 3).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace kvshim {

enum class Copies { random, late };

inline Copies copies_mode = Copies::random;
inline uint64_t copies_seed = 0;

constexpr uint16_t SHARED_POISON = 0x7fad;  // NaN as fp16 and as bf16 (harness.cpp's POISON16)
constexpr size_t SHARED_GUARD = 4096;       // bytes after the dynamic shared memory, checked at the block's end

// The block's dynamic shared memory: `bytes` from a 1,024-byte boundary (bank 0, and the 128-byte swizzle's atom, as
// on a GPU), then a guard.
struct DynamicShared {
    std::vector<unsigned char> store;
    unsigned char* base = nullptr;
    size_t bytes = 0;
};
inline DynamicShared dynamic;
inline size_t dynamic_bytes = 0;  // what the next launch gives each block (the host's <<<grid, block, bytes>>>)

template <typename T>
T* dynamic_shared() {
    return reinterpret_cast<T*>(dynamic.base);
}
#define KV_DYNAMIC_SMEM(T, name, ALIGN) T* name = kvshim::dynamic_shared<T>()

inline void fill_poison(unsigned char* at, size_t bytes) {
    for (size_t k = 0; k + 1 < bytes; k += 2) std::memcpy(at + k, &SHARED_POISON, 2);
}

// A block starts: fresh dynamic shared memory, all of it the poison pattern.
inline void shared_begin() {
    dynamic.bytes = dynamic_bytes;
    dynamic.store.assign(dynamic_bytes + SHARED_GUARD + 1024, 0);
    auto at = reinterpret_cast<uintptr_t>(dynamic.store.data());
    dynamic.base = dynamic.store.data() + (1024 - at % 1024) % 1024;
    fill_poison(dynamic.base, dynamic_bytes + SHARED_GUARD);
}

// A block ends: its guard untouched, else the kernel wrote past what the host gave it (exit status 3).
inline void shared_end() {
    std::vector<unsigned char> guard(SHARED_GUARD);
    fill_poison(guard.data(), SHARED_GUARD);
    if (std::memcmp(dynamic.base + dynamic.bytes, guard.data(), SHARED_GUARD) != 0) {
        std::fprintf(stderr, "write past the dynamic shared memory: the host gave each block %zu bytes\n", dynamic.bytes);
        std::fflush(stderr);
        std::_Exit(3);
    }
}

struct InFlight {
    unsigned char* dst;
    unsigned char bytes[16];
    long group;  // the number of commits this thread had made when it issued the copy
};

struct ThreadCopies {
    std::vector<InFlight> flying;
    long committed = 0;
    uint64_t state = 0;
};
inline thread_local ThreadCopies copies;

// splitmix64: the thread's generator for `random`.
inline uint64_t next_random() {
    uint64_t z = (copies.state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

inline void copies_begin(uint64_t block, int thread) {
    copies = {};
    copies.state = copies_seed * 0x100000001b3ull ^ block << 20 ^ uint64_t(thread);
}

// Land the copies in flight that `pick` chooses, keeping the rest in order.
template <typename Pick>
void land_if(Pick pick) {
    size_t kept = 0;
    for (auto& c : copies.flying) {
        if (pick(c)) std::memcpy(c.dst, c.bytes, 16);
        else copies.flying[kept++] = c;
    }
    copies.flying.resize(kept);
}

// A point of this thread where, under `random`, each copy in flight may land.
inline void copies_may_land() {
    if (copies_mode == Copies::random && !copies.flying.empty()) land_if([](const InFlight&) { return next_random() & 1; });
}

// The thread returns: everything it issued lands.
inline void copies_end() {
    land_if([](const InFlight&) { return true; });
}

inline void misaligned(const char* what, const void* at) {
    long offset = static_cast<const unsigned char*>(at) - dynamic.base;
    std::fprintf(stderr, "cp.async: %s address %p is not 16-byte aligned (a 16-byte copy needs it; shared: %ld bytes "
                 "into the dynamic shared memory)\n", what, at, offset);
    std::fflush(stderr);
    std::_Exit(6);
}

// cp.async.cg.shared.global [dst], [src], 16, src_size: src_size bytes of src (0 or 16), the rest zeros.
inline void cp_async(void* dst, const void* src, int src_size) {
    if (reinterpret_cast<uintptr_t>(dst) % 16) misaligned("shared", dst);
    if (reinterpret_cast<uintptr_t>(src) % 16) misaligned("global", src);
    copies_may_land();
    InFlight c{static_cast<unsigned char*>(dst), {}, copies.committed};
    if (src_size) std::memcpy(c.bytes, src, 16);
    copies.flying.push_back(c);
}

// cp.async.commit_group
inline void cp_async_commit() {
    copies_may_land();
    copies.committed++;
}

// cp.async.wait_group n: every copy of a committed group older than the n newest lands now.
inline void cp_async_wait(int n) {
    long before = copies.committed - n;
    land_if([before](const InFlight& c) { return c.group < before; });
    copies_may_land();
}

}  // namespace kvshim
