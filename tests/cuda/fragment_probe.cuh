// The probe kernel of fragment_probe.cpp (on the CPU shim) and of test_cuda_gpu.py (on a GPU, through CuPy): one warp
// of fa2_mma.cu's device functions (include or prepend fa2_mma.cu first) writing what each lane's registers hold after
// ldmatrix and mma at the addresses fa2_mma.cu gives them, and what shuffles and cvt give. M and N are 16×16
// matrices of 16-bit bits, F 64 floats; regs [32][3][4], acc [32][4][4], shuffled [32][2], packed [32] (see
// fragment_probe.cpp's outputs).
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
