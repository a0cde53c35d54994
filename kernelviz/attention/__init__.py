"""The attention algorithms on NumPy, each with a measured HBM ledger, and the closed-form counts they meet.

    result = flash_attention_2(q, k, v, Br=64, Bc=64, causal=False, dtype="float32", scale=None)
    result.o, result.lse, result.ledger.per_tensor, result.ledger.trips("K")
    grads = flash_attention_2_backward(q, k, v, result.o, do, result.lse, Br=64, Bc=64, causal=False)
    grads.dq, grads.dk, grads.dv, grads.ledger

Shapes: q (BH, N, d); k, v (BH, N_kv, d). Causal masking is bottom-right aligned (see ``reference``).
Every algorithm takes Br, Bc, causal, dtype ("float32" or "float16" storage; float32 arithmetic), scale
(default 1/sqrt(d)) and sram_budget (bytes, optional); flash decoding also takes n_splits.

Paged decoding takes a batch of sequences in a paged K/V cache instead (see ``paged_decoding``):
    paged_decoding(q, k_pages, v_pages, block_table, seq_lens, n_splits=1, dtype=..., scale=..., sram_budget=...)
"""

from . import flops, formulas
from ._backward import BackwardResult, traced
from ._inputs import AttentionResult
from .fa1 import flash_attention_1
from .fa2 import flash_attention_2
from .fa2_backward import flash_attention_2_backward
from .flash_decoding import flash_decoding
from .ledger import Ledger, SramBudgetError, Transfer
from .paged_cache import random_batch
from .paged_decoding import paged_decoding
from .reference import attention_backward_fp64, attention_fp64, paged_attention_fp64
from .softmax import SoftmaxResult, naive_softmax, online_softmax, online_softmax_output, safe_softmax
from .standard import standard_attention
from .standard_backward import standard_attention_backward

# The CLI's names for the algorithms, and the closed-form count each one's ledger meets.
ALGORITHMS = {
    "standard": standard_attention,
    "fa1": flash_attention_1,
    "fa2": flash_attention_2,
    "flash-decoding": flash_decoding,
    # the backward passes: each runs its forward for O and L, then the backward on a random dO (_backward.traced)
    "fa2-backward": traced(flash_attention_2, flash_attention_2_backward),
    "standard-backward": traced(standard_attention, standard_attention_backward, needs=("do",)),
    "paged-decoding": paged_decoding,
}
FORMULAS = {
    "standard": formulas.standard,
    "fa1": formulas.fa1,
    "fa2": formulas.fa2,
    "flash-decoding": formulas.flash_decoding,
    "fa2-backward": formulas.fa2_backward,
    "standard-backward": formulas.standard_backward,
    "paged-decoding": formulas.paged_decoding,
}
FLOP_FORMULAS = {  # the closed-form FLOP count each one's ledger.flops meets
    "standard": flops.standard,
    "fa1": flops.fa1,
    "fa2": flops.fa2,
    "flash-decoding": flops.flash_decoding,
    "fa2-backward": flops.fa2_backward,
    "standard-backward": flops.standard_backward,
    "paged-decoding": flops.paged_decoding,
}

__all__ = [
    "ALGORITHMS",
    "FLOP_FORMULAS",
    "FORMULAS",
    "AttentionResult",
    "BackwardResult",
    "Ledger",
    "SoftmaxResult",
    "SramBudgetError",
    "Transfer",
    "attention_backward_fp64",
    "attention_fp64",
    "flash_attention_1",
    "flash_attention_2",
    "flash_attention_2_backward",
    "flash_decoding",
    "flops",
    "formulas",
    "naive_softmax",
    "online_softmax",
    "online_softmax_output",
    "paged_attention_fp64",
    "paged_decoding",
    "random_batch",
    "safe_softmax",
    "standard_attention",
    "standard_attention_backward",
]
