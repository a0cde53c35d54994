"""Paged decoding (paged_decoding.py): a batch of sequences in a paged K/V cache.
Its closed forms: HBM bytes per tensor (``hbm``), FLOPs by kind (``flops``) and the shared-memory traffic of the
book's scalar kernel, cuda/paged_decoding.cu (``shared``: reported, not a roofline unit, ``Algorithm.shared_unit``)."""

from ..flops import count, tile_steps
from ..formulas import STAT, cdiv, rw, sl


def hbm(seq_lens, d, page_size, H_q, H_kv, n_splits=1, itemsize=4):
    """Paged decoding over a batch of sequences of lengths `seq_lens` (one query token each), pages of `page_size`
    tokens, H_q query heads in groups sharing H_kv K/V heads. Each of the batch * H_kv * n_splits decode blocks reads
    its sequence's length and its g = H_q / H_kv query rows; together they read each of the sequence's pages once
    per K/V head, with its block table entry (4 bytes), and of the last page only the rows the sequence fills: K and
    V are read H_kv * sum(L) * d elements. n_splits = 1 writes O; otherwise float32 partials O, m, l (per query
    head and split) are written, and read back once by the combine, which writes O. (The block table holds batch *
    max_pages entries; only those of the sequences' pages are read.)"""
    lens = list(seq_lens)
    batch, s = len(lens), itemsize
    pages = sum(cdiv(n, page_size) for n in lens)
    kv = H_kv * sum(lens) * d * s
    out = {
        "Q": rw(n_splits * batch * H_q * d * s),
        "K": rw(kv),
        "V": rw(kv),
        "block_table": rw(H_kv * pages * 4),
        "seq_lens": rw(n_splits * batch * H_kv * 4),
    }
    if n_splits > 1:
        partial_o, partial_stat = batch * H_q * n_splits * d * STAT, batch * H_q * n_splits * STAT
        out.update(O_partial=rw(partial_o, partial_o), m_partial=rw(partial_stat, partial_stat))
        out["l_partial"] = rw(partial_stat, partial_stat)
    out["O"] = rw(0, batch * H_q * d * s)
    return out


def flops(seq_lens, d, page_size, H_q, H_kv, n_splits=1):
    """Each decode block's pages, one online-softmax step of the g = H_q / H_kv rows of its group on each page's r
    rows (the last page's fewer), for each K/V head; then per sequence either the finish of its H_q rows (one
    split) or the combine of the n_splits partials of each of them (as flash decoding's)."""
    g, flops = H_q // H_kv, count()
    for n in seq_lens:
        pages = tile_steps(d, g * n, g * cdiv(n, page_size))  # each page's g rows on its keys, n in all
        for kind, value in pages.items():
            flops[kind] += H_kv * value
        if n_splits == 1:
            flops["other"] += H_q * d + H_q
            flops["exp"] += H_q
        else:
            flops["other"] += 4 * n_splits * H_q + 2 * n_splits * H_q * d + H_q * d
            flops["exp"] += n_splits * H_q
    return flops


def shared(seq_lens, d, page_size, H_q, H_kv, n_splits=1, itemsize=4):
    """Shared-memory traffic of the book's paged decoding kernels (cuda/paged_decoding.cu; ``attention.scalar_smem``
    says what each step stores and loads), {T: {store, load}}: the batch * n_splits * H_kv decode blocks each store
    their group's g = H_q / H_kv queries and carries and write out (O = Og / li, or the partials); together they
    take each of the sequences' pages once per K/V head (P pages, T = sum(seq_lens) tokens in all); with several
    splits, the batch * H_q combine blocks each store and read m_global, l_global and acc."""
    lens = list(seq_lens)
    g, s, f = H_q // H_kv, itemsize, STAT
    blocks = len(lens) * n_splits * H_kv
    pages = H_kv * sum(cdiv(n, page_size) for n in lens)
    tokens = H_kv * sum(lens)
    combine = len(lens) * H_q if n_splits > 1 else 0
    write_l = blocks * g * d * f if n_splits == 1 else blocks * g * f
    write_m = 0 if n_splits == 1 else blocks * g * f
    return {
        "Q": sl(blocks * g * d * s, g * tokens * d * s),
        "K": sl(tokens * d * s, g * tokens * d * s),
        "V": sl(tokens * d * s, g * tokens * d * s),
        "S": sl(2 * g * tokens * f, (2 + d) * g * tokens * f),
        "O": sl((blocks + pages) * g * d * f + combine * d * f, (pages + blocks) * g * d * f + combine * d * f),
        "m": sl((blocks + pages) * g * f + combine * f, pages * g * f + write_m + combine * d * f),
        "l": sl((blocks + pages) * g * f + combine * f, pages * g * f + write_l + combine * d * f),
        "alpha": sl(pages * g * f, pages * g * d * f),
        "page": sl(pages * f, tokens * d * f),
    }
