// paged_decoding.cu's pool_offset on the CPU, for tests/cuda/test_cuda_paged.py: the 64-bit offset of a row of a
// page, checked on page indices whose offsets pass 2^31 without a pool that large.
//
// Built with -DKV_FILE="paged_decoding.cu" (or a planted copy); argv: page row h PAGE H_kv D; stdout: the offset.
#include "shim.h"

#include <cstdio>
#include <cstdlib>

#include KV_FILE

int main(int argc, char** argv) {
    if (argc != 7) return 2;
    int v[6];
    for (int i = 0; i < 6; i++) v[i] = std::atoi(argv[i + 1]);
    std::printf("%lld\n", (long long)pool_offset(v[0], v[1], v[2], v[3], v[4], v[5]));
    return 0;
}
