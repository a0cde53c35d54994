// Throughput of one unit of an SM at a time, for bench/units.py: each kernel keeps one unit busy with independent
// work (no chain waits on the unit's latency) and writes a value that depends on every result, so the compiler
// keeps all of it. The clock is read inside the kernel: block 0's thread 0 writes clock64() and %globaltimer (ns)
// at its start and end, so the host gets the SM clock the run really had (cycles / ns), not the data sheet's.
//
//   mma_sync   mma.sync.aligned.m16n8k16 f16 x f16 -> f32 (2·16·8·16 = 4096 FLOPs a warp-instruction), CHAINS
//              accumulators a warp
//   ex2        ex2.approx.ftz.f32 (one MUFU.EX2 a thread-instruction), CHAINS values a thread
//   lds        ld.shared.v4.b32, each warp's 32 lanes reading 512 consecutive bytes (one conflict-free pass)
//
// Each kernel's `iters` is the number of rounds; a round issues CHAINS instructions a warp (lds: one load of
// 16 bytes a thread).

typedef unsigned int uint32_t;  // no headers: NVRTC compiles this as it is

#define CHAINS 8

__device__ __forceinline__ void stamp(long long* clocks, int at) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    long long ns;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
    clocks[at] = clock64();
    clocks[at + 1] = ns;
  }
}

extern "C" __global__ void mma_sync(int iters, float* out, long long* clocks) {
  stamp(clocks, 0);
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = 0x3c003c00u ^ (threadIdx.x * 0x00010001u);  // fp16 pairs near 1
  for (int i = 0; i < 2; ++i) b[i] = 0x3c003c00u ^ (i * 0x00010001u);
  float acc[CHAINS][4] = {};
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) {
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
          "{%0,%1,%2,%3};"
          : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
  }
  float sum = 0.f;
  for (int c = 0; c < CHAINS; ++c) sum += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  stamp(clocks, 2);
}

extern "C" __global__ void ex2(int iters, float* out, long long* clocks) {
  stamp(clocks, 0);
  float x[CHAINS];
  for (int c = 0; c < CHAINS; ++c) x[c] = -0.001f * (threadIdx.x + c);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) {
      // 2^-x stays in (0, 1] for x >= 0 and x in [0, 1] for its result: no overflow, no denormals
      asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(x[c]) : "f"(-x[c]));
    }
  }
  float sum = 0.f;
  for (int c = 0; c < CHAINS; ++c) sum += x[c];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
  stamp(clocks, 2);
}

extern "C" __global__ void lds(int iters, float* out, long long* clocks) {
  __shared__ uint4 tile[1024];  // 16 KiB
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) tile[i] = make_uint4(i, i + 1, i + 2, i + 3);
  __syncthreads();
  stamp(clocks, 0);
  uint32_t sum = 0;
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(tile));
  uint32_t slot = threadIdx.x % 1024;
  for (int it = 0; it < iters; ++it) {
    uint32_t v0, v1, v2, v3;
    asm volatile("ld.shared.v4.b32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v0), "=r"(v1), "=r"(v2), "=r"(v3)
                 : "r"(base + slot * 16));
    sum ^= v0 ^ v1 ^ v2 ^ v3;
    slot = (slot + 32) % 1024;  // the warp's next 512 bytes: still consecutive, still conflict-free
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<float>(sum);
  stamp(clocks, 2);
}
