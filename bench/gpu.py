"""The CUDA kernels against PyTorch's scaled-dot-product attention, on one GPU, in a few minutes.

Prefill (N in 1k, 4k, 16k; d = 64, 128; no mask): FA1 and FA2 against SDPA's MATH and EFFICIENT backends in
float32 (the baseline is EFFICIENT), with FLASH and cuDNN in bfloat16 for context. Decode (one query row per head,
N_kv in 4k, 64k): flash decoding over several split counts against SDPA EFFICIENT in float32 (the baseline).
Tensor cores (N in 1k, 4k, 16k; d = 64, 128; no mask): fa2_mma, fa2_pipe with 1 and 2 stages (cp.async, FA2's
tiles), and on Hopper fa3, in fp16 and in bf16 against SDPA's FLASH backend in the same dtype (the baseline), with
max |O - O_flash| at N <= 4096. ``--parts`` picks tables.

Each row: time (median of the timed runs, CUDA events), TFLOP/s = 4·N²·d·heads / t (decode: 4·N_kv·d·heads / t),
GB/s of the bytes the kernel must move (Q, K, V read once, O written once) and that as a fraction of the
device-to-device copy bandwidth measured at the start, and time / baseline time, all from this one run.
Needs PyTorch and CuPy with a GPU (pip install -e '.[gpu]'); without them it says why and exits 0, or 1 with
KERNELVIZ_REQUIRE_GPU=1 in the environment.

The times of our own kernels (fa1, fa2, flash decoding, and the tensor-core ones at their default options) are also
written, with the machine's name, to a results file (``--results PATH``, default bench/results/gpu.json;
``--results ''`` writes none), the file the site builder reads to draw measured points on each kernel page's
roofline (kernelviz/roofline/measured.py says its form).
"""

import argparse
import datetime
import json
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

HEADS = 16  # (batch·head) for prefill
DECODE_HEADS = 32
MAX_SECONDS = 8.0  # a configuration whose single run would take longer than this is skipped (predicted, N² scaling)
MATH_BYTES = 40e9  # SDPA MATH materializes N² scores: skipped above this many bytes of them


def gpu_problem():
    """Why this benchmark cannot run here, or None."""
    from kernelviz.cuda import launch

    try:
        import torch
    except ImportError as e:
        return f"PyTorch does not import ({e}); {launch.INSTALL}"
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA device"
    return launch.problem()


def timed(fn, reps=None, budget=1.0):
    """Median seconds of fn() over `reps` runs (by default as many as fit in `budget` seconds, 3 to 20),
    after one warm-up run; CUDA events around each run."""
    import torch

    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    torch.cuda.synchronize()
    first = start.elapsed_time(end) / 1e3
    reps = reps or max(3, min(20, int(budget / max(first, 1e-6))))
    times = [first]
    for _ in range(reps - 1):
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def copy_bandwidth():
    """Bytes/s of a device-to-device copy of 1 GiB, counting bytes read and written."""
    import torch

    a = torch.empty(2**28, dtype=torch.float32, device="cuda")
    b = torch.empty_like(a)
    t = timed(lambda: b.copy_(a), reps=10)
    return 2 * a.numel() * 4 / t


def sdpa(backend, q, k, v):
    """A function running SDPA with only `backend` allowed, on (1, heads, N, d) views."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    q4, k4, v4 = (x.unsqueeze(0) for x in (q, k, v))
    chosen = getattr(SDPBackend, backend)

    def go():
        with sdpa_kernel([chosen]):
            return torch.nn.functional.scaled_dot_product_attention(q4, k4, v4)

    return go


RESULTS = Path(__file__).resolve().parent / "results" / "gpu.json"
DTYPES = {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}  # the tables' labels -> the results file's


def run_record(kernel, dtype, bh, n, d, n_kv=None, splits=None):
    """What the results file says of one run of our `kernel` (measured.py's form), without its time yet: the
    algorithm is the one the kernel's record (kernelviz/cuda/topics) says it runs."""
    from kernelviz.cuda import kernels
    from kernelviz.cuda.topics import TOPICS

    algorithm = next(k.algorithm for k in TOPICS if k.name == kernel)
    br, bc = kernels.default_tiles(kernel, d)
    return {"algorithm": algorithm, "kernel": kernel, "dtype": DTYPES.get(dtype, dtype), "N": n, "N_kv": n_kv or n,
            "d": d, "Br": br, "Bc": bc, "batch_heads": bh, "causal": False, "splits": splits}  # fmt: skip


def gpu_key(name):
    """The key of roofline/gpus.json that the device `name` is ("NVIDIA H200" -> "h200"), or None."""
    from kernelviz.roofline import GPUS

    return next((key for key in GPUS if key in name.lower()), None)


def write_results(path, machine, runs):
    path.parent.mkdir(parents=True, exist_ok=True)
    written = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    results = {"machine": machine, "gpu": gpu_key(machine), "written": written, "runs": runs}
    path.write_text(json.dumps(results, indent=1) + "\n")
    print(f"results of {len(runs)} runs of our kernels written to {path}")


class Table:
    runs = []  # run_record()s with their seconds, of every table: the results file

    def __init__(self, title, copy_bw):
        self.rows, self.copy_bw = [], copy_bw
        print(f"\n{title}")
        print(f"{'kernel':<22}{'dtype':<7}{'shape':<24}{'ms':>10}{'TFLOP/s':>9}{'GB/s':>8}{'of copy':>9}{'vs base':>9}")

    def add(self, name, dtype, shape, seconds, flops, nbytes, base=None, why="", run=None):
        if run is not None and seconds is not None:
            Table.runs.append({**run, "seconds": seconds})
        if seconds is None:
            print(f"{name:<22}{dtype:<7}{shape:<24}{'skipped':>10}  {why}")
            return
        gbs = nbytes / seconds / 1e9
        ratio = f"{seconds / base:.2f}x" if base else "base"
        print(
            f"{name:<22}{dtype:<7}{shape:<24}{seconds * 1e3:>10.3f}{flops / seconds / 1e12:>9.2f}{gbs:>8.0f}"
            f"{gbs * 1e9 / self.copy_bw:>9.1%}{ratio:>9}",
            flush=True,
        )


def prefill(table):
    import torch

    from kernelviz.cuda import launch

    predicted = {}  # kernel -> (N, seconds) of its last run, to skip runs that would be too long
    hopper = torch.cuda.get_device_capability() == (9, 0)  # fa3: sm_90a only
    if not hopper:
        print(f"fa3: skipped, it runs on Hopper (sm_90) only, not {torch.cuda.get_device_name()}")
    for d in (64, 128):
        for n in (1024, 4096, 16384):
            shape = f"BH={HEADS} N={n} d={d}"
            flops, nbytes = 4 * n * n * d * HEADS, 4 * n * d * HEADS * 4
            q, k, v = (torch.randn(HEADS, n, d, device="cuda") for _ in range(3))
            base = timed(sdpa("EFFICIENT_ATTENTION", q, k, v))
            table.add("sdpa EFFICIENT", "fp32", shape, base, flops, nbytes)
            if n * n * HEADS * 4 <= MATH_BYTES:
                table.add("sdpa MATH", "fp32", shape, timed(sdpa("MATH", q, k, v)), flops, nbytes, base)
            else:
                table.add("sdpa MATH", "fp32", shape, None, flops, nbytes, why="its N^2 scores are too large")
            for kernel in ("fa2", "fa1"):
                last = predicted.get((kernel, d))
                guess = last[1] * (n / last[0]) ** 2 if last else 0.0
                if guess > MAX_SECONDS:
                    table.add(kernel, "fp32", shape, None, flops, nbytes, why=f"predicted {guess:.0f} s a run")
                    continue
                go, _ = launch.prepare(kernel, q, k, v)
                t = timed(go, budget=min(2.0, 4 * max(guess, 0.05)))
                predicted[(kernel, d)] = (n, t)
                table.add(kernel, "fp32", shape, t, flops, nbytes, base, run=run_record(kernel, "float32", HEADS, n, d))
            if n <= 4096:  # one correctness spot check per shape, against SDPA in float32
                go, out = launch.prepare("fa2", q, k, v)
                go()
                ref = sdpa("EFFICIENT_ATTENTION", q, k, v)()[0]
                err = (torch.from_dlpack(out["O"]) - ref).abs().max().item()
                print(f"{'':<22}fa2 vs sdpa: max |O - O_sdpa| = {err:.2e}")
            qb, kb, vb = (x.bfloat16() for x in (q, k, v))
            for backend in ("FLASH_ATTENTION", "CUDNN_ATTENTION"):
                try:
                    t = timed(sdpa(backend, qb, kb, vb))
                    table.add(f"sdpa {backend.split('_')[0]}", "bf16", shape, t, flops, nbytes // 2, base)
                except RuntimeError as e:
                    why = str(e).splitlines()[0][:60]
                    table.add(f"sdpa {backend.split('_')[0]}", "bf16", shape, None, flops, nbytes, why=why)
            del q, k, v, qb, kb, vb
            torch.cuda.empty_cache()


def tensor_cores(table):
    import torch

    from kernelviz.cuda import launch

    hopper = torch.cuda.get_device_capability() == (9, 0)  # fa3: sm_90a only
    if not hopper:
        print(f"fa3: skipped, it runs on Hopper (sm_90) only, not {torch.cuda.get_device_name()}")
    for d in (64, 128):
        for n in (1024, 4096, 16384):
            shape = f"BH={HEADS} N={n} d={d}"
            flops, nbytes = 4 * n * n * d * HEADS, 4 * n * d * HEADS * 2
            for dtype, torch_dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
                q, k, v = (torch.randn(HEADS, n, d, device="cuda", dtype=torch_dtype) for _ in range(3))
                flash = sdpa("FLASH_ATTENTION", q, k, v)
                try:
                    base = timed(flash)
                    table.add("sdpa FLASH", dtype, shape, base, flops, nbytes)
                except RuntimeError as e:
                    base, flash = None, None
                    table.add("sdpa FLASH", dtype, shape, None, flops, nbytes, why=str(e).splitlines()[0][:60])
                kernels = [("fa2_mma", "fa2_mma", {})]  # fa2_pipe: one stage (no overlap), then two
                kernels += [(f"fa2_pipe s={s}", "fa2_pipe", {"stages": s}) for s in (1, 2)]
                kernels += [("fa3", "fa3", {})] if hopper else []
                for label, kernel, options in kernels:
                    go, out = launch.prepare(kernel, q, k, v, dtype=dtype, **options)
                    # the results file keeps each kernel as it runs by default (fa2_pipe: two stages)
                    run = run_record(kernel, dtype, HEADS, n, d) if options.get("stages", 2) == 2 else None
                    table.add(label, dtype, shape, timed(go), flops, nbytes, base, run=run)
                    if n <= 4096 and flash is not None:  # one correctness spot check per shape, against SDPA FLASH
                        go()
                        o = torch.as_tensor(out["O"].view("int16"), device="cuda").view(torch_dtype)
                        err = (o.float() - flash()[0].float()).abs().max().item()
                        print(f"{'':<22}{label} vs sdpa FLASH ({dtype}): max |O - O_flash| = {err:.2e}")
                    del out
                del q, k, v
                torch.cuda.empty_cache()


def decode(table):
    import torch

    from kernelviz.cuda import launch

    for d in (64, 128):
        for n in (4096, 65536):
            shape = f"BH={DECODE_HEADS} Nkv={n} d={d}"
            flops, nbytes = 4 * n * d * DECODE_HEADS, (2 * n * d + 2 * d) * DECODE_HEADS * 4
            q = torch.randn(DECODE_HEADS, 1, d, device="cuda")
            k, v = (torch.randn(DECODE_HEADS, n, d, device="cuda") for _ in range(2))
            base = timed(sdpa("EFFICIENT_ATTENTION", q, k, v))
            table.add("sdpa EFFICIENT", "fp32", shape, base, flops, nbytes)
            for n_splits in (1, 4, 16, 64, 256):
                go, _ = launch.prepare("flash_decoding", q, k, v, n_splits=n_splits)
                run = run_record("flash_decoding", "float32", DECODE_HEADS, 1, d, n_kv=n, splits=n_splits)
                table.add(f"flash_decoding s={n_splits}", "fp32", shape, timed(go), flops, nbytes, base, run=run)
            del q, k, v
            torch.cuda.empty_cache()


def main(argv=None):
    parser = argparse.ArgumentParser(description="the CUDA kernels against PyTorch's SDPA, on one GPU")
    parser.add_argument("--results", default=str(RESULTS), help=f"write our kernels' times here (default {RESULTS})")
    parser.add_argument("--parts", default="prefill,decode,tensor-cores", help="the tables to run (default: all)")
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    if why := gpu_problem():
        from kernelviz.cuda import launch

        print(f"bench/gpu.py: {'FAILED' if launch.required() else 'skipped'}: {why}")
        return 1 if launch.required() else 0
    import torch

    started = time.perf_counter()
    torch.backends.cuda.matmul.allow_tf32 = False  # float32 means float32, for SDPA MATH too
    copy_bw = copy_bandwidth()
    print(f"{torch.cuda.get_device_name()}: device-to-device copy {copy_bw / 1e9:.0f} GB/s (read + write)")
    if "prefill" in parts:
        prefill(Table("prefill (no mask); base = sdpa EFFICIENT fp32 at the same shape", copy_bw))
    if "decode" in parts:
        decode(Table("decode (one query row per head); base = sdpa EFFICIENT fp32 at the same shape", copy_bw))
    if "tensor-cores" in parts:
        tensor_cores(Table("tensor cores (no mask); base = sdpa FLASH in the same dtype at the same shape", copy_bw))
    if args.results:
        write_results(Path(args.results), torch.cuda.get_device_name(), Table.runs)
    print(f"\n{math.ceil(time.perf_counter() - started)} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
