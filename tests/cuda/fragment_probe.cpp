// fragment_probe.cuh's kernel, one warp of fa2_mma.cu's device functions, on the CPU shim, for tests/cuda/test_cuda_fragments.py: what each lane's
// registers hold after ldmatrix and mma, with the addresses fa2_mma.cu gives them, and what shuffles and cvt give.
//
// Built with -DKV_FILE="fa2_mma.cu" (for its device functions); argv: bf16 (0 or 1), schedule (threads, forward,
// backward). stdin: two 16×16 matrices of 16-bit bits, M and N (row-major), then 64 floats to round in pairs.
// stdout, in order: uint32 registers [32 lanes][3][4] of ldmatrix_x4 as fa2_mma.cu loads Q (A from M), K (B from
// N read as Kj, keys by rows) and V (B from N read as Vj, .trans); float [32][4][4]: the mma accumulators of
// M N^T (two 16×8 tiles: the scores' pattern) and of M N (two tiles: P V's); float [32][2]: each lane's value
// 100 + lane shuffled by xor 1 and by xor 2; uint32 [32]: pack2 of floats 2*lane and 2*lane + 1.
#include "shim.h"

#include <cstdio>
#include <string>

#include KV_FILE
#include "fragment_probe.cuh"

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    bool bf16 = std::atoi(argv[1]);
    std::string s = argv[2];
    auto schedule = s == "forward" ? kvshim::Schedule::forward
                    : s == "backward" ? kvshim::Schedule::backward
                                      : kvshim::Schedule::threads;
    std::vector<unsigned short> M(256), N(256);
    std::vector<float> F(64), acc(32 * 16), shuffled(64);
    std::vector<unsigned> regs(32 * 12), packed(32);
    if (std::fread(M.data(), 2, 256, stdin) != 256 || std::fread(N.data(), 2, 256, stdin) != 256 ||
        std::fread(F.data(), 4, 64, stdin) != 64)
        return 2;
    auto kernel = bf16 ? probe<1> : probe<0>;
    kvshim::launch(kernel, dim3{1, 1, 1}, dim3{32, 1, 1}, schedule, (const unsigned short*)M.data(),
                   (const unsigned short*)N.data(), (const float*)F.data(), regs.data(), acc.data(), shuffled.data(),
                   packed.data());
    std::fwrite(regs.data(), 4, regs.size(), stdout);
    std::fwrite(acc.data(), 4, acc.size(), stdout);
    std::fwrite(shuffled.data(), 4, shuffled.size(), stdout);
    std::fwrite(packed.data(), 4, packed.size(), stdout);
    return 0;
}
