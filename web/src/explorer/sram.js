// What one block of the explorer's algorithm holds on chip, split as a real kernel splits it, and whether it fits.
//
// The tiles: blockTiles is the algorithm record's `block` (topics.js: its explored record; kernelviz/attention/
// fa2_block.py, generated into JavaScript), which its function declares to its ledger with `ledger.shared`: the
// teaching model, which keeps every tile of the block in one fast memory: Qi, Kj, Vj in the storage dtype, Sij, Oi,
// mi, li in float32. A real kernel splits them (the tensor-core page, its kernel in kernelviz/cuda/): Qi, Kj, Vj are
// staged in shared memory, which all the block's threads read; the scores Sij (then Pij), the output accumulator Oi
// and the statistics mi, li never leave the registers of the warps that own their rows. blockSplit makes that split;
// only the shared part counts against the per-block shared-memory budget. The tensor-core kernel pads each row of
// its 16-bit tiles by 8 elements (bank conflicts), declaring 2·(Br + 2Bc)·(d + 8) bytes: more than the tiles' own
// bytes, which is what the explorer shows.
//
// The fit rule is Ledger.shared's in kernelviz/attention/ledger.py: tiles are placed in order; the first one that
// would pass the budget does not fit, nor does any after it. tests/explorer/test_explorer_formulas.py checks the
// tiles and the rule against the Python ledger, and the split against sums by hand.

import { evaluate, explorerPair } from './topics.js';

/** The tiles of one block of the explored algorithm, in bytes and in order: Qi, Kj, Vj (storage dtype), Sij, Oi,
 * mi, li (float32). */
export function blockTiles(Br, Bc, d, itemsize) {
  return evaluate(explorerPair().explored.name, 'block', { Br, Bc, d, itemsize });
}

/** The tiles a real kernel stages in shared memory; the rest of blockTiles' live in registers. */
export const SHARED_TILES = ['Qi', 'Kj', 'Vj'];

/** {shared: {Qi, Kj, Vj}, registers: {Sij, Oi, mi, li}}: blockTiles' tiles where a real kernel keeps them. */
export function blockSplit(Br, Bc, d, itemsize) {
  const shared = {};
  const registers = {};
  for (const [name, b] of Object.entries(blockTiles(Br, Bc, d, itemsize))) {
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
