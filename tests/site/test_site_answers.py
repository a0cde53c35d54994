"""The figure answers' values table (site.answers) for the Flash Attention 2 page: drawn from the page's own editors
at the sizes of its trace entry `fig`, every step's key is the figure's, and the values the steps give the slots are
what plain NumPy computes from the same inputs (scores, running max and sum, the output rows); a page whose
algorithm reports no carries gets no table."""

import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from kernelviz.attention import runs
from kernelviz.runner import Source, run
from kernelviz.site import answers

ROOT = Path(__file__).resolve().parents[2]
SIZES = dict(N=8, d=4, Br=4, Bc=4)


def page_of(slug):
    """A page as the builder has it after its figures stage: its front matter and the Scene its editors draw."""
    text = (ROOT / "pages" / f"{slug}.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```pie[^\n]*\n(.*?)```", text, re.S)
    drawn = run([Source(b) for b in blocks])
    return SimpleNamespace(meta={}, scene=drawn.scene, run=drawn)


@pytest.fixture(scope="module")
def fa2():
    page = page_of("flash-attention-2")
    page.meta = {"trace": {"fig": {"algo": "fa2", **SIZES}}}
    return page, answers.table(page)


def value(table, step, name):
    """What slot `name` holds at `step`: the last change at or before it."""
    return next(c[name] for c in reversed(table["changes"][: step + 1]) if name in c)


def test_the_table_follows_the_figures_steps(fa2):
    page, table = fa2
    steps = next(n["steps"] for n in page.scene["nodes"] if n["kind"] == "step_list")
    assert table["keys"] == [s["key"] for s in steps]
    assert len(table["changes"]) == len(steps)
    assert table["sizes"] == {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4, "causal": 0}
    json.dumps(table, allow_nan=False)  # plain JSON: -inf is written as a string


def test_the_values_are_numpys_on_the_same_inputs(fa2):
    _, table = fa2
    q, k, v = (x[0].astype(np.float32).astype(np.float64) for x in runs.run("standard", **SIZES).inputs.values())
    S = q @ k.T / 2.0  # tau = 1 / sqrt(d), d = 4
    keys = table["keys"]
    at = keys.index("fill Sij i=1 j=0")
    assert np.allclose(value(table, at, "Sij"), S[4:8, 0:4], rtol=1e-5, atol=1e-6)
    assert value(table, at, "Sij 3,2") == pytest.approx(S[7, 2], rel=1e-5)
    first = keys.index("update m,l,O i=1 j=0")  # the carries after tile 0 alone, then after both tiles
    for step, cols in ((first, slice(0, 4)), (keys.index("update m,l,O i=1 j=1"), slice(0, 8))):
        rows = S[4:8, cols]
        m = rows.max(axis=1)
        p = np.exp(rows - m[:, None])
        assert np.allclose(value(table, step, "mi"), m, rtol=1e-5)
        assert np.allclose(value(table, step, "li"), p.sum(axis=1), rtol=1e-5)
        assert np.allclose(value(table, step, "Oi"), p @ v[cols], rtol=1e-4, atol=1e-6)
    load = keys.index("load Q i=1")
    assert value(table, load, "mi") == ["-inf"] * 4 and value(table, load, "li") == [0.0] * 4
    assert value(table, load - 1, "mi") == value(table, keys.index("update m,l,O i=0 j=1"), "mi")  # block 0's
    weights = np.exp(S - S.max(axis=1, keepdims=True))
    out = weights @ v / weights.sum(axis=1, keepdims=True)
    assert np.allclose(value(table, len(keys) - 1, "O1"), out[4:8], rtol=1e-4, atol=1e-6)
    assert np.allclose(value(table, 0, "K1"), k[4:8])


def test_a_page_without_an_observed_algorithm_has_no_table():
    page = SimpleNamespace(meta={"trace": {"fig": {"algo": "standard", **SIZES}}}, scene={"nodes": []})
    assert answers.table(page) is None
    assert answers.table(SimpleNamespace(meta={}, scene=None)) is None
    with pytest.raises(ValueError, match="observe: standard does not report its carries"):
        runs.run("standard", observe=print, **SIZES)


NO_VALUE = {  # the slots a page's table leaves without values, and why
    "flash-attention-1": set(),
    "flash-decoding": set(),
    "flash-attention-2-tensor-cores": set(),
    "flash-attention-2-pipelined": {f"{t}{n}" for t in "KV" for n in range(4)},  # the ring's buffers share the names
    "flash-attention-2-backward": set(),
    "flash-attention-3": {"full 0", "full 1", "empty 0", "empty 1"},  # barriers: their phase is their label
    # the figure's own allocation: its pool pages and table entries are not the run's (the seq_lens tiles are
    # named by their lengths, 5 and 9)
    "paged-decoding": {"page", "0", "1", "2", "3", "4", "5", "9", *(f"{t}{n}" for t in "KV" for n in range(5))},
}


@pytest.mark.parametrize("slug", list(NO_VALUE))
def test_every_figure_page_gives_its_slots_values(slug):
    """Each page's table, at its own front matter's run, follows its figure's steps and gives every slot the
    figure draws a value at some step (but the ones NO_VALUE names), and no value to a slot it does not draw."""
    import yaml

    page = page_of(slug)
    text = (ROOT / "pages" / f"{slug}.md").read_text(encoding="utf-8")
    page.meta = yaml.safe_load(text.split("---")[1])
    table = answers.table(page)
    assert table is not None, slug
    steps = next(n["steps"] for n in page.scene["nodes"] if n["kind"] == "step_list")
    assert table["keys"] == [s["key"] for s in steps]
    assert table["sizes"] == dict(page.run.sizes)
    drawn = set(re.findall(r'slot:([^|"]+)\|', json.dumps(page.scene, ensure_ascii=False)))
    given = set().union(*table["changes"])
    assert drawn - given == NO_VALUE[slug], slug
    assert given <= drawn, sorted(given - drawn)
    json.dumps(table, allow_nan=False)
