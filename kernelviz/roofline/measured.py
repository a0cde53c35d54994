"""Measured GPU results beside the bounds: the file ``bench/gpu.py`` writes, read back as points on the roofline.

The file (JSON, ``RESULTS`` unless ``bench/gpu.py --results PATH`` names another) says which machine ran and what
each kernel took:

    {"machine": "NVIDIA H200", "gpu": "h200" (a key of gpus.json, or null), "written": "2026-12-03T12:00:00Z",
     "runs": [{"algorithm": "fa2", "dtype": "float32", "N": 4096, "N_kv": 4096, "d": 64, "Br": 64, "Bc": 64,
               "batch_heads": 16, "causal": false, "splits": null, "seconds": 0.0012}, ...]}

A run becomes a point at the intensity its algorithm has at those sizes (the closed forms' bytes and FLOPs, as for
the bounds: web/src/roofline/model.js ``measuredPoint``) and the FLOP/s it reached: FLOPs / seconds. The builder
reads ``RESULTS`` (or the file named by the environment variable ``KERNELVIZ_GPU_RESULTS``) when it is there;
without one the roofline says nothing was measured.
"""

import json
import os
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results" / "gpu.json"  # in a checkout


def path():
    """Where the builder looks for the results: $KERNELVIZ_GPU_RESULTS, else RESULTS."""
    return Path(os.environ.get("KERNELVIZ_GPU_RESULTS") or RESULTS)


def load(where=None):
    """The results file as a dict, or None when there is none. ValueError naming the file and what is wrong when it
    is there but not a results file."""
    where = Path(where) if where is not None else path()
    if not where.is_file():
        return None
    try:
        results = json.loads(where.read_text())
    except (OSError, ValueError) as e:
        raise ValueError(f"{where}: not a results file of bench/gpu.py ({e})") from e
    if (
        not isinstance(results, dict)
        or not isinstance(results.get("machine"), str)
        or not isinstance(results.get("runs"), list)
    ):
        raise ValueError(f"{where}: expected {{'machine': str, 'runs': [...]}} (bench/gpu.py writes it)")
    return results


def runs(results, algorithms):
    """{machine, gpu, runs} of the timed runs of `algorithms` in `results` (load's), or None without results."""
    if results is None:
        return None
    kept = [r for r in results["runs"] if r.get("algorithm") in algorithms and r.get("seconds")]
    return {"machine": results["machine"], "gpu": results.get("gpu"), "runs": kept}
