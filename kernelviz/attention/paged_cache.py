"""A batch for paged decoding drawn at random: the query, a page pool and a block table that scatters each
sequence's pages through the pool, as a serving engine's allocator leaves them (what `kernelviz trace`, the pages'
``{{ trace }}`` and `kernelviz verify` run on).

``random_batch(seq_lens, page_size, H_q, H_kv, d, seed=0, shared_pages=0, spare_pages=0)`` returns
(q, k_pages, v_pages, block_table, seq_lens): q (batch, H_q, d) and the pools (pages, page_size, H_kv, d) standard
normal float32, the table int32 (batch, max_pages) padded with -1 past each sequence's pages. The pool holds every
page the batch needs plus `spare_pages` never used, in a random order; with `shared_pages` = k, the first k pages
of every sequence long enough are the same physical pages (a common prompt prefix, as prefix caching shares it).

``check_table(block_table, seq_lens, pages, page_size)`` checks what a paged-decoding kernel reads of them, the one
source of these checks: the NumPy algorithm (paged_decoding.check_paged) and both launchers of the CUDA kernel (the
CPU shim and the GPU, kernelviz.cuda.kernels.check_inputs) call it. A length of 0 is refused, not defined: a sequence
with no token has no softmax (its O would be 0/0, NaN on a GPU), and a batch holds only sequences being decoded.
"""

import numpy as np


def random_batch(seq_lens, page_size, H_q, H_kv, d, seed=0, shared_pages=0, spare_pages=0):
    """See the module docstring. Raises ValueError for a length below 1 or sizes that are not positive."""
    lens = [int(n) for n in seq_lens]
    if not lens or min(lens) < 1:
        raise ValueError(f"seq_lens: expected one or more lengths of at least 1, got {seq_lens!r}")
    for name, value in (("page_size", page_size), ("H_q", H_q), ("H_kv", H_kv), ("d", d)):
        if int(value) < 1:
            raise ValueError(f"{name}: expected a positive integer, got {value!r}")
    if shared_pages < 0 or spare_pages < 0:
        raise ValueError(f"shared_pages, spare_pages: expected >= 0, got {shared_pages} and {spare_pages}")
    rng = np.random.default_rng(seed)
    n_pages = [-(-n // page_size) for n in lens]
    shared = min(shared_pages, min(n_pages))
    own = [n - shared for n in n_pages]
    pool = shared + sum(own) + spare_pages
    order = rng.permutation(pool)  # physical page of the i-th page handed out
    table = np.full((len(lens), max(n_pages)), -1, np.int32)
    table[:, :shared] = order[:shared]
    at = shared
    for b, n in enumerate(own):
        table[b, shared : shared + n] = order[at : at + n]
        at += n
    q = rng.standard_normal((len(lens), H_q, d)).astype(np.float32)
    k_pages, v_pages = (rng.standard_normal((pool, page_size, H_kv, d)).astype(np.float32) for _ in "kv")
    return q, k_pages, v_pages, table, np.array(lens, np.int32)


def check_table(block_table, seq_lens, pages, page_size):
    """Check what paged decoding reads of `block_table` (batch, max_pages) and `seq_lens` (batch,), NumPy arrays
    of integers, for a pool of `pages` pages of `page_size` tokens: each length at least 1 (0 is refused: see the
    module docstring), each sequence's pages within its row of the table, and each entry it reads (its first
    ceil(L / page_size)) a page of the pool, 0 .. pages - 1; entries past a sequence's pages are never read and
    may hold anything (-1 here). Returns (table, lens) as int64 arrays. Raises ValueError naming the sequence and
    the entry."""
    for name, x in (("block_table", block_table), ("seq_lens", seq_lens)):
        if not np.issubdtype(np.asarray(x).dtype, np.integer):
            raise ValueError(f"{name}: expected integers, got dtype {np.asarray(x).dtype}")
    table, lens = np.asarray(block_table).astype(np.int64), np.asarray(seq_lens).astype(np.int64)
    for b, length in enumerate(lens.tolist()):
        if length < 1:
            raise ValueError(
                f"seq_lens[{b}] = {length}: sequence {b} must have at least 1 token (a sequence with none has no "
                f"softmax; leave it out of the batch)"
            )
        n_pages = -(-length // page_size)
        if n_pages > table.shape[1]:
            raise ValueError(
                f"seq_lens[{b}] = {length}: sequence {b} needs {n_pages} pages of {page_size} tokens, beyond its "
                f"block_table row of {table.shape[1]} entries"
            )
        for p, page in enumerate(table[b, :n_pages].tolist()):
            if not 0 <= page < pages:
                raise ValueError(
                    f"block_table[{b}, {p}] = {page}: page {p} of sequence {b} is not a page of the pool "
                    f"(0 to {pages - 1}, k_pages' axis 0)"
                )
    return table, lens
