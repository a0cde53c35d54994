"""Paged decoding: one new query token per sequence of a batch, its keys and values in pages of a shared pool.

A serving engine keeps each sequence's K/V cache in fixed-size pages of ``page_size`` tokens, scattered through one
pool and found through a block table (vLLM's PagedAttention): token t of sequence b is row t % page_size of page
``block_table[b, t // page_size]``. Query heads share K/V heads in groups of g = H_q / H_kv (grouped-query
attention; g = 1 is multi-head, H_kv = 1 multi-query): query head h reads K/V head h // g.

    q (batch, H_q, d);  k_pages, v_pages (pages, page_size, H_kv, d);  block_table (batch, max_pages) of page
    indices;  seq_lens (batch,), each 1 .. max_pages * page_size.  Entries past a sequence's pages are not read.

    decode kernel, one block per (sequence b, K/V head h, split s):
        read seq_lens[b];  load the g query rows of the group, Qg = q[b, h*g : (h+1)*g]       (SRAM)
        for each page p of the split (pages [s*P, min((s+1)*P, n_b)), P = ceil(n_b / n_splits), n_b its pages):
            read block_table[b, p];  load the page's rows of head h, Kp and Vp: page_size rows, or the
            L_b - p*page_size of the last, partial page;  fold S = scale Qg Kp^T into m, l, Og (online softmax)
        n_splits = 1: write O[b, group] = Og / l
        else: write the unnormalized partials O_partial = Og, m_partial = m, l_partial = l (float32)
    combine kernel (n_splits > 1), one block per (sequence, query head): O = flash decoding's combine

So each page is loaded once for all g query heads of its group: K and V are read H_kv * sum_b L_b * d elements in
all, g times fewer than multi-head attention over the same query heads. A split with no page (a sequence shorter
than n_splits pages) still loads Qg and writes m = -inf, l = 0, O = 0, which the combine ignores.

The ledger's tensors: Q, K and V (the pools), block_table, seq_lens, O, and with splits O_partial, m_partial,
l_partial. A transfer's ``bh`` is the K/V head of the decode block that moved it (the query head in the combine).
"""

import numpy as np

from . import scalar_smem
from ._inputs import STAT_BYTES, AttentionResult, absorb, combine, finish, positive_int, scores, storage_dtype
from .ledger import Ledger
from .paged_cache import check_table

INDEX_BYTES = 4  # block table entries and lengths are int32, as in the kernel


def split_pages(n_pages, n_splits):
    """The logical pages of each split of a sequence of `n_pages` pages: split s owns [s*P, min((s+1)*P, n_pages))
    with P = ceil(n_pages / n_splits); the last splits may be empty."""
    per = -(-n_pages // n_splits)
    return [range(min(s * per, n_pages), min((s + 1) * per, n_pages)) for s in range(n_splits)]


def paged_decoding(
    q,
    k_pages,
    v_pages,
    block_table,
    seq_lens,
    *,
    n_splits=1,
    dtype="float32",
    scale=None,
    sram_budget=None,
    observe=None,
):
    """Decode one query per sequence against its paged K/V (see the module docstring for the shapes). Returns an
    AttentionResult: o (batch, H_q, d) in the storage dtype, lse None, and the ledger. Raises ValueError naming the
    argument (and, for the table, the sequence and entry) on bad input; SramBudgetError if a block does not fit.
    `observe` (the figure's answers, attention.figure_values): called as observe(b, s, p, S=S, m=m_i, l=l_i, O=Og)
    after split s of sequence b folds logical page p in (each (H_kv, g, ...)), and as observe(b, "combine", m=m_g,
    l=l_g, O=acc) with the combine's sums."""
    q, k_pages, v_pages, table, lens, scale, dt = check_paged(q, k_pages, v_pages, block_table, seq_lens, scale, dtype)
    n_splits = positive_int("n_splits", n_splits)
    batch, H_q, d = q.shape
    _, page_size, H_kv, _ = k_pages.shape
    g, s = H_q // H_kv, dt.itemsize

    ledger = Ledger(sram_budget)
    ledger.hbm("Q", q.nbytes)
    ledger.hbm("K", k_pages.nbytes)
    ledger.hbm("V", v_pages.nbytes)
    ledger.hbm("block_table", table.size * INDEX_BYTES)
    ledger.hbm("seq_lens", batch * INDEX_BYTES)
    if n_splits > 1:
        ledger.hbm("O_partial", batch * H_q * n_splits * d * STAT_BYTES)
        ledger.hbm("m_partial", batch * H_q * n_splits * STAT_BYTES)
        ledger.hbm("l_partial", batch * H_q * n_splits * STAT_BYTES)
    ledger.hbm("O", q.nbytes)
    tiles = dict(Qg=g * d * s, Kp=page_size * d * s, Vp=page_size * d * s, S=g * page_size * 4, Og=g * d * 4)
    ledger.shared("decode", **tiles, mi=g * 4, li=g * 4)
    if n_splits > 1:
        ledger.shared("combine", m_global=4, l_global=4, Oi=d * 4)

    scalar_smem.register(ledger, scalar_smem.PAGED)  # its shared-memory traffic, as paged_decoding.cu moves it
    o = np.empty(q.shape, dt)
    for b, length in enumerate(lens):
        n_pages = -(-length // page_size)
        Qg = q[b].reshape(H_kv, g, d)  # the query rows of each group: (K/V head, g, d)
        O_part = np.zeros((n_splits, H_kv, g, d), np.float32)
        m_part = np.full((n_splits, H_kv, g), -np.inf, np.float32)
        l_part = np.zeros((n_splits, H_kv, g), np.float32)
        for sp, owned in enumerate(split_pages(n_pages, n_splits)):  # one block per K/V head: run in parallel
            at = dict(kernel="decode", block=(b, sp), heads=H_kv)
            ledger.read("seq_lens", b, INDEX_BYTES, step=0, **at)
            ledger.read("Q", b, g * d * s, step=0, **at)
            scalar_smem.carries_in(ledger, g, d, s, H_kv)  # the group's g queries
            m_i, l_i, Og = m_part[sp], l_part[sp], O_part[sp]
            step = 0
            for step, p in enumerate(owned, start=1):
                ledger.read("block_table", (b, p), INDEX_BYTES, step=step, **at)
                page, rows = int(table[b, p]), min(page_size, length - p * page_size)
                ledger.read("K", page, rows * d * s, step=step, **at)
                ledger.read("V", page, rows * d * s, step=step, **at)
                scalar_smem.paged_page(ledger, g, rows, d, s, H_kv)
                Kp = k_pages[page, :rows].transpose(1, 0, 2)  # (H_kv, rows, d): one page, every K/V head
                Vp = v_pages[page, :rows].transpose(1, 0, 2)
                S = scores(Qg, Kp, scale, (0, g), (0, rows), g, rows, False, ledger.flops)
                m_i, l_i, Og = absorb(m_i, l_i, Og, S, Vp, ledger.flops)
                if observe is not None:
                    observe(b, sp, p, S=S, m=m_i, l=l_i, O=Og)
            scalar_smem.paged_write(ledger, g, d, H_kv, n_splits)
            if n_splits == 1:
                o[b] = finish(m_i, l_i, Og, ledger.flops)[0].reshape(H_q, d).astype(dt)
                ledger.write("O", b, g * d * s, step=step + 1, **at)
                continue
            O_part[sp], m_part[sp], l_part[sp] = Og, m_i, l_i  # unnormalized: the combine divides
            for name, size in (("O_partial", g * d), ("m_partial", g), ("l_partial", g)):
                ledger.write(name, (b, sp), size * STAT_BYTES, step=step + 1, **at)
        if n_splits > 1:  # combine kernel: one block per (sequence, query head)
            at = dict(kernel="combine", block=b, heads=H_q)
            scalar_smem.combine_partials(ledger, d, H_q)
            for step, name in enumerate(("m_partial", "l_partial", "O_partial")):
                for sp in range(n_splits):
                    ledger.read(name, (b, sp), (d if name == "O_partial" else 1) * STAT_BYTES, step=step, **at)
            seen = (lambda b=b, **sums: observe(b, "combine", **sums)) if observe is not None else None
            o[b] = combine(m_part, l_part, O_part, ledger.flops, seen).reshape(H_q, d).astype(dt)
            ledger.write("O", b, d * s, step=3, **at)
    params = dict(n_splits=n_splits, page_size=page_size, H_q=H_q, H_kv=H_kv, g=g, dtype=dt.name, scale=scale)
    return AttentionResult(o, None, ledger, "paged-decoding", params)


def check_paged(q, k_pages, v_pages, block_table, seq_lens, scale, dtype):
    """Validate the inputs of paged_decoding; return q and the pools cast to the storage dtype, the table and the
    lengths as int arrays, the scale (default 1/sqrt(d)) and the dtype. Raises ValueError naming what is wrong."""
    dt = storage_dtype(dtype)
    q = _real("q", q, 3, "(batch, H_q, d)")
    k_pages = _real("k_pages", k_pages, 4, "(pages, page_size, H_kv, d)")
    v_pages = _real("v_pages", v_pages, 4, "(pages, page_size, H_kv, d)")
    batch, H_q, d = q.shape
    if v_pages.shape != k_pages.shape:
        raise ValueError(f"v_pages: expected the shape of k_pages {k_pages.shape}, got {v_pages.shape}")
    n_pool, page_size, H_kv, d_kv = k_pages.shape
    if d_kv != d:
        raise ValueError(f"k_pages: head dimension d must match q's {d}, got {d_kv}")
    if H_q % H_kv:
        raise ValueError(f"q: H_q = {H_q} query heads is not a multiple of H_kv = {H_kv} K/V heads (k_pages' axis 2)")
    table = _integers("block_table", block_table, 2, "(batch, max_pages)")
    lens = _integers("seq_lens", seq_lens, 1, "(batch,)")
    if table.shape[0] != batch or lens.shape[0] != batch:
        raise ValueError(
            f"block_table, seq_lens: one row per sequence, batch = {batch} (q's axis 0), got "
            f"block_table {table.shape} and seq_lens {lens.shape}"
        )
    table, lens = check_table(table, lens, n_pool, page_size)
    if scale is None:
        scale = 1.0 / np.sqrt(d)
    if isinstance(scale, bool) or not np.isscalar(scale) or not np.isfinite(scale) or scale == 0:
        raise ValueError(f"scale: expected a finite non-zero number, got {scale!r}")
    with np.errstate(over="ignore"):
        cast = [x.astype(dt, copy=False) for x in (q, k_pages, v_pages)]
    for name, x in zip(("q", "k_pages", "v_pages"), cast, strict=True):
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: overflows {dt.name} storage")
    return (*cast, table, lens, float(scale), dt)


def _real(name, x, ndim, shape):
    x = np.asarray(x)
    if x.ndim != ndim or 0 in x.shape:
        raise ValueError(f"{name}: expected a non-empty array of shape {shape}, got shape {x.shape}")
    if not np.issubdtype(x.dtype, np.number) or np.iscomplexobj(x):
        raise ValueError(f"{name}: expected real numbers, got dtype {x.dtype}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name}: contains non-finite values (inf or nan)")
    return x


def _integers(name, x, ndim, shape):
    x = np.asarray(x)
    if x.ndim != ndim or 0 in x.shape:
        raise ValueError(f"{name}: expected a non-empty array of shape {shape}, got shape {x.shape}")
    if not np.issubdtype(x.dtype, np.integer):
        raise ValueError(f"{name}: expected integers, got dtype {x.dtype}")
    return x.astype(np.int64)
