"""FA2's backward pass (fa2_backward.py), run after its forward for O and L on a random dO (_backward.traced);
measured against the standard backward, which reads back the P its forward stored."""

from .. import flops, formulas
from .._backward import traced
from ..algorithm import Algorithm
from ..fa2 import flash_attention_2
from ..fa2_backward import flash_attention_2_backward


def shared(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """Shared-memory traffic of the book's FA2 backward kernel (cuda/fa2_bwd.cu; ``attention.scalar_smem``): each of
    the ceil(N_kv / Bc) blocks stores Kj, Vj (Bc d s) and zeroes dKj, dVj (Bc d 4), and reads dKj, dVj out for its
    keys that exist (N_kv keys in all); each of the tile_interactions steps moves its query block's Qi, dOi, Li, Δi
    in and works on full tiles, but for dQ's product, over the q_rows_read rows that exist."""
    N_kv = N if N_kv is None else N_kv
    h, s, f = batch_heads, itemsize, formulas.STAT
    steps = h * formulas.tile_interactions(N, Br, Bc, N_kv, causal)
    rows, blocks, keys = h * formulas.q_rows_read(N, Br, Bc, N_kv, causal), h * formulas.cdiv(N_kv, Bc), h * N_kv
    mm, kv = steps * Br * Bc * d, blocks * Bc * d
    acc = steps * Bc * d * f  # dKj, dVj: loaded and stored once a step
    return {
        "Q": formulas.sl(steps * Br * d * s, 2 * mm * s),
        "K": formulas.sl(kv * s, mm * s + rows * Bc * d * s),
        "V": formulas.sl(kv * s, mm * s),
        "dO": formulas.sl(steps * Br * d * s, 2 * mm * s),
        "L": formulas.sl(steps * Br * f, steps * Br * Bc * f),
        "Δ": formulas.sl(steps * Br * f, steps * Br * Bc * f),
        "P": formulas.sl(steps * Br * Bc * f, mm * f + steps * Br * Bc * f),
        "dS": formulas.sl(steps * Br * Bc * f, rows * Bc * d * f + mm * f),
        "dK": formulas.sl(kv * f + acc, acc + keys * d * f),
        "dV": formulas.sl(kv * f + acc, acc + keys * d * f),
    }


ALGORITHM = Algorithm(
    name="fa2-backward",
    function=traced(flash_attention_2, flash_attention_2_backward),
    bytes=formulas.fa2_backward,
    flops=flops.fa2_backward,
    shared=shared,  # fa2_bwd.cu's (scalar, float32): reported, no roofline unit
    minimum=formulas.compulsory_backward,
    family="backward",
    passes=2,
    ledger_records=lambda tr, tc, n_splits: tr * (2 * tc + 3) + 4 * tr + tc * (4 + 6 * tr),  # forward, then its own
    memory=lambda s: {"gradients": s.gradients()},
)
