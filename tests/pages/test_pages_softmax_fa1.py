"""Pages 1 and 2, Online softmax and Flash Attention 1.

The two pages are built in strict mode (with stand-ins for the pages they link to, and a stand-in runtime bundle);
their figures are checked against ``kernelviz.attention`` (the FA1 figure's tally of tiles against the ledger, the
online-softmax figure's numbers against NumPy); every HBM count they print is checked against the closed-form
formulas, at the front matter's sizes and at other sizes written into a copy of the page; and the numeric panel's
JavaScript (web/src/softmax) is run under node and checked against NumPy.

``panel_numbers`` is the NumPy twin of the panel (web/src/softmax/compute.js); the browser test uses it too.
"""

import html
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml

from kernelviz.attention import formulas
from tests.attention.grid_ticks import expected_schedule, flat, per_block
from tests.pages.kernel_pages import Page as KernelPage
from tests.site.page_scene import page_scene

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "pages"
SOFTMAX_JS = ROOT / "web" / "src" / "softmax"
NODE = shutil.which("node")
MINE = ("online-softmax", "flash-attention-1")
LINKED = {"flash-attention-2": "Flash Attention 2"}  # pages mine link to: stand-ins in the fixture sites
FA1_REGIONS = ("setup", "load_kv", "load_q_carries", "scores", "update", "write_back")
TRACE = re.compile(r'<span class="kv-trace" title="([^"]*)">([^<]*)</span>')


# ---- building the two pages ----


def split_page(text):
    """(front matter dict, body) of a page source."""
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body


def with_front(text, front):
    return "---\n" + yaml.safe_dump(front, sort_keys=False) + "---\n" + split_page(text)[1]


@pytest.fixture(scope="module")
def build_pages(tmp_path_factory, stand_in_runtime):
    """build_pages({slug: source}) -> {slug: built HTML}: the two pages (or changed copies), strict; its `scenes`
    are {slug: the Scene the page opens with} (the file it preloads)."""
    from kernelviz.site.build import build

    def build_them(sources=None):
        sources = {slug: (PAGES / f"{slug}.md").read_text(encoding="utf-8") for slug in MINE} | (sources or {})
        folder = tmp_path_factory.mktemp("pages")
        for slug, text in sources.items():
            (folder / f"{slug}.md").write_text(text, encoding="utf-8")
        for slug, title in LINKED.items():
            (folder / f"{slug}.md").write_text(f"---\ntitle: {title}\n---\n\nA stand-in.\n")
        shutil.copy(PAGES / "gpu-primer.md", folder)  # the sections the prerequisites link to
        out = folder.parent / f"{folder.name}-site"
        build(folder, out, strict=True, web_dist=stand_in_runtime, log=None)
        built = Built({slug: (out / f"{slug}.html").read_text(encoding="utf-8") for slug in sources})
        built.scenes = {slug: page_scene(out / f"{slug}.html") for slug in sources}
        return built

    return build_them


@pytest.fixture(scope="module")
def built(build_pages):
    return build_pages()


class Built(dict):
    """{slug: built HTML}, with `scenes`: {slug: Scene}."""

    scenes: dict


def embedded(html_text, script_id):
    match = re.search(rf'<script type="application/json" id="{script_id}">(.*?)</script>', html_text, re.S)
    assert match, f"no #{script_id}"
    return json.loads(match.group(1))


def step_labels(scene, field="label"):
    return [s[field] for node in scene["nodes"] if node["kind"] == "step_list" for s in node["steps"]]


def traces(html_text):
    """{placeholder expression: the number printed for it}."""
    return {expr: float(text.replace(",", "")) for expr, text in TRACE.findall(html_text)}


# ---- the built pages ----


@pytest.mark.parametrize("slug", MINE)
def test_page_builds_strict_with_its_figure_editors_and_bound_bullets(built, slug, validate_scene):
    source = (PAGES / f"{slug}.md").read_text(encoding="utf-8")
    page = built[slug]
    assert f'<body data-page="{slug}">' in page
    scene = validate_scene(built.scenes[slug])
    labels = step_labels(scene)
    assert len(labels) == len(set(labels)) > 10, "a step list with unique labels"
    assert [e["title"] for e in embedded(page, "kv-editors")] == ["Drawing helpers", "The kernel"]
    bound = re.findall(r"^\s*- \[step: ([^\]]+)\]", source, re.M)
    steps = [int(k) for k in re.findall(r'<li data-step="(\d+)"', page)]
    assert len(steps) == len(bound) > 5
    keys = step_labels(scene, "key")
    assert [keys[k] for k in steps] == bound, "each bullet plays the step its key names"
    assert "[step:" not in page


def test_fa1_page_has_a_cuda_block_per_step_from_every_region(built):
    page = built["flash-attention-1"]
    keys = step_labels(built.scenes["flash-attention-1"], "key")
    blocks = re.findall(
        r'<details class="kv-cuda" data-step="(\d+)"(?: data-step-key="[^"]*")?(?: data-step-label="[^"]*")? '
        r'data-cite="fa1\.cu#(\w+)"',
        page,
    )
    assert list(dict.fromkeys(name for _, name in blocks)) == list(FA1_REGIONS)
    # each region sits on the step that does what it does
    action = {"setup": "init", "load_kv": "load K,V", "load_q_carries": "load Q,O,l,m", "scores": "fill Sij"}
    action |= {"update": "update m,l,O", "write_back": "write O,l,m"}
    for k, name in blocks:
        assert action[name] in keys[int(k)], (name, keys[int(k)])
    assert page.count('class="kv-code kv-missing"') == 0


def test_online_softmax_page_mounts_the_panel_and_loads_its_script(built):
    page = built["online-softmax"]
    assert '<script type="module" src="assets/softmax-panel.js"></script>' in page
    panel = re.search(r'<div class="kv-softmax-panel"([^>]*)></div>', page)
    assert panel and 'data-seed="1"' in panel.group(1)


# ---- every HBM count on the pages is the ledger's, and follows the sizes ----


def attention_expected(algo, sizes):
    """What the page must print for an attention run, from the closed-form counts (not from the build); with a
    schedule, the grid's numbers from a tick-by-tick simulation of it on the GPU's SMs (read from gpus.json)."""
    N, d, Br, Bc = (sizes[k] for k in ("N", "d", "Br", "Bc"))
    mask = {"N_kv": sizes.get("N_kv", N), "causal": sizes.get("causal", False)}
    counts = getattr(formulas, algo)(N, d, Br, Bc, **mask)
    Nk = mask["N_kv"]
    size = {"Q": N * d * 4, "K": Nk * d * 4, "V": Nk * d * 4, "O": N * d * 4, "l": N * 4, "m": N * 4, "L": N * 4}
    tile = {"Q": Br * d * 4, "O": Br * d * 4, "l": Br * 4, "m": Br * 4, "L": Br * 4, "K": Bc * d * 4, "V": Bc * d * 4}
    out = {k: v for k, v in sizes.items() if k not in ("causal", "schedule")}
    out |= {"Tr": -(-N // Br), "Tc": -(-Nk // Bc)}
    for t, rw in counts.items():
        out |= {f"reads.{t}": rw["read"] / size[t], f"writes.{t}": rw["write"] / size[t]}
        out |= {f"loads.{t}": rw["read"] // tile[t], f"stores.{t}": rw["write"] // tile[t]}
    out["bytes.total"] = formulas.total(counts)
    out["bytes.read"] = sum(rw["read"] for rw in counts.values())
    out["bytes.write"] = sum(rw["write"] for rw in counts.values())
    standard = formulas.standard(N, d, Br, Bc, **mask)
    out["ratio_standard"] = formulas.total(standard) / formulas.total(counts)
    tiles = [formulas.tiles_visited(i, N, Br, Bc, **mask) for i in range(out["Tr"])]
    out |= {f"tiles_per_block.{k}": v for k, v in per_block(tiles).items()}
    if grid := sizes.get("schedule"):
        gpus = json.loads((ROOT / "kernelviz" / "roofline" / "gpus.json").read_text())["gpus"]
        heads = grid.get("batch_heads", 1)
        schedule = expected_schedule(algo, tiles, heads, gpus[grid["gpu"]]["sms"]["value"])
        out |= {f"schedule.{k}": v for k, v in flat(schedule).items()} | {"schedule.batch_heads": heads}
    return out


def softmax_expected(algo, sizes):
    variant = {"naive-softmax": "naive", "safe-softmax": "safe", "online-softmax": "online"}.get(algo, "online-output")
    counts = formulas.softmax(variant, sizes["N"], d=sizes.get("d", 0))
    n, d = sizes["N"], sizes.get("d", 0)
    size = {"x": n * 4, "y": n * 4, "V": n * d * 4, "o": d * 4}  # bytes of each tensor, float32
    out = {k: v for k, v in sizes.items() if k != "algo"}
    for t, rw in counts.items():
        out |= {f"reads.{t}": rw["read"] / size[t], f"writes.{t}": rw["write"] / size[t]}
    return out


def expected_numbers(front):
    """{"name.expr": value} for every named run of the page's front matter trace."""
    out = {}
    for name, spec in front["trace"].items():
        sizes = {k: v for k, v in spec.items() if k != "algo"}
        table = attention_expected(spec["algo"], sizes) if spec["algo"] in ("fa1", "fa2") else None
        table = table or softmax_expected(spec["algo"], sizes)
        out |= {f"{name}.{key}": value for key, value in table.items()}
    return out


def check_numbers(page_html, front):
    printed, expected = traces(page_html), expected_numbers(front)
    assert printed, "the page prints ledger numbers"
    for expr, value in printed.items():
        key = expr.removeprefix("trace.")
        assert key in expected, f"{expr}: not a number this test knows how to check"
        want = expected[key]
        assert value == pytest.approx(want, rel=5e-3 if not float(want).is_integer() else 0), expr
    return printed


@pytest.mark.parametrize("slug", MINE)
def test_every_hbm_count_is_the_ledgers_at_the_front_matter_sizes(built, slug):
    front, _ = split_page((PAGES / f"{slug}.md").read_text(encoding="utf-8"))
    check_numbers(built[slug], front)


def test_fa1_numbers_follow_the_trace_sizes(built, build_pages):
    source = (PAGES / "flash-attention-1.md").read_text(encoding="utf-8")
    front, _ = split_page(source)
    doubled = {name: {**spec, "N": spec["N"] * 2} for name, spec in front["trace"].items() if "schedule" not in spec}
    bigger = {**front, "trace": {**front["trace"], **doubled}}  # (the grids at N = 4096 stay: the build runs them)
    before = traces(built["flash-attention-1"])
    after = check_numbers(build_pages({"flash-attention-1": with_front(source, bigger)})["flash-attention-1"], bigger)
    # twice the rows: twice the tiles of K and V, so Q and the carries make twice the trips in FA1
    assert after["trace.fa1.reads.Q"] == 2 * before["trace.fa1.reads.Q"]
    assert after["trace.fa1.loads.Q"] == 4 * before["trace.fa1.loads.Q"]
    assert after["trace.fa1.writes.O"] == 2 * before["trace.fa1.writes.O"] - 1  # the setup's zeros stay one trip
    assert after["trace.fa2.reads.K"] == 2 * before["trace.fa2.reads.K"]
    assert after["trace.fa1.bytes.total"] > 3 * before["trace.fa1.bytes.total"]


def test_softmax_numbers_follow_the_trace_sizes(build_pages):
    source = (PAGES / "online-softmax.md").read_text(encoding="utf-8")
    front, _ = split_page(source)
    changed = {**front, "trace": {name: {**spec, "N": 64, "Bc": 8} for name, spec in front["trace"].items()}}
    after = check_numbers(build_pages({"online-softmax": with_front(source, changed)})["online-softmax"], changed)
    assert after["trace.naive.N"] == 64 and after["trace.naive.Bc"] == 8
    assert (after["trace.naive.reads.x"], after["trace.safe.reads.x"], after["trace.online.reads.x"]) == (2, 3, 2)


# ---- the online softmax figure, against NumPy (the counters of every kernel page: test_pages_figures) ----


def factors_shown(page):
    """The label of the slot captioned 'factor' at each 'max i=I' step: the rescale factor of tile I."""
    shown = []
    for key in [k for k in page.keys if k.startswith("max ")]:
        end = page.items(key)
        (caption,) = [i for i in end if i["label"] == "factor" and i["w"] == 0]
        (held,) = [i for i in end if i["w"] > 0 and abs(i["x"] + i["w"] / 2 - caption["x"]) < 1e-3 and i["label"]]
        shown.append(held["label"])
    return shown


def test_online_softmax_figure_shows_the_rescale_factors():
    page = KernelPage("online-softmax")
    x = np.array([1.0, 2.0, 4.0, 0.5, 3.0, 1.5, 6.0, 2.5])
    maxes = np.maximum.accumulate(x.reshape(-1, 2).max(1))
    factors = np.exp(np.concatenate([[-np.inf], maxes[:-1]]) - maxes)
    shown = [float(label.lstrip("×")) for label in factors_shown(page)]
    assert shown == pytest.approx(factors, rel=1e-2)
    assert 0 < min(shown[1:]) < 1 and max(shown[1:]) == 1, "the default row both rescales and does not"


def test_online_softmax_figure_follows_an_edited_row():
    def row_that_never_grows(code):
        return code.replace("[1.0, 2.0, 4.0, 0.5, 3.0, 1.5, 6.0, 2.5]", "[9.0, 1.0, 2.0, 0.5, 3.0, 1.5, 6.0, 2.5]")

    page = KernelPage("online-softmax", edit=row_that_never_grows)
    assert factors_shown(page) == ["×0", "×1", "×1", "×1"]
    assert page.keys[-1] == "write O"


# ---- the numeric panel: its JavaScript under node, against NumPy ----

NODE_RUN = """
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const dir = process.argv[1];
const mods = {};
for (const f of ['float16.js', 'data.js', 'compute.js']) {
  Object.assign(mods, await import(pathToFileURL(dir + '/' + f)));
}
const calls = JSON.parse(readFileSync(0, 'utf8'));
// numbers as strings, so that NaN and the infinities survive JSON
const out = (v) => (typeof v === 'number' ? String(v) : Array.isArray(v) ? v.map(out)
  : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, out(x)])) : v);
console.log(JSON.stringify(calls.map(([fn, args]) => out(mods[fn](...args)))));
"""


def run_js(calls):
    """[(function, [args])] -> results, numbers as floats (NaN and infinities included), in one node process."""
    if NODE is None:
        pytest.skip("node is not installed")
    proc = subprocess.run(
        [NODE, "--input-type=module", "-e", NODE_RUN, str(SOFTMAX_JS)],
        input=json.dumps(calls),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return numbers_of(json.loads(proc.stdout))


def numbers_of(value):
    if isinstance(value, list):
        return [numbers_of(v) for v in value]
    if isinstance(value, dict):
        return {k: numbers_of(v) for k, v in value.items()}
    return float(value) if isinstance(value, str) else value


def test_float16_rounding_is_numpys():
    rng = np.random.default_rng(7)
    values = [65504.0, 65519.99, 65520.0, -65520.0, 1e6, 2.0**-24, 2.0**-25, 3 * 2.0**-26, 2.0**-14, 1e-9, 0.1, -0.0]
    values += list(rng.choice([-1, 1], 3000) * 10.0 ** rng.uniform(-9, 6, 3000))
    halfs = rng.integers(0, 0x7BFF, 2000).astype(np.uint16).view(np.float16).astype(np.float64)
    nxt = np.nextafter(halfs.astype(np.float16), np.float16(np.inf)).astype(np.float64)
    values += list((halfs + nxt) / 2)  # exact halfway cases: ties go to the even neighbour
    got = run_js([["toFloat16", [v]] for v in values])
    with np.errstate(over="ignore"):
        want = np.array(values).astype(np.float16).astype(np.float64)
    assert np.array_equal(np.array(got), want)
    assert run_js([["toFloat16", [65520.0]], ["toFloat16", [65504.0]]]) == [math.inf, 65504.0]


def lcg(seed, count):
    """The panel's documented generator: s' = (1664525 s + 1013904223) mod 2^32, u = s' / 2^32."""
    out, state = [], seed % 2**32
    for _ in range(count):
        state = (1664525 * state + 1013904223) % 2**32
        out.append(state / 2**32)
    return out


def panel_row(seed, n, scale):
    u = lcg(seed, 2 * n)
    return [scale * (2 * t - 1) for t in u[:n]], [2 * t - 1 for t in u[n:]]


def _sum(terms, dt):
    total = dt(0)
    for t in terms:
        total = dt(total + t)
    return total


def panel_numbers(seed, n, b, scale, large):
    """The panel's tables in NumPy: float32 and float16 scalars, sums left to right, as compute.js documents."""
    f32 = np.float32
    x, v = (np.array(a).astype(f32) for a in panel_row(seed, n, scale))
    with np.errstate(over="ignore", invalid="ignore"):

        def safe(xs, dt):
            m = xs.max()
            d = _sum([np.exp(dt(t - m)) for t in xs], dt)
            return np.array([dt(np.exp(dt(t - m)) / d) for t in xs])

        def naive(xs, dt):
            e = [np.exp(t) for t in xs]
            d = _sum(e, dt)
            return np.array([dt(t / d) for t in e])

        m, den, tiles = -np.inf, f32(0), []  # den: the running denominator, the page's l
        for start in range(0, n, b):
            part = x[start : start + b]
            m_new = max(m, part.max())
            factor = np.exp(f32(m - m_new))
            den = f32(f32(den * factor) + _sum([np.exp(f32(t - m_new)) for t in part], f32))
            tiles.append({"tileMax": part.max(), "mOld": m, "mNew": m_new, "factor": factor, "l": den})
            m = m_new
        online = np.array([f32(np.exp(f32(t - m)) / den) for t in x])
        standard = safe(x, f32)
        big = {dt: np.array(panel_row(seed, n, large)[0]).astype(dt) for dt in (np.float32, np.float16)}
        overflow = {
            name: {"naive": naive(big[dt], dt), "safe": safe(big[dt], dt)}
            for name, dt in (("float32", np.float32), ("float16", np.float16))
        }
    p = np.exp(x.astype(np.float64) - x.max())
    return {
        "x": x,
        "standard": standard,
        "online": online,
        "maxDiff": float(np.abs(standard - online).max()),
        "o": float((p / p.sum()) @ v.astype(np.float64)),
        "tiles": tiles,
        "large": big[np.float32],
        "overflow": overflow,
    }


def assert_same(got, want, rel):
    """Equal NaN and infinity patterns, and the finite values within `rel`."""
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.isinf(got), np.isinf(want))
    assert np.array_equal(got[np.isinf(got)], want[np.isinf(want)])
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=rel, atol=rel * 1e-3)


def check_panel(js, want):
    """The panel's numbers `js` (compute.js's result, or read from the page) against NumPy's `want`."""
    assert_same(js["x"], want["x"], 1e-7)
    assert_same(js["standard"], want["standard"], 2e-6)
    assert_same(js["online"], want["online"], 2e-6)
    assert js["maxDiff"] < 1e-6 * max(want["standard"])
    assert js["oStandard"] == pytest.approx(want["o"], abs=1e-5)
    assert js["oOnePass"] == pytest.approx(want["o"], abs=1e-5)
    for key in ("tileMax", "mOld", "mNew", "factor", "l"):
        assert_same([t[key] for t in js["tiles"]], [t[key] for t in want["tiles"]], 2e-6)
    assert_same(js["large"], want["large"], 1e-7)
    for name, rel in (("float32", 2e-6), ("float16", 2e-3)):
        for kind in ("naive", "safe"):
            assert_same(js["overflow"][name][kind], want["overflow"][name][kind], rel)


def test_panel_generator_is_the_documented_lcg():
    (got,) = run_js([["row", [1, 16, 4]]])
    x, v = panel_row(1, 16, 4)
    assert got["x"] == x and got["v"] == v  # exactly: the same integers and the same double arithmetic


@pytest.mark.parametrize("settings", [(1, 16, 4, 4, 100), (50, 32, 8, 6, 100), (3, 8, 2, 2, 30), (9, 16, 16, 4, 1000)])
def test_panel_numbers_are_numpys(settings):
    seed, n, b, scale, large = settings
    (js,) = run_js([["compute", [{"seed": seed, "n": n, "b": b, "scale": scale, "large": large}]]])
    check_panel(js, panel_numbers(seed, n, b, scale, large))


def test_panel_default_shows_what_the_page_says():
    """At the page's settings: standard and online differ (a little), the max grows and also stays, naive softmax
    overflows in both precisions where safe softmax does not."""
    (js,) = run_js([["compute", [{"seed": 1, "n": 16, "b": 4, "scale": 4, "large": 100}]]])
    assert 0 < js["maxDiff"] < 1e-6
    factors = [t["factor"] for t in js["tiles"]]
    assert factors[0] == 0 and 1 in factors[1:] and any(0 < f < 1 for f in factors)
    for name in ("float32", "float16"):
        assert any(math.isnan(y) for y in js["overflow"][name]["naive"])
        assert all(math.isfinite(y) for y in js["overflow"][name]["safe"])
        assert sum(js["overflow"][name]["safe"]) == pytest.approx(1, abs=1e-2)


def test_page_text_escapes_nothing_it_should_not(built):
    """Labels and math come out as text: no stray HTML from a label, no unrendered $ or {{ left in the prose."""
    for slug in MINE:
        prose = re.sub(r"<(script|pre|annotation)\b.*?</\1>", "", built[slug], flags=re.S)
        text = html.unescape(re.sub(r"<[^>]+>", "", prose))
        assert "{{" not in text and "$$" not in text, slug
