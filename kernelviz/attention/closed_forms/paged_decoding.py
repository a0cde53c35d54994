"""Paged decoding (paged_decoding.py): a batch of sequences in a paged K/V cache.
Its closed forms: HBM bytes per tensor (``hbm``) and FLOPs by kind (``flops``)."""

from ..flops import count, tile_steps
from ..formulas import STAT, cdiv, rw


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
