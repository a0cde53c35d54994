// One warp of fa2_mma.cu's device functions on the CPU shim, for tests/cuda/test_cuda_fragments.py: what each lane's
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

template <int BF16>
__global__ void probe(const unsigned short* M, const unsigned short* N, const float* F, unsigned* regs, float* acc,
                      float* shuffled, unsigned* packed) {
    __shared__ __align__(16) unsigned short Ms[16][24], Ns[16][24];  // rows padded by 8, as fa2_mma.cu's
    int lane = threadIdx.x;
    for (int x = lane; x < 256; x += 32) Ms[x / 16][x % 16] = M[x], Ns[x / 16][x % 16] = N[x];
    __syncwarp();
    unsigned r[3][4];
    ldmatrix_x4<false>(r[0], &Ms[lane % 16][lane / 16 * 8]);               // load_q's address
    ldmatrix_x4<false>(r[1], &Ns[lane / 16 * 8 + lane % 8][lane / 8 % 2 * 8]);  // scores' address for Kj
    ldmatrix_x4<true>(r[2], &Ns[lane / 8 % 2 * 8 + lane % 8][lane / 16 * 8]);   // pv's address for Vj
    for (int m = 0; m < 3; m++)
        for (int k = 0; k < 4; k++) regs[(lane * 3 + m) * 4 + k] = r[m][k];
    float d[4][4] = {};
    mma_m16n8k16<BF16>(d[0], r[0], {r[1][0], r[1][1]});
    mma_m16n8k16<BF16>(d[1], r[0], {r[1][2], r[1][3]});
    mma_m16n8k16<BF16>(d[2], r[0], {r[2][0], r[2][1]});
    mma_m16n8k16<BF16>(d[3], r[0], {r[2][2], r[2][3]});
    for (int m = 0; m < 4; m++)
        for (int k = 0; k < 4; k++) acc[(lane * 4 + m) * 4 + k] = d[m][k];
    float mine = 100.f + lane;
    shuffled[lane * 2] = __shfl_xor_sync(0xffffffff, mine, 1);
    shuffled[lane * 2 + 1] = __shfl_xor_sync(0xffffffff, mine, 2);
    packed[lane] = pack2<BF16>(F[2 * lane], F[2 * lane + 1]);
}

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
