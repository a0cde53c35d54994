// What grows with N and what does not: the HBM memory one head holds, and the limit of the traffic ratio, of the
// explorer's pair of records (topics.js explorerPair: the algorithm it walks through and its family's baseline).
//
// Memory: the baseline (standard attention) allocates Q, K, V, O (N×d each, storage dtype) and the N×N matrices S and
// P (its softmax reads S while it writes P, so both are allocated at once); the explored algorithm (Flash Attention
// 2) allocates Q, K, V, O and L (N float32 statistics, kept for the backward pass). The first grows with N², the
// second with N·d: the ratio grows with N.
//
// Traffic: with the byte counts of formulas.js, the baseline moves 2·Tr·N·d·s bytes of K and V plus 4·N²·s of S and
// P; the explored one moves the same K and V (half of it under the causal mask, which the baseline does not use).
// As N grows, Tr = N/Br and the ratio tends to 1 + 2·Br/d (causal: 2 + 4·Br/d): a constant factor, as the
// FlashAttention paper's Theorem 2 has it (Θ(Nd + N²) accesses against Θ(N²d²/M) for SRAM of M elements, M ≈ Br·d).
// Both are checked against kernelviz.attention in tests/explorer/test_explorer_formulas.py.

import { STAT } from './formulas.js';
import { explorerPair } from './topics.js';

/** {baseline's name: bytes, explored's name: bytes} of HBM one head of each allocates, for N queries and keys of
 * dimension d. */
export function hbm_footprint(N, d, itemsize) {
  const { explored, baseline } = explorerPair();
  const tensors = 4 * N * d * itemsize;
  return { [baseline.name]: tensors + 2 * N * N * itemsize, [explored.name]: tensors + N * STAT };
}

/** The limit, as N grows, of the baseline's HBM traffic over the explored algorithm's, at tiles of Br query rows. */
export function traffic_ratio_limit(Br, d, causal = false) {
  return causal ? 2 + (4 * Br) / d : 1 + (2 * Br) / d;
}
