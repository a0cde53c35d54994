"""`kernelviz trace ALGO`: run one algorithm on random inputs and print its measured HBM traffic.

Prints bytes per tensor and direction, the total, its ratio to standard attention and to the compulsory minimum
(both from the closed forms in ``formulas``, which the tests hold equal to the measured ledgers; for a backward pass,
to the standard backward, which reads back the P its forward stored, and to the backward's minimum), and the FLOPs
by kind. A backward pass's table and JSON are the backward's alone. For fa1 and fa2 it also gives the K/V tiles
each block of Br query rows visits (``blocks.tiles_per_block``: all of them, or with --causal those the mask does
not hide entirely). ``--json`` prints one object instead; ``--save FILE.npz`` writes q, k, v (as stored), o, and
lse where the algorithm has one (a backward pass: also the dO it drew and dq, dk, dv), so that anyone can check the
result independently, to that file exactly. ``--gpu KEY`` adds where the run sits on that GPU's roofline
(``kernelviz.roofline.bound``): intensity, bound, lower-bound time; for fa1 and fa2 also ``schedule``, the grid the
kernel launches for --batch-heads (batch, head) pairs dealt to that GPU's SMs (``blocks.grid``, ``blocks.schedule``):
when its last block ends, in units of one tile, in launch order and heaviest first.

`kernelviz trace fa2-mma` is FA2 on tensor cores (``fa2_mma``): --dtype float16 (its default) or bfloat16, which no
other algorithm takes; --warps (default 4) warps a block, each owning ceil(Br / warps) of its query rows;
--p-in-shared sends P through shared memory. Its table and JSON add the shared-memory traffic (``shared``:
per_tensor {T: {store, load}}, store, load, total), as do fa1's, fa2's and fa2-backward's (their scalar kernels'
traffic, which --gpu's units leave out: ``Algorithm.shared_unit``).

`kernelviz trace paged-decoding` takes a batch instead of N (its record's command, ``paged_decoding_trace``):
--seq-lens 5,17,9 --page-size 16 --H-q 8 --H-kv 2 --splits 1 --d 64.

Before drawing the inputs it estimates the memory the run needs (``footprint``) and refuses, exit status 2, a run
that would not fit in what the machine has available; and it counts the tile steps the run computes from the closed
forms (``runs.tile_steps``): past ``runs.WORK_LIMIT`` (minutes of NumPy) it refuses, exit status 2, saying how long
it would take and what answers at once (``kernelviz roofline``: the closed forms at any size), unless --allow-long;
past a few seconds' worth it says on stderr how long to expect, and on a terminal a bar shows the bytes moved.
"""

import argparse
import contextlib
import json
import math

from kernelviz.attention.algorithm import DENSE
from kernelviz.attention.runs import REGISTRY, WORK_LIMIT
from kernelviz.attention.topics import baseline
from kernelviz.attention.words import on_gpu, ratio, size  # noqa: F401 (the table's words; tests import them from here)
from kernelviz.commands.checks import non_negative, output_file, positive

HELP = "run an attention algorithm on NumPy and print the bytes it moves between HBM and SRAM"


def _lengths(text):
    """Comma-separated positive integers: "5,17,9"."""
    values = [int(x) for x in text.split(",")]
    if not values or min(values) <= 0:
        raise ValueError(text)
    return values


_lengths.__name__ = "list of lengths"


def _checked(option):
    """An argparse type for an int option: a positive integer that the option's check lets through."""

    def parse(text):
        value = positive(text)
        if option.check is not None and (problem := option.check(value)):
            raise argparse.ArgumentTypeError(problem.removeprefix(f"{option.name}: "))
        return value

    parse.__name__ = positive.__name__
    return parse


def add_arguments(parser):
    names = [name for name, record in REGISTRY.items() if record.inputs.storage]  # the registry's, as it is now
    parser.add_argument("algo", metavar="ALGO", choices=names, help="one of: " + ", ".join(names))
    parser.add_argument("--N", type=positive, help="query rows (and keys, unless --N-kv); all but a paged batch")
    parser.add_argument("--N-kv", type=positive, dest="N_kv", help="keys and values (default: N)")
    parser.add_argument("--d", type=positive, default=64, help="head dimension (default 64)")
    parser.add_argument("--Br", type=positive, default=64, help="query rows per tile (default 64)")
    parser.add_argument("--Bc", type=positive, default=64, help="keys per tile (default 64)")
    parser.add_argument(
        "--splits",
        type=positive,
        help="K/V splits: flash decoding (default min(4, tiles)), paged decoding (default 1)",
    )
    parser.add_argument("--causal", action="store_true", help="causal masking, bottom-right aligned")
    dtypes = list(dict.fromkeys(t for r in REGISTRY.values() if r.inputs.storage for t in r.dtypes))
    own = "; ".join(
        f"{r.name}: {' or '.join(r.dtypes)}, default {r.dtypes[0]}" for r in REGISTRY.values() if r.dtypes_why
    )
    parser.add_argument("--dtype", choices=dtypes, help=f"storage dtype (default float32; {own})")
    parser.add_argument("--batch-heads", type=positive, default=1, dest="batch_heads", help="batch * heads")
    parser.add_argument("--seed", type=non_negative, default=0, help="seed of the random inputs, >= 0 (default 0)")
    parser.add_argument("--sram-budget", type=positive, dest="sram_budget", help="SRAM bytes a block may use")
    parser.add_argument("--gpu", metavar="GPU", type=str.lower, help="add the roofline on this GPU (a100 ... b200)")
    paged = parser.add_argument_group("a paged batch (instead of --N, --N-kv, --Br, --Bc, --causal, --batch-heads)")
    paged.add_argument("--seq-lens", type=_lengths, dest="seq_lens", help="the batch's lengths, e.g. 5,17,9")
    paged.add_argument("--page-size", type=positive, dest="page_size", default=16, help="tokens a page (default 16)")
    paged.add_argument("--H-q", type=positive, dest="H_q", default=1, help="query heads (default 1)")
    paged.add_argument("--H-kv", type=positive, dest="H_kv", help="K/V heads, dividing H_q (default H_q)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--allow-long",
        action="store_true",
        dest="allow_long",
        help=f"run past {WORK_LIMIT:,} tile steps (minutes to days of NumPy; refused without it)",
    )
    parser.add_argument("--save", metavar="FILE.npz", type=output_file, help="write q, k, v, o (and lse) to FILE.npz")
    _option_arguments(parser)


def _flag(option):
    return "--" + option.name.replace("_", "-")


def _option_arguments(parser):
    """A flag for each option of the registry's algorithms (algorithm.Option) that the flags above do not give."""
    taken = set(parser._option_string_actions)
    for record in REGISTRY.values():
        for option in record.options:
            if (flag := _flag(option)) in taken:
                continue
            taken.add(flag)
            what = f"{record.name}: {option.help}"
            if option.kind is bool:
                parser.add_argument(flag, action="store_true", dest=option.name, help=what)
            else:
                kind = _checked(option) if option.kind is int else option.kind
                parser.add_argument(flag, type=kind, choices=option.choices or None, dest=option.name, help=what)


def main(args):
    import sys

    import numpy as np

    from kernelviz.attention import blocks, footprint, formulas, run
    from kernelviz.attention._inputs import itemsize, stored
    from kernelviz.attention.runs import storage

    if problem := _options_problem(args):
        print(f"kernelviz trace: error: {problem}", file=sys.stderr)
        return 2
    try:
        args.dtype = storage(args.algo, args.dtype)  # fa2-mma's default is float16
    except ValueError as e:
        print(f"kernelviz trace: error: {e}", file=sys.stderr)
        return 2
    if args.gpu is not None and (problem := _gpu_problem(args.gpu)):
        print(f"kernelviz trace: error: {problem}", file=sys.stderr)
        return 2
    record = REGISTRY[args.algo]
    if record.command is not None:  # inputs of its own (a batch in a paged cache): its own command
        import importlib

        return importlib.import_module(record.command).main(args, _roofline(args.gpu))
    n_kv = args.N_kv or args.N
    if too_big := _memory_problem(args, n_kv, footprint):
        print(f"kernelviz trace: error: {too_big}", file=sys.stderr)
        return 2
    if too_long := _work(args, n_kv):
        print(f"kernelviz trace: {too_long}", file=sys.stderr)
        if too_long.startswith("error:"):
            return 2
    given = dict(N=args.N, N_kv=n_kv, d=args.d, Br=args.Br, Bc=args.Bc, causal=args.causal)
    given["batch_heads"] = args.batch_heads
    for option in record.options:  # its own options (other algorithms ignore --splits)
        if (value := getattr(args, option.name, None)) not in (None, False) or option.default is not None:
            given[option.name] = option.default if value in (None, False) else value
    try:
        with _progress(args, n_kv, record, given):
            done = run(args.algo, seed=args.seed, dtype=args.dtype, sram_budget=args.sram_budget, **given)
    except ValueError as e:
        print(f"kernelviz trace: error: {e}", file=sys.stderr)
        return 2
    result, (q, k, v) = done.result, done.inputs.values()

    sizes = dict(N_kv=n_kv, itemsize=itemsize(args.dtype), batch_heads=args.batch_heads)
    # measured against its baseline (a backward pass: the standard backward) and its own minimum
    against = baseline(record)
    measure = formulas.total(against.bytes(args.N, args.d, args.Br, args.Bc, causal=args.causal, **sizes))
    compulsory = formulas.total(record.minimum(args.N, args.d, **sizes))
    ledger = result.ledger
    report = dict(
        algorithm=args.algo,
        params=dict(N=args.N, N_kv=n_kv, d=args.d, batch_heads=args.batch_heads, seed=args.seed, **result.params),
        **ledger.summary(),
        standard_bytes=measure,
        compulsory_bytes=compulsory,
        vs_standard=ledger.total_bytes / measure,
        vs_compulsory=ledger.total_bytes / compulsory,
    )
    device = None
    if args.gpu is not None:
        from kernelviz.commands.roofline import family
        from kernelviz.roofline import bound, gpu
        from kernelviz.roofline.units import units

        device = gpu(args.gpu)
        report["roofline"] = bound(ledger.total_bytes, ledger.flops.by_kind, device)
        shared = report["shared"]["total"] if "shared" in report and record.shared_unit else None  # a unit there
        at = family(record, device)
        report["units"] = units(ledger.total_bytes, ledger.flops.by_kind, device, at, shared)
    if record.per_block is not None:
        report["kv_tiles_per_block"] = blocks.tiles_per_block(result)
        if device is not None:  # the grid the kernel launches, dealt to the GPU's SMs (attention.blocks)
            work = blocks.grid(args.algo, report["kv_tiles_per_block"], args.batch_heads)
            report["schedule"] = blocks.schedule(work, device.sms)
    if args.save:
        arrays = dict(q=stored(q, args.dtype), k=stored(k, args.dtype), v=stored(v, args.dtype), o=result.o)
        if result.lse is not None:
            arrays["lse"] = result.lse
        for name in ("do", "dq", "dk", "dv"):  # a backward pass: the dO it drew and the gradients
            if getattr(result, name, None) is not None:
                arrays[name] = getattr(result, name)
        try:
            with open(args.save, "wb") as f:  # a file object: np.savez would add .npz to a name without it
                np.savez(f, **arrays)
        except OSError as e:
            print(f"kernelviz trace: error: cannot write {args.save}: {e.strerror}", file=sys.stderr)
            return 2
    print(json.dumps(report) if args.json else _table(report))
    return 0


def _roofline(key):
    """(total_bytes, flops_by_kind) -> the bound on GPU `key` (None: no --gpu)."""
    if key is None:
        return None
    from kernelviz.roofline import bound, gpu

    return lambda total_bytes, flops: bound(total_bytes, flops, gpu(key))


def _gpu_problem(key):
    """Why `key` names no GPU of the roofline's table, or None."""
    from kernelviz.roofline import gpu

    try:
        gpu(key)
    except ValueError as e:
        return str(e)
    return None


def _options_problem(args):
    """Which options do not go with the algorithm asked for (a sentence), or None: a batch's options with an
    algorithm on q, k, v and the reverse, and the options of other algorithms (their records')."""
    record = REGISTRY[args.algo]
    if record.inputs is not DENSE:
        options = (("--N", args.N), ("--N-kv", args.N_kv), ("--causal", args.causal))
        given = [name for name, value in options if value]
        if given:
            return f"{args.algo} takes --seq-lens, not {', '.join(given)}"
        return None if args.seq_lens else f"{args.algo} needs --seq-lens (the batch's lengths, e.g. 5,17,9)"
    if args.seq_lens or args.H_kv:
        batched = " and ".join(r.name for r in REGISTRY.values() if r.inputs.storage and r.inputs is not DENSE)
        return f"--seq-lens and --H-kv are {batched} options, not {args.algo}'s"
    stray = {}  # {owner: [flags]} of the options given that are another algorithm's
    for other in REGISTRY.values():
        for option in other.options:
            flag, value = _flag(option), getattr(args, option.name, None)
            mine = record.option(option.name) is not None or option.lenient
            if value and not mine and not any(flag in f for f in stray.values()):
                stray.setdefault(other.name, []).append(flag)
    for name, flags in stray.items():
        other = REGISTRY[name]
        known = f" ({other.known_as})" if other.known_as else ""
        return f"{' and '.join(flags)}: {other.name}'s options{known}, not {args.algo}'s"
    return None if args.N else f"{args.algo} needs --N (query rows)"


ESTIMATE_FROM = 3.0  # seconds of work past which trace says on stderr how long to expect


def _work(args, n_kv):
    """A line for stderr about a long run: "error: ..." refusing one past WORK_LIMIT tile steps (without
    --allow-long), how long one of more than ESTIMATE_FROM seconds will take, or None."""
    from kernelviz.attention import runs

    sizes = (args.N, args.d, args.Br, args.Bc, n_kv, args.causal, args.batch_heads)
    steps = runs.tile_steps(args.algo, args.N, args.Br, args.Bc, n_kv, args.causal, args.batch_heads)
    about = runs.seconds(args.algo, steps, args.Br, args.Bc, args.d)
    if not args.allow_long and (problem := runs.too_long(args.algo, *sizes)):
        return (
            f"error: {problem}: kernelviz roofline {_roofline_args(args)} gives every algorithm's bytes and FLOPs "
            "from the closed forms at any size at once; or choose a smaller --N (the steps grow as N x N_kv), "
            "or add --allow-long to run it anyway"
        )
    if about < ESTIMATE_FROM:
        return None
    return f"{args.algo} computes {steps:,} tile steps of {args.Br}x{args.Bc}: about {runs.duration(about)} in NumPy"


def _roofline_args(args):
    """The arguments of ``kernelviz roofline`` for the sizes of this trace."""
    given = [f"--N {args.N}", f"--d {args.d}"]
    given += [f"--{flag} {value}" for flag, value in (("N-kv", args.N_kv), ("batch-heads", args.batch_heads))
              if value and value != 1]  # fmt: skip
    given += [f"--Br {args.Br}"] * (args.Br != 64) + [f"--Bc {args.Bc}"] * (args.Bc != 64)
    return " ".join(given + ["--causal"] * args.causal)


@contextlib.contextmanager
def _progress(args, n_kv, record, given):
    """A bar of the bytes the run has moved, on a terminal only (``kernelviz.progress``: it shows after a couple of
    seconds and clears itself): the total is the closed form's (the record's, at the `given` sizes), which the
    ledger meets exactly."""
    from kernelviz.attention import formulas
    from kernelviz.attention._inputs import itemsize
    from kernelviz.attention.ledger import observing
    from kernelviz.progress import bar

    sizes = dict(N_kv=n_kv, causal=args.causal, itemsize=itemsize(args.dtype), batch_heads=args.batch_heads)
    extra = {}
    for option in record.options:  # those the closed forms take, as the function runs with them
        if option.formula and (option.name in given or option.counted_as is not None):
            extra[option.argument] = option.counted_as(given) if option.counted_as else given[option.name]
    try:
        total = formulas.total(record.bytes(args.N, args.d, args.Br, args.Bc, **extra, **sizes))
    except (ValueError, ZeroDivisionError):
        total = None  # the algorithm will say what is wrong
    with bar(total=total, desc=f"trace {args.algo}", unit="B", unit_scale=True) as shown, observing(shown.update):
        yield


def _memory_problem(args, n_kv, footprint):
    """Why this run would not fit in the memory available (a sentence saying what would), or None."""
    from kernelviz.attention._inputs import itemsize

    splits = min(args.splits or 4, math.ceil(n_kv / args.Bc))
    item = itemsize(args.dtype)
    need, parts = footprint.estimate(
        args.algo, args.N, n_kv, args.d, args.batch_heads, args.Br, args.Bc, item, splits, save=bool(args.save)
    )
    have = footprint.available()
    if have is None or need <= have:
        return None
    biggest = max(parts, key=parts.get)
    lighter = REGISTRY[args.algo].lighter
    advice = f", or {lighter}" if lighter else ""
    return (
        f"{args.algo} at N={args.N} N_kv={n_kv} d={args.d} batch*heads={args.batch_heads} needs about "
        f"{footprint.gib(need)} of memory ({biggest}: {footprint.gib(parts[biggest])}) and "
        f"{footprint.gib(have)} is available: use a smaller --N, --N-kv, --d or --batch-heads{advice}"
    )


def _table(report):
    """The report for people: a unit on every number, and each ratio said in the direction it goes."""
    from kernelviz.attention._inputs import itemsize

    p = report["params"]
    shown = ("Br", "Bc", "n_splits", "partials", "warps", "causal", "dtype", "p_in_shared")
    lines = [
        f"{report['algorithm']}: N={p['N']} N_kv={p['N_kv']} d={p['d']} batch*heads={p['batch_heads']} "
        + " ".join(f"{k}={v}" for k, v in p.items() if k in shown),
        f"  ({p['N']} query rows, {p['N_kv']} key/value rows, {p['d']} elements per row, "
        f"{itemsize(p.get('dtype'))} B per element)",
        f"{'HBM traffic':<12}{'read':>18}{'write':>18}",
    ]
    for name, t in report["per_tensor"].items():
        lines.append(f"{name:<12}{t['read']:>16,} B{t['write']:>16,} B")
    total, measure, compulsory = report["total_bytes"], report["standard_bytes"], report["compulsory_bytes"]
    against = baseline(REGISTRY[report["algorithm"]]).title
    lines += [
        f"{'total':<12}{total:>34,} B ({size(total)})",
        f"vs {against} ({measure:,} B, {size(measure)}): {ratio(total, measure, against)}",
        f"vs compulsory minimum ({compulsory:,} B, {size(compulsory)}): "
        + ratio(total, compulsory, "the compulsory minimum"),
        f"peak SRAM per block: {report['peak_sram_bytes']:,} B ({size(report['peak_sram_bytes'])})",
        "FLOPs: " + ", ".join(f"{kind} {n:,} FLOP" for kind, n in report["flops"].items()),
    ]
    if shared := report.get("shared"):
        per = shared["per_tensor"]
        lines.append(
            f"shared memory traffic: {shared['total']:,} B ({size(shared['total'])}): stored {shared['store']:,} B, "
            f"loaded {shared['load']:,} B; "
            + ", ".join(f"{t} {sl['store'] + sl['load']:,} B" for t, sl in per.items())
            + (" (P stays in registers)" if per.get("P", {}).get("store") == 0 else "")
        )
    if roof := report.get("roofline"):
        lines.append(on_gpu(roof))
    if answer := report.get("units"):
        from kernelviz.roofline.units import words

        lines.append(f"unit by unit on {answer['gpu']} (count / rate = least time): bound by {answer['bound']}")
        lines += words(answer)
    if "kv_tiles_per_block" in report:
        visits = report["kv_tiles_per_block"]
        lines.append(
            f"K/V tiles per block of query rows: {visits[0]} tiles (the first block) to {visits[-1]} tiles "
            f"(the last of {len(visits)} blocks), {sum(visits):,} tiles in all"
        )
    if grid := report.get("schedule"):
        lines.append(
            f"grid of {grid['blocks']:,} blocks on {grid['sms']} SMs: the last ends at {grid['launch_order']:,} tiles "
            f"in launch order, {grid['heaviest_first']:,} tiles heaviest first (at least {grid['lower_bound']:,} tiles)"
        )
    return "\n".join(lines)
