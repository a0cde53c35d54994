"""The four kernel pages' figures, drawn by kernelviz.figlib from the kernels' loops: at the default sizes and at
sizes a reader picks, the steps follow the loops, the HBM counter ends on the ledger's total (``kernelviz trace``),
every bullet and CUDA block names a step by its key, the geometry does what the prose says, and the pages' own
Python stays short and shares no block between pages."""

import itertools
import re

import numpy as np
import pytest

from kernelviz.attention.softmax import online_softmax_output
from tests.pages.kernel_pages import DEFAULTS, KERNEL_PAGES, Page, trace_total


def cdiv(a, b):
    return -(-a // b)


def step_count(slug, s):
    """Steps of the figure at sizes `s`, from the loops of the page's algorithm (step 0, the start, included)."""
    if slug == "flash-attention-2":  # (without the mask: the causal pages are tests/pages/test_pages_causal.py)
        return 1 + cdiv(s["N"], s["Br"]) * (2 + 3 * cdiv(s["N_kv"], s["Bc"]) + 1)  # zoom, load Q, 3 a tile, write
    if slug == "flash-attention-2-tensor-cores":  # zoom, load Q, ldmatrix Q, 4 a tile, write
        return 1 + cdiv(s["N"], s["Br"]) * (3 + 4 * cdiv(s["N_kv"], s["Bc"]) + 1)
    if slug == "flash-attention-2-pipelined":  # zoom, load Q, ldmatrix Q, 3 a tile, an issue a tile past the prologue
        tc = cdiv(s["N_kv"], s["Bc"])
        return 1 + cdiv(s["N"], s["Br"]) * (3 + 3 * tc + max(0, tc - s["stages"] + 1) + 1)
    if slug == "flash-attention-1":
        return 2 + cdiv(s["N_kv"], s["Bc"]) * (1 + 4 * cdiv(s["N"], s["Br"]))  # init; per K,V tile: load, 4 a block
    if slug == "flash-decoding":
        return 1 + 3 * s["splits"] + 3 * cdiv(s["N"], s["Bc"]) + 5  # per split 3, per tile 3, the combine 5
    if slug == "flash-attention-2-backward":  # preprocess 2 a block; main: zoom, load, 7 a block of rows, write
        return 1 + 2 * cdiv(s["N"], s["Br"]) + cdiv(s["N"], s["Bc"]) * (3 + 7 * cdiv(s["N"], s["Br"]))
    if slug == "paged-decoding":  # per (sequence, split) 3, per page 4, per sequence's combine 3 (with splits)
        pages = cdiv(s["L0"], s["page_size"]) + cdiv(s["L1"], s["page_size"])
        return 1 + 2 * 3 * s["splits"] + 4 * pages + (2 * 3 if s["splits"] > 1 else 0)
    return 1 + 3 * cdiv(s["N"], s["Bc"]) + 1  # online softmax: per tile 3, then the write


# Other sizes, ragged ones (a last tile shorter than the others) included.
SIZES = {
    "online-softmax": [{"N": 5, "Bc": 3}, {"N": 12, "Bc": 4}],
    "flash-attention-1": [
        {"N": 10, "N_kv": 10, "Br": 4, "Bc": 4, "causal": 0},
        {"N": 7, "N_kv": 11, "Br": 2, "Bc": 3, "causal": 0},
    ],
    "flash-attention-2": [
        {"N": 10, "N_kv": 10, "Br": 4, "Bc": 4, "causal": 0},
        {"N": 12, "N_kv": 5, "Br": 6, "Bc": 4, "causal": 0},
        {"N": 5, "N_kv": 5, "Br": 2, "Bc": 3, "causal": 0},
    ],
    "flash-attention-2-pipelined": [
        {"N": 7, "N_kv": 11, "Br": 3, "Bc": 3, "causal": 0, "stages": 1, "gpu": 2},  # warps of 2 and 1 rows, 1 stage
        {"N": 9, "N_kv": 6, "Br": 4, "Bc": 2, "causal": 0, "stages": 3, "gpu": 1},  # a deeper ring
    ],
    "flash-attention-2-tensor-cores": [
        {"N": 10, "N_kv": 10, "Br": 4, "Bc": 4, "causal": 0},  # the last block of one warp
        {"N": 7, "N_kv": 11, "Br": 3, "Bc": 3, "causal": 0},  # warps of 2 and 1 rows
        {"N": 5, "N_kv": 5, "Br": 1, "Bc": 2, "causal": 0},
    ],
    "flash-attention-2-backward": [{"N": 10, "Br": 4, "Bc": 3}, {"N": 5, "Br": 2, "Bc": 3}],
    "flash-decoding": [
        {"N": 10, "Bc": 4, "splits": 3},
        {"N": 24, "Bc": 4, "splits": 6},
        {"N": 3, "Bc": 2, "splits": 1},
    ],
    "paged-decoding": [
        {"L0": 5, "L1": 9, "page_size": 4, "H_q": 2, "splits": 1},
        {"L0": 1, "L1": 16, "page_size": 3, "H_q": 4, "splits": 3},  # a one-token sequence: empty splits
        {"L0": 8, "L1": 7, "page_size": 8, "H_q": 1, "splits": 4},
    ],
}
CASES = [(slug, sizes) for slug in KERNEL_PAGES for sizes in [DEFAULTS[slug], *SIZES[slug]]]


@pytest.fixture(scope="module")
def pages():
    """Page(slug, sizes), each run once."""
    cache = {}

    def get(slug, sizes=None):
        key = (slug, tuple(sorted((sizes or {}).items())))
        if key not in cache:
            cache[key] = Page(slug, sizes)
        return cache[key]

    return get


def ids(case):
    slug, sizes = case
    return f"{slug}-" + "-".join(f"{k}{v}" for k, v in sizes.items())


# ---- the steps follow the loops, at any sizes ----


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_the_figure_has_a_step_per_action_of_the_loops(pages, case, validate_scene):
    slug, sizes = case
    page = pages(slug, sizes)
    assert page.result.ok, page.result.error.traceback
    validate_scene(page.scene)
    assert page.result.sizes == sizes
    assert len(page.steps) == step_count(slug, sizes)
    assert page.keys[0] == "start" and all(page.keys), "every step has a key"
    assert page.scene["canvas"]["side"] == "right"


def test_the_defaults_are_the_kernels_own():
    for slug, sizes in DEFAULTS.items():
        assert Page(slug).result.sizes == sizes


# ---- counters measured, not typed ----


@pytest.mark.parametrize("case", [c for c in CASES if c[0] != "online-softmax"], ids=ids)
def test_the_hbm_counter_ends_on_the_ledgers_total(pages, case, capsys):
    slug, sizes = case
    page = pages(slug, sizes)
    counts = [page.counter(k) for k in range(len(page.steps))]
    assert counts[0] == 0 and counts == sorted(counts), "it only grows"
    assert counts[-1] == trace_total(capsys, slug, sizes)


TENSOR_CORES = "flash-attention-2-tensor-cores"


@pytest.mark.parametrize("sizes", [DEFAULTS[TENSOR_CORES], *SIZES[TENSOR_CORES]], ids=str)
def test_the_sram_counter_ends_on_the_ledgers_shared_memory_traffic(pages, sizes, capsys):
    """The tensor-core page counts what goes through shared memory too: stores from HBM, ldmatrix loads into each
    warp's registers; its last value is the NumPy ledger's (``kernelviz trace fa2-mma``), and P adds nothing."""
    import json

    from kernelviz import cli
    from tests.pages.kernel_pages import trace_args

    page = pages(TENSOR_CORES, sizes)
    counts = [page.counter(k, "smem-bytes") for k in range(len(page.steps))]
    assert counts[0] == 0 and counts == sorted(counts), "it only grows"
    assert cli.main(["trace", *trace_args(TENSOR_CORES, sizes)]) == 0
    shared = json.loads(capsys.readouterr().out)["shared"]
    assert counts[-1] == shared["total"] and shared["per_tensor"]["P"] == {"store": 0, "load": 0}
    softmax = [page.index(k) for k in page.keys if k.startswith("softmax")]
    assert all(counts[k] == counts[k - 1] for k in softmax), "P stays in registers: the softmax moves nothing"


@pytest.mark.parametrize("sizes", [DEFAULTS["online-softmax"], *SIZES["online-softmax"]], ids=str)
def test_online_softmax_counter_and_output_are_the_ledgers_and_numpys(pages, sizes):
    page = pages("online-softmax", sizes)
    x, v = _row(page, sizes)
    result = online_softmax_output(np.array([x], np.float32), np.array(v, np.float32)[:, None], b=sizes["Bc"])
    last = len(page.steps) - 1
    assert page.counter(last) == result.ledger.total_bytes
    hbm_frames = [i for i in page.figure["items"] if i["stroke"] == "@edge" and i["w"] > 0 and i["y"] > 0.5
                  and not i["line"]]  # fmt: skip
    (o_frame,) = hbm_frames  # O, the one output in HBM
    (o,) = [i for i in page.items(last) if box(i) == box(o_frame) and i["label"]]
    p = np.exp(np.array(x) - max(x))
    assert float(o["label"]) == pytest.approx(float(p @ np.array(v) / p.sum()), rel=5e-3)


def _row(page, sizes):
    """x and v as the online softmax kernel makes them at `sizes` (its own lines, run here)."""
    namespace = {"N": sizes["N"]}
    exec(page.editors[0][1], namespace)
    for line in page.editors[1][1].splitlines():
        if re.match(r"^(x|v) = ", line):
            exec(line, namespace)
    return namespace["x"], namespace["v"]


# ---- steps bound by meaning ----


@pytest.mark.parametrize("slug", KERNEL_PAGES)
def test_every_bullet_and_cuda_block_names_a_step_key(pages, slug):
    page = pages(slug)
    bound = page.bullets() + [c["step"] for c in page.cuda_blocks() if "step" in c]
    assert bound
    assert [key for key in bound if key not in page.keys] == []
    assert not any("[" in key or "]" in key for key in page.keys)


def test_a_key_names_the_same_action_at_any_sizes(pages):
    """The edit of issue 12 (Tc = 2 -> 3): every bullet still names a step, whose loop indices are its key's."""
    page = pages("flash-attention-2", {"N": 12, "N_kv": 12, "Br": 6, "Bc": 4})  # Tr, Tc = 2, 3
    for key in pages("flash-attention-2").bullets():
        step = page.steps[page.index(key)]
        assert key == " ".join([key.split(" i=")[0], *(f"{n}={v}" for n, v in step["at"].items())])
    assert (
        "load K,V i=1 j=2" in page.keys
        and step_count("flash-attention-2", {"N": 12, "N_kv": 12, "Br": 6, "Bc": 4}) == 25
    )


@pytest.mark.parametrize("slug", KERNEL_PAGES)
def test_captions_say_what_happens_in_words(pages, slug):
    page = pages(slug)
    captions = [s["caption"] for s in page.steps]
    assert all(len(c.split()) >= 4 for c in captions), captions
    assert all(c != s["label"] for c, s in zip(captions, page.steps, strict=True))
    shown = {i["label"] for i in page.items(len(page.steps) - 1) if i["wrap"]}
    assert captions[-1] in shown, "the canvas shows the caption"


# ---- the geometry of the figure ----


def box(item):
    return tuple(round(item[k], 4) for k in ("x", "y", "w", "h"))


def slot(items, name):
    """The frame of the SRAM slot captioned `name`: the empty box right above its caption."""
    (caption,) = [i for i in items if i["label"] == name and i["w"] == i["h"] == 0 and not i["line"]]
    frames = [i for i in items if i["w"] > 0 and i["fill"] == "none" and i["stroke"] == "@edge" and not i["line"]]
    above = [f for f in frames if abs(f["x"] + f["w"] / 2 - caption["x"]) < 1e-3 and f["y"] > caption["y"]]
    return min(above, key=lambda f: f["y"])


def moved(page, key):
    step = page.steps[page.index(key)]
    return [i for i, f in step.get("move", []) if ("x" in f or "y" in f) and not page.figure["items"][i]["line"]]


@pytest.mark.parametrize(
    ("slug", "key", "tile"),
    [
        ("flash-attention-2", "load K,V i=0 j=1", "K1"),
        ("flash-attention-1", "load K,V j=1", "K1"),
        ("flash-decoding", "load K,V s=1 j=0", "K2"),
    ],
)
def test_a_k_tile_flies_from_its_hbm_tile_into_the_kj_slot(pages, slug, key, tile):
    page = pages(slug)
    start, end = page.items(key, "start"), page.items(key, "end")
    (hbm,) = [i for i in page.figure["items"] if i["label"] == tile and i["w"] > 0]
    (k,) = [i for i in moved(page, key) if start[i]["label"] == tile]
    assert box(start[k]) == box(hbm) and box(end[k]) == box(slot(end, "Kj"))


def test_fa2_write_back_flies_from_oi_to_the_o_tile_and_is_named_there(pages):
    page = pages("flash-attention-2")
    start, end = page.items("write O,L i=1", "start"), page.items("write O,L i=1", "end")
    (o,) = [i for i in moved(page, "write O,L i=1") if end[i]["label"] == "O1"]
    assert box(start[o]) == box(slot(start, "Oi"))
    assert end[o]["fill"] == "@o-2" and end[o]["stroke"] == "@o"  # two tiles folded in


@pytest.mark.parametrize(("slug", "key", "cells"), [("flash-attention-2", "fill Sij i=0 j=0", 16),
                                                    ("flash-decoding", "fill Sij s=0 j=0", 4)])  # fmt: skip
def test_the_scores_fill_cell_by_cell(pages, slug, key, cells):
    page = pages(slug)
    stagger = page.steps[page.index(key)]["stagger"]
    assert sorted(n for _, n, _ in stagger) == list(range(cells)) and {of for _, _, of in stagger} == {cells}
    end, frame = page.items(key), slot(page.items(key), "Sij")
    for i, _, _ in stagger:
        assert end[i]["fill"] == "@s-1"
        assert frame["x"] - 1e-6 <= end[i]["x"] and end[i]["x"] + end[i]["w"] <= frame["x"] + frame["w"] + 1e-6


def test_fa2_carries_darken_a_shade_per_tile_and_go_stale_until_updated(pages):
    page = pages("flash-attention-2")

    def held(key, name):
        end = page.items(key)
        frame = slot(end, name)
        return [i["fill"] for i in end if box(i) == box(frame) and i["fill"] != "none"]

    assert held("update m,l,O i=0 j=0", "mi") == ["@m-1"] and held("update m,l,O i=0 j=1", "mi") == ["@m-2"]
    assert held("update m,l,O i=0 j=1", "Oi") == ["@o-2"]
    assert held("load K,V i=0 j=1", "mi") == ["@stale"] and held("load K,V i=0 j=1", "li") == ["@stale"]
    assert held("load K,V i=0 j=1", "Oi") == ["@o-1"], "Oi is rescaled, not replaced: it is never stale"
    scores = [i["fill"] for i in page.items("load K,V i=0 j=1") if i["fill"] in ("@s-1", "@s-2", "@stale")]
    assert scores == ["@stale"] * (16 + 2)  # the 16 scores, mi and li


def test_fa2_the_zoom_moves_to_the_block_in_view(pages):
    page = pages("flash-attention-2", {"N": 12, "Br": 4, "Bc": 4})

    def square_and_lines(key):
        end = page.items(key)
        (square,) = [i for i in end if i["fill"] == "@ink" and i["w"] == i["h"] > 0]
        return square, [i for i in end if i["line"] and i["h"]]  # the zoom lines: the rows' ticks are level

    squares = [square_and_lines(f"zoom i={i}") for i in range(3)]
    assert len({box(s) for s, _ in squares}) == 3
    for square, lines in squares:
        corners = {(square["x"], square["y"]), (round(square["x"] + square["w"], 4), square["y"])}
        assert {(line["x"], line["y"]) for line in lines} == corners


# ---- layout from the sizes ----


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_labels_are_legible_and_hbm_tiles_never_overlap(pages, case):
    slug, sizes = case
    page = pages(slug, sizes)
    for k in (0, len(page.steps) // 2, len(page.steps) - 1):
        items = page.items(k)
        assert min(i["font"] for i in items if i["label"]) >= 11
    tiles = [i for i in page.figure["items"] if i["w"] > 0 and i["h"] > 0 and i["y"] > 0.5 and not i["line"]]
    for a, b in itertools.combinations(tiles, 2):
        if box(a) != box(b):
            apart = a["x"] + a["w"] <= b["x"] + 1e-6 or b["x"] + b["w"] <= a["x"] + 1e-6
            apart = apart or a["y"] + a["h"] <= b["y"] + 1e-6 or b["y"] + b["h"] <= a["y"] + 1e-6
            assert apart, (a, b)


def test_a_ragged_last_tile_is_drawn_shorter(pages):
    page = pages("flash-attention-2", {"N": 10, "Br": 4, "Bc": 4})
    q = {i["label"]: i for i in page.figure["items"] if re.fullmatch(r"Q\d", i["label"]) and i["w"] > 0}
    assert sorted(q) == ["Q0", "Q1", "Q2"] and q["Q2"]["h"] < q["Q1"]["h"] == q["Q0"]["h"]


# ---- the pages' own Python: short, and no block shared between pages ----


def _code_lines(code):
    return [line.strip() for line in code.splitlines() if line.strip() and not line.strip().startswith("#")]


def test_helper_editors_are_short_and_no_six_lines_repeat_between_pages(pages):
    editors = {slug: pages(slug).editors for slug in KERNEL_PAGES}
    helpers = sum(len(code.splitlines()) for eds in editors.values() for title, code in eds if "helpers" in title)
    assert helpers <= 400
    runs = {}
    for slug, eds in editors.items():
        lines = [line for _, code in eds for line in _code_lines(code)]
        runs[slug] = {tuple(lines[n : n + 6]) for n in range(len(lines) - 5)}
    for a, b in itertools.combinations(runs, 2):
        assert not runs[a] & runs[b], (a, b, sorted(runs[a] & runs[b])[:1])


def test_the_library_draws_what_the_kernel_records_not_copies_of_it():
    """No page defines its own drawing: the helpers only declare memory (no diagram, no step list of their own)."""
    for slug in KERNEL_PAGES:
        for title, code in Page(slug).editors:
            assert "pie.diagram" not in code and "step_list" not in code and "class " not in code, (slug, title)


# ---- CUDA blocks, and the pages as the builder builds them ----

FIRST_BLOCK = {
    "flash-attention-2": {"i": 0},
    TENSOR_CORES: {"i": 0},
    "flash-decoding": {"s": 0},
    "flash-attention-1": {"j": 0, "i": 0},
    "flash-attention-2-backward": {"j": 0, "i": 0},
    "paged-decoding": {"b": 0, "s": 0},
}


@pytest.mark.parametrize("slug", FIRST_BLOCK)
def test_each_step_of_the_first_block_has_its_cuda_and_every_region_exists(pages, slug):
    from kernelviz.cuda.regions import region

    page = pages(slug)
    blocks = page.cuda_blocks()
    assert all(region(c["cite"]).strip() for c in blocks)
    with_cuda = {c["step"] for c in blocks if "step" in c}  # (a block of the helpers, mma or ldmatrix, has none)
    first = {k: v for k, v in FIRST_BLOCK[slug].items()}
    firsts = [s["key"] for s in page.steps if s.get("at") and all(s["at"].get(n, v) == v for n, v in first.items())]
    firsts = [k for k in firsts if " j=" not in k or k.endswith(("j=0", "j=0 i=0"))]  # one pass of the tile loop
    firsts = [k for k in firsts if " p=" not in k or k.endswith("p=0")]  # and of the page loop
    assert firsts and [k for k in dict.fromkeys(firsts) if k not in with_cuda] == []


def test_fd_the_combine_reads_the_partials_into_registers_and_writes_o(pages):
    page = pages("flash-decoding")
    start, end = page.items("combine m", "start"), page.items("combine m", "end")
    read = [i for i in moved(page, "combine m") if start[i]["label"].startswith("m(")]
    assert sorted(end[i]["label"] for i in read) == ["m(0)", "m(1)"]
    m_g = slot(end, "m_g")
    assert all(end[i]["y"] + end[i]["h"] < m_g["y"] for i in read), "registers, drawn under the shared memory"
    assert all(end[i]["stroke"] != "@edge" for i in read)
    (o,) = moved(page, "write O")
    assert box(page.items("write O", "start")[o]) == box(slot(end, "acc"))


def test_the_kernel_pages_build_in_strict_mode_with_every_binding_a_key(tmp_path, pages):
    import shutil

    from kernelviz.site.build import build

    folder = tmp_path / "pages"
    folder.mkdir()
    for slug in KERNEL_PAGES:
        shutil.copy(pages(slug).path, folder)
    result = build(folder, tmp_path / "site", strict=True, log=None)
    assert result.warnings == []
    for slug in KERNEL_PAGES:
        page, html = pages(slug), (tmp_path / "site" / f"{slug}.html").read_text()
        bullets = re.findall(r'<li data-step="(\d+)" data-step-key="([^"]+)"', html)
        assert [(int(k), key) for k, key in bullets] == [(page.index(b), b) for b in page.bullets()]
        cuda = re.findall(r'<details class="kv-cuda" data-step="(\d+)" data-step-key="([^"]+)"', html)
        assert cuda == [(str(page.index(c["step"])), c["step"]) for c in page.cuda_blocks() if "step" in c]


def test_fa2_backward_dq_is_read_from_hbm_and_written_back_darker_at_every_tile_of_keys(pages):
    """The atomic add as the figure draws it: dQ0 flies from HBM into registers (its bytes read), and back, a shade
    darker for each tile of keys added in (its bytes written): a read and a write of the tile, as the ledger counts."""
    page = pages("flash-attention-2-backward")
    tile = 4 * 4 * 4  # Br rows of d = 4 float32
    for j in (0, 1):
        read, add = f"read dQ j={j} i=0", f"add dQ j={j} i=0"
        assert page.counter(read) - page.counter(page.index(read) - 1) == tile
        assert page.counter(add) - page.counter(read) == tile
        start, end = page.items(read, "start"), page.items(read, "end")
        (flown,) = [i for i in moved(page, read) if start[i]["label"] == "dQ0"]
        (hbm,) = {box(i) for i in page.items("write Δ,dQ i=0") if i["label"] == "dQ0" and i["w"] > 0}  # zeroed
        assert box(start[flown]) == hbm and box(end[flown]) != hbm
        end = page.items(add, "end")
        (back,) = [i for i in moved(page, add) if end[i]["label"] == "dQ0"]
        assert box(end[back]) == hbm and end[back]["fill"] == f"@q-{j + 1}"
