"""What one SM's units deliver, measured: the rates the roofline's per-unit bars divide by, against gpus.json.

The kernels of bench/units.cu each keep one unit busy (mma.sync tensor-core FLOPs, MUFU exponentials, shared-memory
loads) on every SM; the baseline is PyTorch's fp16 matrix product (cuBLAS; wgmma on Hopper), run in the same
process. Each row gives the rate reached, the same per clock per SM at the clock the kernel itself measured
(clock64() cycles over %globaltimer nanoseconds), that against gpus.json's figure for this GPU, and the ratio to
the baseline where both are FLOP/s. The question it answers: how far below the wgmma roof does mma.sync stop on
Hopper (the FA3 paper says about 2/3), and do MUFU and shared memory reach the rates the per-unit bars assume.

    python3 bench/units.py [--results bench/results/units.json]

Needs nvcc, PyTorch and CuPy with a GPU; without them it says why and exits 0 (1 with KERNELVIZ_REQUIRE_GPU=1).
The SASS of each kernel (cuobjdump, when there) is counted too, so the table shows the instruction it measured.
"""

import argparse
import datetime
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SOURCE = Path(__file__).with_name("units.cu")
CHAINS = 8  # units.cu's CHAINS
THREADS, BLOCKS_PER_SM = 256, 4  # 32 warps an SM: eight a sub-partition, enough to hide each unit's latency
SASS = {"mma_sync": "HMMA.16816.F32", "ex2": "MUFU.EX2", "lds": "LDS.128"}  # the instruction each one times


def problem():
    """Why this cannot run here, or None."""
    if shutil.which("nvcc") is None:
        return "nvcc is not on PATH"
    try:
        import cupy
        import torch
    except ImportError as e:
        return f"{e.name} does not import"
    if not torch.cuda.is_available() or cupy.cuda.runtime.getDeviceCount() < 1:
        return "no CUDA device"
    return None


def compile_cubin(arch, where):
    """units.cu built by nvcc for sm_`arch` into `where`; the path of the cubin."""
    cubin = Path(where) / f"units_sm{arch}.cubin"
    subprocess.run(["nvcc", "-cubin", f"-arch=sm_{arch}", "-O3", "-o", str(cubin), str(SOURCE)], check=True)
    return cubin


def sass_counts(cubin):
    """{kernel: how many of its timed instruction its SASS holds}, or {} without cuobjdump."""
    if shutil.which("cuobjdump") is None:
        return {}
    text = subprocess.run(["cuobjdump", "-sass", str(cubin)], capture_output=True, text=True, check=True).stdout
    counts, current = {}, None
    for line in text.splitlines():
        if "Function :" in line:
            current = line.split("Function :")[1].strip()
        elif current in SASS and SASS[current] in line:
            counts[current] = counts.get(current, 0) + 1
    return counts


def timed(launch, reps=7):
    """Median seconds of launch() over `reps` runs after a warm-up, CUDA events around each."""
    import torch

    launch()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        launch()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def unit(module, name, sms, iters):
    """(seconds, SM clock in Hz as the kernel measured it) of kernel `name` on every SM for `iters` rounds."""
    import cupy

    blocks = sms * BLOCKS_PER_SM
    out = cupy.zeros(blocks * THREADS, dtype=cupy.float32)
    clocks = cupy.zeros(4, dtype=cupy.int64)
    kernel = module.get_function(name)

    def launch():
        kernel((blocks,), (THREADS,), (cupy.int32(iters), out, clocks))

    seconds = timed(launch)
    c0, t0, c1, t1 = (int(x) for x in clocks.get())
    return seconds, (c1 - c0) / ((t1 - t0) * 1e-9)


def matmul_flops_per_s(n=8192):
    """FLOP/s of PyTorch's fp16 n×n×n product (the baseline: cuBLAS's best instruction for this GPU)."""
    import torch

    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    return 2 * n**3 / timed(lambda: a @ b, reps=10)


def main(argv=None):
    parser = argparse.ArgumentParser(description="each SM unit's measured rate against gpus.json")
    parser.add_argument("--results", default="", help="write the rows as JSON here")
    args = parser.parse_args(argv)
    if why := problem():
        required = os.environ.get("KERNELVIZ_REQUIRE_GPU") == "1"
        print(f"bench/units.py: {'FAILED' if required else 'skipped'}: {why}")
        return 1 if required else 0
    import cupy
    import torch

    from kernelviz.roofline import GPUS

    props = torch.cuda.get_device_properties(0)
    sms, arch = props.multi_processor_count, props.major * 10 + props.minor
    key = next((k for k in GPUS if k in props.name.lower()), None)
    gpu = GPUS.get(key)
    with tempfile.TemporaryDirectory() as where:
        cubin = compile_cubin(arch, where)
        sass = sass_counts(cubin)
        module = cupy.RawModule(path=str(cubin))
        base = matmul_flops_per_s()
        print(f"{props.name}: {sms} SMs, sm_{arch}, gpus.json row {key!r}")
        print(f"baseline: torch fp16 8192^3 matmul {base / 1e12:.0f} TFLOP/s")
        warps, threads = sms * BLOCKS_PER_SM * THREADS // 32, sms * BLOCKS_PER_SM * THREADS
        work = {  # name: (rounds, work a round over the grid, unit, gpus.json's per-clock-per-SM figure)
            "mma_sync": (100000, warps * CHAINS * 4096, "FLOP", _mma_sync_per_clock(gpu)),
            "ex2": (20000, threads * CHAINS, "exp", gpu and gpu.sfu_ops_per_clock_per_sm),
            "lds": (20000, threads * 16, "B", gpu and gpu.shared_bytes_per_clock_per_sm),
        }
        rows = []
        header = f"{'unit':<10}{'SASS':<16}{'rate':>14}{'clock GHz':>10}{'/clk/SM':>9}{'table':>8}{'of table':>9}"
        print(header + f"{'vs base':>9}")
        for name, (iters, per_round, what, listed) in work.items():
            seconds, clock = unit(module, name, sms, iters)
            rate = iters * per_round / seconds
            per_clock = rate / (clock * sms)
            row = {"unit": name, "sass": SASS[name], "sass_count": sass.get(name), "rate": rate, "per": what,
                   "clock_hz": clock, "per_clock_per_sm": per_clock, "table_per_clock_per_sm": listed,
                   "of_table": per_clock / listed if listed else None,
                   "vs_baseline": rate / base if what == "FLOP" else None}  # fmt: skip
            rows.append(row)
            print(f"{name:<10}{SASS[name] + ' x' + str(sass.get(name, '?')):<16}{_si(rate, what):>14}"
                  f"{clock / 1e9:>10.3f}{per_clock:>9.1f}{listed or float('nan'):>8.0f}"
                  f"{row['of_table'] or float('nan'):>9.2f}{row['vs_baseline'] or float('nan'):>9.2f}")  # fmt: skip
    if args.results:
        Path(args.results).parent.mkdir(parents=True, exist_ok=True)
        written = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        results = {"machine": props.name, "gpu": key, "sms": sms, "written": written, "baseline_flops_per_s": base,
                   "rows": rows}  # fmt: skip
        Path(args.results).write_text(json.dumps(results, indent=1) + "\n")
    return 0


def _mma_sync_per_clock(gpu):
    """gpus.json's mma.sync FLOP/s as FLOPs a clock an SM (its rate over SMs × the table's clock), or None."""
    rate = gpu and (gpu.tensor_flops_per_s_by_instruction or {}).get("mma.sync")
    return rate / (gpu.sms * gpu.clock_hz) if rate and gpu.clock_hz else None


def _si(value, unit):
    exp = min(4, max(0, int(math.log10(value) // 3)))
    return f"{value / 10 ** (3 * exp):.1f} {' kMGT'[exp].strip()}{unit}/s"


if __name__ == "__main__":
    sys.exit(main())
