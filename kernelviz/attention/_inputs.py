"""What every algorithm shares: checking its arguments, the tiles of a sequence, the causal rule, the result.

Shapes: q is (BH, N, d), k and v are (BH, N_kv, d); BH counts (batch, head) pairs.

Causal masking is aligned to the bottom-right, as in flash-attn: query row r may attend key c iff
``c <= r + (N_kv - N)``. With N == N_kv this is the usual lower triangle; with one query row (decoding) the row
sees every key. When N > N_kv the first N - N_kv rows see no key at all: such a fully masked row has output 0
and log-sum-exp -inf (the log of an empty sum). flash-attn writes +inf there instead, for its backward pass.
"""

from dataclasses import dataclass, field

import numpy as np

from . import half
from .ledger import EXP, OTHER, Ledger

DTYPES = {"float32": np.float32, "float16": np.float16}
SIXTEEN_BIT = {"float16": "fp16", "bfloat16": "bf16"}  # tensor cores' operands, as kernelviz.cuda.half names them
STAT_BYTES = 4  # m, l, L and the fp32 partials are float32 whatever the storage dtype


@dataclass
class AttentionResult:
    """What an algorithm returns: the output o (BH, N, d) in the storage dtype, the log-sum-exp lse (BH, N) in
    float32 or None where the algorithm does not produce it, and the ledger of its HBM traffic."""

    o: np.ndarray
    lse: np.ndarray | None
    ledger: Ledger
    algorithm: str
    params: dict = field(default_factory=dict)


def random_normal(seed, *shapes):
    """Standard-normal float64 arrays of `shapes`, drawn one after another from NumPy's ``default_rng(seed)``: the
    inputs of every run of ``kernelviz trace`` and of the pages' ``{{ trace }}`` numbers (``run.run``)."""
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape) for shape in shapes]


def positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value <= 0:
        raise ValueError(f"{name}: expected a positive integer, got {value!r}")
    return int(value)


def storage_dtype(dtype):
    key = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    if key not in DTYPES:
        raise ValueError(f"dtype: expected one of {sorted(DTYPES)}, got {dtype!r}")
    return np.dtype(DTYPES[key])


def itemsize(dtype):
    """Bytes of one stored element of storage dtype `dtype` (a name): 2 for float16 and bfloat16, else 4."""
    return 2 if dtype in SIXTEEN_BIT else 4


def check_qkv(q, k, v, scale, dtype):
    """Validate q, k, v and the scale; return them cast to the storage dtype, the scale, and the dtype."""
    q, k, v, scale = validate(q, k, v, scale)
    dt = storage_dtype(dtype)
    return (*_finite([stored(x, dt.name) for x in (q, k, v)], dt.name), scale, dt)


def check_qkv_16bit(q, k, v, scale, dtype):
    """As ``check_qkv`` for tensor cores' 16-bit operands: `dtype` "float16" or "bfloat16"; q, k, v come back as
    float32 arrays of the values rounded to it (``stored``)."""
    if dtype not in SIXTEEN_BIT:
        raise ValueError(
            f"dtype: expected float16 or bfloat16 (tensor cores' mma.m16n8k16 takes 16-bit operands), got {dtype!r}"
        )
    q, k, v, scale = validate(q, k, v, scale)
    return (*_finite([stored(x, dtype) for x in (q, k, v)], dtype), scale)


def stored(x, dtype):
    """`x` as an algorithm reads it in storage dtype `dtype` (a name): cast to float32 or float16, or for bfloat16
    rounded to nearest even (``kernelviz.cuda.half``, as the tensor-core kernel's host does) and held in float32,
    NumPy having no bfloat16."""
    with np.errstate(over="ignore"):
        if dtype == "bfloat16":
            return half.round(x, SIXTEEN_BIT[dtype])
        return np.asarray(x).astype(storage_dtype(dtype), copy=False)


def _finite(arrays, dtype):
    for name, x in zip("qkv", arrays, strict=True):
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: overflows {dtype} storage")
    return arrays


def validate(q, k, v, scale):
    """Check shapes, finiteness and the scale (None: 1/sqrt(d)); return q, k, v as arrays and the scale."""
    arrays = {}
    for name, x in (("q", q), ("k", k), ("v", v)):
        x = np.asarray(x)
        if x.ndim != 3:
            raise ValueError(f"{name}: expected shape (batch*heads, N, d), got shape {x.shape}")
        if 0 in x.shape:
            raise ValueError(f"{name}: every dimension must be positive, got shape {x.shape}")
        if not np.issubdtype(x.dtype, np.number) or np.iscomplexobj(x):
            raise ValueError(f"{name}: expected real numbers, got dtype {x.dtype}")
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: contains non-finite values (inf or nan)")
        arrays[name] = x
    q, k, v = arrays["q"], arrays["k"], arrays["v"]
    if k.shape[0] != q.shape[0] or v.shape[0] != q.shape[0]:
        raise ValueError(f"k, v: batch*heads must match q's {q.shape[0]}, got k {k.shape[0]} and v {v.shape[0]}")
    if k.shape[2] != q.shape[2]:
        raise ValueError(f"k: head dimension d must match q's {q.shape[2]}, got {k.shape[2]}")
    if v.shape[2] != q.shape[2]:
        raise ValueError(f"v: head dimension d must match q's {q.shape[2]}, got {v.shape[2]}")
    if v.shape[1] != k.shape[1]:
        raise ValueError(f"v: sequence length must match k's {k.shape[1]}, got {v.shape[1]}")
    if scale is None:
        scale = 1.0 / np.sqrt(q.shape[2])
    if isinstance(scale, bool) or not np.isscalar(scale) or not np.isfinite(scale) or scale == 0:
        raise ValueError(f"scale: expected a finite non-zero number, got {scale!r}")
    return q, k, v, float(scale)


def tiles(n, b):
    """The tiles of a length-n sequence in tiles of b: [(start, stop), ...], the last one ragged."""
    return [(s, min(s + b, n)) for s in range(0, n, b)]


def visible_tiles(row_stop, n, n_kv, kv_tiles, causal):
    """The indices of the K/V tiles a block of query rows ending at `row_stop` (exclusive) must visit: all of
    them, or with `causal` those not entirely above the diagonal (bottom-right aligned)."""
    if not causal:
        return list(range(len(kv_tiles)))
    last_key = row_stop - 1 + (n_kv - n)  # the last key the block's last row may attend
    return [j for j, (c0, _) in enumerate(kv_tiles) if c0 <= last_key]


def write_unseen(ledger, o, lse, i, r0, r1, s, at):
    """Block i's rows r0..r1 see no key (the causal mask hides them all): O = 0 and L = -inf, written without a load,
    as flash-attn's forward returns before loading Q (``formulas.rows_seeing``)."""
    o[:, r0:r1], lse[:, r0:r1] = 0, -np.inf
    ledger.write("O", i, (r1 - r0) * o.shape[-1] * s, step=0, **at)
    ledger.write("L", i, (r1 - r0) * STAT_BYTES, step=0, **at)


def scores(qi, kj, scale, rows, cols, n, n_kv, causal, flops=None):
    """Sij = scale * Qi @ Kj^T in float32, -inf where the causal mask hides a key. rows, cols: (start, stop).
    Raises ValueError when a score the mask keeps overflows float32 (finite inputs whose products do not fit): the
    softmax of an infinite score is nan, so such inputs are refused rather than answered with nan.
    `flops` (a ledger's Flops): counts the product and the scaling, over the whole tile (masked or not)."""
    with np.errstate(over="ignore", invalid="ignore"):
        s = np.matmul(qi.astype(np.float32), kj.astype(np.float32).transpose(0, 2, 1)) * np.float32(scale)
    if flops is not None:
        flops.matmul(qi.shape, kj.shape[:-2] + kj.shape[-1:] + kj.shape[-2:-1])
        flops.add(OTHER, s.size)  # * scale
    kept = np.ones(s.shape[-2:], bool)
    if causal:
        kept = np.arange(*cols)[None, :] <= np.arange(*rows)[:, None] + (n_kv - n)
        s = np.where(kept, s, np.float32(-np.inf))
    if not np.isfinite(s[..., kept]).all():
        raise ValueError(
            f"q, k: the scores scale * q k^T of rows {rows[0]}..{rows[1] - 1} overflow float32 (|S| > 3.4e38); "
            "scale the inputs down"
        )
    return s


def safe_max(m):
    """The running max m with -inf (a row that has seen only masked scores) replaced by 0, so that exp(x - m) is 0
    for a masked x = -inf, not nan."""
    return np.where(np.isneginf(m), np.float32(0), m)


def absorb(m_i, l_i, acc, s, vj, flops=None, rounding=None):
    """One online-softmax step: fold the scores s (B, Br, Bc) and values vj (B, Bc, d) into the running max m_i,
    the running sum l_i (B, Br) and the unnormalized output acc (B, Br, d). Rows that have seen only masked keys
    keep m = -inf, l = 0, acc = 0. `rounding`: applied to P = exp(s - m) before P vj (not before its row sum): the
    tensor-core kernel rounds P to its 16-bit operand type there, a cast that costs nothing.
    `flops`: counts, with r = B*Br rows, c = Bc, 2rcd + r(c + 1) exponentials
    and 3rc + 2r + 2rd other operations (row max, two subtractions, row sum, two rescales, one add)."""
    m_new = np.maximum(m_i, s.max(-1))
    m_safe = safe_max(m_new)
    alpha = np.exp(m_i - m_safe)
    p = np.exp(s - m_safe[..., None])
    l_new = alpha * l_i + p.sum(-1)
    acc_new = alpha[..., None] * acc + np.matmul(p if rounding is None else rounding(p), vj.astype(np.float32))
    if flops is not None:
        rows, c, d = m_i.size, s.shape[-1], acc.shape[-1]
        flops.add(OTHER, rows * c + rows)  # row max of s, folded into m_i; m_i - m_safe
        flops.add(EXP, rows + rows * c)  # alpha, p
        flops.add(OTHER, rows * c + rows + rows * c)  # s - m_safe; alpha * l_i; row sum of p folded into l
        flops.matmul(p.shape, vj.shape)
        flops.add(OTHER, 2 * rows * d)  # alpha * acc; + p vj
    return m_new, l_new, acc_new


def finish(m_i, l_i, acc, flops=None):
    """O = acc / l_i and L = m_i + log l_i, with 0 and -inf for fully masked rows (l_i == 0). `flops`: counts
    r*d divisions, r logarithms and r additions for r = l_i.size rows."""
    empty = l_i == 0
    o = acc / np.where(empty, np.float32(1), l_i)[..., None]
    with np.errstate(divide="ignore"):
        lse = np.where(empty, np.float32(-np.inf), m_i + np.log(np.where(empty, np.float32(1), l_i)))
    if flops is not None:
        flops.add(OTHER, acc.size + l_i.size)
        flops.add(EXP, l_i.size)
    return o, lse.astype(np.float32)


def combine(m_part, l_part, o_part, flops=None, observe=None):
    """Merge the partial results of splits (flash decoding's combine): m_part and l_part (S, ...), o_part (S, ..., d),
    split first. Returns O = sum_s e^(m_s - m_g) o_s / l_g with m_g = max_s m_s and l_g = sum_s e^(m_s - m_g) l_s, in
    float32. A split that saw no key (m = -inf, l = 0, o = 0) weighs 0; a row no split saw gets O = 0. `flops`:
    counts, over the m_part.size partials, the max, the subtraction, w * l and its sum (4 each), w * o and its sum
    (2 each of o_part's elements), one division an output element, and one exponential a partial. `observe`: called as
    observe(m=m_g, l=l_g, O=acc), the sums before the division (the figure's answers, attention.figure_values)."""
    m_g = m_part.max(0)
    w = np.exp(m_part - safe_max(m_g))  # exp(m_s - m_g); 0 for empty splits
    l_g = (w * l_part).sum(0)
    acc = (w[..., None] * o_part).sum(0)
    if observe is not None:
        observe(m=m_g, l=l_g, O=acc)
    if flops is not None:
        flops.add(OTHER, 4 * m_part.size + 2 * o_part.size + acc.size)
        flops.add(EXP, m_part.size)
    return acc / np.where(l_g == 0, np.float32(1), l_g)[..., None]
