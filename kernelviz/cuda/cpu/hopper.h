// Hopper's asynchronous units for g++ (included by shim.h): the API that fa3.cu calls, and its CPU versions.
//
// THE API (stable). fa3.cu defines the GPU versions of these functions as inline PTX under `#ifndef KVSHIM`, with
// exactly these names and signatures; under KVSHIM this file defines them. All are device functions.
//
// Shared memory. A kernel uses dynamic shared memory only, declared with KV_DYNAMIC_SMEM(u8, smem, 1024) as every
// kernel declares it (dynamic_smem.h; on the CPU async.h: the block's buffer of the bytes the host gave, aligned to
// 1024 so swizzle address bits match a GPU's, filled with a NaN pattern, 0x7fad in every 16-bit half, at each block's
// start, and guarded: a write past its end is reported). TMA and wgmma may not reach past its end either.
//   uint32_t smem_addr(const void* p)          offset of p in the CTA's shared window (cvta.to.shared)
//
// mbarriers (PTX ISA, "mbarrier"): a uint64_t in shared memory, 8-byte aligned. A phase completes when its pending
// arrival count reaches zero and its tx-count is zero; then the next phase starts with the count from init.
//   void mbar_init(uint64_t* bar, unsigned arrivals)   mbarrier.init.shared::cta.b64 (one thread)
//   void fence_mbar_init()                             fence.mbarrier_init.release.cluster
//   void mbar_arrive(uint64_t* bar)                    mbarrier.arrive.shared::cta.b64 (one arrival)
//   void mbar_arrive_expect_tx(uint64_t* bar, unsigned bytes)
//                                                      mbarrier.arrive.expect_tx: tx-count += bytes, then arrive
//   void mbar_wait(uint64_t* bar, unsigned parity)     spin on mbarrier.try_wait.parity until the phase of that
//                                                      parity has completed (returns at once when the current
//                                                      phase's parity differs from `parity`)
//
// TMA (PTX ISA, "cp.async.bulk.tensor"). A tensor map is made on the host and passed by value to the kernel
// as `const __grid_constant__ CUtensorMap name`; under KVSHIM CUtensorMap is kvshim::TensorMap (below), with the same
// field meanings as cuTensorMapEncodeTiled's: global address, element bytes, rank 1..5, dims (innermost first),
// byte strides of dims 1.., box (elements per dim), swizzle (0, 32, 64 or 128 bytes), out-of-bounds elements
// filled with zero. Coordinates are element indices, innermost first, and may be out of bounds (zero fill on
// load, clipped on store).
//   void tma_load_2d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1)
//   void tma_load_3d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, int c2)
//   void tma_load_4d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, int c2, int c3)
//        cp.async.bulk.tensor.Nd.shared::cluster.global.mbarrier::complete_tx::bytes: copies the box at the
//        coordinates into smem_dst (1024-aligned for 128B swizzle) LATER, then performs complete_tx(box bytes) on
//        `bar`. The issuing thread must have done mbar_arrive_expect_tx for those bytes on this phase.
//   void tma_store_2d(const CUtensorMap* map, const void* smem_src, int c0, int c1)   (and _3d, _4d)
//        cp.async.bulk.tensor.Nd.global.shared::cta.bulk_group: reads the box from smem_src (later) and writes it.
//   void tma_store_commit()                            cp.async.bulk.commit_group
//   void tma_store_wait()                              cp.async.bulk.wait_group.read 0: the stores' smem reads done
//   void tma_store_flush()                             cp.async.bulk.wait_group 0: the stores' global writes done
//   void fence_proxy_async()                           fence.proxy.async.shared::cta: shared-memory writes of the
//                                                      generic proxy (plain stores) become visible to TMA and wgmma
//   The CPU reports (exit status 6) a TMA store or a wgmma that reads shared memory threads wrote with plain stores
//   and no fence_proxy_async() since.
//
// wgmma (PTX ISA 9.7.15, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate"), for a warpgroup: threads
// 128g..128g+127, all 128 call each of these together.
//   uint64_t make_smem_desc(uint32_t smem_offset, unsigned lbo, unsigned sbo, int swizzle)
//        the shared-memory matrix descriptor: start address (offset >> 4) in bits 0-13, leading-dimension byte
//        offset (lbo >> 4) in 16-29, stride-dimension byte offset (sbo >> 4) in 32-45, base offset 0, swizzle
//        mode in 62-63 from `swizzle` in bytes (0: none -> 0, 128 -> 1, 64 -> 2, 32 -> 3). Host and device.
//   void wgmma_fence()                                 wgmma.fence.sync.aligned
//   void wgmma_commit()                                wgmma.commit_group.sync.aligned
//   template <int N> void wgmma_wait()                 wgmma.wait_group.sync.aligned N: all but the newest N
//                                                      committed groups have completed
//   template <int N, bool BF16, bool TRANS_B = false>
//   void wgmma_ss(float (&acc)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate)
//        wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16}: D(64xN) = A(64x16) B(16xN) (+ D if
//        accumulate), A and B from shared-memory descriptors. A is K-major; B is K-major (TRANS_B false: B^T stored
//        N rows of 16 contiguous k, as K in S = Q K^T) or MN-major (TRANS_B true: imm-trans-b 1, B stored k rows of
//        N contiguous, as V in O = P V). acc is the m64nNk16 accumulator fragment (kernelviz/cuda/hopper.py).
//   template <int N, bool BF16, bool TRANS_B = false>
//   void wgmma_rs(float (&acc)[N / 2], const uint32_t (&a)[4], uint64_t desc_b, bool accumulate)
//        the same with A (64x16) from registers, in the A-register fragment layout (hopper.py); P V uses
//        wgmma_rs<d, BF16, true>.
//   On the CPU the products land in acc only at the wgmma_wait that covers their group: acc read earlier holds the
//   old values, as on a GPU. Shared memory is read at that wait too (the latest a GPU may read it).
//
// Named barriers (PTX ISA, "bar, barrier": bar.sync / bar.arrive): ids 1..15 (0 is __syncthreads()); `threads` a
// multiple of 32; the barrier completes once `threads` threads have arrived.
//   void named_bar_sync(int id, int threads)           arrive and wait
//   void named_bar_arrive(int id, int threads)         arrive, do not wait
//
// Registers (setmaxnreg, PTX ISA "setmaxnreg"): all 128 threads of a warpgroup call it together. A warp's registers
// move to and from its CTA's pool, which starts empty (launch: kvshim::launch_regs per thread, 168 unless set, within
// the SM's 65536): an increase waits until other warpgroups' decreases have released enough, a deadlock if they never
// do (FA3's 3 warpgroups at 168: the producer's drop to 24 frees 128 · 144 = 18432, the consumers' rise to 240 takes
// 256 · 72 = 18432).
//   template <int R> void setmaxnreg_inc()              setmaxnreg.inc.sync.aligned.u32 R (24 <= R <= 256, R % 8 == 0)
//   template <int R> void setmaxnreg_dec()              setmaxnreg.dec.sync.aligned.u32 R
//
// Deadlocks. Under the forward and backward schedules, threads that all wait (at an mbarrier phase, a named
// barrier, a warpgroup's wgmma, setmaxnreg, __syncthreads(), a warp collective) with no copy left in flight are a
// deadlock: reported with each waiting thread and what it waits on (the barrier's offset, parity, pending arrivals
// and tx-count), exit status 5, as shim.h's. Under the threads schedule, the same after 10 s with no progress.
// Asynchronous copies complete at random later points (seeded by kvshim::async_seed; with seed 0, as late as
// possible: only when no thread can run), so a wait with the wrong parity or a missing expect_tx reads poison.
#pragma once

#include <cstdint>
#include <cstdlib>

#define __grid_constant__

namespace kvshim {

constexpr int WARPGROUP = 128;
constexpr int SMEM_BYTES = 227 * 1024;  // the most dynamic shared memory a block may take on sm_90

// A TMA tensor map, as cuTensorMapEncodeTiled makes it (fields in the same order and units).
struct TensorMap {
    void* base = nullptr;         // global address of element (0, 0, ...)
    int elem_bytes = 2;           // 2 for fp16/bf16, 4 for float
    int rank = 2;                 // 1..5
    uint64_t dims[5] = {};        // elements in each dim, innermost first
    uint64_t strides[5] = {};     // bytes between consecutive indices of each dim (strides[0] = elem_bytes)
    uint32_t box[5] = {};         // elements copied in each dim (box[0] * elem_bytes <= swizzle when swizzled)
    int swizzle = 128;            // 0, 32, 64 or 128 bytes
};

// make_tensor_map(base, elem_bytes, rank, dims, box, swizzle) (tma.h): a row-major tensor (dims innermost first,
// contiguous), checked as cuTensorMapEncodeTiled checks it (std::invalid_argument naming what is wrong).

inline int launch_regs = 168;  // registers per thread at launch (setmaxnreg accounting)
// 0: copies complete as late as possible; else at random points from this seed (environment KVSHIM_ASYNC_SEED)
inline const char* const async_seed_text = std::getenv("KVSHIM_ASYNC_SEED");
inline unsigned async_seed = async_seed_text ? unsigned(std::atoi(async_seed_text)) : 0;

}  // namespace kvshim

using CUtensorMap = kvshim::TensorMap;

#include "hopper_layouts.h"
#include "hopper_async.h"
#include "tma.h"
#include "wgmma.h"

namespace kvshim {

inline void block_begin(int threads) {
    reset_async(threads);
    reset_tma(threads);
    reset_wgmma(threads);
}

// Copies still in flight land when the block ends (a TMA store the kernel never waited for still writes).
inline void block_end() {
    while (async_step(false)) {
    }
}

}  // namespace kvshim

#if 0  // the API, as declared above (the definitions are in hopper_async.h, tma.h and wgmma.h)
uint32_t smem_addr(const void* p);
void mbar_init(uint64_t* bar, unsigned arrivals);
void fence_mbar_init();
void mbar_arrive(uint64_t* bar);
void mbar_arrive_expect_tx(uint64_t* bar, unsigned bytes);
void mbar_wait(uint64_t* bar, unsigned parity);

void tma_load_2d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1);
void tma_load_3d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, int c2);
void tma_load_4d(void* smem_dst, const CUtensorMap* map, uint64_t* bar, int c0, int c1, int c2, int c3);
void tma_store_2d(const CUtensorMap* map, const void* smem_src, int c0, int c1);
void tma_store_3d(const CUtensorMap* map, const void* smem_src, int c0, int c1, int c2);
void tma_store_4d(const CUtensorMap* map, const void* smem_src, int c0, int c1, int c2, int c3);
void tma_store_commit();
void tma_store_wait();
void tma_store_flush();
void fence_proxy_async();

uint64_t make_smem_desc(uint32_t smem_offset, unsigned lbo, unsigned sbo, int swizzle);
void wgmma_fence();
void wgmma_commit();
template <int N>
void wgmma_wait();
template <int N, bool BF16, bool TRANS_B = false>
void wgmma_ss(float (&acc)[N / 2], uint64_t desc_a, uint64_t desc_b, bool accumulate);
template <int N, bool BF16, bool TRANS_B = false>
void wgmma_rs(float (&acc)[N / 2], const uint32_t (&a)[4], uint64_t desc_b, bool accumulate);

void named_bar_sync(int id, int threads);
void named_bar_arrive(int id, int threads);
template <int R>
void setmaxnreg_inc();
template <int R>
void setmaxnreg_dec();
#endif
