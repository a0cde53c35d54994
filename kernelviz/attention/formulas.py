"""The helpers of the closed-form HBM byte counts, per tensor: what each algorithm's ledger must add up to.

Each algorithm's own count lives beside its record, in its module of ``closed_forms`` (``closed_forms.fa2.hbm``,
published here as ``formulas.fa2``; ``formulas.fa2_mma_shared``: ``closed_forms.publish``); this module holds what
they share (tiles visited, rows read, the compulsory traffic). Pure Python integer arithmetic, no imports, so that
js_port translates it to JavaScript for the browser. Every function that counts traffic returns
{tensor: {"read": bytes, "write": bytes}}; ``total`` adds one up.

Names: N query rows, N_kv keys (default N), head dimension d, tiles of Br query rows and Bc keys,
``itemsize`` bytes per stored element of Q, K, V, O, S, P (4: float32, 2: float16); m, l, L and the partials
of flash decoding are float32 (4 bytes) always. ``batch_heads`` multiplies everything.

Shared-memory traffic (``closed_forms.fa2_mma.shared``) comes as {tensor: {"store": bytes, "load": bytes}} instead:
bytes put into SRAM and bytes taken from it into registers.

Causal masking is bottom-right aligned: row r sees key c iff c <= r + N_kv - N. A block of query rows skips
the K/V tiles that lie entirely above its last row's diagonal. With N > N_kv the first N - N_kv rows see no key,
and a block made only of such rows visits no tile: in FA2 (and on tensor cores) it loads nothing, not even its Q
tile, and writes O = 0 and L = -inf (``rows_seeing``, ``blocks_seeing``).
"""

STAT = 4  # bytes of a float32 statistic: m, l, L, partials
# What the browser imports, generated into JavaScript by js_port (web/.gen/<module>.js): the explorer's and the
# roofline's byte counts, and the roofline's shared-memory unit. Each generated module holds every algorithm's closed
# form `form` (closed_forms/<stem>.py), exported under the name `as` makes of its stem, and the helpers listed here;
# what they call comes along unexported.
JS_MODULES = {
    "formulas": {
        "form": "hbm",
        "as": "{stem}",
        "helpers": (
            "STAT", "cdiv", "rw", "total", "tiles_visited", "rows_seeing", "tile_interactions", "kv_rows_read",
            "score_matrix_bytes", "compulsory", "q_rows_read",
        ),
    },
    "shared": {"form": "shared", "as": "{stem}_shared", "helpers": ()},
}  # fmt: skip


def cdiv(a, b):
    return (a + b - 1) // b


def rw(read=0, write=0):
    return {"read": read, "write": write}


def sl(store=0, load=0):
    """One tensor's shared-memory traffic: bytes stored into SRAM, bytes loaded from it into registers."""
    return {"store": store, "load": load}


def total(per_tensor):
    """The sum of the reads and writes of a {tensor: {"read", "write"}} count."""
    return sum(t["read"] + t["write"] for t in per_tensor.values())


def tiles_visited(i, N, Br, Bc, N_kv=None, causal=False):
    """How many K/V tiles block i of query rows visits: all ceil(N_kv / Bc), or with causal masking those
    starting at or before the last key its last row sees."""
    N_kv = N if N_kv is None else N_kv
    Tc = cdiv(N_kv, Bc)
    if not causal:
        return Tc
    last_key = min((i + 1) * Br, N) - 1 + N_kv - N
    if last_key < 0:
        return 0
    return min(Tc, last_key // Bc + 1)


def floor_sum(n, m, a, b):
    """The sum of floor((a k + b) / m) for k = 0 .. n - 1, for whole a, b >= 0 and m >= 1, in O(log m) steps
    (Euclid's algorithm on the lattice points under the line), never a step per k."""
    total = 0
    while n > 0:
        total += (a // m) * n * (n - 1) // 2 + (b // m) * n
        a, b = a % m, b % m
        top = a * n + b  # the line at k = n: the points below it come back as a sum with m and a swapped
        if top < m:
            break
        n, b, m, a = top // m, top % m, a, m
    return total


def visited_sums(N, Br, Bc, N_kv=None, causal=False):
    """(tiles, full): the sum over the ceil(N / Br) blocks of query rows of ``tiles_visited`` and how many blocks
    visit all ceil(N_kv / Bc) tiles, in closed form: block i < Tr - 1 visits clamp(floor((Br i + Br - 1 + N_kv - N)
    / Bc) + 1, 0, Tc) tiles, a sum of floors of a line (``floor_sum``), and the last block all Tc. The tests hold
    both equal to the sums over blocks for any size; this answers at N = 10^9 at once."""
    N_kv = N if N_kv is None else N_kv
    Tr, Tc = cdiv(N, Br), cdiv(N_kv, Bc)
    if not causal:
        return Tr * Tc, Tr
    b = Br - 1 + N_kv - N  # the last key block i's last row sees is Br i + b
    first = _first_seeing(N, Br, Bc, N_kv, causal)
    whole = min(Tr - 1, max(first, cdiv((Tc - 1) * Bc - b, Br)))  # the first block that sees every tile
    n = whole - first  # blocks in between: floor((Br i + b) / Bc) + 1 tiles each, with Br first + b >= 0
    partial = floor_sum(n, Bc, Br, Br * first + b) + n
    return partial + Tc * (Tr - whole), Tr - whole


def _first_seeing(N, Br, Bc, N_kv=None, causal=False):
    """The first block of Br query rows that visits a K/V tile (``tiles_visited`` > 0): 0 without a mask; with one,
    the first i whose last row Br i + Br - 1 sees key Br i + Br - 1 + N_kv - N >= 0 (the last block always does)."""
    N_kv = N if N_kv is None else N_kv
    if not causal:
        return 0
    return min(cdiv(N, Br) - 1, max(0, cdiv(N - N_kv - Br + 1, Br)))


def blocks_seeing(N, Br, Bc, N_kv=None, causal=False):
    """Blocks of Br query rows that visit at least one K/V tile: all ceil(N / Br), or with causal masking those
    whose last row sees a key (in closed form; the tests hold it equal to the count over blocks)."""
    return cdiv(N, Br) - _first_seeing(N, Br, Bc, N_kv, causal)


def rows_seeing(N, Br, Bc, N_kv=None, causal=False):
    """Query rows in the blocks that visit at least one K/V tile (``blocks_seeing``): the rows whose Q a block loads
    when a block that sees no key returns before loading. The blocks before the first that sees are whole."""
    return N - Br * _first_seeing(N, Br, Bc, N_kv, causal)


def tile_interactions(N, Br, Bc, N_kv=None, causal=False):
    """Query-key tile pairs computed: Tr * Tc, or fewer with causal masking (tiles above the diagonal skipped)."""
    return visited_sums(N, Br, Bc, N_kv, causal)[0]


def kv_rows_read(N, Br, Bc, N_kv=None, causal=False):
    """Rows of K (and of V) read when every block of Br query rows reads each K/V tile it visits once: Bc a tile,
    less the rows past N_kv of the last tile for each block that visits it."""
    N_kv = N if N_kv is None else N_kv
    tiles, full = visited_sums(N, Br, Bc, N_kv, causal)
    return tiles * Bc - full * (cdiv(N_kv, Bc) * Bc - N_kv)


def score_matrix_bytes(N, N_kv=None, itemsize=4, batch_heads=1):
    """Bytes of the N x N_kv score matrix S, which standard attention materializes in HBM (and P as much again)."""
    N_kv = N if N_kv is None else N_kv
    return batch_heads * N * N_kv * itemsize


def compulsory(N, d, N_kv=None, itemsize=4, batch_heads=1):
    """The least any exact attention can move: read Q, K and V once, write O once."""
    N_kv = N if N_kv is None else N_kv
    h, s = batch_heads, itemsize
    return {"Q": rw(h * N * d * s), "K": rw(h * N_kv * d * s), "V": rw(h * N_kv * d * s), "O": rw(0, h * N * d * s)}


def compulsory_backward(N, d, N_kv=None, itemsize=4, batch_heads=1):
    """The least any exact backward can move: read Q, K, V and dO once, write dQ, dK and dV once."""
    N_kv = N if N_kv is None else N_kv
    h, s = batch_heads, itemsize
    q, kv = h * N * d * s, h * N_kv * d * s
    return {"Q": rw(q), "K": rw(kv), "V": rw(kv), "dO": rw(q), "dQ": rw(0, q), "dK": rw(0, kv), "dV": rw(0, kv)}


def q_rows_read(N, Br, Bc, N_kv=None, causal=False):
    """Rows of Q moved when K/V is the outer loop and each K/V tile visits every block of Br query rows that sees
    one of its keys (FA1's inner loop, the FA2 backward's): the sum over blocks of tiles visited times rows."""
    N_kv = N if N_kv is None else N_kv
    Tr = cdiv(N, Br)  # every block has Br rows but the last, which visits all ceil(N_kv / Bc) tiles
    return visited_sums(N, Br, Bc, N_kv, causal)[0] * Br - cdiv(N_kv, Bc) * (Tr * Br - N)


def split_overhead(N, d, n_splits, itemsize=4, batch_heads=1):
    """Bytes flash decoding moves beyond FA2's Q, K, V and O: Q read n_splits - 1 more times, and the partials
    O, m, l written and read back once each."""
    h = batch_heads
    return h * (n_splits - 1) * N * d * itemsize + 2 * h * n_splits * N * (d + 2) * STAT


def softmax(variant, N, rows=1, itemsize=4, d=0):
    """The softmax variants of the Online softmax page, on `rows` rows of N scores x (and, for "online-output",
    values V of N x d): "naive" reads x twice (sum, normalize), "safe" three times (max, sum, normalize),
    "online" twice (max and sum together, normalize); each writes y once. "online-output" reads x and V once
    and writes o = softmax(x) V (rows x d) once."""
    x = rows * N * itemsize
    if variant == "online-output":
        return {"x": rw(x), "V": rw(N * d * itemsize), "o": rw(0, rows * d * itemsize)}
    passes = {"naive": 2, "safe": 3, "online": 2}[variant]
    return {"x": rw(passes * x), "y": rw(0, x)}
