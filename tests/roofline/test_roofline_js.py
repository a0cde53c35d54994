"""The roofline section's JavaScript (web/src/roofline/) computes what Python does, at every size.

The section draws its points and table in the browser from JS ports of ``attention.formulas`` and ``attention.flops``
and of ``roofline.bound`` (one drawing code at build time and in the page; the form allows tens of thousands of
sizes a page, too many to precompute). Here node runs the ports on a grid of small, ragged and causal sizes plus
the realistic presets (N = 32768 included) and a seeded sample, and every count must equal Python's exactly and
every rate and time to 1e-12: the independent reference is the Python the tests hold equal to the ledgers.
"""

import itertools
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelviz.commands.roofline import table
from kernelviz.roofline import GPUS
from kernelviz.site.extensions.roofline import presets

ROOFLINE = Path(__file__).resolve().parents[2] / "web" / "src" / "roofline"
NODE = shutil.which("node")
GPU_SPEC = [
    {k: getattr(g, k) for k in ("key", "name", "hbm_bytes_per_s", "tensor_flops_per_s", "fp32_flops_per_s")}
    for g in GPUS.values()
]
ALGORITHMS = ["standard", "fa1", "fa2", "flash-decoding", "fa2-backward", "standard-backward"]

SCRIPT = """
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const model = await import(pathToFileURL(process.argv[1] + '/model.js'));
const input = JSON.parse(readFileSync(0, 'utf8'));
const out = input.cases.map(([spec, sizes, preset]) => {
  const p = model.params(spec, sizes, preset);
  return { params: p, rows: model.rows(spec, p) };
});
console.log(JSON.stringify(out));
"""


def run_model(cases):
    """[(spec, sizes, preset)] -> [{params, rows}] from model.js, in one node process."""
    if NODE is None:
        pytest.skip("node is not installed")
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", SCRIPT, str(ROOFLINE)],
        input=json.dumps({"cases": cases}),
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    return json.loads(out.stdout)


def spec(page=None):
    return {"gpus": GPU_SPEC, "algorithms": ALGORITHMS, "page": page or {}, "sizes": {}, "presets": []}


def expected(p):
    """Python's rows (commands.roofline.table) at the params `p` the JS resolved."""
    itemsize = {"float32": 4, "float16": 2}[p["dtype"]]
    return table(p["N"], p["d"], p["Br"], p["Bc"], p["N_kv"], p["causal"], itemsize, p["batch_heads"], p["splits"])


def same(js_rows, py_rows):
    by_name = {r["algorithm"]: r for r in py_rows}
    assert [r["algorithm"] for r in js_rows] == ALGORITHMS
    for row in js_rows:
        want = by_name[row["algorithm"]]
        assert row["bytes"] == want["bytes"], row["algorithm"]
        assert row["flops"] == want["flops"], row["algorithm"]
        for key, b in row["bounds"].items():
            w = want["bounds"][key]
            assert (b["bound"], b["bytes"], b["flops"]) == (w["bound"], w["bytes"], w["flops"]), (row["algorithm"], key)
            for name in ("intensity", "lower_bound_s", "attained_flops_per_s"):
                assert b[name] == pytest.approx(w[name], rel=1e-12, abs=0), (row["algorithm"], key, name)
            assert b["seconds"] == pytest.approx(w["seconds"], rel=1e-12)


def sizes():
    grid = itertools.product([1, 7, 24, 100], [None, 5, 24], [4, 64], [1, 3, 8], [2, 8, 64], [0, 1], [1, 3])
    rng = random.Random(30)
    sample = [
        (rng.randint(1, 3000), rng.choice([None, rng.randint(1, 3000)]), rng.choice([16, 64, 128]),
         rng.randint(1, 256), rng.randint(1, 256), rng.randint(0, 1), rng.randint(1, 32))
        for _ in range(60)
    ]  # fmt: skip
    return list(grid) + sample


def test_rows_equal_python_over_a_grid_of_sizes():
    cases = [
        (spec({"d": d, "splits": 3, "dtype": dtype}), {"N": N, "N_kv": N_kv or N, "Br": Br, "Bc": Bc, "causal": c,
                                                       "batch_heads": h}, None)
        for (N, N_kv, d, Br, Bc, c, h), dtype in zip(sizes(), itertools.cycle(["float32", "float16"]))
    ]  # fmt: skip
    for out in run_model(cases):
        same(out["rows"], expected(out["params"]))


def test_the_realistic_presets_equal_python_at_n_32768():
    form = {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4, "causal": 0}
    cases = [(spec({"d": 4}), form, preset) for preset in presets()]
    outs = run_model(cases)
    for out, preset in zip(outs, presets(), strict=True):
        p = out["params"]
        n, d = preset["form"]["N"], preset["fixed"]["d"]
        assert (p["N"], p["N_kv"], p["d"], p["Br"], p["Bc"]) == (n, n, d, 64, 64)
        assert (p["batch_heads"], p["dtype"], p["causal"]) == (32, "float16", False)
        same(out["rows"], expected(p))


def test_a_page_s_sizes_map_to_the_algorithms_as_its_front_matter_says():
    """Flash decoding's form names the keys N: N_kv follows it, N is one query row; splits at most the tiles."""
    fd = spec({"N": 1, "N_kv": "N", "Br": 1, "d": 4})
    decode = presets()[2]  # N = 32768, d = 64
    (small, capped, long) = run_model(
        [(fd, {"N": 16, "Bc": 4, "splits": 2}, None), (fd, {"N": 5, "Bc": 4, "splits": 6}, None),
         (fd, {"N": 16, "Bc": 4, "splits": 2}, decode)]
    )  # fmt: skip
    assert {k: small["params"][k] for k in ("N", "N_kv", "d", "Br", "Bc", "splits")} == dict(
        N=1, N_kv=16, d=4, Br=1, Bc=4, splits=2
    )
    assert capped["params"]["splits"] == 2  # ceil(5 / 4) tiles
    assert {k: long["params"][k] for k in ("N", "N_kv", "d", "Br", "Bc", "batch_heads")} == dict(
        N=1, N_kv=32768, d=64, Br=1, Bc=64, batch_heads=32
    )
    for out in (small, capped, long):
        same(out["rows"], expected(out["params"]))


def test_paged_decoding_and_standard_decoding_of_its_batch_equal_python():
    """Paged decoding's page maps its form (L0, L1, page_size, H_q, splits) to a batch; standard attention beside it
    decodes each sequence alone, every query head on its own."""
    from tests.roofline.roofline_pages import closed_form

    page = {"seq_lens": ["L0", "L1"], "H_kv": 1, "d": 4}
    paged = {**spec(page), "algorithms": ["paged-decoding", "standard"]}
    grid = itertools.product([1, 5, 16], [9, 33], [1, 4, 16], [1, 2, 8], [1, 3])
    cases = [(paged, {"L0": a, "L1": b, "page_size": ps, "H_q": h, "splits": s}, None) for a, b, ps, h, s in grid]
    cases += [(paged, {"L0": 5, "L1": 9, "page_size": 4, "H_q": 2, "splits": 2}, preset) for preset in presets()]
    for out in run_model(cases):
        want = closed_form(["paged-decoding", "standard"], out["params"])
        for row in out["rows"]:
            w = want[row["algorithm"]]
            assert (row["bytes"], row["flops"]) == (w["bytes"], w["flops"]), (row["algorithm"], out["params"])
            for key, b in row["bounds"].items():
                assert b["bound"] == w["bounds"][key]["bound"]
                assert b["lower_bound_s"] == pytest.approx(w["bounds"][key]["lower_bound_s"], rel=1e-12)
    long = run_model([cases[-1]])[0]["params"]
    assert (long["seq_lens"], long["page_size"], long["H_q"], long["H_kv"], long["d"]) == (
        [32768, 32768],
        16,
        16,
        1,
        128,
    )
