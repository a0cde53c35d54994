"""Paged decoding (paged_decoding.py): decoding a batch of sequences whose K/V sit in pages of a pool, read
through a block table; a run draws a random batch (``algorithm.PAGED``). It offers the K and V bytes it reads per
token of the batch."""

from .. import flops, formulas
from ..algorithm import PAGED, Algorithm
from ..paged_decoding import paged_decoding


def per_token(done):
    """{kv_bytes_per_token}: the K and V bytes the run read, per token of the batch."""
    read = done.result.ledger.numbers()["read_bytes"]
    return {"kv_bytes_per_token": (read["K"] + read["V"]) // done.counts["tokens"]}


def shared(seq_lens, d, page_size, H_q, H_kv, n_splits=1, itemsize=4):
    """Shared-memory traffic of the book's paged decoding kernels (cuda/paged_decoding.cu; ``attention.scalar_smem``
    says what each step stores and loads), {T: {store, load}}: the batch * n_splits * H_kv decode blocks each store
    their group's g = H_q / H_kv queries and carries and write out (O = Og / li, or the partials); together they
    take each of the sequences' pages once per K/V head (P pages, T = sum(seq_lens) tokens in all); with several
    splits, the batch * H_q combine blocks each store and read m_global, l_global and acc."""
    lens = list(seq_lens)
    g, s, f, sl = H_q // H_kv, itemsize, formulas.STAT, formulas.sl
    blocks = len(lens) * n_splits * H_kv
    pages = H_kv * sum(formulas.cdiv(n, page_size) for n in lens)
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


ALGORITHM = Algorithm(
    name="paged-decoding",
    function=paged_decoding,
    inputs=PAGED,
    bytes=formulas.paged_decoding,
    flops=flops.paged_decoding,
    shared=shared,  # paged_decoding.cu's (scalar, float32): reported, no roofline unit
    extra=per_token,
    family=None,  # measured against the same batch's multi-head attention instead (its command's vs_mha)
    command="kernelviz.attention.paged_decoding_trace",
)
