"""The numbers a page may cite of one run (``Run.numbers``) or of an algorithm's closed forms (``closed``): one
vocabulary, whatever the algorithm, that ``{{ trace.EXPR }}`` looks up (kernelviz/site/extensions/trace.py):

    N, d, Br, Bc, N_kv, ... (the sizes, but not the true-or-false ones: causal, p_in_shared)
    reads, writes, loads, stores, read_bytes, write_bytes, bytes, peak_sram, flops, shared   (``Ledger.numbers``)
    Tr, Tc / T / pages, tokens, padding, g                                 (``Run.counts``: what the sizes count)
    tiles_per_block.{list, count, first, last, min, max, total, mean, max_over_mean}   (a per_block algorithm's)
    schedule.{sms, blocks, tiles, waves, launch_order, heaviest_first, lower_bound, slowdown, idle, batch_heads}
                                                    (given SMs: its grid dealt to them, ``blocks.schedule``)
    ratio_standard                                  (its baseline's closed-form bytes over its own measured ones)
    ...                                             (its record's extra numbers: paged decoding's kv_bytes_per_token)
"""

from . import blocks, formulas
from ._inputs import itemsize
from .topics import REGISTRY, baseline


def of(done, sms=None, batch_heads=None):
    """The numbers of `done` (a runs.Run), in the order above; with `sms`, its grid of `batch_heads` (batch, head)
    pairs (default the run's) dealt to that many SMs. Raises ValueError for a schedule of an algorithm whose
    ledger does not say its tiles per block."""
    record = REGISTRY[done.algo]
    if sms is not None and (problem := schedule_problem(done.algo)):
        raise ValueError(problem)
    out = without_flags(record, done.sizes)
    out.update(done.result.ledger.numbers())
    out.update(done.counts)
    if record.per_block is not None:
        out["tiles_per_block"] = per_block(blocks.tiles_per_block(done.result))
    if sms is not None:
        heads = done.sizes.get("batch_heads", 1) if batch_heads is None else batch_heads
        work = blocks.grid(done.algo, out["tiles_per_block"]["list"], heads)
        out["schedule"] = {**blocks.schedule(work, sms), "batch_heads": heads}
    if record.extra is not None:
        out.update(record.extra(done))
    if (against := baseline(record)) is not None:  # its bytes from its closed form (the tests hold it to its ledger)
        s = done.sizes
        counted = against.bytes(
            s["N"], s["d"], s["Br"], s["Bc"], N_kv=s["N_kv"], causal=s["causal"], batch_heads=s["batch_heads"],
            itemsize=itemsize(done.dtype),  # the same bytes per element: float16's for a bfloat16 fa2-mma
        )  # fmt: skip
        out["ratio_standard"] = formulas.total(counted) / done.result.ledger.total_bytes
    return out


def schedule_problem(algo):
    """Why `algo`'s grid cannot be dealt to SMs (a sentence), or None for an algorithm whose ledger says its tiles
    per block."""
    if REGISTRY[algo].per_block is not None:
        return None
    names = " and ".join(r.name for r in REGISTRY.values() if r.per_block is not None)
    return f"schedule is for {names} (whose blocks of rows it deals to SMs), not {algo!r}"


def per_block(tiles):
    """The numbers of the tiles each block of rows visits: the list, and its count, first, last, ..."""
    mean = sum(tiles) / len(tiles)
    return {
        "list": tiles,
        "count": len(tiles),
        "first": tiles[0],
        "last": tiles[-1],
        "min": min(tiles),
        "max": max(tiles),
        "total": sum(tiles),
        "mean": mean,
        "max_over_mean": max(tiles) / mean if mean else 1.0,
    }


def without_flags(record, numbers):
    """`numbers` without the record's true-or-false sizes (causal, p_in_shared): not numbers a page quotes."""
    flags = {name for name, (kind, _) in record.sizes.items() if kind is bool}
    return {key: v for key, v in numbers.items() if key not in flags}
