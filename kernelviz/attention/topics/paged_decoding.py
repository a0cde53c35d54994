"""Paged decoding (paged_decoding.py): decoding a batch of sequences whose K/V sit in pages of a pool, read
through a block table; a run draws a random batch (``algorithm.PAGED``). It offers the K and V bytes it reads per
token of the batch."""

import numpy as np

from ..algorithm import PAGED, Algorithm
from ..closed_forms import paged_decoding as closed
from ..figure_values import action, cells, plain
from ..paged_decoding import paged_decoding


def answers(done, observed, keys_at):
    """The values of the slots of its figure (pages/paged-decoding.md) step by step (attention.figure_values), for
    K/V head 0's group of query heads: q in HBM from the start; ``load q``: len, Qg, and mi = -inf, li = 0, Og = 0;
    ``load page``: the page's rows of K and V (as the run's block table places them: the figure's own allocation
    draws other physical pages, so the pools and the page index get no value); ``scores``, ``update``: the scores
    and the carries after the page (the observer's); ``write partials``: the split's last carries; ``combine``: the
    partials read into registers and the sums m_g, l_g, acc (the observer's); ``write O``: the sequence's rows."""
    q, k, v, table, lens = (done.inputs[n] for n in ("q", "k_pages", "v_pages", "block_table", "seq_lens"))
    splits, size = done.sizes["splits"], done.sizes["page_size"]
    group = done.result.params["g"]
    heads = lambda x: plain(np.asarray(x, np.float32)[0])  # noqa: E731 (K/V head 0's group of query heads)
    changes = [{f"q{b}": plain(q[b, :group]) for b in range(len(lens))}]
    last = {}
    for key, at in keys_at[1:]:
        what, b, sp, p, step = action(key), at.get("b"), at.get("s"), at.get("p"), {}
        seen = observed.get((b, sp, p))
        if what == "load q":
            step = {"len": int(lens[b]), "Qg": plain(q[b, :group]), "mi": ["-inf"] * group, "li": [0.0] * group}
            step["Og"] = [[0.0] * q.shape[2]] * group
            step.update({f"Og {r},0": row for r, row in enumerate(step["Og"])})  # a row a head
        elif what == "load page":
            rows, page = min(size, int(lens[b]) - p * size), int(table[b, p])
            step = {"Kp": plain(k[page, :rows, 0]), "Vp": plain(v[page, :rows, 0])}
        elif what == "scores" and seen:
            step = cells("Sg", np.asarray(seen["S"])[0])
        elif what == "update" and seen:
            step = {"mi": heads(seen["m"]), "li": heads(seen["l"]), "Og": heads(seen["O"])}
            last[(b, sp)] = dict(step)
            step.update({f"Og {r},0": row for r, row in enumerate(step["Og"])})
        elif what == "write partials" and (b, sp) in last:
            c, t = last[(b, sp)], b * splits + sp
            step = {f"O(s){t}": c["Og"], f"m(s){t}": c["mi"], f"l(s){t}": c["li"]}
        elif what == "combine" and (sums := observed.get((b, "combine"))):
            step = {"m_g": heads(sums["m"]), "l_g": heads(sums["l"]), "acc": heads(sums["O"])}
            for t in range(splits):
                c = last.get((b, t), {"Og": [[0.0] * q.shape[2]] * group, "mi": ["-inf"] * group, "li": [0.0] * group})
                step.update({f"O({t})": c["Og"], f"m({t})": c["mi"], f"l({t})": c["li"]})
        elif what == "write O":
            step = {f"O{b}": plain(done.result.o[b, :group])}
        changes.append(step)
    return changes


def per_token(done):
    """{kv_bytes_per_token}: the K and V bytes the run read, per token of the batch."""
    read = done.result.ledger.numbers()["read_bytes"]
    return {"kv_bytes_per_token": (read["K"] + read["V"]) // done.counts["tokens"]}


ALGORITHM = Algorithm(
    name="paged-decoding",
    function=paged_decoding,
    inputs=PAGED,
    bytes=closed.hbm,
    flops=closed.flops,
    extra=per_token,
    family=None,  # measured against the same batch's multi-head attention instead (its command's vs_mha)
    command="kernelviz.attention.paged_decoding_trace",
    observes=True,
    answers=answers,
)
