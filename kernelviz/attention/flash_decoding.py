"""Flash decoding: split K/V along the sequence, run FlashAttention on each split in parallel, then combine.

The K/V tiles (Tc = ceil(N_kv / Bc) of them) are dealt to n_splits contiguous splits as flash-attn's split-KV
kernel deals them: T = ceil(Tc / n_splits) tiles a split, split s owning tiles [s*T, min((s+1)*T, Tc)). Trailing
splits may own none (4 tiles in 3 splits: 2, 2, 0); such a split still reads Qi and writes m = -inf, l = 0, O = 0,
as the split kernel of cuda/flash_decoding.cu does. Query rows are tiled by Br as in FlashAttention 2; decoding is
the case N = 1.

    split kernel, one block per (block i of query rows, split s):
        load Qi;  run the online softmax over the split's K/V tiles (as FA2: m_i, l_i, Oi in SRAM)
        write O_partial[s, i] = Oi (unnormalized), m_partial[s, i] = m_i, l_partial[s, i] = l_i
    combine kernel, one block per block i of query rows:
        m_g = max_s m_partial[s];  l_g = sum_s exp(m_partial[s] - m_g) l_partial[s]
        O[i] = sum_s exp(m_partial[s] - m_g) O_partial[s] / l_g

The partials are float32. The split overhead, against FA2, is Q read n_splits times instead of once and the
partials written and read back once. As in the seed page's combine kernel, only O is written: ``lse`` is None.
A split whose tiles are all masked for a block still writes m = -inf, l = 0, O = 0, which the combine ignores.

``partials="lse"`` keeps the partials the way flash-attn's split-KV kernel, FlashInfer's ``merge_state`` and vLLM's
``merge_attn_states`` do: each split divides its own output and writes one log-sum-exp a row instead of m and l,

    split:    O_partial[s, i] = Oi / l_i (normalized),  lse_partial[s, i] = m_i + log l_i   (``_inputs.finish``)
    combine:  lse_max = max_s lse_partial[s];  w_s = exp(lse_partial[s] - lse_max)
              O[i] = sum_s (w_s / sum_s' w_s') O_partial[s]                                   (``combine_lse``)

one float a row a split fewer (4 bytes written and 4 read back). An empty split writes lse = -inf, O = 0, and weighs
0. Merging two such states, ``merge``, is associative: merge the splits in any grouping and the result is the same,
which is what cascade (shared-prefix) attention builds on.
"""

import numpy as np

from ._inputs import (
    STAT_BYTES,
    AttentionResult,
    absorb,
    check_qkv,
    combine,
    finish,
    positive_int,
    safe_max,
    scores,
    tiles,
    visible_tiles,
)
from .ledger import EXP, OTHER, Ledger

PARTIALS = ("unnormalized", "lse")  # the seed page's O, m, l; or normalized O and one log-sum-exp a row


def split_tiles(n_tiles, n_splits):
    """The K/V tile indices of each split: a list of n_splits ranges covering range(n_tiles) in order, each of
    ceil(n_tiles / n_splits) tiles but the last ones (shorter, or empty)."""
    per = -(-n_tiles // n_splits)
    return [range(min(s * per, n_tiles), min((s + 1) * per, n_tiles)) for s in range(n_splits)]


def flash_decoding(
    q,
    k,
    v,
    *,
    Br=64,
    Bc=64,
    n_splits=None,
    partials="unnormalized",
    causal=False,
    dtype="float32",
    scale=None,
    sram_budget=None,
    observe=None,
):
    """Run flash decoding on q (BH, N, d), k and v (BH, N_kv, d). n_splits: 1 to ceil(N_kv / Bc); None takes
    min(4, that). partials: "unnormalized" (O, m, l, the seed page's) or "lse" (normalized O and one log-sum-exp).
    Returns an AttentionResult (lse None). Raises ValueError naming the argument on bad input, SramBudgetError if a
    block does not fit. `observe` (the figure's answers, attention.figure_values): called as observe(i, s, j, S=Sij,
    m=m_i, l=l_i, O=Oi) after split s of block i folds its j-th tile in, and as observe(i, "combine", m=m_g, l=l_g,
    O=acc) with the combine's sums (the unnormalized partials only)."""
    if partials not in PARTIALS:
        raise ValueError(
            f"partials must be 'unnormalized' (O, m, l) or 'lse' (normalized O and one log-sum-exp), got {partials!r}"
        )
    lse_form = partials == "lse"
    stats = ("lse_partial",) if lse_form else ("m_partial", "l_partial")
    q, k, v, scale, dt = check_qkv(q, k, v, scale, dtype)
    Br, Bc = positive_int("Br", Br), positive_int("Bc", Bc)
    bh, n, d = q.shape
    n_kv, s = k.shape[1], dt.itemsize
    kv_tiles = tiles(n_kv, Bc)
    n_splits = min(4, len(kv_tiles)) if n_splits is None else positive_int("n_splits", n_splits)
    if n_splits > len(kv_tiles):
        raise ValueError(f"n_splits: at most ceil(N_kv / Bc) = {len(kv_tiles)} (the K/V tiles), got {n_splits}")

    ledger = Ledger(sram_budget)
    for name, nbytes in (("Q", q.nbytes), ("K", k.nbytes), ("V", v.nbytes)):
        ledger.hbm(name, nbytes)
    ledger.hbm("O_partial", n_splits * bh * n * d * STAT_BYTES)
    for name in stats:
        ledger.hbm(name, n_splits * bh * n * STAT_BYTES)
    ledger.hbm("O", q.nbytes)
    ledger.shared(
        "split", Qi=Br * d * s, Kj=Bc * d * s, Vj=Bc * d * s, Sij=Br * Bc * 4, Oi=Br * d * 4, mi=Br * 4, li=Br * 4
    )
    if lse_form:
        ledger.shared("combine", lse_max=Br * 4, w_sum=Br * 4, Oi=Br * d * 4)
    else:
        ledger.shared("combine", m_global=Br * 4, l_global=Br * 4, Oi=Br * d * 4)

    o = np.empty(q.shape, dt)
    splits = split_tiles(len(kv_tiles), n_splits)
    for i, (r0, r1) in enumerate(tiles(n, Br)):
        rows = r1 - r0
        visible = set(visible_tiles(r1, n, n_kv, kv_tiles, causal))
        O_part = np.zeros((n_splits, bh, rows, d), np.float32)
        m_part = np.full((n_splits, bh, rows), -np.inf, np.float32)
        l_part = np.zeros((n_splits, bh, rows), np.float32)
        for sp, owned in enumerate(splits):  # split kernel: these blocks run in parallel
            at = dict(kernel="split", block=(i, sp), heads=bh)
            Qi = q[:, r0:r1]
            ledger.read("Q", i, rows * d * s, step=0, **at)
            m_i, l_i, Oi = m_part[sp], l_part[sp], O_part[sp]
            step = 0
            for step, j in enumerate((j for j in owned if j in visible), start=1):
                c0, c1 = kv_tiles[j]
                ledger.read("K", j, (c1 - c0) * d * s, step=step, **at)
                ledger.read("V", j, (c1 - c0) * d * s, step=step, **at)
                Sij = scores(Qi, k[:, c0:c1], scale, (r0, r1), (c0, c1), n, n_kv, causal, ledger.flops)
                m_i, l_i, Oi = absorb(m_i, l_i, Oi, Sij, v[:, c0:c1], ledger.flops)
                if observe is not None:
                    observe(i, sp, step - 1, S=Sij, m=m_i, l=l_i, O=Oi)
            if lse_form:  # divide here, and keep m + log l: l_part holds the log-sum-exp
                O_part[sp], l_part[sp] = finish(m_i, l_i, Oi, ledger.flops)
            else:
                O_part[sp], m_part[sp], l_part[sp] = Oi, m_i, l_i  # unnormalized: no division here
            ledger.write("O_partial", (sp, i), rows * d * STAT_BYTES, step=step + 1, **at)
            for name in stats:
                ledger.write(name, (sp, i), rows * STAT_BYTES, step=step + 1, **at)

        at = dict(kernel="combine", block=i, heads=bh)  # combine kernel: one block per block of query rows
        for step, name in enumerate((*stats, "O_partial")):
            for sp in range(n_splits):
                ledger.read(name, (sp, i), rows * (d if name == "O_partial" else 1) * STAT_BYTES, step=step, **at)
        if lse_form:
            o[:, r0:r1] = combine_lse(O_part, l_part, ledger.flops).astype(dt)
        else:
            seen = (lambda i=i, **sums: observe(i, "combine", **sums)) if observe is not None else None
            o[:, r0:r1] = combine(m_part, l_part, O_part, ledger.flops, seen).astype(dt)
        ledger.write("O", i, rows * d * s, step=len(stats) + 1, **at)
    params = dict(Br=Br, Bc=Bc, n_splits=n_splits, partials=partials, causal=causal, dtype=dt.name, scale=scale)
    return AttentionResult(o, None, ledger, "flash-decoding", params)


def combine_lse(o_part, lse_part, flops=None):
    """Merge normalized partials: o_part (S, ..., d) and their log-sum-exps lse_part (S, ...), split first, as
    flash-attn's combine kernel does: O = sum_s (w_s / sum_s' w_s') o_s with w_s = e^(lse_s - max_s lse_s), in
    float32. An empty split (lse = -inf, o = 0) weighs 0; a row no split saw gets O = 0. `flops`: counts, over the
    lse_part.size partials, the max, the subtraction, the sum and the division w_s / sum (4 each), w * o and its sum
    (2 each of o_part's elements), and one exponential a partial."""
    w = np.exp(lse_part - safe_max(lse_part.max(0)))
    total = w.sum(0)
    weight = w / np.where(total == 0, np.float32(1), total)
    if flops is not None:
        flops.add(OTHER, 4 * lse_part.size + 2 * o_part.size)
        flops.add(EXP, lse_part.size)
    return (weight[..., None] * o_part).sum(0)


def merge(state_a, state_b):
    """Merge two attention states (o, lse) over disjoint sets of keys into the state over their union, as
    FlashInfer's ``merge_state`` and vLLM's ``merge_attn_states`` do (in natural logarithms, as vLLM; FlashInfer
    keeps base 2): o = (e^(lse_a - m) o_a + e^(lse_b - m) o_b) / (e^(lse_a - m) + e^(lse_b - m)) and
    lse = m + log(e^(lse_a - m) + e^(lse_b - m)), m = max(lse_a, lse_b). A state over no key is (0, -inf), the
    merge's identity. Associative and commutative up to rounding: any grouping of the splits gives the same state."""
    (o_a, lse_a), (o_b, lse_b) = state_a, state_b
    lse_s = np.stack([lse_a, lse_b])  # the two states as two splits: combine_lse weighs their outputs
    m = safe_max(lse_s.max(0))
    with np.errstate(divide="ignore"):  # two states over no key: log 0 = -inf, the identity's lse
        lse = m + np.log(np.exp(lse_s - m).sum(0))
    return combine_lse(np.stack([o_a, o_b]), lse_s), lse
