"""`kernelviz trace paged-decoding`: paged decoding of a random batch (``random_batch``: the pages scattered through
the pool), and the bytes its ledger counts, beside what the same query heads would move with one K/V head each
(multi-head attention: H_kv = H_q), from the closed form.

Options (cli.py parses them): --seq-lens, --page-size, --H-q, --H-kv (default H_q), --splits (default 1), --d,
--dtype, --seed, --sram-budget, --gpu, --json, --save FILE.npz (q, k_pages, v_pages, block_table, seq_lens, o).
"""

import json
import sys

from . import footprint, formulas
from .words import on_gpu, ratio, size


def main(args, roofline=None):
    """Run `args` (cli.py's); `roofline(total_bytes, flops_by_kind)`, given with --gpu, places the run on that GPU's
    roofline (``kernelviz.roofline.bound``, which the command line binds: this layer does not import it)."""
    import numpy as np

    from . import paged_decoding, random_batch

    H_kv = args.H_kv or args.H_q
    lens, n_splits, d = args.seq_lens, args.splits or 1, args.d
    if args.H_q % H_kv:
        return _error(f"--H-q {args.H_q} is not a multiple of --H-kv {H_kv} (each K/V head serves H_q / H_kv)")
    if too_big := _memory_problem(args, lens, H_kv, n_splits):
        return _error(too_big)
    inputs = random_batch(lens, args.page_size, args.H_q, H_kv, d, seed=args.seed)
    try:
        result = paged_decoding(*inputs, n_splits=n_splits, dtype=args.dtype, sram_budget=args.sram_budget)
    except ValueError as e:
        return _error(str(e))
    itemsize = np.dtype(args.dtype).itemsize
    mha = formulas.total(formulas.paged_decoding(lens, d, args.page_size, args.H_q, args.H_q, n_splits, itemsize))
    ledger = result.ledger
    params = dict(seq_lens=lens, d=d, seed=args.seed, pages=inputs[1].shape[0], **result.params)
    report = dict(algorithm=args.algo, params=params, **ledger.summary())
    report.update(mha_bytes=mha, vs_mha=ledger.total_bytes / mha)
    if roofline is not None:  # where the run sits on a GPU's roofline (--gpu), as for the other algorithms
        report["roofline"] = roofline(ledger.total_bytes, ledger.flops.by_kind)
    if args.save:
        q, k_pages, v_pages, table, seq_lens = inputs
        arrays = dict(q=q, k_pages=k_pages, v_pages=v_pages, block_table=table, seq_lens=seq_lens, o=result.o)
        arrays.update({k: arrays[k].astype(args.dtype) for k in ("q", "k_pages", "v_pages")})
        try:
            with open(args.save, "wb") as f:
                np.savez(f, **arrays)
        except OSError as e:
            return _error(f"cannot write {args.save}: {e.strerror}")
    print(json.dumps(report) if args.json else _table(report))
    return 0


def _error(text):
    print(f"kernelviz trace: error: {text}", file=sys.stderr)
    return 2


def _memory_problem(args, lens, H_kv, n_splits):
    """Why this run would not fit in memory (a sentence), or None: the pools and q (and o) in float64 and the storage
    dtype, and
    the ledger's records (one per page per K/V head, three with its table entry, and a few per block)."""
    pages = sum(-(-n // args.page_size) for n in lens)
    pool = 2 * pages * args.page_size * H_kv * args.d * 12 + 2 * len(lens) * args.H_q * args.d * 12
    records = 3 * H_kv * pages + (6 + 3 * n_splits) * len(lens) * n_splits * max(H_kv, args.H_q)
    need = pool + records * footprint.TRANSFER_BYTES + footprint.MARGIN
    have = footprint.available()
    if have is None or need <= have:
        return None
    needs = f"paged-decoding of {sum(lens):,} tokens needs about {footprint.gib(need)} of memory and "
    needs += f"{footprint.gib(have)} is available"
    if 2 * sum(lens) < pages * args.page_size:  # most of the pool is the empty rows of last pages
        return (
            f"--page-size {args.page_size:,}: each sequence takes whole pages of {args.page_size:,} tokens and the "
            f"longest has {max(lens):,}, so the pool is mostly empty rows ({needs}): use a --page-size of at most "
            f"{max(lens):,} (serving engines use 16, the default)"
        )
    return f"{needs}: use shorter --seq-lens, a smaller --d or fewer --H-kv"


def _table(report):
    p = report["params"]
    lens = ",".join(map(str, p["seq_lens"]))
    lines = [
        f"paged-decoding: seq_lens={lens} page_size={p['page_size']} H_q={p['H_q']} H_kv={p['H_kv']} "
        f"(g={p['g']}) d={p['d']} splits={p['n_splits']} dtype={p['dtype']}",
        f"  ({len(p['seq_lens'])} sequences, one query token each, their K/V in {p['pages']} pages of the pool)",
        f"{'HBM traffic':<12}{'read':>18}{'write':>18}",
    ]
    for name, t in report["per_tensor"].items():
        lines.append(f"{name:<12}{t['read']:>16,} B{t['write']:>16,} B")
    total, mha = report["total_bytes"], report["mha_bytes"]
    lines += [
        f"{'total':<12}{total:>34,} B ({size(total)})",
        f"vs one K/V head per query head ({mha:,} B, {size(mha)}): {ratio(total, mha, 'multi-head attention')}",
        f"peak SRAM per block: {report['peak_sram_bytes']:,} B ({size(report['peak_sram_bytes'])})",
    ]
    if roof := report.get("roofline"):
        lines.append(on_gpu(roof))
    return "\n".join(lines)
