"""What bounds a kernel unit by unit: each resource's count over the rate of the unit that serves it.

A kernel that moves B bytes through HBM, S bytes through shared memory (stored and loaded), does M matmul FLOPs on
tensor cores with instruction family F, E exponentials and logarithms on the special-function units (MUFU) and X
other floating-point operations on the CUDA cores cannot finish sooner than any one unit alone allows:

    t_HBM = B / hbm_bytes_per_s            t_shared = S / (sms * shared_bytes_per_clock_per_sm * clock_hz)
    t_tensor = M / tensor rate of F        t_MUFU = E / (sms * sfu_ops_per_clock_per_sm * clock_hz)
    t_other = X / fp32_flops_per_s

and the largest of them is the bound (each unit at its peak, the others hidden under it: a lower bound, never an
estimate). The rates are ``gpus.json``'s, each cited there. F is the family the kernel issues (``mma.sync`` for the
book's tensor-core kernel) or, for an algorithm no kernel pins down, the fastest the GPU has; the JSON carries the
tensor time of every family the GPU has (``tensor_s_by_family``), the ceilings the plot draws. Shared memory is a
unit only where the caller gives ``shared_bytes``: the tensor-core kernels whose ledger counts it
(``Algorithm.shared_unit``), not the book's scalar kernels, whose traffic is reported but not set beside a roof.
"""

HBM, SHARED, TENSOR, MUFU, OTHER = "HBM", "shared memory", "tensor cores", "exponentials (MUFU)", "other (CUDA cores)"
UNITS = (HBM, SHARED, TENSOR, MUFU, OTHER)
COUNTS = {HBM: "bytes", SHARED: "shared", TENSOR: "matmul", MUFU: "exp", OTHER: "other"}  # the page's (units.js)


def rates(device, family=None):
    """{unit: (rate per second, what is counted)} on `device`, the tensor cores at instruction `family` (default:
    the fastest); ValueError naming the families when the GPU has not `family`."""
    by_family = device.tensor_flops_per_s_by_instruction
    if family is not None and family not in by_family:
        raise ValueError(f"{device.key} runs no {family}: its tensor-core instructions are {', '.join(by_family)}")
    return {
        HBM: (device.hbm_bytes_per_s, "bytes"),
        SHARED: (device.shared_bytes_per_s, "bytes"),
        TENSOR: (by_family[family] if family else device.tensor_flops_per_s, "matmul FLOPs"),
        MUFU: (device.sfu_ops_per_s, "exponentials"),
        OTHER: (device.fp32_flops_per_s, "FLOPs"),
    }


def units(total_bytes, flops, device, family=None, shared_bytes=None):
    """Each unit's least time for `total_bytes` of HBM traffic, `flops` ({"matmul", "exp", "other"}) and, where
    counted, `shared_bytes` of shared-memory traffic on `device`:
    {"gpu", "family", "units": {unit: {count, counts, rate, seconds}}, "bound", "lower_bound_s", "tensor_s_by_family"}.
    """
    family = family or max(device.tensor_flops_per_s_by_instruction, key=device.tensor_flops_per_s_by_instruction.get)
    counts = {
        HBM: total_bytes,
        SHARED: shared_bytes,
        TENSOR: flops["matmul"],
        MUFU: flops["exp"],
        OTHER: flops["other"],
    }
    table = {}
    for unit, (rate, what) in rates(device, family).items():
        if counts[unit] is None:  # shared memory, where the ledger does not count it
            continue
        table[unit] = {"count": counts[unit], "counts": what, "rate": rate, "seconds": counts[unit] / rate}
    limit = max(table, key=lambda u: table[u]["seconds"])
    return {
        "gpu": device.key,
        "family": family,
        "units": table,
        "bound": limit,
        "lower_bound_s": table[limit]["seconds"],
        "tensor_s_by_family": {f: flops["matmul"] / r for f, r in device.tensor_flops_per_s_by_instruction.items()},
    }


def words(answer):
    """One line per unit and the bound, for the command lines: "  HBM  1.2 MB / 2.04 TB/s = 0.6 µs"."""
    lines = []
    for unit, u in answer["units"].items():
        name = f"{unit} ({answer['family']})" if unit == TENSOR else unit
        mark = "  <- the bound" if unit == answer["bound"] else ""
        count, rate = _amount(u["count"], u["counts"]), _amount(u["rate"] / 1e12, u["counts"], "T")
        lines.append(f"  {name:<26}{count:>22} / {rate}/s = {_s(u['seconds'])}{mark}")
    return lines


_SYMBOLS = {"bytes": "B", "matmul FLOPs": "FLOP", "FLOPs": "FLOP", "exponentials": "exp"}


def _amount(n, counts, prefix=""):
    """`n` of what `counts` names, with its unit: "295,936 B", "3.35 TB" (a rate, in tera with `prefix` "T")."""
    number = f"{n:.3g}" if prefix else f"{n:,}"
    return f"{number} {prefix}{_SYMBOLS[counts]}"


def _s(seconds):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"
