"""The rates a timeline's actions run at on one SM of a GPU, from the table the roofline plots (roofline/gpus.json,
read as data: it is shipped to the browser beside this package, so CPython and Pyodide read the same numbers).

One block is drawn on one SM, and the SM gets its share of the GPU (every SM busy with a block of its own):

    hbm     bytes/s      HBM bandwidth / SMs
    tensor  FLOP/s       dense fp16/bf16 tensor-core FLOP/s of the kernel's instruction (``mma.sync`` unless told:
                         on the H100 and H200 it reaches 2/3 of the wgmma peak, per the table) / SMs
    sfu     results/s    special-function units (exp2): results a clock an SM (16, CUDA C++ Programming Guide's
                         throughput table) x the boost clock
    smem    bytes/s      shared memory: bytes a clock an SM (128: 32 banks of 4 bytes) x the boost clock

A table without the per-clock figures (an older gpus.json) gives the SFU 16 results a clock at the clock its FP32
peak implies, FP32 FLOP/s / (SMs x 2 x FP32 lanes an SM: 64 on compute capability 8.0, 128 on 9.0), and no smem rate.
"""

import json
from pathlib import Path

GPUS_FILE = Path(__file__).resolve().parents[1] / "roofline" / "gpus.json"
GPUS = ("a100", "h100", "h200")  # the order of a page's picker: gpu = 0, 1, 2
SFU_PER_CLOCK = 16  # exp2 results a clock an SM, compute capability 8.0 and 9.0
FP32_LANES = {"a100": 64, "h100": 128, "h200": 128}  # FP32 results a clock an SM


def _value(entry, name):
    figure = entry.get(name)
    return figure["value"] if isinstance(figure, dict) else figure


def unit_rates(gpu, instruction="mma.sync", path=GPUS_FILE):
    """{rate key: per second} of one SM of `gpu` (a key of gpus.json such as "h100", or its index in ``GPUS``), the
    tensor cores at `instruction`'s rate where the table gives one, and the GPU's name: (rates, name). Raises
    ValueError naming the GPUs there are for an unknown one."""
    table = json.loads(Path(path).read_text(encoding="utf-8"))["gpus"]
    key = GPUS[gpu] if isinstance(gpu, int) and 0 <= gpu < len(GPUS) else gpu
    if key not in table:
        raise ValueError(f"unit_rates: gpu {gpu!r} is not one of {list(table)} (or an index 0 to {len(GPUS) - 1})")
    entry = table[key]
    sms = _value(entry, "sms")
    clock = _value(entry, "clock_hz")
    if clock is None:
        clock = _value(entry, "fp32_flops_per_s") / (sms * 2 * FP32_LANES[key])
    tensor = _value(entry.get("tensor_flops_per_s_by_instruction", {}), instruction)
    rates = {
        "hbm": _value(entry, "hbm_bytes_per_s") / sms,
        "tensor": (tensor or _value(entry, "tensor_flops_per_s")) / sms,
        "sfu": (_value(entry, "sfu_ops_per_clock_per_sm") or SFU_PER_CLOCK) * clock,
    }
    if _value(entry, "shared_bytes_per_clock_per_sm"):
        rates["smem"] = _value(entry, "shared_bytes_per_clock_per_sm") * clock
    return rates, entry["name"]
