"""Paged decoding (paged_decoding.py): decoding a batch of sequences whose K/V sit in pages of a pool, read
through a block table; a run draws a random batch (``algorithm.PAGED``). It offers the K and V bytes it reads per
token of the batch."""

from ..algorithm import PAGED, Algorithm
from ..closed_forms import paged_decoding as closed
from ..paged_decoding import paged_decoding


def per_token(done):
    """{kv_bytes_per_token}: the K and V bytes the run read, per token of the batch."""
    read = done.result.ledger.numbers()["read_bytes"]
    return {"kv_bytes_per_token": (read["K"] + read["V"]) // done.counts["tokens"]}


ALGORITHM = Algorithm(
    name="paged-decoding",
    function=paged_decoding,
    inputs=PAGED,
    bytes=closed.hbm,
    flops=closed.flops,
    shared=closed.shared,
    shared_is_unit=False,  # paged_decoding.cu: scalar float32 code
    extra=per_token,
    family=None,  # measured against the same batch's multi-head attention instead (its command's vs_mha)
    command="kernelviz.attention.paged_decoding_trace",
)
