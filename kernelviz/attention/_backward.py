"""What the backward algorithms share: checking O, dO and L against Q, K, V; the result; and the run that the CLI,
``{{ trace }}`` and the tests reach through ``ALGORITHMS`` (which calls every algorithm as ``f(q, k, v, **options)``).

Gradients of O = softmax(scale * Q K^T) V with respect to Q, K and V, given the upstream gradient dO = dLoss/dO.
"""

from dataclasses import dataclass, field

import numpy as np

from ._inputs import check_qkv
from .ledger import Ledger

DO_SEED = 1  # the seed of the dO a traced run draws (standard normal, shaped like O)


@dataclass
class BackwardResult:
    """What a backward algorithm returns: dq (BH, N, d) in float32 (accumulated in float32 in HBM), dk and dv
    (BH, N_kv, d) in the storage dtype, and the ledger of the backward's HBM traffic only. A run through
    ``ALGORITHMS`` also carries the forward's o and lse (which it computed first), so that it answers like the
    forward algorithms do, and the dO it drew (in the storage dtype)."""

    dq: np.ndarray
    dk: np.ndarray
    dv: np.ndarray
    ledger: Ledger
    algorithm: str
    params: dict = field(default_factory=dict)
    o: np.ndarray | None = None
    lse: np.ndarray | None = None
    do: np.ndarray | None = None


def check_backward(q, k, v, o, do, lse, scale, dtype):
    """Validate q, k, v (as the forward does), o and do (shaped like q) and lse (BH, N; -inf marks a fully masked
    row); return q, k, v, o, do cast to the storage dtype, lse as float32, the scale and the dtype. o or lse may be
    None (a backward that does not read it), and is returned as None. Raises ValueError naming the argument."""
    q, k, v, scale, dt = check_qkv(q, k, v, scale, dtype)
    arrays = []
    for name, x in (("o", o), ("do", do)):
        if x is None:
            arrays.append(None)
            continue
        x = np.asarray(x)
        if x.shape != q.shape:
            raise ValueError(f"{name}: expected q's shape {q.shape}, got {x.shape}")
        if not np.issubdtype(x.dtype, np.number) or np.iscomplexobj(x) or not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: expected finite real numbers")
        with np.errstate(over="ignore"):
            x = x.astype(dt, copy=False)
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: overflows {dt.name} storage")
        arrays.append(x)
    if lse is None:
        return q, k, v, *arrays, None, scale, dt
    lse = np.asarray(lse)
    if lse.shape != q.shape[:2]:
        raise ValueError(f"lse: expected shape (batch*heads, N) = {q.shape[:2]}, got {lse.shape}")
    if not np.issubdtype(lse.dtype, np.number) or np.isnan(lse).any() or np.isposinf(lse).any():
        raise ValueError("lse: expected real numbers, finite or -inf (a fully masked row)")
    return q, k, v, *arrays, lse.astype(np.float32), scale, dt


def traced(forward, backward, needs=("o", "do", "lse")):
    """A function f(q, k, v, **options) for ``ALGORITHMS``: run `forward` for o and lse, draw dO (seed DO_SEED),
    run `backward` on q, k, v and what it `needs` of o, do, lse, with the same options, and return its
    BackwardResult with the forward's o and lse. The ledger is the backward's alone: the forward's traffic is the
    forward algorithm's own entry. `observe`, where given, goes to `backward` (its record ``observes``)."""

    def run(q, k, v, *, Br=64, Bc=64, causal=False, dtype="float32", scale=None, sram_budget=None, observe=None):
        options = dict(Br=Br, Bc=Bc, causal=causal, dtype=dtype, scale=scale)
        fwd = forward(q, k, v, **options)
        saved = dict(o=fwd.o, do=np.random.default_rng(DO_SEED).standard_normal(fwd.o.shape), lse=fwd.lse)
        given = [saved[name] for name in needs]
        watch = {} if observe is None else {"observe": observe}  # the backward's carries (a record that observes)
        result = backward(q, k, v, *given, sram_budget=sram_budget, **options, **watch)
        result.o, result.lse, result.do = fwd.o, fwd.lse, saved["do"].astype(fwd.o.dtype)
        return result

    run.__name__ = f"{backward.__name__}_traced"
    run.__doc__ = f"{forward.__name__} then {backward.__name__}, for ALGORITHMS (see _backward.traced)."
    return run
