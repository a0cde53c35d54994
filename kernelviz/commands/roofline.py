"""`kernelviz roofline`: every algorithm's bytes, FLOPs, intensity, bound and lower-bound time on each GPU.

The bytes and FLOPs come from the closed forms (``attention.formulas``, ``attention.flops``), which the tests hold
equal to what the algorithms count as they run; they sum over tiles without visiting them (``formulas.visited_sums``),
so any size answers at once: N = 10^9 included (sizes may be written 1e9).
"""

import json

from kernelviz.attention.words import TIME_UNITS, size
from kernelviz.commands.checks import positive

HELP = "print what bounds each attention algorithm (memory or compute) on each GPU, and its lower-bound time"


def add_arguments(parser):
    from kernelviz.roofline import GPUS

    parser.add_argument("--N", type=positive, required=True, help="query rows (and keys, unless --N-kv)")
    parser.add_argument("--N-kv", type=positive, dest="N_kv", help="keys and values (default: N)")
    parser.add_argument("--d", type=positive, default=64, help="head dimension (default 64, as trace's)")
    parser.add_argument("--Br", type=positive, default=64, help="query rows per tile (default 64)")
    parser.add_argument("--Bc", type=positive, default=64, help="keys per tile (default 64)")
    parser.add_argument("--splits", type=positive, help="flash decoding: K/V splits (default min(4, tiles))")
    parser.add_argument("--causal", action="store_true", help="causal masking, bottom-right aligned")
    parser.add_argument(
        "--dtype",
        choices=("float16", "float32", "bfloat16"),
        default="float16",
        help="storage (default float16); float32 and bfloat16 leave out the algorithms that do not take them, as "
        "in trace (tensor cores take 16-bit storage only)",
    )
    parser.add_argument("--batch-heads", type=positive, default=1, dest="batch_heads", help="batch * heads")
    parser.add_argument("--gpu", choices=sorted(GPUS), action="append", help="a GPU (default: all; repeatable)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def table(N, d, Br=64, Bc=64, N_kv=None, causal=False, itemsize=2, batch_heads=1, splits=None, gpus=None):
    """[{algorithm, bytes, flops (by kind), bounds: {gpu: roofline.bound(...)}, units: {gpu: units.units(...)}}] for
    every algorithm on q, k and v with closed forms (``rooflined``: the registry's order) that takes storage of
    `itemsize` bytes; shared bytes where the algorithm's record has a closed form of its shared-memory traffic, at
    its options' defaults."""
    from kernelviz.attention import formulas
    from kernelviz.roofline import GPUS, bound
    from kernelviz.roofline.units import units

    N_kv = N if N_kv is None else N_kv
    rows = []
    for record in rooflined(itemsize):
        sizes = dict(N_kv=N_kv, causal=causal, batch_heads=batch_heads, **counted(record, N_kv, Bc, splits))
        nbytes = formulas.total(record.bytes(N, d, Br, Bc, itemsize=itemsize, **sizes))
        flops = record.flops(N, d, Br, Bc, **sizes)
        bounds = {key: bound(nbytes, flops, GPUS[key]) for key in gpus or GPUS}
        name, shared = record.name, None
        if record.shared is not None:
            traffic = record.shared(N, d, Br, Bc, itemsize=itemsize, **sizes)
            shared = sum(sl["store"] + sl["load"] for sl in traffic.values())
        per_unit = {key: units(nbytes, flops, GPUS[key], family(record, GPUS[key]), shared) for key in gpus or GPUS}
        row = {"algorithm": name, "bytes": nbytes, "flops": flops, "bounds": bounds, "units": per_unit}
        rows.append({**row, **({"shared_bytes": shared} if shared is not None else {})})
    return rows


def rooflined(itemsize):
    """The records of the registry the table has a row for: those on q, k and v (a batch of paged sequences has no
    N) with closed forms of bytes and FLOPs, that take a storage dtype of `itemsize` bytes (``record.dtypes``)."""
    from kernelviz.attention._inputs import itemsize as width
    from kernelviz.attention.algorithm import DENSE
    from kernelviz.attention.topics import REGISTRY

    return [
        r
        for r in REGISTRY.values()
        if r.inputs is DENSE and r.bytes is not None and r.flops is not None and any(
            width(dtype) == itemsize for dtype in r.dtypes)
    ]  # fmt: skip


def counted(record, N_kv, Bc, splits):
    """{keyword: value} of the record's options its closed forms take, as a run counts them (``counted_as``: the
    splits flash decoding runs with, given `splits` or not); options without a count keep their defaults."""
    given = {"N_kv": N_kv, "Bc": Bc, **({"splits": splits} if splits else {})}
    return {o.argument: o.counted_as(given) for o in record.options if o.formula and o.counted_as is not None}


def family(record, device):
    """The tensor-core instruction family `record`'s kernel issues, where `device` has a stated rate for it; else None
    (the fastest: an algorithm no kernel pins down, or mma.sync on the B200, whose rate no source states)."""
    known = record.instruction in device.tensor_flops_per_s_by_instruction
    return record.instruction if known else None


def main(args):
    itemsize = 4 if args.dtype == "float32" else 2
    rows = table(args.N, args.d, args.Br, args.Bc, args.N_kv, args.causal, itemsize, args.batch_heads, args.splits,
                 args.gpu)  # fmt: skip
    if args.dtype == "bfloat16":  # the algorithms that take it (runs.DTYPES): tensor cores' fa2-mma alone
        from kernelviz.attention.runs import storage

        rows = [row for row in rows if _takes(storage, row["algorithm"], args.dtype)]
    if args.json:
        params = dict(N=args.N, N_kv=args.N_kv or args.N, d=args.d, Br=args.Br, Bc=args.Bc, causal=args.causal,
                      dtype=args.dtype, batch_heads=args.batch_heads)  # fmt: skip
        print(json.dumps({"params": params, "algorithms": rows}))
        return 0
    print(_text(rows, args))
    return 0


def _takes(storage, algo, dtype):
    try:
        storage(algo, dtype)
    except ValueError:
        return False
    return True


def _text(rows, args):
    from kernelviz.roofline import GPUS

    head = (
        f"roofline: N={args.N} N_kv={args.N_kv or args.N} d={args.d} Br={args.Br} Bc={args.Bc} "
        f"batch*heads={args.batch_heads} causal={args.causal} dtype={args.dtype}"
    )
    name = max(16, *(len(row["algorithm"]) + 1 for row in rows))  # the widest name, and a space
    lines = [head, f"{'algorithm':<{name}}{'bytes':>12}{'FLOPs':>12}{'FLOP/B':>9}  " + "  ".join(
        f"{GPUS[key].name + ': bound, time':<34}" for key in rows[0]["bounds"])]  # fmt: skip
    for row in rows:
        cells = [
            f"{b['bound']:<14}{_seconds(b['lower_bound_s']):>10} ({b['attained_flops_per_s'] / 1e12:.0f} TF/s)"
            for b in row["bounds"].values()
        ]
        intensity = next(iter(row["bounds"].values()))["intensity"]
        work = sum(row["flops"].values())
        lines.append(f"{row['algorithm']:<{name}}{size(row['bytes']):>12}{work:>12.3g}{intensity:>9.1f}  " + "  ".join(
            f"{c:<34}" for c in cells))  # fmt: skip
    lines.append(
        "time: a lower bound (the busiest unit at its peak); TF/s: the FLOP rate a kernel at that bound attains"
    )
    from kernelviz.roofline.units import words

    for row in rows:
        for key, answer in row["units"].items():
            lines.append(
                f"{row['algorithm']} on {key}, unit by unit (count / rate = least time): bound by {answer['bound']}"
            )
            lines += words(answer)
    return "\n".join(lines)


def _seconds(s):
    """A time in the unit that reads best: "3.2 ms", "4.1 h", "68.2 days"."""
    for unit, scale in TIME_UNITS:
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"
