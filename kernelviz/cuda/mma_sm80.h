// The sm_80 PTX the tensor-core kernels share (fa2_mma.cu, fa2_pipe.cu; fa3.cu its cvt), one instruction a function:
// mma.sync, ldmatrix, cvt to 16-bit pairs, and the 16-byte cp.async with its commit and wait. On the CPU shim
// (KVSHIM) cpu/warp.h and cpu/async.h do what each instruction does. Every build of a kernel receives this file
// (kernels.headers: nvcc, NVRTC and the shim's g++ alike); the pages cite its regions as mma_sm80.h#NAME.
#pragma once

// region: mma
// mma: d += a b over one 16×8 tile; a: 4 registers of A's fragment, b: 2 of B's, d: 4 floats of D's
template <int BF16>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#ifdef KVSHIM
    kvshim::mma_m16n8k16(d, a, b, d, BF16);
#else
    if constexpr (BF16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                     "{%0,%1,%2,%3};" : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}
// endregion

// region: ldmatrix
// ldmatrix: four 8×8 matrices from SRAM; this lane gives the address of one 16-byte row (lanes 8m..8m+7: matrix m)
template <bool TRANS>
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const unsigned short* row) {
#ifdef KVSHIM
    kvshim::ldmatrix_x4(r, row, TRANS);
#else
    unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(row));
    if constexpr (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(at));
#endif
}
// endregion

// region: cvt
// cvt: two floats rounded to 16 bits (nearest even) in one register, lo in the low half
template <int BF16>
__device__ __forceinline__ unsigned pack2(float lo, float hi) {
#ifdef KVSHIM
    return kvshim::pack_half2(lo, hi, BF16);
#else
    unsigned r;
    if constexpr (BF16) asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    else asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
#endif
}
// endregion

// region: cp_async
// cp.async: 16 bytes HBM -> SRAM, in flight until a wait_group covers it; `in` false: 16 zero bytes (src-size 0,
// nothing read) for a row past the end
__device__ __forceinline__ void cp_async16(unsigned short* dst, const unsigned short* src, bool in) {
#ifdef KVSHIM
    kvshim::cp_async(dst, src, in ? 16 : 0);
#else
    unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(at), "l"(src), "r"(in ? 16 : 0));
#endif
}

// commit_group: the copies this thread issued since its last commit become one group
__device__ __forceinline__ void cp_async_commit() {
#ifdef KVSHIM
    kvshim::cp_async_commit();
#else
    asm volatile("cp.async.commit_group;");
#endif
}

// wait_group N: wait until at most the N newest committed groups of this thread are in flight
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#ifdef KVSHIM
    kvshim::cp_async_wait(N);
#else
    asm volatile("cp.async.wait_group %0;" ::"n"(N));
#endif
}
// endregion
