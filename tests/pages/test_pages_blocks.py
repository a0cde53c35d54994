"""The work per block on the Flash Attention 1 and 2 pages (issue 29): the tiles each block visits and the grid on
an H100, as the trip sections print them and draw them, equal to what ``kernelviz trace ... --json`` reports for the
same runs (its ``kv_tiles_per_block``, read from the ledger, and with --gpu its ``schedule``).

The two pages are built once, with stand-ins for the pages they link to and for the runtime bundle."""

import contextlib
import io
import json
import re
from pathlib import Path

import pytest
import yaml

from kernelviz.cli import main
from kernelviz.site.build import build
from kernelviz.site.extensions import trace
from tests.attention.grid_ticks import per_block

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("flash-attention-1", "flash-attention-2")
SPAN = re.compile(r'<span class="kv-trace" title="trace\.(\w+)\.((?:tiles_per_block|schedule)\.[\w.]+)">([^<]*)<')
RECT = re.compile(r'<rect class="kv-bar kv-bars-(\w+)" [^>]*height="([^"]+)" data-index="(\d+)" data-value="(\d+)">')
CHART = re.compile(r'<figure class="kv-bars-figure">.*?</figure>', re.S)
FENCE = re.compile(r'^```tiles-per-block full="(\w+)" masked="(\w+)"', re.M)


@pytest.fixture(scope="module")
def built(tmp_path_factory, stand_in_runtime):
    """{slug: (front matter, built HTML)} of the two pages."""
    dist = stand_in_runtime
    folder = tmp_path_factory.mktemp("pages")
    for path in (ROOT / "pages").glob("*.md"):
        text = path.read_text(encoding="utf-8")
        front = yaml.safe_load(text.split("---\n")[1])
        if path.stem not in PAGES:  # a stand-in, so that the links resolve
            stub = {k: front[k] for k in ("title", "summary") if k in front}
            text = "---\n" + yaml.safe_dump(stub) + "---\n\nA stand-in.\n"
        (folder / path.name).write_text(text, encoding="utf-8")
    out = folder.parent / "site"
    result = build(folder, out, web_dist=dist, log=None)
    mine = [str(w) for w in result.warnings if "tiles-per-block" in str(w) or "trace" in str(w)]
    assert mine == []
    return {
        slug: (
            yaml.safe_load((folder / f"{slug}.md").read_text().split("---\n")[1]),
            (out / f"{slug}.html").read_text(),
        )
        for slug in PAGES
    }


@pytest.fixture(scope="module")
def cli():
    """cli(spec, gpu=False) -> the JSON of `kernelviz trace` for a run of a page's trace (at the schedule's
    batch_heads and GPU when gpu), each run once."""
    made = {}

    def report(spec, gpu=False):
        args = ["trace", spec["algo"], *(f"--{k}={spec[k]}" for k in ("N", "d", "Br", "Bc"))]
        args += ["--causal"] if spec.get("causal") else []
        if gpu:
            grid = spec["schedule"]
            args += ["--batch-heads", str(grid["batch_heads"]), "--gpu", grid["gpu"]]
        key = tuple(args)
        if key not in made:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                assert main([*args, "--json"]) == 0
            made[key] = json.loads(out.getvalue())
        return made[key]

    return report


def printed(html):
    """{(run, expr): text} of the tiles-per-block and schedule numbers a page prints."""
    return {(run, expr): text for run, expr, text in SPAN.findall(html)}


@pytest.mark.parametrize("slug", PAGES)
def test_the_tiles_per_block_printed_are_the_trace_commands(built, cli, slug):
    front, html = built[slug]
    shown = printed(html)
    assert any(run.endswith("causal") for run, _ in shown), "the page prints the mask's tiles per block"
    for (run, expr), text in shown.items():
        if expr.startswith("tiles_per_block."):
            want = per_block(cli(front["trace"][run])["kv_tiles_per_block"])[expr.split(".")[1]]
            assert text == trace.format_number(want), (run, expr)


def test_the_fa2_grid_printed_is_the_trace_commands(built, cli):
    """The headline of the FA2 page: the causal grid of 16 heads at N = 4096 on an H100, against
    `kernelviz trace fa2 --causal --N 4096 ... --batch-heads 16 --gpu h100 --json`."""
    front, html = built["flash-attention-2"]
    check_schedules(front, html, cli, runs={"long_causal"})


@pytest.mark.slow
@pytest.mark.parametrize("slug", PAGES)
def test_every_grid_printed_is_the_trace_commands(built, cli, slug):
    """Every grid of both pages (fa1's and fa2's, with and without the mask), each a trace run of 16 heads."""
    check_schedules(*built[slug], cli)


def check_schedules(front, html, cli, runs=None):
    seen = set()
    for (run, expr), text in printed(html).items():
        if expr.startswith("schedule.") and (runs is None or run in runs):
            spec = front["trace"][run]
            value = cli(spec, gpu=True)["schedule"] | {"batch_heads": spec["schedule"]["batch_heads"]}
            for name in expr.split(".")[1:]:
                value = value[name]
            assert text == trace.format_number(value), (run, expr)
            seen.add(run)
    assert seen >= (runs or set()) and seen


@pytest.mark.parametrize("slug", PAGES)
def test_the_chart_draws_the_trace_commands_tiles(built, cli, slug):
    """One chart in the trip section: a bar per block for each run, its value and height in proportion to the
    tiles `kernelviz trace` counts for that block, without and with --causal."""
    front, html = built[slug]
    (chart,) = CHART.findall(html)
    (names,) = FENCE.findall((ROOT / "pages" / f"{slug}.md").read_text())
    assert html.index('id="counting-trips-across-hbm"' if slug.endswith("1") else 'id="trips-across-hbm"') < (
        html.index(chart)
    )
    bars = {}
    for key, height, i, v in RECT.findall(chart):
        bars.setdefault(key, []).append((int(i), int(v), float(height)))
    tallest = max(h for series in bars.values() for *_, h in series)
    for key, run in zip(("full", "masked"), names, strict=True):
        tiles = cli(front["trace"][run])["kv_tiles_per_block"]
        assert [(i, v) for i, v, _ in bars[key]] == list(enumerate(tiles))
        assert [h / tallest for *_, h in bars[key]] == pytest.approx([t / max(tiles) for t in tiles], abs=1e-3)
    assert front["trace"][names[1]].get("causal") and not front["trace"][names[0]].get("causal")
