"""The roofline: what bounds an attention algorithm on a GPU, from the bytes its ledger moves and the FLOPs it counts.

A kernel that moves B bytes between HBM and the chip, does M matmul FLOPs and X other FLOPs (exponentials and
elementwise work, ``attention.ledger.Flops``) cannot finish sooner than the busiest unit allows:

    t >= max(B / HBM bandwidth,  M / tensor-core peak,  X / fp32 peak)

The unit that sets the maximum bounds the kernel: "memory", "tensor cores" or "CUDA cores". Matmuls are taken at
the dense fp16/bf16 tensor-core rate whatever the storage dtype (the rate the real kernels use), and
exponentials at the fp32 rate, which the special-function units do not reach: both make the time a lower bound,
never an estimate. The arithmetic intensity is I = (M + X) / B FLOPs per byte; a point (I, F/t) lies on or under
the roof min(peak, I * bandwidth) of each GPU.

The GPUs' figures are in ``gpus.json`` beside this file, each with the vendor document it comes from.
"""

import json
from dataclasses import dataclass
from pathlib import Path

GPUS_FILE = Path(__file__).with_name("gpus.json")
FIGURES = ("hbm_bytes_per_s", "tensor_flops_per_s", "fp32_flops_per_s", "shared_kib_per_sm", "sms")


@dataclass(frozen=True)
class GPU:
    key: str
    name: str
    hbm_bytes_per_s: float
    tensor_flops_per_s: float
    fp32_flops_per_s: float
    shared_kib_per_sm: int
    sms: int
    sources: dict  # figure -> {"title", "url", "as_printed"}

    @property
    def ridge(self):
        """FLOPs per byte where the tensor-core roof meets the memory roof."""
        return self.tensor_flops_per_s / self.hbm_bytes_per_s


def load(path=GPUS_FILE):
    """{key: GPU} from the table; ValueError naming the GPU and figure when a figure or its source is missing."""
    table = json.loads(Path(path).read_text())
    sources, gpus = table["sources"], {}
    for key, entry in table["gpus"].items():
        values, cited = {}, {}
        for figure in FIGURES:
            if figure not in entry:
                raise ValueError(f"{path}: {key}: no {figure}")
            fig = entry[figure]
            if fig.get("source") not in sources:
                raise ValueError(f"{path}: {key}.{figure}: source {fig.get('source')!r} is not in 'sources'")
            values[figure] = fig["value"]
            cited[figure] = {**sources[fig["source"]], "as_printed": fig["as_printed"]}
        gpus[key] = GPU(key, entry["name"], **values, sources=cited)
    return gpus


GPUS = load()


def gpu(key):
    """The GPU named `key` (case-insensitive: "h100"); ValueError listing the known ones."""
    if key.lower() not in GPUS:
        raise ValueError(f"gpu: expected one of {', '.join(GPUS)}, got {key!r}")
    return GPUS[key.lower()]


def bound(total_bytes, flops, device):
    """Where `total_bytes` moved and `flops` ({"matmul", "exp", "other"}) done put a kernel on `device`'s roofline:
    intensity, the time each unit needs, the lower bound on time, the unit that sets it, and the FLOP/s a kernel
    at that bound attains."""
    work = sum(flops.values())
    times = {
        "memory": total_bytes / device.hbm_bytes_per_s,
        "tensor cores": flops["matmul"] / device.tensor_flops_per_s,
        "CUDA cores": (flops["exp"] + flops["other"]) / device.fp32_flops_per_s,
    }
    limit = max(times, key=times.get)
    seconds = times[limit]
    return {
        "gpu": device.key,
        "bytes": total_bytes,
        "flops": work,
        "intensity": work / total_bytes if total_bytes else float("inf"),
        "seconds": times,
        "lower_bound_s": seconds,
        "bound": limit,
        "attained_flops_per_s": work / seconds if seconds else 0.0,
    }
