"""The shared-memory traffic of the book's scalar kernels (kernelviz/cuda/fa1.cu, fa2.cu, fa2_bwd.cu), step by step, for
their algorithms' ledgers (``Ledger.smem``): bytes a block's threads store into and load from its ``__shared__`` arrays.

Those kernels keep everything of a block in shared memory and work on it with one thread per score (scores) or per
row (update), in float32 on CUDA cores. The count follows their loops, at full tile size as they run them (rows past
N and keys past N_kv are stored as zeros, computed and loaded like the others), `s` bytes per element of Qi, Kj, Vj
(the storage dtype's) and 4 per element of Sij, Oi, mi, li (float32):

    carries in (a block starts, FA2; every step, FA1):  store Qi (Br d s), Oi (Br d 4), mi and li (Br 4 each)
    a step (Qi meets Kj, Vj):
        scores  Sij[r][c] = sum_k Qi[r][k] Kj[c][k]:  load Qi and Kj (Br Bc d s each), store Sij (Br Bc 4)
        update  each row: load Sij for its max and again for its exponentials (2 Br Bc 4), store P~ over Sij (Br Bc 4);
                O_r = alpha O_r + P~_r Vj, element by element: load Sij and Vj (Br Bc d 4 and Br Bc d s),
                load and store Oi (Br d 4 each); load and store mi and li (Br 4 each)
    carries out (its rows that exist, r < N):  load Oi (d 4 a row), mi and li (4 each a row); FA2 divides by li
                element by element as it writes O (d 4 more a row of li)
    a K/V tile enters shared memory:  store Kj and Vj (Bc d s each)

A thread's loop goes over elements (scores, elements of O) or rows; a shared scalar an iteration reads (mi[r], li[r],
Li[r]) counts once an iteration, though it may appear twice (the compiler keeps it in a register), while the elements
an inner loop reads (Qi[r][k] over k, Sij[r][c] over c) count every time. A value the thread itself has just
stored, read back before any barrier (rowsum += Sij[r][c] after Sij[r][c] = exp(...); alpha[r] in paged decoding's
li update), costs nothing: the compiler forwards it from the register. Reads behind a data-dependent branch are
counted as if every row saw a key (fa2.cu reads Oi and mi only where li > 0).

The backward kernel (cuda/fa2_bwd.cu, one block a K/V tile, the query blocks in its loop; ``backward_*``) holds Kj,
Vj, Qi, dOi (`s` bytes an element) and dKj, dVj, Pij, dSij, Li, Δi (4):

    a block starts:  store Kj, Vj (Bc d s each) and dKj = dVj = 0 (Bc d 4 each)
    a step (query block i):
        load_q     store Qi, dOi (Br d s each), Li, Δi (Br 4 each)
        recompute  P = exp(S - L): load Qi, Kj (Br Bc d s each) and Li (Br Bc 4: one a score), store Pij (Br Bc 4)
        dv         dVj += P^T dOi, element by element: load Pij (Br Bc d 4), dOi (Br Bc d s); load, store dVj (Bc d 4)
        ds         dP = dOi Vj^T, dS = P (dP - Δ): load dOi, Vj (Br Bc d s each), Pij, Δi (Br Bc 4 each), store dSij
        dq         dQ += dS Kj, the rows that exist (HBM, atomic): load dSij (rows Bc d 4), Kj (rows Bc d s)
        dk         dKj += dS^T Qi: load dSij (Br Bc d 4), Qi (Br Bc d s); load, store dKj (Bc d 4)
    the block ends:  load dKj, dVj of its keys that exist (d 4 each a key)

The paged decoding kernel (cuda/paged_decoding.cu, one block a sequence, split and K/V head; ``paged_*``) holds the
group's g query heads Qg (s), one page's Kp, Vp (s), their scores Sg, the carries Og, mi, li, alpha (4) and the
page's index (4); per block: store Qg (g d s), Og (g d 4), mi, li (g 4 each); per page of `rows` tokens:

    read_table  store the index (4); load_page loads it once an element it copies (rows d 4) and stores Kp, Vp
    scores      load Qg, Kp (g rows d s each), store Sg (g rows 4)
    update      each head: load mi, li (g 4 each), load Sg twice (2 g rows 4), store P~ over Sg (g rows 4), store
                alpha, mi, li (g 4 each); then each element of Og: load alpha (g d 4), Sg (g d rows 4), Vp
                (g d rows s), load and store Og (g d 4 each)
    write       one split: O = Og / li element by element (g d 4 each); several: Og (g d 4), mi, li (g 4 each)

and its combine kernel (one block a query head) stores m_global, l_global (4 each) and acc (d 4), and loads
m_global, acc and l_global once an element of O (d 4 each). The decode kernel's names: Q, K, V, S, O, m, l, alpha,
page; the combine's m_global, l_global, acc count under m, l, O.

Li and Δi are counted for every score, masked or not (the kernel skips Li's read where the mask zeroes P: the count
is then high by at most Br Bc 4 bytes a step).

Bytes requested over the per-SM rate (``roofline.units``: 32 banks of 4 bytes a clock) is a lower bound on the time:
a bank conflict or a broadcast never serves more than 128 bytes a clock. Closed forms: ``shared`` beside each record
(``closed_forms.fa1``, ``fa2``, ``fa2_backward``, ``paged_decoding``), FA1's and FA2's from ``formulas.scalar_shared``.
"""

from .ledger import LOAD, STORE

F32 = 4  # bytes of Sij, Oi, mi, li: float32 in every storage dtype
TENSORS = ("Q", "K", "V", "S", "O", "m", "l")  # the ledger's names: HBM's Q, K, V, O; S the scores; m, l the carries
PAGED = ("Q", "K", "V", "S", "O", "m", "l", "alpha", "page")  # paged decoding's
BACKWARD = ("Q", "K", "V", "dO", "L", "Δ", "P", "dS", "dK", "dV")  # the backward's: its HBM names, P and dS on chip


def register(ledger, names=TENSORS):
    """Name every tensor with 0 bytes, so that the numbers name each one even where a run moves none of it."""
    for name in names:
        ledger.smem(name, STORE, 0)


def kv_in(ledger, Bc, d, s, heads):
    """A K/V tile enters shared memory: Kj and Vj stored."""
    ledger.smem("K", STORE, Bc * d * s, heads=heads)
    ledger.smem("V", STORE, Bc * d * s, heads=heads)


def carries_in(ledger, Br, d, s, heads):
    """Qi and the carries Oi, mi, li of `Br` rows stored (from HBM, or set to their starting values); a paged
    decoding block's rows are its group's `g` queries."""
    ledger.smem("Q", STORE, Br * d * s, heads=heads)
    ledger.smem("O", STORE, Br * d * F32, heads=heads)
    ledger.smem("m", STORE, Br * F32, heads=heads)
    ledger.smem("l", STORE, Br * F32, heads=heads)


def step(ledger, Br, Bc, d, s, heads):
    """One step: the scores of Qi against Kj, then the online-softmax update of every row with Vj."""
    at = dict(heads=heads)
    ledger.smem("Q", LOAD, Br * Bc * d * s, **at)
    ledger.smem("K", LOAD, Br * Bc * d * s, **at)
    ledger.smem("S", STORE, 2 * Br * Bc * F32, **at)  # the scores, then P~ over them
    ledger.smem("S", LOAD, (2 + d) * Br * Bc * F32, **at)  # max, exponentials, and once per column of O
    ledger.smem("V", LOAD, Br * Bc * d * s, **at)
    for name, size in (("O", Br * d), ("m", Br), ("l", Br)):
        ledger.smem(name, LOAD, size * F32, **at)
        ledger.smem(name, STORE, size * F32, **at)


def carries_out(ledger, rows, d, heads, divides=False):
    """The `rows` that exist of a block read out of shared memory: Oi, mi and li once each, and li again for each
    element of O where the write-back `divides` by it (FA2)."""
    ledger.smem("O", LOAD, rows * d * F32, heads=heads)
    ledger.smem("m", LOAD, rows * F32, heads=heads)
    ledger.smem("l", LOAD, rows * (1 + d * divides) * F32, heads=heads)


def backward_kv_in(ledger, Bc, d, s, heads):
    """A backward block starts: Kj, Vj stored, and dKj, dVj set to 0."""
    for name, size in (("K", s), ("V", s), ("dK", F32), ("dV", F32)):
        ledger.smem(name, STORE, Bc * d * size, heads=heads)


def backward_step(ledger, Br, Bc, d, s, rows, heads):
    """One backward step: query block i (`rows` of its Br rows exist) against the block's K/V tile."""
    at = dict(heads=heads)
    mm = Br * Bc * d
    for name, store, load in (
        ("Q", Br * d * s, 2 * mm * s),  # recompute, dk
        ("dO", Br * d * s, 2 * mm * s),  # dv, ds
        ("L", Br * F32, Br * Bc * F32),
        ("Δ", Br * F32, Br * Bc * F32),
        ("K", 0, mm * s + rows * Bc * d * s),  # recompute, dq
        ("V", 0, mm * s),  # ds
        ("P", Br * Bc * F32, mm * F32 + Br * Bc * F32),  # dv, ds
        ("dS", Br * Bc * F32, rows * Bc * d * F32 + mm * F32),  # dq, dk
        ("dV", Bc * d * F32, Bc * d * F32),
        ("dK", Bc * d * F32, Bc * d * F32),
    ):
        ledger.smem(name, STORE, store, **at)
        ledger.smem(name, LOAD, load, **at)


def backward_kv_out(ledger, cols, d, heads):
    """A backward block ends: dKj and dVj of its `cols` keys that exist read out."""
    ledger.smem("dK", LOAD, cols * d * F32, heads=heads)
    ledger.smem("dV", LOAD, cols * d * F32, heads=heads)


def paged_page(ledger, g, rows, d, s, heads):
    """One page of `rows` tokens: its index, K and V in; the group's scores and update."""
    for name, store, load in (
        ("page", F32, rows * d * F32),
        ("K", rows * d * s, g * rows * d * s),
        ("V", rows * d * s, g * d * rows * s),
        ("Q", 0, g * rows * d * s),
        ("S", 2 * g * rows * F32, (2 + d) * g * rows * F32),
        ("m", g * F32, g * F32),
        ("l", g * F32, g * F32),
        ("alpha", g * F32, g * d * F32),
        ("O", g * d * F32, g * d * F32),
    ):
        ledger.smem(name, STORE, store, heads=heads)
        ledger.smem(name, LOAD, load, heads=heads)


def paged_write(ledger, g, d, heads, splits):
    """A paged decoding block's write: O = Og / li (one split), or the partials Og, mi, li (several)."""
    ledger.smem("O", LOAD, g * d * F32, heads=heads)
    if splits == 1:
        ledger.smem("l", LOAD, g * d * F32, heads=heads)
    else:
        ledger.smem("m", LOAD, g * F32, heads=heads)
        ledger.smem("l", LOAD, g * F32, heads=heads)


def combine_partials(ledger, d, heads):
    """The combine kernel's block (a query head): m_global, l_global, acc stored, and read for each element of O."""
    for name, size in (("m", 1), ("l", 1), ("O", d)):
        ledger.smem(name, STORE, size * F32, heads=heads)
        ledger.smem(name, LOAD, d * F32, heads=heads)
