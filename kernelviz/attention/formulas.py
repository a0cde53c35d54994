"""Closed-form HBM byte counts, per tensor: what each algorithm's ledger must add up to.

Pure Python integer arithmetic, no imports, so that it ports line for line to JavaScript (the overview page's
explorer uses a port, checked against this file). Every function that counts traffic returns
{tensor: {"read": bytes, "write": bytes}}; ``total`` adds one up.

Names: N query rows, N_kv keys (default N), head dimension d, tiles of Br query rows and Bc keys,
``itemsize`` bytes per stored element of Q, K, V, O, S, P (4: float32, 2: float16); m, l, L and the partials
of flash decoding are float32 (4 bytes) always. ``batch_heads`` multiplies everything.

Shared-memory traffic (``fa2_mma_shared``; the book's scalar kernels' beside their records, from ``scalar_shared``)
comes as {tensor: {"store": bytes, "load": bytes}} instead: bytes put into SRAM and bytes taken from it into registers.

Causal masking is bottom-right aligned: row r sees key c iff c <= r + N_kv - N. A block of query rows skips
the K/V tiles that lie entirely above its last row's diagonal. With N > N_kv the first N - N_kv rows see no key,
and a block made only of such rows visits no tile: in FA2 (and on tensor cores) it loads nothing, not even its Q
tile, and writes O = 0 and L = -inf (``rows_seeing``, ``blocks_seeing``).
"""

STAT = 4  # bytes of a float32 statistic: m, l, L, partials
# What the browser imports, generated into JavaScript by js_port (web/.gen/<module>.js): the explorer's and the
# roofline's byte counts, and the roofline's shared-memory unit; what they call comes along unexported.
JS_MODULES = {
    "formulas": (
        "STAT", "cdiv", "rw", "total", "tiles_visited", "rows_seeing", "tile_interactions", "kv_rows_read",
        "score_matrix_bytes", "compulsory", "standard", "fa2", "q_rows_read", "fa1", "fa2_backward",
        "standard_backward", "flash_decoding", "paged_decoding",
    ),
    "shared": ("fa2_mma_shared",),
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


def standard(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """Three kernels: S = QK^T (K read once per block of Q rows), P = softmax(S), O = PV (V likewise).
    S and P are each written and read once; causal masking skips nothing."""
    N_kv = N if N_kv is None else N_kv
    h, s, Tr = batch_heads, itemsize, cdiv(N, Br)
    nn = h * N * N_kv * s
    return {
        "Q": rw(h * N * d * s),
        "K": rw(h * Tr * N_kv * d * s),
        "V": rw(h * Tr * N_kv * d * s),
        "S": rw(nn, nn),
        "P": rw(nn, nn),
        "O": rw(0, h * N * d * s),
    }


def q_rows_read(N, Br, Bc, N_kv=None, causal=False):
    """Rows of Q moved when K/V is the outer loop and each K/V tile visits every block of Br query rows that sees
    one of its keys (FA1's inner loop, the FA2 backward's): the sum over blocks of tiles visited times rows."""
    N_kv = N if N_kv is None else N_kv
    Tr = cdiv(N, Br)  # every block has Br rows but the last, which visits all ceil(N_kv / Bc) tiles
    return visited_sums(N, Br, Bc, N_kv, causal)[0] * Br - cdiv(N_kv, Bc) * (Tr * Br - N)


def fa2_mma_shared(N, d, Br, Bc, *, N_kv=None, warps=4, itemsize=2, causal=False, p_in_shared=False, batch_heads=1):
    """Shared-memory traffic of FA2 on tensor cores (``attention.fa2_mma``; its HBM traffic is ``fa2``'s), counted
    at full tile size as the kernel moves it (rows past N or N_kv are stored as zeros and loaded too): each of the
    ``blocks_seeing`` blocks (all Tr = ceil(N / Br) unmasked) stores Qi and loads it into its warps' registers once
    (Br d s each way); on each of the tile_interactions visited tiles it stores Kj and Vj once (Bc d s each) and
    each of its `warps` warps loads all of both (warps Bc d s each). P stays in registers (0), or with
    ``p_in_shared`` takes a round trip through SRAM on every visited tile (Br Bc s stored, as much loaded). A block
    that sees no key (causal, N > N_kv) stores and loads nothing."""
    h, s = batch_heads, itemsize
    q = h * blocks_seeing(N, Br, Bc, N_kv, causal) * Br * d * s
    visited = h * tile_interactions(N, Br, Bc, N_kv, causal)
    kv, p = visited * Bc * d * s, visited * Br * Bc * s if p_in_shared else 0
    return {"Q": sl(q, q), "K": sl(kv, warps * kv), "V": sl(kv, warps * kv), "P": sl(p, p)}


def scalar_shared(steps, kv_tiles, blocks, rows, Br, Bc, d, s, divides):
    """Shared-memory traffic of the scalar kernels (``attention.scalar_smem``), all at full tile size: `steps` steps
    (the scores of Qi against Kj and the update of every row with Vj), `kv_tiles` K/V tiles stored, `blocks` times
    Qi and the carries Oi, mi, li stored, and the carries of `rows` rows loaded out (li d times more where the
    write-back `divides` O by it element by element)."""
    mm, o, stat = steps * Br * Bc * d * s, steps * Br * d * STAT, steps * Br * STAT
    kv, carries = kv_tiles * Bc * d * s, blocks * Br * STAT
    return {
        "Q": sl(blocks * Br * d * s, mm),
        "K": sl(kv, mm),
        "V": sl(kv, mm),
        "S": sl(steps * 2 * Br * Bc * STAT, steps * (2 + d) * Br * Bc * STAT),
        "O": sl(o + blocks * Br * d * STAT, o + rows * d * STAT),
        "m": sl(stat + carries, stat + rows * STAT),
        "l": sl(stat + carries, stat + rows * STAT + (rows * d * STAT if divides else 0)),
    }


def fa1(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """K/V outer, Q inner: K and V read once; at every (K/V tile, Q block) step Qi, Oi, l_i, m_i are read and
    Oi, l_i, m_i written back; O, l, m are also written once at the start (initialization)."""
    N_kv = N if N_kv is None else N_kv
    h, s = batch_heads, itemsize
    steps_rows = q_rows_read(N, Br, Bc, N_kv, causal)  # rows of Q moved over all inner steps
    return {
        "Q": rw(h * steps_rows * d * s),
        "K": rw(h * N_kv * d * s),
        "V": rw(h * N_kv * d * s),
        "O": rw(h * steps_rows * d * s, h * (N + steps_rows) * d * s),
        "l": rw(h * steps_rows * STAT, h * (N + steps_rows) * STAT),
        "m": rw(h * steps_rows * STAT, h * (N + steps_rows) * STAT),
    }


def fa2(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """Q outer, K/V inner: Q read once, K and V once per block of Q rows, O and L = m + log l written once. A block
    whose rows see no key (causal, N > N_kv) reads nothing: its Q rows are not read (``rows_seeing``)."""
    h, s = batch_heads, itemsize
    kv = h * kv_rows_read(N, Br, Bc, N_kv, causal) * d * s
    q = h * rows_seeing(N, Br, Bc, N_kv, causal) * d * s
    return {"Q": rw(q), "K": rw(kv), "V": rw(kv), "O": rw(0, h * N * d * s), "L": rw(0, h * N * STAT)}


def fa2_backward(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """FA2's backward: a preprocess reads O and dO once, writes Δ = rowsum(dO * O) and zeroes dQ (float32); the
    main kernel (K/V outer) reads K and V once and writes dK and dV once, and at every (K/V tile, Q block) step
    reads Qi, dOi, L_i, D_i and adds into dQ_i atomically: a read and a write of the float32 tile."""
    N_kv = N if N_kv is None else N_kv
    h, s = batch_heads, itemsize
    rows = h * q_rows_read(N, Br, Bc, N_kv, causal)
    return {
        "Q": rw(rows * d * s),
        "K": rw(h * N_kv * d * s),
        "V": rw(h * N_kv * d * s),
        "O": rw(h * N * d * s),
        "dO": rw(h * N * d * s + rows * d * s),
        "L": rw(rows * STAT),
        "Δ": rw(rows * STAT, h * N * STAT),
        "dQ": rw(rows * d * STAT, h * N * d * STAT + rows * d * STAT),
        "dK": rw(0, h * N_kv * d * s),
        "dV": rw(0, h * N_kv * d * s),
    }


def standard_backward(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):
    """The standard backward, which reads back the P its forward stored: five kernels (dV = P^T dO; dP = dO V^T;
    dS = P * (dP - rowsum(P * dP)); dQ = dS K; dK = dS^T Q), each tiled as standard attention's forward. P is read
    twice, dP written and read, dS written once and read twice; causal masking skips nothing."""
    N_kv = N if N_kv is None else N_kv
    h, s, Tr, Tc = batch_heads, itemsize, cdiv(N, Br), cdiv(N_kv, Bc)
    nn = h * N * N_kv * s
    return {
        "Q": rw(h * Tc * N * d * s),
        "K": rw(h * Tr * N_kv * d * s),
        "V": rw(h * Tr * N_kv * d * s),
        "dO": rw(h * (Tc + 1) * N * d * s),
        "P": rw(2 * nn),
        "dP": rw(nn, nn),
        "dS": rw(2 * nn, nn),
        "dQ": rw(0, h * N * d * s),
        "dK": rw(0, h * N_kv * d * s),
        "dV": rw(0, h * N_kv * d * s),
    }


def flash_decoding(N, d, Br, Bc, n_splits, N_kv=None, causal=False, itemsize=4, batch_heads=1, partials="unnormalized"):
    """Split kernel: each of n_splits blocks per block of Q rows reads Qi and its own K/V tiles, and writes
    float32 partials O, m, l; the combine kernel reads the partials once and writes O. With partials="lse" the
    partials are the normalized O and one log-sum-exp a row: lse_partial instead of m_partial and l_partial, one
    float a row a split fewer each way."""
    h, s = batch_heads, itemsize
    kv = h * kv_rows_read(N, Br, Bc, N_kv, causal) * d * s
    partial_o, partial_stat = h * n_splits * N * d * STAT, h * n_splits * N * STAT
    stats = ("lse_partial",) if partials == "lse" else ("m_partial", "l_partial")
    return {
        "Q": rw(h * n_splits * N * d * s),
        "K": rw(kv),
        "V": rw(kv),
        "O_partial": rw(partial_o, partial_o),
        **{name: rw(partial_stat, partial_stat) for name in stats},
        "O": rw(0, h * N * d * s),
    }


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


def paged_decoding(seq_lens, d, page_size, H_q, H_kv, n_splits=1, itemsize=4):
    """Paged decoding over a batch of sequences of lengths `seq_lens` (one query token each), pages of `page_size`
    tokens, H_q query heads in groups sharing H_kv K/V heads. Each of the batch * H_kv * n_splits decode blocks reads
    its sequence's length and its g = H_q / H_kv query rows; together they read each of the sequence's pages once
    per K/V head, with its block table entry (4 bytes), and of the last page only the rows the sequence fills: K and
    V are read H_kv * sum(L) * d elements. n_splits = 1 writes O; otherwise float32 partials O, m, l (per query
    head and split) are written, and read back once by the combine, which writes O. (The block table holds batch *
    max_pages entries; only those of the sequences' pages are read.)"""
    lens = list(seq_lens)
    batch, s = len(lens), itemsize
    pages = sum(cdiv(n, page_size) for n in lens)
    kv = H_kv * sum(lens) * d * s
    out = {
        "Q": rw(n_splits * batch * H_q * d * s),
        "K": rw(kv),
        "V": rw(kv),
        "block_table": rw(H_kv * pages * 4),
        "seq_lens": rw(n_splits * batch * H_kv * 4),
    }
    if n_splits > 1:
        partial_o, partial_stat = batch * H_q * n_splits * d * STAT, batch * H_q * n_splits * STAT
        out.update(O_partial=rw(partial_o, partial_o), m_partial=rw(partial_stat, partial_stat))
        out["l_partial"] = rw(partial_stat, partial_stat)
    out["O"] = rw(0, batch * H_q * d * s)
    return out
