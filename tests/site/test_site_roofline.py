"""The roofline section on each kernel page, as built (what a reader without JavaScript gets): the plot's roofs for
every GPU, the page's algorithms as points, and a table whose numbers equal `kernelviz trace ALGO --gpu GPU --json`
at the figure's sizes; measured runs drawn beside the bounds when bench/gpu.py's results file is there, and a
sentence saying nothing was measured when it is not."""

import html
import json
import re
from pathlib import Path

import pytest

from kernelviz.attention import FLOP_FORMULAS, FORMULAS, formulas
from kernelviz.roofline import GPUS
from kernelviz.site import build as site_build
from kernelviz.site.diagnostics import BuildError
from tests.pages.kernel_pages import DEFAULTS
from tests.roofline.roofline_pages import SLUGS, algorithms, check, expected, read_html

ROOT = Path(__file__).resolve().parents[2]
RUNS = [  # a results file as bench/gpu.py writes it
    {"algorithm": "fa2", "dtype": "float32", "N": 4096, "N_kv": 4096, "d": 64, "Br": 64, "Bc": 64,
     "batch_heads": 16, "causal": False, "splits": None, "seconds": 0.004},
    {"algorithm": "flash-decoding", "dtype": "float32", "N": 1, "N_kv": 65536, "d": 128, "Br": 1, "Bc": 64,
     "batch_heads": 32, "causal": False, "splits": 16, "seconds": 0.0005},
]  # fmt: skip


@pytest.fixture(scope="module")
def site(tmp_path_factory, monkeypatch_module):
    results = tmp_path_factory.mktemp("results") / "gpu.json"
    results.write_text(json.dumps({"machine": "NVIDIA H200 (a test's file)", "gpu": "h200", "runs": RUNS}))
    monkeypatch_module.setenv("KERNELVIZ_GPU_RESULTS", str(results))
    out = tmp_path_factory.mktemp("roofline") / "site"
    try:
        site_build.build(ROOT / "pages", out, strict=True, log=None)
    except BuildError as e:
        pytest.fail(f"the real pages do not build in strict mode: {e}")
    return out


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as mp:
        yield mp


@pytest.mark.parametrize("slug", SLUGS)
def test_the_built_section_equals_trace_at_the_figure_s_sizes(site, slug):
    shown = read_html((site / f"{slug}.html").read_text(encoding="utf-8"))
    assert shown is not None, f"{slug}.html has no roofline section"
    check(shown, expected(slug, DEFAULTS[slug]))  # the sizes the page's figure opens with


def test_the_sizes_to_choose_are_the_figure_s_and_the_realistic_ones(site):
    text = (site / "flash-attention-2.html").read_text(encoding="utf-8")
    labels = re.findall(r'<label><input type="radio" name="kv-roof-preset" value="([\w-]+)"[^>]*>([^<]*)</label>', text)
    assert [html.unescape(label) for _, label in labels] == [
        "the figure's (the form's)",
        "N = 4,096, d = 64",
        "N = 4,096, d = 128",
        "N = 32,768, d = 64",
        "N = 32,768, d = 128",
    ]
    assert re.search(r'<fieldset class="kv-roof-presets"><legend>Sizes</legend><label>', text)  # nothing stray
    assert 'value="figure" checked' in text


@pytest.mark.parametrize("slug", SLUGS)
def test_measured_runs_of_the_page_s_algorithms_are_drawn_beside_the_bounds(site, slug):
    shown = read_html((site / f"{slug}.html").read_text(encoding="utf-8"))
    runs = [r for r in RUNS if r["algorithm"] in algorithms(slug)]
    assert [m["algorithm"] for m in shown["measured"]] == [r["algorithm"] for r in runs]
    for m, r in zip(shown["measured"], runs, strict=True):  # FLOPs and bytes from the closed forms, over its time
        extra = {"n_splits": r["splits"]} if r["splits"] else {}
        sizes = dict(N_kv=r["N_kv"], batch_heads=r["batch_heads"], **extra)
        work = sum(FLOP_FORMULAS[r["algorithm"]](r["N"], r["d"], r["Br"], r["Bc"], **sizes).values())
        nbytes = formulas.total(FORMULAS[r["algorithm"]](r["N"], r["d"], r["Br"], r["Bc"], itemsize=4, **sizes))
        assert m["intensity"] == pytest.approx(work / nbytes, rel=1e-12)
        assert m["flops_per_s"] == pytest.approx(work / r["seconds"], rel=1e-12)
    if runs:
        assert "NVIDIA H200 (a test's file)" in shown["note"]
    else:
        assert shown["note"].startswith("Nothing has been measured of these kernels yet")


def test_without_a_results_file_the_section_says_nothing_was_measured(tmp_path, monkeypatch):
    from kernelviz.site import js
    from kernelviz.site.extensions.roofline import RENDERER, presets

    monkeypatch.setenv("KERNELVIZ_GPU_RESULTS", str(tmp_path / "none.json"))
    from kernelviz.roofline import measured

    assert measured.runs(measured.load(), ["fa2"]) is None
    gpus = [{k: getattr(g, k) for k in ("key", "name", "hbm_bytes_per_s", "tensor_flops_per_s", "fp32_flops_per_s")}
            for g in GPUS.values()]  # fmt: skip
    spec = {"gpus": gpus, "algorithms": ["fa2"], "page": {"d": 4}, "sizes": {"N": 8, "Br": 4, "Bc": 4},
            "presets": presets(), "measured": None}  # fmt: skip
    js.load(js.runtime_script(site_build.WEB_DIST, RENDERER, "the roofline renderer"))
    html = js.call("kvRenderRoofline", {"spec": spec, "state": {"sizes": spec["sizes"], "preset": "figure"}})["html"]
    shown = read_html(f'<section class="kv-roofline">{html}</section>')
    assert shown["measured"] == [] and shown["note"].startswith("Nothing has been measured yet")


@pytest.mark.parametrize(
    "front, said",
    [
        ("{algorithms: [fa4], N: 8, d: 4}", "unknown algorithm 'fa4'"),
        ("{algorithms: [fa2], N: 8, d: 4, heads: 2}", "unknown size 'heads'"),
        ("{algorithms: [fa2], N: 8, N_kv: L0, d: 4}", "N_kv: 'L0' is not a size of the page's form (none)"),
        ("{algorithms: [fa2], d: 4}", "no N: give it a number, or a size of the page's form"),
        ("[fa2]", "the front matter needs roofline: {algorithms: [...], ...}"),
    ],
)
def test_a_roofline_the_front_matter_gets_wrong_is_a_warning_at_its_line(build_site, front, said):
    page = f"---\ntitle: T\nroofline: {front}\n---\n\n## Bounds\n\n{{{{ roofline }}}}\n"
    result, out = build_site({"t.md": page})
    (warning,) = [str(w) for w in result.warnings if "{{ roofline }}" in str(w)]
    assert not any("broken link" in str(w) for w in result.warnings)  # it loads no roofline script then
    assert warning.startswith(f"{result.warnings[0].file}:8: {{{{ roofline }}}}: {said}"), warning
    assert "could not be drawn" in (out / "t.html").read_text()
