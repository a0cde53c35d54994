"""The CUDA beside each step reads on its own, on every page: checks over the real pages, built once.

- every CUDA block shows the declaration of each name it uses (its region, with the loops and declarations
  around it); the reading of declarations is kernelviz.cuda.scope's, unit-tested in tests/cuda/test_cuda_scope.py;
- every block links to its region on the whole kernel's page, which has every line and the compilers' report;
- Online softmax and Flash Attention 1 have a block for every step of their figure, showing the step's indices;
- the shared-memory numbers the prose prints are what NVRTC's ptxas reports for that instance.
"""

import html
import json
import re
from pathlib import Path

import pytest

from kernelviz.cuda import compile, kernels, nvrtc, regions, scope
from kernelviz.site import build as site_build
from kernelviz.site import cuda_render
from kernelviz.site.scene_file import unpack
from tests.pages.opened_blocks import blocks
from tests.site.page_scene import scene_file

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """{output file: HTML} of the real pages built against the real runtime bundle, and {scenes/SLUG.json: JSON} of
    the Scenes they open with."""
    out = tmp_path_factory.mktemp("cuda-pages") / "site"
    result = site_build.build(ROOT / "pages", out, log=None)
    assert [str(w) for w in result.warnings] == []
    return {p.relative_to(out).as_posix(): p.read_text() for p in [*out.glob("*.html"), *out.glob("scenes/*.json")]}


def code_text(inner):
    """The code a block shows, as plain text: no line numbers, no step notes, no elision marks."""
    pre = re.search(r'<pre class="kv-code kv-cuda-code">(.*)</pre>', inner, re.S).group(1)
    pre = re.sub(r'<a class="kv-ln"[^>]*>\d+</a>|<span class="kv-note"[^>]*>.*?</span>', "", pre)
    lines = [html.unescape(re.sub(r"<[^>]+>", "", line)) for line in pre.split("\n")]
    return "\n".join(x for x in lines if x.strip() not in ("⋯", "") and not x.lstrip().startswith("// this step:"))


def all_blocks(site):
    return [(name, attrs, inner) for name, text in sorted(site.items()) for attrs, inner in blocks(text)]


def test_every_block_shows_the_declaration_of_every_name_it_uses(site):
    found = all_blocks(site)
    assert len(found) > 50
    for name, attrs, inner in found:
        text = code_text(inner)
        declared = {d for line in text.splitlines() for d in scope.declares(line)}
        missing = [n for n in scope.uses(text) if n not in declared]
        assert missing == [], f"{name}: {attrs['data-cite']} uses {missing} without their declaration in view"


def test_names_declared_out_of_view_would_be_caught():
    """The check above is not vacuous: the bare region of a loop body uses names it does not declare."""
    text = regions.region("fa2.cu#load_kv")
    declared = {d for line in text.splitlines() for d in scope.declares(line)}
    assert {"col0", "tid", "Kj", "N_kv", "D"} <= set(scope.uses(text)) - declared


def test_every_block_links_to_its_region_on_the_whole_kernels_page(site):
    for name, attrs, inner in all_blocks(site):
        filename, _, region = attrs["data-cite"].partition("#")
        href = re.search(r'<p class="kv-cuda-where"><a href="([^"]+)">', inner).group(1)
        assert href == f"{filename}.html#{region}", name
        whole = site[f"{filename}.html"]
        assert f'id="{region}"' in whole
        for n in re.findall(r'<a class="kv-ln" href="[^"#]+#L(\d+)">', inner):  # each shown line, at its place
            assert f'id="L{n}"' in whole


UNCITED = set()  # a kernel no page cites has no whole-kernel page (each is cited now)


def test_the_whole_kernel_pages_hold_every_line_and_the_compilers_report(site):
    for kernel, filename in kernels.FILES.items():
        if kernel in UNCITED:
            assert f"{filename}.html" not in site, f"a page cites {filename} now: take {kernel} out of UNCITED"
            continue
        whole = site[f"{filename}.html"]
        source = (kernels.FOLDER / filename).read_text().splitlines()
        assert re.findall(r'id="L(\d+)"', whole) == [str(n) for n in range(1, len(source) + 1)]
        report = re.search(r'<table class="kv-report">(.*?)</table>', whole, re.S).group(1)
        names = {html.unescape(x) for x in re.findall(r"<td><code>([^<]+)</code></td>", report)}
        assert names == set(compile.instances(kernel)), kernel


def test_the_header_page_holds_every_line_and_sends_to_the_kernels_that_compile_it(site):
    """mma_sm80.h, cited for its mma and ldmatrix, has a whole-file page; in place of a compiler report (a header has
    none of its own) it links the three kernels that include it."""
    whole = site["mma_sm80.h.html"]
    source = (kernels.FOLDER / "mma_sm80.h").read_text().splitlines()
    assert re.findall(r'id="L(\d+)"', whole) == [str(n) for n in range(1, len(source) + 1)]
    report = re.search(r'<h2 id="report">.*?</p>', whole, re.S).group(0)
    assert re.findall(r'href="([^"]+)"', report) == ["fa2_mma.cu.html", "fa2_pipe.cu.html", "fa3.cu.html"]
    assert "No compiler report" not in whole


def step_list(page_html, site):
    scene = unpack(json.loads(site[scene_file(page_html)]))
    return next(n for n in scene["nodes"] if n["kind"] == "step_list")["steps"]


@pytest.mark.parametrize(
    "slug", ["online-softmax", "flash-attention-1", "flash-attention-2", "flash-attention-2-backward", "flash-decoding"]
)
def test_every_step_of_every_kernel_page_has_its_cuda_block_with_its_own_indices(site, slug):
    page = site[f"{slug}.html"]
    steps = step_list(page, site)
    bound = {int(a["data-step"]): (a, inner) for a, inner in blocks(page) if "data-step" in a}
    assert sorted(bound) == list(range(1, len(steps))), "one block per step of the figure (step 0 is the start)"
    for k, (attrs, inner) in bound.items():
        at = json.loads(attrs.get("data-at", "{}"))
        if at:  # the step's own indices, on top of its code, and on the declarations they fix
            banner = ", ".join(f"{name} = {v}" for name, v in at.items())
            assert f"// this step: {banner}</span>" in inner, steps[k]["label"]
            for name, v in at.items():
                assert f'<span class="kv-note" data-name="{name}" data-expr="{v}">// {name} = {v}</span>' in inner


def test_fa1_blocks_show_the_tile_they_work_on(site):
    """j = 1: the tile's first key is 1*Bc, not the j = 0 block's code again."""
    page = site["flash-attention-1.html"]
    col0 = re.compile(r'data-name="col0" data-expr="[^"]*">// ([^<]*)<')
    notes = {a["data-at"]: col0.findall(inner) for a, inner in blocks(page)
             if "data-at" in a and "j" in json.loads(a["data-at"])}  # fmt: skip
    assert {v[0].partition(" = ")[2].partition(" =")[0] for v in notes.values()} == {"0*Bc", "1*Bc"}
    assert {"col0 = 1*Bc = 4", "col0 = 0*Bc = 0"} == {v[0] for v in notes.values()}  # Bc = 4 in the figure


@pytest.mark.skipif(nvrtc.version() is None, reason="NVRTC is missing: pip install cuda-bindings nvidia-cuda-nvrtc")
def test_shared_memory_in_the_prose_is_what_the_compiler_reports(site):
    """Each {{ trace....cuda.shared_bytes.K }} the pages print equals ptxas's figure for the kernel instance at the
    page's sizes, compiled here by NVRTC for its newest architecture (sm_90, or fa3's sm_90a), plus the dynamic
    shared memory the launch plan gives it."""
    printed = []
    for path in sorted((ROOT / "pages").glob("*.md")):
        text = site[f"{path.stem}.html"]
        for expr, value in re.findall(r'<span class="kv-trace" title="([^"]*cuda\.shared_bytes[^"]*)">([^<]*)<', text):
            printed.append((path, expr, int(value.replace(",", ""))))
    assert len(printed) >= 2
    for path, expr, value in printed:
        import yaml

        front = yaml.safe_load(path.read_text().split("---\n")[1])["trace"]
        *run, _, _, launch = expr.split(".")[1:]
        spec = dict(front[run[0]] if run else front)
        kernel = kernels.ALGORITHM_KERNELS[spec.pop("algo")]
        if kernel == "paged_decoding":  # its tiles: (G, PAGE)
            tiles, n = (spec.get("H_q", 1) // spec.get("H_kv", spec.get("H_q", 1)), spec["page_size"]), 1
        else:
            tiles = (1, spec["Bc"]) if kernel == "online_softmax" else (spec["Br"], spec["Bc"])
            n = spec.get("N_kv", spec["N"])
        plan = kernels.plan(kernel, 1, n, spec["d"], tiles, n_splits=spec.get("splits", 1))
        planned = next(p for p in plan if p.name.startswith(f"{launch}<"))
        built = nvrtc.build(kernel, [p.name for p in plan], kernels.archs(kernel)[-1])
        static = built.rows[planned.name].shared_bytes  # ptxas's; the dynamic bytes are the host's to give
        assert value == static + planned.dynamic_bytes, (path.name, expr, planned.name)


def test_flash_decoding_blocks_compute_the_split_and_tile_from_the_host_formulas(site):
    """tiles_per_split, the whole K/V tiles a split owns, is the host's ceil(ceil(N / Bc) / splits) (data-host, for
    the browser too); with it the split's first key and the tile's first key get their values: N = 16 keys in tiles
    of Bc = 4, 2 splits of 2 tiles. At N = 20, Bc = 3, splits = 3 that is 3 tiles a split (7 tiles: 3, 3, 1)."""
    page = site["flash-decoding.html"]
    opened = "".join(inner for _, inner in blocks(page))
    notes = set(re.findall(r'<span class="kv-note" data-name="[^"]+" data-expr="[^"]*">// ([^<]*)<', opened))
    assert {"n_start = 0*tiles_per_split*Bc = 0", "col0 = n_start + 1*Bc = 4"} <= notes
    assert "n_end = min(n_start + tiles_per_split*Bc, N) = 8" in notes
    hosts = {a.get("data-host") for a, _ in blocks(page) if a["data-cite"].startswith("flash_decoding.cu#split")}
    assert hosts == {json.dumps(kernels.host_formulas("flash_decoding"), separators=(",", ":"))}
    per = kernels.host_formulas("flash_decoding")["tiles_per_split"]
    assert step_at_eval(per, {"N": 20, "Bc": 3, "splits": 3}) == kernels.tiles_per_split(20, 3, 3) == 3
    assert step_at_eval(per, {"N": 16, "Bc": 4, "splits": 3}) == kernels.tiles_per_split(16, 4, 3) == 2


def step_at_eval(expr, values):
    return cuda_render.evaluate(expr, values, site_build.WEB_DIST)


@pytest.mark.parametrize("slug", ["online-softmax", "flash-attention-1", "flash-attention-2", "flash-decoding"])
def test_each_kernels_lines_are_in_the_page_once_and_the_blocks_hold_plain_text(site, slug):
    """The highlighted lines are not written into the blocks (a block is rendered when opened): each line a block
    shows is in the page's #kv-cuda-source once, with the lines its links lead to, and nothing else; each block's
    <pre> is its code as text, starting with its step's indices."""
    page = site[f"{slug}.html"]
    assert '<span class="kv-line' not in page and 'class="kv-ref"' not in page
    source = json.loads(re.search(r'<script type="application/json" id="kv-cuda-source">(.*?)</script>', page).group(1))
    shown = {}
    for attrs, inner in re.findall(r'<details class="kv-cuda"([^>]*)>(.*?)</details>', page, re.S):
        cite = re.search(r'data-cite="([^"]+)"', attrs).group(1)
        excerpt = regions.excerpt(cite)
        shown.setdefault(excerpt.filename, set()).update(excerpt.numbers)
        raw = re.search(r'<pre class="kv-code kv-cuda-code">(.*?)</pre>', inner, re.S).group(1)
        assert "<" not in raw, cite  # text, no markup
        text = html.unescape(raw)
        for line in regions.region(cite).splitlines():  # its code and its comment (the step's values between)
            assert all(part.strip() in text for part in line.partition("//")[::2]), (cite, line)
        if "data-at=" in attrs:
            assert text.startswith("// this step: "), cite
    assert set(source["files"]) == set(shown)
    for filename, numbers in shown.items():
        lines = {int(n) for n in source["files"][filename]["lines"]}
        targets = {int(c.partition("@")[2]) for toks in source["files"][filename]["lines"].values()
                   for c in toks[::2] if "@" in c}  # fmt: skip
        assert lines == numbers | targets, filename
