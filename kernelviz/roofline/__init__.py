"""The roofline: what bounds an attention algorithm on a GPU, from the bytes its ledger moves and the FLOPs it counts.

A kernel that moves B bytes between HBM and the chip, does M matmul FLOPs and X other FLOPs (exponentials and
elementwise work, ``attention.ledger.Flops``) cannot finish sooner than the busiest unit allows:

    t >= max(B / HBM bandwidth,  M / tensor-core peak,  X / fp32 peak)

The unit that sets the maximum bounds the kernel: "memory", "tensor cores" or "CUDA cores". Matmuls are taken at
the dense fp16/bf16 tensor-core rate whatever the storage dtype (the rate the real kernels use), and
exponentials at the fp32 rate, which the special-function units do not reach: both make the time a lower bound,
never an estimate. The arithmetic intensity is I = (M + X) / B FLOPs per byte; a point (I, F/t) lies on or under
the roof min(peak, I * bandwidth) of each GPU.

The GPUs' figures are in ``gpus.json`` beside this file, each with the document it comes from. Beside the roofs it
holds per-unit rates (``RATES``): the boost clock, dense tensor-core FLOP/s by PTX instruction family, special-function
(MUFU) results and shared-memory bytes per clock per SM; the GPU's properties turn them into per-second and per-SM rates
(``sfu_ops_per_s = sms * sfu_ops_per_clock_per_sm * clock_hz`` and so on).
"""

import json
from dataclasses import dataclass
from pathlib import Path

GPUS_FILE = Path(__file__).with_name("gpus.json")
FIGURES = ("hbm_bytes_per_s", "tensor_flops_per_s", "fp32_flops_per_s", "shared_kib_per_sm", "sms")
RATES = ("clock_hz", "tensor_flops_per_clock_per_sm", "sfu_ops_per_clock_per_sm", "shared_bytes_per_clock_per_sm")
BY_INSTRUCTION = "tensor_flops_per_s_by_instruction"


@dataclass(frozen=True)
class GPU:
    key: str
    name: str
    hbm_bytes_per_s: float
    tensor_flops_per_s: float
    fp32_flops_per_s: float
    shared_kib_per_sm: int
    sms: int
    sources: dict  # figure -> {"title", "url", "kind", "as_printed"}; "by_instruction.<family>" for the families
    clock_hz: float = 0.0
    tensor_flops_per_clock_per_sm: int = 0
    sfu_ops_per_clock_per_sm: int = 0
    shared_bytes_per_clock_per_sm: int = 0
    tensor_flops_per_s_by_instruction: dict = None  # {"mma.sync" | "wgmma" | "tcgen05.mma": dense FLOP/s}

    @property
    def ridge(self):
        """FLOPs per byte where the tensor-core roof meets the memory roof."""
        return self.tensor_flops_per_s / self.hbm_bytes_per_s

    @property
    def sfu_ops_per_s(self):
        """Special-function results (exp2, log2, reciprocal, ...) per second: sms * per-clock-per-SM * clock."""
        return self.sms * self.sfu_ops_per_clock_per_sm * self.clock_hz

    @property
    def shared_bytes_per_s_per_sm(self):
        """Shared-memory bytes one SM reads or writes per second: bytes per clock per SM * clock."""
        return self.shared_bytes_per_clock_per_sm * self.clock_hz

    @property
    def shared_bytes_per_s(self):
        """Shared-memory bytes per second over all SMs."""
        return self.sms * self.shared_bytes_per_s_per_sm

    @property
    def hbm_bytes_per_s_per_sm(self):
        """One SM's even share of the HBM bandwidth."""
        return self.hbm_bytes_per_s / self.sms

    def tensor_flops_per_s_per_sm(self, family=None):
        """One SM's dense fp16/bf16 tensor FLOP/s with instruction `family` (default: the fastest)."""
        rates = self.tensor_flops_per_s_by_instruction
        return (rates[family] if family else self.tensor_flops_per_s) / self.sms


def load(path=GPUS_FILE):
    """{key: GPU} from the table; ValueError naming the GPU and figure when a figure or its source is missing."""
    table = json.loads(Path(path).read_text())
    sources, gpus = table["sources"], {}

    def cite(key, figure, fig):
        if fig.get("source") not in sources:
            raise ValueError(f"{path}: {key}.{figure}: source {fig.get('source')!r} is not in 'sources'")
        return {**sources[fig["source"]], **{k: v for k, v in fig.items() if k not in ("value", "source")}}

    for key, entry in table["gpus"].items():
        values, cited = {}, {}
        for figure in FIGURES + RATES:
            if figure not in entry:
                raise ValueError(f"{path}: {key}: no {figure}")
            values[figure] = entry[figure]["value"]
            cited[figure] = cite(key, figure, entry[figure])
        families = entry.get(BY_INSTRUCTION) or {}
        if not families:
            raise ValueError(f"{path}: {key}: no {BY_INSTRUCTION}")
        for family, fig in families.items():
            cited[f"by_instruction.{family}"] = cite(key, f"{BY_INSTRUCTION}.{family}", fig)
        values[BY_INSTRUCTION] = {family: fig["value"] for family, fig in families.items()}
        gpus[key] = GPU(key, entry["name"], **values, sources=cited)
    return gpus


GPUS = load()


def gpu(key):
    """The GPU named `key` (case-insensitive: "h100"); ValueError listing the known ones."""
    if key.lower() not in GPUS:
        raise ValueError(f"gpu: expected one of {', '.join(GPUS)}, got {key!r}")
    return GPUS[key.lower()]


# The units of the classic roofline: {unit: (the counts it serves, summed; the GPU's figure that is its rate)}.
# ``bound`` reads it here and the browser reads it too (web/.gen/bound.js, written by ``roofline.js_bound``).
BOUND_UNITS = {
    "memory": (("bytes",), "hbm_bytes_per_s"),
    "tensor cores": (("matmul",), "tensor_flops_per_s"),
    "CUDA cores": (("exp", "other"), "fp32_flops_per_s"),
}


def bound(total_bytes, flops, device):
    """Where `total_bytes` moved and `flops` ({"matmul", "exp", "other"}) done put a kernel on `device`'s roofline:
    intensity, the time each unit needs (``BOUND_UNITS``: its counts over its rate), the lower bound on time, the
    unit that sets it (the first of the largest), and the FLOP/s a kernel at that bound attains."""
    work = sum(flops.values())
    count = {"bytes": total_bytes, **flops}
    times = {
        unit: sum(count[c] for c in counts) / getattr(device, rate) for unit, (counts, rate) in BOUND_UNITS.items()
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
