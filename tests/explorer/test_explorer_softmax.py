"""The page's softmax check (web/src/explorer/softmax.js): its standard and streaming online softmax both equal
NumPy's softmax in float64, agree to 1e-6 in float32, and handle logits that overflow a naive exp."""

import numpy as np
import pytest
from explorer_node import run_js

BOTH = """
const { standardSoftmax, onlineSoftmax } = await load('softmax');
const round = input.float32 ? Math.fround : (x) => x;
const x = Float64Array.from(input.x), v = Float64Array.from(input.v);
const std = standardSoftmax(x, v, round), onl = onlineSoftmax(x, v, input.block, round);
console.log(JSON.stringify({ std: [...std.p], onl: [...onl.p], stdO: std.o, onlO: onl.o }));
"""


def reference(x, v):
    e = np.exp(x - x.max())
    p = e / e.sum()
    return p, float(p @ v)


def rows():
    rng = np.random.default_rng(5)
    yield "random", rng.normal(0, 2, 1000), rng.normal(0, 1, 1000)
    yield "rising", np.linspace(-20, 20, 777), rng.normal(0, 1, 777)  # a larger max in every tile: rescaling matters
    yield "large", 1000 + rng.normal(0, 30, 500), rng.normal(0, 1, 500)  # exp(x) overflows without the max shift


@pytest.mark.parametrize("block", [1, 16, 64, 5000])
@pytest.mark.parametrize("name, x, v", list(rows()), ids=lambda r: r if isinstance(r, str) else "")
def test_both_equal_numpy_in_float64(name, x, v, block):
    out = run_js(BOTH, {"x": x.tolist(), "v": v.tolist(), "block": block, "float32": False})
    p, o = reference(x, v)
    assert np.max(np.abs(np.array(out["std"]) - p)) <= 1e-12
    assert np.max(np.abs(np.array(out["onl"]) - p)) <= 1e-12
    assert abs(out["stdO"] - o) <= 1e-12 and abs(out["onlO"] - o) <= 1e-12


@pytest.mark.parametrize("name, x, v", list(rows()), ids=lambda r: r if isinstance(r, str) else "")
def test_float32_stays_within_1e_6_of_the_reference(name, x, v):
    x32, v32 = x.astype(np.float32).astype(float), v.astype(np.float32).astype(float)
    out = run_js(BOTH, {"x": x32.tolist(), "v": v32.tolist(), "block": 64, "float32": True})
    p, o = reference(x32, v32)
    for key in ("std", "onl"):
        assert np.max(np.abs(np.array(out[key]) - p)) <= 1e-6
    assert abs(out["stdO"] - o) <= 1e-6 and abs(out["onlO"] - o) <= 1e-6


def test_the_check_the_page_shows():
    body = """
    const { softmaxCheck } = await load('softmax');
    console.log(JSON.stringify(input.map(([n, b]) => softmaxCheck(n, b))));
    """
    sizes = [(64, 16), (1000, 64), (131072, 256)]
    for (n, _), cases in zip(sizes, run_js(body, sizes), strict=True):
        by_id = {c["id"]: c for c in cases}
        assert set(by_id) == {"random", "large"}
        for c in cases:
            assert 0 <= c["dp"] <= 1e-6 and 0 <= c["do"] <= 1e-6, (n, c)
        assert by_id["random"]["naiveFinite"] is True
        assert by_id["large"]["naiveFinite"] is False  # exp(1000) overflows float32


def test_the_random_rows_are_seeded():
    body = """
    const { gaussian } = await load('softmax');
    console.log(JSON.stringify([[...gaussian(5, 7)], [...gaussian(5, 7)], [...gaussian(5, 8)]]));
    """
    a, b, c = run_js(body, None)
    assert a == b and a != c
    assert all(abs(t) < 10 for t in a)
