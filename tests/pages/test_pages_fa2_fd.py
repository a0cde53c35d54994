"""The Flash Attention 2 and Flash decoding pages: their editors draw a valid figure whose steps follow the kernels'
loops, every bullet and CUDA block binds to a step of it, the figure's geometry does what the prose says (copies fly
from HBM tiles to SRAM slots, scores fill in turn, carries darken in the equations' hues, stale scores go grey), and
the two pages build in strict mode."""

import re
import shutil
from pathlib import Path

import pytest
import yaml

from kernelviz.cuda.regions import region
from kernelviz.runner import Source, run

ROOT = Path(__file__).resolve().parents[2]
FA2, FD = ROOT / "pages" / "flash-attention-2.md", ROOT / "pages" / "flash-decoding.md"
EDITOR = re.compile(r'^```pie title="([^"]*)"\n(.*?)^```$', re.M | re.S)
CUDA = re.compile(r"^```cuda (.*)$", re.M)
ATTR = re.compile(r'(\w+)="([^"]*)"')
BULLET = re.compile(r"^- \[step: ([^\]]+)\]", re.M)
HUE = re.compile(r"\\textcolor\{(#[0-9a-fA-F]{6})\}\{\\?([a-zA-Z])")
PHASES = ("start", "move", "end")


class Page:
    """A page's source, split the way the builder reads it, and the Scene its editors draw."""

    def __init__(self, path, edit=None):
        self.text = path.read_text()
        self.front = yaml.safe_load(self.text.split("---")[1])
        self.editors = EDITOR.findall(self.text)
        codes = [code for _, code in self.editors]
        if edit:
            codes[-1] = edit(codes[-1])
        self.result = run([Source(code, f"{path.name} editor {n + 1}") for n, code in enumerate(codes)])
        self.scene = self.result.scene
        nodes = {n["kind"]: n for n in (self.scene or {}).get("nodes", [])}
        self.figure, self.step_list = nodes.get("diagram"), nodes.get("step_list")

    @property
    def steps(self):
        return self.step_list["steps"]

    @property
    def labels(self):
        return [s["label"] for s in self.steps]

    def index(self, label):
        return self.labels.index(label)

    def bullets(self):
        return BULLET.findall(self.text)

    def cuda_blocks(self):
        return [dict(ATTR.findall(info)) for info in CUDA.findall(self.text)]

    def sizes(self, pattern):
        """The numbers assigned on the kernel editor's line matching `pattern`, e.g. 'Tr, Tc = 2, 2' -> (2, 2)."""
        m = re.search(pattern + r"\s*=\s*([\d, ]+)", self.editors[-1][1])
        return tuple(int(x) for x in m.group(1).split(","))

    def items(self, label, phase="end"):
        """Every item of the figure as step `label` is at `phase`: start, move (where it animates to) or end."""
        k = self.index(label)
        items = [dict(i) for i in self.figure["items"]]
        for n in range(1, k + 1):
            for p in PHASES[: PHASES.index(phase) + 1] if n == k else PHASES:
                for i, fields in self.steps[n].get(p, []):
                    items[i].update(fields)
        return items

    def hues(self):
        """{symbol letter: colors} of the math's \\textcolor{...}{m...} and friends."""
        out = {}
        for color, letter in HUE.findall(self.text):
            out.setdefault(letter, set()).add(color.lower())
        return out


@pytest.fixture(scope="module")
def fa2():
    return Page(FA2)


@pytest.fixture(scope="module")
def fd():
    return Page(FD)


def box(item):
    return tuple(round(item[k], 6) for k in ("x", "y", "w", "h"))


def is_frame(item):
    return item["w"] > 0 and item["h"] > 0 and not item["line"] and item["fill"] == "none" and item["label"] == ""


def slot(items, name):
    """The frame of the SRAM slot captioned `name`: the empty box nearest above the caption, centred on it."""
    (caption,) = [i for i in items if i["label"] == name and i["w"] == i["h"] == 0]
    above = [
        i for i in items if is_frame(i) and abs(i["x"] + i["w"] / 2 - caption["x"]) < 1e-6 and i["y"] > caption["y"]
    ]
    return min(above, key=lambda i: i["y"])


def hbm_tile(page, label):
    """The box of the HBM tile labelled `label` in the figure before any step."""
    (tile,) = [i for i in page.figure["items"] if i["label"] == label and i["w"] > 0]
    return box(tile)


def moved(page, label):
    """Indices of the items step `label` moves (x or y animates), lines left out."""
    step = page.steps[page.index(label)]
    return [i for i, f in step.get("move", []) if ("x" in f or "y" in f) and not page.figure["items"][i]["line"]]


def inside(item, frame):
    return (
        frame["x"] - 1e-6 <= item["x"]
        and item["x"] + item["w"] <= frame["x"] + frame["w"] + 1e-6
        and frame["y"] - 1e-6 <= item["y"]
        and item["y"] + item["h"] <= frame["y"] + frame["h"] + 1e-6
    )


def rgb(color):
    return tuple(int(color[n : n + 2], 16) for n in (1, 3, 5))


def luminance(color):
    r, g, b = rgb(color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def fa2_step_count(tr, tc):
    return 1 + tr * (1 + 1 + 3 * tc + 1)  # start; per block: zoom in, load Q, (load K/V, fill, update) per tile, write


def fd_step_count(splits, tiles):
    return 1 + splits * (1 + 1 + 3 * tiles + 1) + 5  # ... and the combine: zoom in, m, l, acc, write


# ---- the editors and the Scene ----


@pytest.mark.parametrize("name", ["fa2", "fd"])
def test_two_editors_draw_a_valid_scene_with_one_step_list(name, request, validate_scene):
    page = request.getfixturevalue(name)
    assert [t for t, _ in page.editors] == ["Drawing helpers", "The kernel" if name == "fa2" else "The kernels"]
    assert page.result.ok, page.result.error.traceback
    validate_scene(page.scene)
    assert page.scene["canvas"]["side"] == "right"
    assert sum(n["kind"] == "step_list" for n in page.scene["nodes"]) == 1
    assert page.labels[0] == "start"
    assert len(set(page.labels)) == len(page.labels)


def test_fa2_steps_follow_the_loops_and_the_trace_sizes(fa2):
    tr, tc = fa2.sizes(r"Tr, Tc")
    trace = fa2.front["trace"]
    assert (trace["N"] // trace["Br"], trace["N"] // trace["Bc"]) == (tr, tc)  # the prose's numbers are the figure's
    assert len(fa2.steps) == fa2_step_count(tr, tc) == 19


def test_fd_steps_follow_the_loops_and_the_trace_sizes(fd):
    splits, tiles = fd.sizes(r"n_splits, tiles_per_split")
    trace = fd.front["trace"]["fd"]
    assert trace["n_splits"] == splits and trace["N_kv"] // trace["Bc"] == splits * tiles
    assert len(fd.steps) == fd_step_count(splits, tiles) == 24


# ---- bullets and CUDA blocks bind to steps ----


@pytest.mark.parametrize("name", ["fa2", "fd"])
def test_every_bound_label_names_a_step(name, request):
    page = request.getfixturevalue(name)
    bound = page.bullets() + [c["step"] for c in page.cuda_blocks() if "step" in c]
    assert bound
    assert [label for label in bound if label not in page.labels] == []


@pytest.mark.parametrize("name", ["fa2", "fd"])
def test_every_step_has_a_bullet_and_every_data_move_is_among_them(name, request):
    page = request.getfixturevalue(name)
    moves = [label for label in page.labels[1:] if moved(page, label)]
    if name == "fa2":
        tr, tc = page.sizes(r"Tr, Tc")
        assert len(moves) == tr * (1 + tc + 1)  # load Q, each K/V tile, write back
    else:
        splits, tiles = page.sizes(r"n_splits, tiles_per_split")
        assert len(moves) == splits * (1 + tiles + 1) + 4  # per split as FA2; combine: m, l, O in, O out
    assert set(page.labels[1:]) - set(page.bullets()) == set()


@pytest.mark.parametrize(
    ("name", "first"), [("fa2", ("block 0 ",)), ("fd", ("split 0 ", "combine "))], ids=["fa2", "fd"]
)
def test_each_step_of_the_first_block_has_its_cuda_and_every_region_exists(name, first, request):
    page = request.getfixturevalue(name)
    blocks = page.cuda_blocks()
    for c in blocks:
        assert region(c["cite"]).strip(), c["cite"]
    with_cuda = {c["step"] for c in blocks}
    firsts = [label for label in page.labels if label.startswith(first)]
    assert firsts and [label for label in firsts if label not in with_cuda] == []


# ---- the geometry of the figure ----


@pytest.mark.parametrize(
    ("name", "label"),
    [("fa2", "block 0 · j = 0 · load K0, V0"), ("fd", "split 0 · j = 0 · load K0, V0")],
    ids=["fa2", "fd"],
)
def test_a_k_tile_flies_from_its_hbm_tile_into_the_kj_slot(name, label, request):
    page = request.getfixturevalue(name)
    start, end = page.items(label, "start"), page.items(label, "end")
    (k0,) = [i for i in moved(page, label) if start[i]["label"] == "K0"]
    assert box(start[k0]) == hbm_tile(page, "K0")
    assert box(end[k0]) == box(slot(end, "Kj"))
    assert end[k0]["label"] == "K0"


def test_fa2_write_back_flies_from_oi_to_the_o_tile(fa2):
    label = "block 0 · write O0, L0"
    start, end = fa2.items(label, "start"), fa2.items(label, "end")
    (o0,) = [i for i in moved(fa2, label) if end[i]["label"] == "O0"]
    assert box(start[o0]) == box(slot(start, "Oi"))
    assert box(end[o0]) == hbm_tile(fa2, "O0")
    assert end[o0]["fill"] != "none"  # the tile now holds the result


@pytest.mark.parametrize(("name", "cells"), [("fa2", "Br Bc"), ("fd", "Bc")], ids=["fa2", "fd"])
def test_the_scores_fill_cell_by_cell(name, cells, request):
    page = request.getfixturevalue(name)
    trace = page.front["trace"] if name == "fa2" else {"Br": 1, **page.front["trace"]["fd"]}  # decoding: one row
    count = trace["Br"] * trace["Bc"]
    label = "block 0 · j = 0 · fill Sij" if name == "fa2" else "split 0 · j = 0 · fill Sij"
    stagger = page.steps[page.index(label)]["stagger"]
    assert sorted(n for _, n, _ in stagger) == list(range(count))
    assert {of for _, _, of in stagger} == {count}
    end = page.items(label)
    frame = slot(end, "Sij")
    assert all(inside(end[i], frame) and end[i]["fill"] != "none" for i, _, _ in stagger)


@pytest.mark.parametrize("name", ["fa2", "fd"])
def test_the_carries_darken_tile_by_tile_in_the_hues_of_the_equations(name, request):
    page = request.getfixturevalue(name)
    who = "block 0" if name == "fa2" else "split 0"
    hues = page.hues()
    for carry, letter in (("mi", "m"), ("li", "l"), ("Oi", "O")):
        fills = []
        for j in (0, 1):
            end = page.items(f"{who} · j = {j} · update mi, li, Oi")
            frame = slot(end, carry)
            (held,) = [i for i in end if box(i) == box(frame) and i["fill"] != "none"]
            assert held["stroke"].lower() in hues[letter], (carry, held["stroke"], hues[letter])
            fills.append(held["fill"])
        assert luminance("#ffffff") > luminance(fills[0]) > luminance(fills[1]), (carry, fills)


@pytest.mark.parametrize("name", ["fa2", "fd"])
def test_the_old_scores_go_grey_when_the_next_tile_arrives(name, request):
    page = request.getfixturevalue(name)
    who = "block 0" if name == "fa2" else "split 0"
    tile1 = "K1, V1"

    def score_fills(label):
        end = page.items(label)
        frame = slot(end, "Sij")
        return [i["fill"] for i in end if i is not frame and inside(i, frame) and i["fill"] != "none"]

    before, after = score_fills(f"{who} · j = 0 · fill Sij"), score_fills(f"{who} · j = 1 · load {tile1}")
    assert before and len(after) == len(before)
    spread = [max(rgb(f)) - min(rgb(f)) for f in before + after]  # 0 for a grey
    assert min(spread[: len(before)]) > 30 and max(spread[len(before) :]) <= 8, spread


def test_fa2_the_zoom_moves_to_the_second_blocks_square(fa2):
    def filled_square_and_lines(label):
        end = fa2.items(label)
        squares = [i for i in end if i["w"] == i["h"] > 0 and i["fill"] not in ("none",) and i["label"] == ""]
        small = [s for s in squares if s["w"] < 0.5]  # the grid's squares, not the tiles
        lines = [i for i in end if i["line"] and (i["w"] or i["h"])]
        return small, lines

    (first,), _ = filled_square_and_lines("block 0 · zoom in")
    (second,), lines = filled_square_and_lines("block 1 · zoom in")
    assert box(first) != box(second)
    corners = {(round(second["x"], 6), round(second["y"], 6)), (round(second["x"] + second["w"], 6), second["y"])}
    assert {(round(line["x"], 6), round(line["y"], 6)) for line in lines} == corners


def test_fd_the_combine_reads_the_partials_into_registers_not_shared_memory(fd):
    label = "combine · read m(s), reduce to m_g"
    start, end = fd.items(label, "start"), fd.items(label, "end")
    read = [i for i in moved(fd, label) if start[i]["label"].startswith("m")]
    assert sorted(end[i]["label"] for i in read) == ["m0", "m1"]
    frames = [i for i in end if is_frame(i)]
    assert all(not any(inside(end[i], f) for f in frames) for i in read)  # no shared-memory slot around them
    m_g = slot(end, "m_g")
    assert all(end[i]["y"] + end[i]["h"] < m_g["y"] for i in read)  # drawn under the block's shared memory
    assert any(i["label"].startswith("registers") for i in end)
    assert [i for i in end if box(i) == box(m_g) and i["fill"] != "none"]  # m_g holds the reduced value


def test_fd_the_combine_writes_o_to_hbm(fd):
    label = "combine · write O = acc / l_g"
    start, end = fd.items(label, "start"), fd.items(label, "end")
    (o,) = [i for i in moved(fd, label)]
    assert box(start[o]) == box(slot(start, "acc"))
    assert box(end[o]) == hbm_tile(fd, "O")


# ---- a reader's edits ----


def test_fa2_a_third_tile_of_k_and_v_adds_its_steps(validate_scene):
    page = Page(FA2, edit=lambda code: code.replace("Tr, Tc = 2, 2", "Tr, Tc = 2, 3"))
    assert page.result.ok, page.result.error.traceback
    validate_scene(page.scene)
    assert len(page.steps) == fa2_step_count(2, 3)
    end = page.items("block 1 · j = 2 · load K2, V2")
    assert [i for i in end if i["label"] == "K2" and box(i) == box(slot(end, "Kj"))]


def test_fd_more_splits_of_one_tile_each(validate_scene):
    edit = lambda code: code.replace("n_splits, tiles_per_split = 2, 2", "n_splits, tiles_per_split = 4, 1")  # noqa: E731
    page = Page(FD, edit=edit)
    assert page.result.ok, page.result.error.traceback
    validate_scene(page.scene)
    assert len(page.steps) == fd_step_count(4, 1)
    assert "split 3 · j = 0 · load K3, V3" in page.labels


# ---- the pages as the builder builds them ----


def test_the_two_pages_build_in_strict_mode_with_every_binding_resolved(tmp_path, fa2, fd):
    from kernelviz.site.build import build

    pages = tmp_path / "pages"
    pages.mkdir()
    for path in (FA2, FD):
        shutil.copy(path, pages / path.name)
    result = build(pages, tmp_path / "site", strict=True, log=None)
    assert result.warnings == []
    for page, path in ((fa2, FA2), (fd, FD)):
        html = (tmp_path / "site" / f"{path.stem}.html").read_text()
        bullet_steps = [int(k) for k in re.findall(r'<li data-step="(\d+)"', html)]
        assert bullet_steps == [page.index(label) for label in page.bullets()]
        cuda = re.findall(r'<details class="kv-cuda" data-step="(\d+)" data-cite="([^"]+)"', html)
        assert cuda == [(str(page.index(c["step"])), c["cite"]) for c in page.cuda_blocks()]
        assert 'class="kv-trace kv-missing"' not in html
        assert 'id="kv-scene"' in html
