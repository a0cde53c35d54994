"""Paged decoding (paged_decoding.cu): a decode step over a KV cache kept in pages. It reads Q (B, H_q, D),
K_pages and V_pages (pages, PAGE, H_kv, D), block_table (B, max_pages) and seq_lens (B,), the last two int32 (see
`paged_sizes`). Its sizes map onto the other kernels' names: BH is B*H_kv (the decode blocks of one split, grid.y), N
is max_pages, and the tiles (Br, Bc) are (G, PAGE): the G = H_q / H_kv query rows of a group, and the page, both set
by the data, not chosen. Its lengths are at least 1: the launchers refuse a length of 0 by name
(kernelviz.attention.paged_cache says why), as they refuse a page index outside the pool and a length longer than its
row of the table (`check_inputs`). With one split paged_decode writes O itself; with more, paged_combine merges the
partials. verify holds O to TOL against `paged_attention_fp64`, on a batch of BH sequences of lengths N and
N // 2 + 1, for each of SPLITS.
"""

import numpy as np

from kernelviz.attention.paged_cache import check_table, random_batch
from kernelviz.attention.reference import paged_attention_fp64

from ..descriptor import SPLITS, Kernel, Launch, rel_err

PAGED_TILES = (4, 16)  # (G, PAGE) of the instances compiled in advance: 4 query heads a K/V head, pages of 16
INDEX_INPUTS = ("block_table", "seq_lens")  # int32 inputs
NAMES = ("Q", "K_pages", "V_pages", *INDEX_INPUTS)
PARTIAL = ("O_partial", "m_partial", "l_partial")


def paged_sizes(arrays):
    """{B, H_q, H_kv, G, PAGE, D, pages, max_pages} of its inputs `arrays` (Q, K_pages, V_pages, block_table,
    seq_lens). Raises ValueError naming the input whose shape does not fit the others."""
    if len(arrays) != len(NAMES) or [len(x.shape) for x in arrays] != [3, 4, 4, 2, 1]:
        shapes = [tuple(x.shape) for x in arrays]
        raise ValueError(f"paged_decoding takes {', '.join(NAMES)}, got arrays of shapes {shapes}")
    q, k, v, table, lens = (tuple(x.shape) for x in arrays)
    (B, H_q, D), (pages, page, H_kv, _) = q, k
    if k[3] != D or v != k:
        raise ValueError(f"paged_decoding: K_pages {k} and V_pages {v} must be equal, (pages, PAGE, H_kv, {D})")
    if H_q % H_kv:
        raise ValueError(f"paged_decoding: Q's {H_q} heads are not a multiple of K_pages' {H_kv}")
    if table[0] != B or lens != (B,):
        raise ValueError(f"paged_decoding: block_table {table} and seq_lens {lens} must have Q's {B} sequences")
    return dict(B=B, H_q=H_q, H_kv=H_kv, G=H_q // H_kv, PAGE=page, D=D, pages=pages, max_pages=table[1])


def sizes(arrays):
    found = paged_sizes(arrays)
    return found["B"] * found["H_kv"], found["max_pages"], found["D"], found["max_pages"]


def data_tiles(arrays):
    found = paged_sizes(arrays)
    return found["G"], found["PAGE"]


def shared_bytes(tiles, d):  # paged_decode (its last 4 bytes: the page's index), paged_combine
    br, bc = tiles
    return [4 * (2 * br * d + 2 * bc * d + br * bc + 3 * br) + 4, 4 * (2 + d)]


def launches(bh, n, d, tiles, threads, n_splits, dtype, smem):
    br, bc = tiles
    if n_splits < 1:
        raise ValueError(f"paged decoding takes n_splits >= 1, not {n_splits}")
    found = [Launch(f"paged_decode<{br}, {bc}, {d}>", (n_splits, bh), threads, smem[0])]
    if n_splits > 1:  # one split finishes O in paged_decode
        found.append(Launch(f"paged_combine<{d}>", (bh * br,), threads, smem[1]))
    return found


def outputs(bh, n, d, n_splits, tiles):
    """Its rows are the batch's query heads, bh * G = B * H_q (its O is (B, H_q, D) read as (B*H_q, D)); with one
    split it writes no partials (their shapes have 0 splits)."""
    rows, parts = bh * (tiles or PAGED_TILES)[0], n_splits if n_splits > 1 else 0
    return {"O_partial": (rows, parts, d), "m_partial": (rows, parts), "l_partial": (rows, parts), "O": (rows, d)}


def arguments(n, scale, causal, n_splits, n_kv, kv_heads, bc):
    """n is max_pages, `kv_heads` H_kv."""
    splits = np.int32(n_splits)
    decode = ("Q", "K_pages", "V_pages", *INDEX_INPUTS, *PARTIAL, "O", np.int32(kv_heads), np.int32(n))
    decode += (np.float32(scale), splits)
    return [decode, (*PARTIAL, "O", splits)] if n_splits > 1 else [decode]


def check_inputs(given, arrays, host, address):
    """Its block table and lengths, as the caller gave them (`given`, read into NumPy by `host`, before the cast to
    int32 could wrap them), by paged_cache.check_table: each length at least 1, within its row of the table, each
    entry it reads a page of the pool."""
    found = paged_sizes(arrays)
    check_table(host(given[3]), host(given[4]), found["pages"], found["PAGE"])


def verify_inputs(bh, n, d, decode, seed, causal, n_kv, dtype):
    """A batch of BH sequences of lengths N, N // 2 + 1, ... in pages scattered through a pool (random_batch; the
    first page shared, as a common prefix), with 2 K/V heads in groups and pages of PAGED_TILES."""
    g, page = PAGED_TILES
    lens = [max(1, n // (1 + b) + b) for b in range(bh)]
    return random_batch(lens, page, 2 * g, 2, d, seed=seed, shared_pages=1, spare_pages=2)


def error(out, arrays, causal):
    q = arrays[0]
    return rel_err(out["O"].reshape(q.shape), paged_attention_fp64(*arrays))


KERNEL = Kernel(
    name="paged_decoding",
    algorithm="paged-decoding",
    default_tiles=lambda d: PAGED_TILES,
    shared_bytes=shared_bytes,
    launches=launches,
    inputs=lambda bh, n, d, n_kv: dict.fromkeys(NAMES),  # only the names: the shapes are the data's (paged_sizes)
    outputs=outputs,
    arguments=arguments,
    shared_formula="4*(2*G*D + 2*PAGE*D + G*PAGE + 3*G) + 4",
    error=error,
    verify_inputs=verify_inputs,
    variants=tuple({"n_splits": s} for s in SPLITS),
    index_inputs=INDEX_INPUTS,
    sizes=sizes,
    data_tiles=data_tiles,
    kv_heads=lambda arrays: paged_sizes(arrays)["H_kv"],
    check_inputs=check_inputs,
    # the page's figure draws one K/V head, its H_q query heads the group
    host_formulas={"PAGE": "page_size", "G": "H_q", "H_kv": "1", "n_splits": "splits"},
    figure=lambda sizes: (1, (sizes["H_q"] // sizes["H_kv"], sizes["page_size"])),
)
