"""The attention algorithms on NumPy, each with a measured HBM ledger, and the closed-form counts they meet.

    result = flash_attention_2(q, k, v, Br=64, Bc=64, causal=False, dtype="float32", scale=None)
    result.o, result.lse, result.ledger.per_tensor, result.ledger.trips("K")
    grads = flash_attention_2_backward(q, k, v, result.o, do, result.lse, Br=64, Bc=64, causal=False)
    grads.dq, grads.dk, grads.dv, grads.ledger

Shapes: q (BH, N, d); k, v (BH, N_kv, d). Causal masking is bottom-right aligned (see ``reference``).
Every algorithm takes Br, Bc, causal, dtype ("float32" or "float16" storage; float32 arithmetic), scale
(default 1/sqrt(d)) and sram_budget (bytes, optional); flash decoding also takes n_splits. FA2 on tensor cores,
``flash_attention_2_mma``, takes "float16" or "bfloat16" storage only, warps and p_in_shared, and counts its
shared-memory traffic too (``ledger.numbers()["shared"]``).

Paged decoding takes a batch of sequences in a paged K/V cache instead (see ``paged_decoding``):
    paged_decoding(q, k_pages, v_pages, block_table, seq_lens, n_splits=1, dtype=..., scale=..., sram_budget=...)

    done = run("fa2", N=4096, d=64, Br=64, Bc=64)     # one run on random inputs, by name: what `kernelviz trace`
    done.result.ledger.numbers()                      # and the pages' {{ trace }} numbers share (``runs``)
"""

from . import closed_forms, flops, formulas  # noqa: F401 - closed_forms: for what it publishes into the other two
from ._backward import BackwardResult
from ._inputs import AttentionResult
from .ledger import Ledger, SramBudgetError, Transfer
from .paged_cache import random_batch
from .reference import attention_backward_fp64, attention_fp64, paged_attention_fp64
from .runs import ALGORITHMS, FLOP_FORMULAS, FORMULAS, SOFTMAX, Run, closed_form, run
from .softmax import SoftmaxResult
from .topics import TOPICS

# Each algorithm's function, by its own name (flash_attention_2): the registry's records say which (``Algorithm.api``)
PUBLIC = {record.public.__name__: record.public for record in TOPICS if record.public is not None}
globals().update(PUBLIC)

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
    "flops",
    "formulas",
    "paged_attention_fp64",
    "random_batch",
    "run",
]
__all__.extend(PUBLIC)
__all__.sort(key=lambda name: (not name.isupper(), not name[0].isupper(), name))  # constants, classes, functions
