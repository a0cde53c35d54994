// Fast-memory budgets: the shared memory (SRAM) one streaming multiprocessor offers, in bytes.
//
// Source: NVIDIA CUDA C++ Programming Guide, "Technical Specifications per Compute Capability":
//   compute capability 8.0 (A100):      164 KB shared memory per SM, at most 163 KB for one thread block;
//   compute capability 9.0 (H100/H200): 228 KB shared memory per SM, at most 227 KB for one thread block.
// (KB there is 1024 bytes.) The NVIDIA A100 and H100 tuning guides give the same numbers. A kernel that wants
// more than 48 KB per block must opt in with cudaFuncSetAttribute; these are the ceilings after opting in.
// The explorer's presets are the per-block ceilings, the most one block of tiles can hold.

export const PRESETS = {
  a100: { label: 'A100 · 163 KiB per block (164 KiB per SM)', bytes: 163 * 1024 },
  h100: { label: 'H100 / H200 · 227 KiB per block (228 KiB per SM)', bytes: 227 * 1024 },
};

export const CUSTOM_MIN_KIB = 1;
export const CUSTOM_MAX_KIB = 1024;

/** The budget in bytes for a state's `sram` field: a preset key, or a custom size in KiB (a number). */
export function budgetBytes(sram) {
  return typeof sram === 'number' ? sram * 1024 : PRESETS[sram].bytes;
}

// Registers: 64K 32-bit registers per thread block, compute capability 5.0 to 9.0 (the same table of the CUDA
// guide; kernelviz/cuda/kernels.py's REGISTERS_PER_BLOCK), 256 KiB. The tiles the explorer counts in registers are a
// lower bound on what a block needs there: addresses, loop counters and fragments of Q and K take registers too.
export const REGISTER_FILE_BYTES = 65536 * 4;
