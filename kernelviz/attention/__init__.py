"""The attention algorithms on NumPy, each with a measured HBM ledger, and the closed-form counts they meet.

    result = flash_attention_2(q, k, v, Br=64, Bc=64, causal=False, dtype="float32", scale=None)
    result.o, result.lse, result.ledger.per_tensor, result.ledger.trips("K")
    grads = flash_attention_2_backward(q, k, v, result.o, do, result.lse, Br=64, Bc=64, causal=False)
    grads.dq, grads.dk, grads.dv, grads.ledger

Shapes: q (BH, N, d); k, v (BH, N_kv, d). Causal masking is bottom-right aligned (see ``reference``).
Every algorithm takes Br, Bc, causal, dtype ("float32" or "float16" storage; float32 arithmetic), scale
(default 1/sqrt(d)) and sram_budget (bytes, optional); flash decoding also takes n_splits. FA2 on tensor cores,
``flash_attention_2_mma``, takes "float16" or "bfloat16" storage only, warps and p_in_shared. It, the other
tensor-core kernels, and FA1, FA2 and FA2's backward (as the book's scalar kernels move it) count their
shared-memory traffic too (``ledger.numbers()["shared"]``).

Paged decoding takes a batch of sequences in a paged K/V cache instead (see ``paged_decoding``):
    paged_decoding(q, k_pages, v_pages, block_table, seq_lens, n_splits=1, dtype=..., scale=..., sram_budget=...)

    done = run("fa2", N=4096, d=64, Br=64, Bc=64)     # one run on random inputs, by name: what `kernelviz trace`
    done.result.ledger.numbers()                      # and the pages' {{ trace }} numbers share (``runs``)
"""

from . import flops, formulas
from ._backward import BackwardResult
from ._inputs import AttentionResult
from .fa1 import flash_attention_1
from .fa2 import flash_attention_2
from .fa2_backward import flash_attention_2_backward
from .fa2_mma import flash_attention_2_mma
from .fa3 import flash_attention_3
from .flash_decoding import flash_decoding
from .ledger import Ledger, SramBudgetError, Transfer
from .paged_cache import random_batch
from .paged_decoding import paged_decoding
from .reference import attention_backward_fp64, attention_fp64, paged_attention_fp64
from .runs import ALGORITHMS, FLOP_FORMULAS, FORMULAS, SOFTMAX, Run, closed_form, run
from .softmax import SoftmaxResult, naive_softmax, online_softmax, online_softmax_output, safe_softmax
from .standard import standard_attention
from .standard_backward import standard_attention_backward

__all__ = [
    "ALGORITHMS",
    "FLOP_FORMULAS",
    "FORMULAS",
    "SOFTMAX",
    "AttentionResult",
    "BackwardResult",
    "Ledger",
    "Run",
    "SoftmaxResult",
    "SramBudgetError",
    "Transfer",
    "attention_backward_fp64",
    "attention_fp64",
    "closed_form",
    "flash_attention_1",
    "flash_attention_2",
    "flash_attention_2_backward",
    "flash_attention_2_mma",
    "flash_attention_3",
    "flash_decoding",
    "flops",
    "formulas",
    "naive_softmax",
    "online_softmax",
    "online_softmax_output",
    "paged_attention_fp64",
    "paged_decoding",
    "random_batch",
    "run",
    "safe_softmax",
    "standard_attention",
    "standard_attention_backward",
]
