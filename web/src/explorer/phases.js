// The four phases of one FlashAttention 2 block, the code lines each one runs, and the walk through them.
//
// A block owns query tile i. It loads Qi once (phase 0), then for every K/V tile j it visits: scores the K tile
// (1), updates the online softmax (2) and accumulates the V tile (3). The walk is the sequence
//   load Q, then (score, update, accumulate) for each visited j
// and the last accumulate also writes Oi to HBM, once.

export const CODE = [
  'Qi = Q[i]                  # load Q once: Br×d',
  'mi, li, Oi = -inf, 0, 0    # float32, registers',
  'for j in tiles_visited(i): # K, V stream past',
  '    Sij = Qi @ Kj.T / sqrt(d)  # load Kj',
  '    m_new = max(mi, rowmax(Sij))',
  '    alpha = exp(mi - m_new)    # rescale',
  '    Pij = exp(Sij - m_new)',
  '    li = alpha*li + rowsum(Pij); mi = m_new',
  '    Oi = alpha*Oi + Pij @ Vj   # load Vj',
  'O[i] = Oi / li             # write Oi once',
];

export const PHASES = [
  {
    title: 'Load Q',
    lines: [0, 1],
    text: 'Query tile Qi is read from HBM once and stays in shared memory while the K and V tiles stream past it.',
  },
  {
    title: 'Score a K tile',
    lines: [2, 3],
    text: 'Kj comes in from HBM to shared memory; Sij = Qi Kjᵀ / √d is computed in registers, never written back.',
  },
  {
    title: 'Update online softmax',
    lines: [4, 5, 6, 7],
    text: 'The running max m and sum l absorb the tile; alpha rescales what came before, so nothing is lost.',
  },
  {
    title: 'Accumulate V',
    lines: [8],
    text: 'Vj comes in to shared memory and Pij Vj is added to the output tile Oi, still in registers.',
  },
];

/** The line of O[i] = Oi / li: run on the last accumulate, when Oi goes to HBM once. */
export const WRITE_LINE = 9;

/** The position of (phase, j) in the walk, given the visited tile indices. */
export function stepIndex(phase, j, visited) {
  if (phase === 0 || visited.length === 0) return 0;
  const k = Math.max(visited.indexOf(j), 0);
  return 1 + 3 * k + (phase - 1);
}

/** The (phase, j) at position `index` of the walk (clamped to it). */
export function stepAt(index, visited) {
  const last = visited.length === 0 ? 0 : 3 * visited.length;
  const k = Math.min(Math.max(index, 0), last);
  if (k === 0) return { phase: 0, j: visited[0] ?? 0 };
  return { phase: 1 + ((k - 1) % 3), j: visited[Math.floor((k - 1) / 3)] };
}

/** How many positions the walk has. */
export function stepCount(visited) {
  return 1 + 3 * visited.length;
}
