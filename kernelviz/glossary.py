"""One name per size, everywhere: the glossary of the sizes the kernels, the figures and the pages speak of.

A size has one name in a page's front matter (``trace:``, ``sizes:``, ``prerender:``), on the command line
(``--NAME``, with ``-`` for ``_``: ``--N-kv``, ``--batch-heads``), in the figure library's ``sizes(NAME=...)``, in
``attention.run(algo, NAME=...)`` and ``cuda.kernels.shared_memory``, and so in the browser's size forms and URLs
(their names are the kernel's ``sizes()``). An old name still works, with a warning that names the new one.

Some Python functions keep a keyword of their own as their API (``flash_decoding(..., n_splits=)``,
``online_softmax(x, b=)``, ``kernels.plan(..., n_splits=)``); ``KEYWORDS`` maps a size to them.

Standard library only, importing nothing of ours: it runs in Pyodide too (the figure library asks it).
"""

SIZES = {
    "N": "query rows; the keys and values too unless N_kv says otherwise",
    "N_kv": "key and value rows (default N)",
    "d": "head dimension: elements per row of Q, K, V and O",
    "Br": "query rows per tile (a block of Q)",
    "Bc": "keys (and values, or scores) per tile",
    "splits": "flash decoding: the parts the keys are split into, one block each",
    "batch_heads": "independent (batch, head) pairs: batch × heads",
    "causal": "causal masking, bottom-right aligned: 1 (true) or 0 (false)",
    "warps": "FA2 on tensor cores: the warps of a block, each owning ceil(Br / warps) of its query rows",
    "warpgroups": "FlashAttention-3: the consumer warpgroups of a block (4 warps each), Br / warpgroups rows each",
    "stages": "pipelined FA2: the K/V buffers of the ring in shared memory (1: every tile waits for its copy)",
    "gpu": "a figure's timeline: the GPU whose rates time it, 0 = A100, 1 = H100, 2 = H200",
    "rows": "softmax: the rows of scores softmaxed side by side",
    "seq_lens": "paged attention: the length of each sequence of the batch (a list)",
    "L0": "paged attention's figure: the length of sequence 0 (seq_lens[0])",
    "L1": "paged attention's figure: the length of sequence 1 (seq_lens[1])",
    "page_size": "paged attention: tokens per page of the KV cache",
    "H_q": "query heads",
    "H_kv": "key and value heads (grouped-query attention: H_q / H_kv query heads share one)",
}
OLD = {  # old name -> the size's name
    "n_splits": "splits",
    "heads": "batch_heads",
    "bh": "batch_heads",
    "b": "Bc",
}
KEYWORDS = {  # size -> the keyword a Python API takes it by, where that differs
    "splits": "n_splits",  # attention.flash_decoding, attention.formulas, cuda.kernels.plan
    "Bc": "b",  # attention's softmax variants (naive_softmax, ..., online_softmax_output)
}


def renamed(name, where):
    """The message that `name` is an old name, naming the new one ('WHERE: n_splits is now called splits'), or
    None for a name that is not old."""
    new = OLD.get(name)
    return None if new is None else f"{where}: {name} is now called {new}"


def canonical(sizes, where):
    """`sizes` ({name: value}, in order) with every old name replaced by the size's name, and the messages that say
    so (``renamed``). Raises ValueError when an old and a new name give the same size twice."""
    out, messages = {}, []
    for name, value in sizes.items():
        message = renamed(name, where)
        new = OLD.get(name, name)
        if new in out:
            raise ValueError(f"{where}: {new} is given twice (as {name} and {new}); give it once, as {new}")
        if message:
            messages.append(message)
        out[new] = value
    return out, messages
