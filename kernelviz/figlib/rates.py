"""The rates a timeline's actions run at on one SM of a GPU, from the table the roofline plots (roofline/gpus.json,
read as data: it is shipped to the browser beside this package, so CPython and Pyodide read the same numbers).

One block is drawn on one SM, and the SM gets its share of the GPU (every SM busy with a block of its own):

    hbm     bytes/s      HBM bandwidth / SMs
    tensor  FLOP/s       dense fp16/bf16 tensor-core peak / SMs
    sfu     results/s    special-function units (exp2): 16 results a clock an SM (CUDA C++ Programming Guide,
                         "Arithmetic Instructions" throughput table, compute capability 8.0 and 9.0) x the clock

The table gives the SFU rate (``sfu_ops_per_s``) or the clock (``clock_hz``) where it has them; otherwise the clock is
the one its FP32 peak implies: FP32 FLOP/s / (SMs x 2 x FP32 lanes an SM), 64 lanes an SM on compute capability 8.0
(A100), 128 on 9.0 (H100, H200) (same table).
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


def unit_rates(gpu, path=GPUS_FILE):
    """{rate key: per second} of one SM of `gpu` (a key of gpus.json such as "h100", or its index in ``GPUS``), and
    the GPU's name: (rates, name). Raises ValueError naming the GPUs there are for an unknown one."""
    table = json.loads(Path(path).read_text(encoding="utf-8"))["gpus"]
    key = GPUS[gpu] if isinstance(gpu, int) and 0 <= gpu < len(GPUS) else gpu
    if key not in table:
        raise ValueError(f"unit_rates: gpu {gpu!r} is not one of {list(table)} (or an index 0 to {len(GPUS) - 1})")
    entry = table[key]
    sms = _value(entry, "sms")
    sfu = _value(entry, "sfu_ops_per_s")
    if sfu is None:
        clock = _value(entry, "clock_hz") or _value(entry, "fp32_flops_per_s") / (sms * 2 * FP32_LANES[key])
        sfu = SFU_PER_CLOCK * sms * clock
    rates = {
        "hbm": _value(entry, "hbm_bytes_per_s") / sms,
        "tensor": _value(entry, "tensor_flops_per_s") / sms,
        "sfu": sfu / sms,
    }
    return rates, entry["name"]
