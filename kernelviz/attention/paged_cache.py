"""A batch for paged decoding drawn at random: the query, a page pool and a block table that scatters each
sequence's pages through the pool, as a serving engine's allocator leaves them (what `kernelviz trace`, the pages'
``{{ trace }}`` and `kernelviz verify` run on).

``random_batch(seq_lens, page_size, H_q, H_kv, d, seed=0, shared_pages=0, spare_pages=0)`` returns
(q, k_pages, v_pages, block_table, seq_lens): q (batch, H_q, d) and the pools (pages, page_size, H_kv, d) standard
normal float32, the table int32 (batch, max_pages) padded with -1 past each sequence's pages. The pool holds every
page the batch needs plus `spare_pages` never used, in a random order; with `shared_pages` = k, the first k pages
of every sequence long enough are the same physical pages (a common prompt prefix, as prefix caching shares it).
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
