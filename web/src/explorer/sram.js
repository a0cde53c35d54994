// What one FlashAttention 2 block holds in SRAM, and whether it fits a budget.
//
// Python twins: the tiles are those kernelviz/attention/fa2.py declares with `ledger.shared("fa2", ...)`, and
// the fit rule is Ledger.shared's in kernelviz/attention/ledger.py: tiles are placed in order; the first one that
// would pass the budget does not fit, nor does any after it. tests/explorer/test_explorer_formulas.py checks both
// against the Python ledger. (formulas.py has no SRAM count; this port follows fa2.py.)

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
