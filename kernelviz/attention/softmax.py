"""The softmax variants of the Online softmax page, over tiles of b scores streamed from HBM.

x is (rows, N): each row is softmaxed. One block holds, per row, the running statistics (in registers) and one
tile of b scores at a time, so every pass over x reads it from HBM again. Storage and arithmetic are float32.

    naive   pass 1: d = sum_j exp(x_j)                 pass 2: y_j = exp(x_j) / d
            (exp overflows float32 for x_j > ~88.7: the result is then nan, which is the point)
    safe    pass 1: m = max_j x_j    pass 2: d = sum_j exp(x_j - m)    pass 3: y_j = exp(x_j - m) / d
    online  pass 1: per tile, m_new = max(m, max_tile x);  d = d exp(m - m_new) + sum_tile exp(x_j - m_new)
            pass 2: y_j = exp(x_j - m) / d
    online_softmax_output (one pass, carrying the output as well): for values V (N, d_v), o = softmax(x) V,
            o' = o' d_old exp(m_old - m_new) / d_new + sum_tile exp(x_j - m_new) / d_new * V_j

Each returns a SoftmaxResult: ``out`` (y, or o) and the ledger (tensors x, y; or x, V, o). A row of only -inf (fully
masked) gets y = 0 (o = 0); a finite input too large for float32 is refused with a ValueError naming it.
"""

from dataclasses import dataclass

import numpy as np

from ._inputs import positive_int, safe_max, tiles
from .ledger import Ledger

F32 = np.float32


@dataclass
class SoftmaxResult:
    out: np.ndarray
    ledger: Ledger


def _check(x, b):
    x = np.asarray(x)
    if x.ndim != 2 or 0 in x.shape or not np.issubdtype(x.dtype, np.number):
        raise ValueError(f"x: expected a non-empty 2-D array of real numbers (rows, N), got shape {x.shape}")
    if np.isnan(x).any() or np.isposinf(x).any():
        raise ValueError("x: contains nan or +inf (-inf, a masked score, is allowed)")
    return _float32("x", x, allowed="-inf, a masked score, is allowed"), positive_int("b", b)


def _float32(name, a, allowed="every value must be finite"):
    """`a` as float32; a ValueError naming `name` when a finite value does not fit in float32 (|a| > 3.4e38)."""
    with np.errstate(over="ignore"):
        out = a.astype(F32)
    overflow = np.isinf(out) & np.isfinite(a)
    if overflow.any():
        raise ValueError(f"{name}: {a[overflow].flat[0]:g} overflows float32 (|value| > 3.4e38; {allowed})")
    return out


def _start(x, b, kernel, *outputs):
    ledger = Ledger()
    ledger.hbm("x", x.nbytes)
    for name, nbytes in outputs:
        ledger.hbm(name, nbytes)
    ledger.shared(kernel, xj=x.shape[0] * b * 4, m=x.shape[0] * 4, d=x.shape[0] * 4)
    return ledger, tiles(x.shape[1], b)


def _passes(x, b, kernel, n_stat_passes, stats):
    """Run `n_stat_passes` reading passes that fold tiles into statistics with stats(pass, tile, state), then a
    normalizing pass that writes y = exp(x - m) / d. Returns (y, ledger)."""
    ledger, parts = _start(x, b, kernel, ("y", x.nbytes))
    rows = x.shape[0]
    state = {"m": np.full(rows, -np.inf, F32), "d": np.zeros(rows, F32)}
    step = 0
    for p in range(n_stat_passes):
        for j, (c0, c1) in enumerate(parts):
            ledger.read("x", j, rows * (c1 - c0) * 4, step=step, kernel=kernel, block=0, heads=1)
            stats(p, x[:, c0:c1], state)
            step += 1
    y = np.empty_like(x)
    m = safe_max(state["m"])[:, None]  # a fully masked row (all -inf) has d = 0 and gets y = 0, not 0/0
    d = np.where(state["d"] == 0, F32(1), state["d"])[:, None]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        for j, (c0, c1) in enumerate(parts):
            ledger.read("x", j, rows * (c1 - c0) * 4, step=step, kernel=kernel, block=0, heads=1)
            y[:, c0:c1] = np.exp(x[:, c0:c1] - m) / d
            ledger.write("y", j, rows * (c1 - c0) * 4, step=step, kernel=kernel, block=0, heads=1)
            step += 1
    return SoftmaxResult(y, ledger)


def naive_softmax(x, b=4):
    """y = exp(x) / sum exp(x), two passes; overflows (nan) for large x."""
    x, b = _check(x, b)

    def stats(p, xj, st):
        st["m"][:] = 0
        with np.errstate(over="ignore"):
            st["d"] += np.exp(xj).sum(-1)

    return _passes(x, b, "naive", 1, stats)


def safe_softmax(x, b=4):
    """y = exp(x - max x) / sum exp(x - max x), three passes."""
    x, b = _check(x, b)

    def stats(p, xj, st):
        if p == 0:
            st["m"] = np.maximum(st["m"], xj.max(-1))
        else:
            st["d"] += np.exp(xj - safe_max(st["m"])[:, None]).sum(-1)

    return _passes(x, b, "safe", 2, stats)


def online_softmax(x, b=4):
    """The same y with the max and the sum found in one pass (rescaling d when the max grows), two passes."""
    x, b = _check(x, b)

    def stats(p, xj, st):
        m_new = np.maximum(st["m"], xj.max(-1))
        st["d"] = st["d"] * np.exp(st["m"] - safe_max(m_new)) + np.exp(xj - safe_max(m_new)[:, None]).sum(-1)
        st["m"] = m_new

    return _passes(x, b, "online", 1, stats)


def online_softmax_output(x, v, b=4):
    """o = softmax(x) V in one pass over x and V, carrying m, d' and the normalized output o' (the seed page's
    recurrence). v: (N, d_v). A row of only -inf scores gets o = 0."""
    x, b = _check(x, b)
    v = np.asarray(v)
    if v.ndim != 2 or v.shape[0] != x.shape[1] or not np.all(np.isfinite(v)):
        raise ValueError(f"v: expected finite values of shape (N, d_v) with N = {x.shape[1]}, got shape {v.shape}")
    v = _float32("v", v)
    rows, dv = x.shape[0], v.shape[1]
    ledger, parts = _start(x, b, "online-output", ("V", v.nbytes), ("o", rows * dv * 4))
    ledger.shared("online-output", xj=rows * b * 4, Vj=b * dv * 4, m=rows * 4, d=rows * 4, o=rows * dv * 4)
    m, d, o = np.full(rows, -np.inf, F32), np.zeros(rows, F32), np.zeros((rows, dv), F32)
    for j, (c0, c1) in enumerate(parts):
        ledger.read("x", j, rows * (c1 - c0) * 4, step=j, kernel="online-output", block=0, heads=1)
        ledger.read("V", j, (c1 - c0) * dv * 4, step=j, kernel="online-output", block=0, heads=1)
        m_new = np.maximum(m, x[:, c0:c1].max(-1))
        e = np.exp(x[:, c0:c1] - safe_max(m_new)[:, None])
        d_new = d * np.exp(m - safe_max(m_new)) + e.sum(-1)
        d_div = np.where(d_new == 0, F32(1), d_new)
        o = o * (d * np.exp(m - safe_max(m_new)) / d_div)[:, None] + (e / d_div[:, None]) @ v[c0:c1]
        m, d = m_new, d_new
    ledger.write("o", 0, rows * dv * 4, step=len(parts), kernel="online-output", block=0, heads=1)
    return SoftmaxResult(o, ledger)
