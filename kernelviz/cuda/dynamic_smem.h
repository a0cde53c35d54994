// Dynamic shared memory (extern __shared__), the bytes the host gives a block at launch: KV_DYNAMIC_SMEM(T, name,
// ALIGN) declares `T* name`, its start, aligned to ALIGN bytes (fa2_pipe.cu: 128; fa3.cu: 1,024, the 128-byte
// swizzle's atom). On the CPU shim (KVSHIM) cpu/async.h defines the same macro: the block's buffer, poisoned and
// guarded. Every build of a kernel receives this file (kernels.headers).
#pragma once

#ifndef KVSHIM
#define KV_DYNAMIC_SMEM(T, name, ALIGN) extern __shared__ __align__(ALIGN) T name##_[]; T* name = name##_
#endif
