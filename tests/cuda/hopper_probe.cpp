// A small Hopper kernel for the CPU shim's asynchronous units (tests/cuda/test_cuda_hopper_units.py plants bugs in
// its lines): FA3's pipeline without the softmax. One block of 384 threads: warpgroup 0 is the producer, whose
// thread 0 loads A (128×64) once and K_j, V_j (64×64 each, j < T) into a ring of STAGES stages with TMA (128-byte
// swizzle), each stage guarded by a full and an empty mbarrier; warpgroups 1 and 2 each own 64 rows of A and compute
//     O = sum_j half(A K_j^T) V_j
// with wgmma: S = A K_j^T from two shared-memory descriptors (K-major), then O += P V_j with P = half(S) from
// registers and V_j through an MN-major descriptor; named barriers ping-pong the two warpgroups' products; the
// epilogue writes half(O) into shared memory (swizzled as the TMA store reads it), fences the async proxy and stores
// it with TMA. setmaxnreg moves registers from the producer to the consumers.
//
// The kernel is in hopper_probe.cuh. With -DKV_VARIANT_FILE="file", that file defines the kernels instead: namespaces
// v0, v1, ... each holding a probe<BF16>, and KV_VARIANTS listing {vK::probe<false>, vK::probe<true>} for each, so
// that one build holds every planted variant (tests/cuda/test_cuda_hopper_units.py).
//
// argv: schedule (threads, forward, backward), bf16 (0 or 1), ragged (0 or 1: the tensor maps end 10 rows short of
// K and V, whose loads fill them with zeros, and 5 rows short of O, whose store leaves them as they were), and
// optionally the variant (default 0). stdin: A, K, V as 16-bit bits (128×64, then T·64×64 twice). stdout: O's bits
// (128×64), initially 0x7fad.
#include "shim.h"

#include <cstdio>
#include <string>
#include <vector>

constexpr int T = 4, STAGES = 2, ROWS = 128, D = 64, KV = 64;
constexpr unsigned TILE_BYTES = KV * D * 2;

#ifdef KV_VARIANT_FILE
#include KV_VARIANT_FILE
#else
namespace v0 {
#include "hopper_probe.cuh"
}
#define KV_VARIANTS {v0::probe<false>, v0::probe<true>}
#endif

using Kernel = void (*)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap);
const Kernel KERNELS[][2] = {KV_VARIANTS};

int main(int argc, char** argv) {
    if (argc != 4 && argc != 5) {
        std::fprintf(stderr, "usage: hopper_probe threads|forward|backward bf16:0|1 ragged:0|1 [variant]\n");
        return 2;
    }
    std::string name = argv[1];
    auto schedule = name == "threads" ? kvshim::Schedule::threads
                    : name == "forward" ? kvshim::Schedule::forward
                                        : kvshim::Schedule::backward;
    bool bf16 = std::string(argv[2]) == "1", ragged = std::string(argv[3]) == "1";
    std::vector<uint16_t> a(ROWS * D), k(T * KV * D), v(T * KV * D), o(ROWS * D, 0x7fad);
    for (auto* x : {&a, &k, &v})
        if (std::fread(x->data(), 2, x->size(), stdin) != x->size()) return 2;
    auto map = [](std::vector<uint16_t>& x, uint64_t rows, uint32_t box_rows) {
        uint64_t dims[] = {D, rows};
        uint32_t box[] = {D, box_rows};
        return kvshim::make_tensor_map(x.data(), 2, 2, dims, box, 128);
    };
    auto tmA = map(a, ROWS, ROWS), tmK = map(k, T * KV - 10 * ragged, KV), tmV = map(v, T * KV - 10 * ragged, KV);
    auto tmO = map(o, ROWS - 5 * ragged, 64);
    int variant = argc == 5 ? std::atoi(argv[4]) : 0;
    if (variant < 0 || variant >= int(sizeof KERNELS / sizeof KERNELS[0])) return 2;
    auto kernel = KERNELS[variant][bf16];
    kvshim::dynamic_bytes = kvshim::SMEM_BYTES;  // what the host gives the block: sm_90's most
    kvshim::launch(kernel, dim3{1, 1, 1}, dim3{384, 1, 1}, schedule, tmA, tmK, tmV, tmO);
    std::fwrite(o.data(), 2, o.size(), stdout);
    return 0;
}
