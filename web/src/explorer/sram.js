// What one FlashAttention 2 block holds on chip, split as a real kernel splits it, and whether it fits.
//
// The tiles: fa2_sram lists what kernelviz/attention/fa2.py declares with `ledger.shared("fa2", ...)`, the teaching
// model, which keeps every tile of the block in one fast memory: Qi, Kj, Vj in the storage dtype, Sij, Oi, mi, li in
// float32. A real kernel splits them (the tensor-core page, kernelviz/cuda/fa2_mma.cu): Qi, Kj, Vj are staged in
// shared memory, which all the block's threads read; the scores Sij (then Pij), the output accumulator Oi and the
// statistics mi, li never leave the registers of the warps that own their rows. fa2_split makes that split; only
// the shared part counts against the per-block shared-memory budget. fa2_mma.cu pads each row of its 16-bit tiles
// by 8 elements (bank conflicts), declaring 2·(Br + 2Bc)·(d + 8) bytes: more than the tiles' own bytes, which is
// what the explorer shows.
//
// The fit rule is Ledger.shared's in kernelviz/attention/ledger.py: tiles are placed in order; the first one that
// would pass the budget does not fit, nor does any after it. tests/explorer/test_explorer_formulas.py checks the
// tiles and the rule against the Python ledger, and the split against sums by hand.

import { STAT } from './formulas.js';

/** The tiles of one FA2 block, in bytes and in order: Qi, Kj, Vj (storage dtype), Sij, Oi, mi, li (float32). */
export function fa2_sram(Br, Bc, d, itemsize) {
  const s = itemsize;
  return {
    Qi: Br * d * s,
    Kj: Bc * d * s,
    Vj: Bc * d * s,
    Sij: Br * Bc * 4,
    Oi: Br * d * 4,
    mi: Br * STAT,
    li: Br * STAT,
  };
}

/** The tiles a real kernel stages in shared memory; the rest of fa2_sram's live in registers. */
export const SHARED_TILES = ['Qi', 'Kj', 'Vj'];

/** {shared: {Qi, Kj, Vj}, registers: {Sij, Oi, mi, li}}: fa2_sram's tiles where a real kernel keeps them. */
export function fa2_split(Br, Bc, d, itemsize) {
  const shared = {};
  const registers = {};
  for (const [name, b] of Object.entries(fa2_sram(Br, Bc, d, itemsize))) {
    (SHARED_TILES.includes(name) ? shared : registers)[name] = b;
  }
  return { shared, registers };
}

/** {total, fits, fit: [names], over: [names], used: bytes of the tiles that fit} for tiles against budget bytes. */
export function sram_fit(tiles, budget) {
  const entries = Object.entries(tiles);
  const total = entries.reduce((sum, [, b]) => sum + b, 0);
  const fit = [];
  let used = 0;
  for (const [name, b] of entries) {
    if (used + b > budget) break;
    fit.push(name);
    used += b;
  }
  const over = entries.map(([name]) => name).filter((name) => !fit.includes(name));
  return { total, fits: total <= budget, fit, over, used };
}
