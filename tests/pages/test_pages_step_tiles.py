"""Each step's keys in the figure are the keys its CUDA notes name (issue 32, item 1), at every size of each kernel
page's size form (front matter ``sizes:``).

The figure's side is what the kernel editor recorded (kernelviz.figlib): the tiles a step copies from HBM, a K tile
t of Bc keys being keys [t*Bc, t*Bc + its rows), a Q tile likewise rows. The CUDA side is what the page prints under
a block (its notes, kernelviz.site.step_at.notes, valued at the sizes by the page's own renderer, run by the builder:
kernelviz.site.cuda_render; with the host's arguments, kernels.host_formulas): ``col0`` and ``cols``
(keys [col0, col0 + cols); without ``cols`` the kernel masks keys past N: [col0, min(col0 + Bc, N))), ``row0``
likewise, and for a split of flash decoding ``n_start`` and ``n_end``, the keys its tiles must cover together (none
when n_end <= n_start: a split that owns no tile). Every step whose action has a CUDA block on the page is checked,
not only the step the block is bound to: at other sizes a key names another tile. The figure is recorded, not drawn
(Figure.draw is replaced); flash decoding at all its sizes, FA1 and FA2 at every tile size for a few N.
"""

import functools
import itertools
import re
from unittest import mock

import pytest

from kernelviz.cuda import kernels, regions
from kernelviz.figlib.record import Figure
from kernelviz.site import cuda_code, cuda_render, step_at
from kernelviz.site.build import WEB_DIST
from kernelviz.site.extensions import cuda
from tests.pages.kernel_pages import KERNEL_PAGES, Page

PAGES = {
    "flash-attention-1": "fa1",
    "flash-attention-2": "fa2",
    "flash-attention-2-backward": "fa2_bwd",
    "flash-decoding": "flash_decoding",
}


SAMPLED_N = (7, 16)  # FA1, FA2 and its backward: every tile size at these N (ragged, even)
SAMPLED_MASKS = ((5, 1), (16, 1))  # FA1, FA2: (N_kv, causal) beside N_kv = N unmasked


def all_sizes(page):
    """Every combination of the page's size form, as {name: value} (for FA1 and FA2, at the N of SAMPLED_N: their
    tiles are j*Bc whatever the sizes, and a figure of 24 x 24 tiles of 1 takes long)."""
    ranges = page.front["sizes"]
    values = [range(lo, hi + 1) for lo, hi in ranges.values()]
    if page.slug != "flash-decoding":
        values[list(ranges).index("N")] = SAMPLED_N
    combos = [dict(zip(ranges, combo, strict=True)) for combo in itertools.product(*values)]
    if "causal" in ranges:  # the mask's sizes: N_kv = N unmasked, and a shorter and a longer cache masked
        combos = [c for c in combos if (c["N_kv"], c["causal"]) in ((c["N"], 0), *SAMPLED_MASKS)]
    return combos


def recorded(page, sizes):
    """The Figure the page's editors record at `sizes` (None when they refuse those sizes), without drawing it."""
    figures = []
    with mock.patch.object(Figure, "draw", lambda self, *a, **k: figures.append(self)):
        result = Page(page.slug, sizes).result
    return figures[-1] if result.error is None else None


def action(key, at):
    """The action of a step key: the key less its loop indices ('load K,V i=0 j=1' -> 'load K,V')."""
    return key.rsplit(" ", len(at))[0] if at else key


def copied(fig, step):
    """{tensor name: range of rows} of the HBM tiles `step` copies into SRAM (a K tile: its keys)."""
    out = {}
    for event in step.events.values():
        src = event.src
        if event.how != "copy" or src is None or src.memory != "hbm":
            continue
        for tensor in fig.tensors:
            for t, tile in enumerate(tensor):
                if tile is src:
                    out[tensor.name] = range(t * tensor.tile, t * tensor.tile + tile.rows)
    return out


@functools.cache
def cited(cite):
    """(the block's data but its step, the kernel's lines as tokens) of a CUDA block citing `cite`, as the builder
    writes them (site.extensions.cuda)."""
    excerpt = regions.excerpt(cite)
    file = {"page": cuda_code.page_of(excerpt.filename),
            "lines": cuda_code.tokens(excerpt.source, excerpt.filename, excerpt.numbers)}  # fmt: skip
    return excerpt, {"lines": cuda.shown(excerpt), "region": [excerpt.first, excerpt.last]}, file


NOTE = re.compile(r'<span class="kv-note" data-name="(\w+)" data-expr="[^"]*">// \w+ = [^<]*? = (-?\d+)</span>')
KEYS = {"col0", "row0", "n_start"}  # the notes that say which keys or rows a step has


@functools.cache
def notes(cite, at):
    """step_at.notes of a block citing `cite` at a step with indices `at` (a tuple of pairs)."""
    excerpt = cited(cite)[0]
    return step_at.notes(excerpt.source, excerpt.numbers, dict(at))


def cuda_values(kernel, todo, sizes):
    """[{name: value}] of the notes the page prints under each block of `todo` ([(cite, at)]): the browser's own
    renderer (web/src/page/cuda-code.js, run by the builder's V8: cuda_render), in one call for all of them."""
    host, blocks, lines = kernels.host_formulas(kernel), [], {}
    for cite, at in todo:
        _, data, file = cited(cite)
        lines.update(file["lines"])
        blocks.append({**data, "notes": notes(cite, tuple(at.items())), "at": at, "host": host})
    file = {"page": cited(todo[0][0])[2]["page"], "lines": lines}  # one kernel file a page
    htmls = cuda_render.htmls(blocks, file, sizes, WEB_DIST)
    return [{name: int(value) for name, value in NOTE.findall(html)} for html in htmls]


def check(page, kernel, sizes, fig):
    """The checks at one size; returns how many comparisons were made."""
    cites = {}  # action -> the regions the page's CUDA blocks cite for it
    for block in page.cuda_blocks():
        if "step" in block:
            at = step_at.indices({"label": block["step"]})
            cites.setdefault(action(block["step"], at), set()).add(block["cite"])
    n, compared, split_keys, split_span = sizes["N"], 0, {}, {}
    todo = []  # (cite, step, the tiles it copies), for the blocks whose notes name keys or rows
    for step in fig.steps[1:]:
        tiles = copied(fig, step)
        if "s" in step.at and "K" in tiles:
            split_keys.setdefault(step.at["s"], []).append(tiles["K"])
        for cite in sorted(cites.get(action(step.key, step.at), ())):
            if KEYS & {note[1] for note in notes(cite, tuple(step.at.items()))}:
                todo.append((cite, step, tiles))
    found = cuda_values(kernel, [(cite, step.at) for cite, step, _ in todo], sizes) if todo else []
    for (cite, step, tiles), values in zip(todo, found, strict=True):
        where = f"{page.slug} at {sizes}, step {step.key!r} ({step.label}), {cite}"
        assert KEYS & set(values), f"{where}: the page's notes give no value to {sorted(KEYS)}"
        if "col0" in values and "K" in tiles:
            col0 = values["col0"]
            n_kv = sizes.get("N_kv", n)  # the keys: N_kv of them where the form has it (FA1, FA2), else N
            keys = range(col0, col0 + values["cols"] if "cols" in values else min(col0 + sizes["Bc"], n_kv))
            assert tiles["K"] == keys, f"{where}: the figure loads keys {tiles['K']}, the CUDA notes {keys}"
            compared += 1
        if "row0" in values and "Q" in tiles:
            row0 = values["row0"]
            rows = range(row0, min(row0 + sizes["Br"], n))
            assert tiles["Q"] == rows, f"{where}: the figure loads rows {tiles['Q']}, the CUDA notes {rows}"
            compared += 1
        if "n_start" in values and "n_end" in values:
            split_span[step.at["s"]] = range(values["n_start"], max(values["n_start"], values["n_end"]))
    for s, span in split_span.items():  # a split's tiles, together, are its keys (none for an empty split)
        assert list(itertools.chain(*split_keys.get(s, []))) == list(span), f"{page.slug} at {sizes}: split {s}"
        compared += 1
    return compared


@pytest.mark.parametrize("slug", PAGES)
def test_every_step_loads_the_keys_its_cuda_notes_name_at_every_size(slug):
    page = Page(slug)
    refused = 0
    for sizes in all_sizes(page):
        fig = recorded(page, sizes)
        if fig is None:  # only flash decoding refuses sizes: more splits than tiles
            assert slug == "flash-decoding" and sizes["splits"] > -(-sizes["N"] // sizes["Bc"]), sizes
            refused += 1
            continue
        assert check(page, PAGES[slug], sizes, fig) > 0, (slug, sizes)
    assert refused < len(all_sizes(page)) / 2


def test_the_issues_sizes_split_the_keys_as_flash_attn_does():
    """N = 16, Bc = 4, splits = 3: 2 tiles a split, the third split owns none; N = 20, Bc = 3, splits = 3: 3, 3 and
    1 tiles (keys 0-8, 9-17, 18-19). Written out by hand, against the figure's record."""
    page = Page("flash-decoding")
    for sizes, owned in (
        ({"N": 16, "Bc": 4, "splits": 3}, {0: ["K0", "K1"], 1: ["K2", "K3"], 2: []}),
        ({"N": 20, "Bc": 3, "splits": 3}, {0: ["K0", "K1", "K2"], 1: ["K3", "K4", "K5"], 2: ["K6"]}),
    ):
        fig = recorded(page, sizes)
        loads = {s: [] for s in range(sizes["splits"])}
        for step in fig.steps:
            for e in step.events.values():
                if e.how == "copy" and e.src.name.startswith("K"):
                    loads[step.at["s"]].append(e.src.name)
        assert loads == owned, sizes
        assert check(page, "flash_decoding", sizes, fig) > 0


@pytest.mark.parametrize("slug", KERNEL_PAGES)
def test_every_kernel_pages_step_list_is_in_words(slug):
    """Item 4: a step's label is words with the tensors' names, never its key ('load K,V i=0 j=1'); the labels are
    unique, so a figure without keys (the seeds' code) can be bound by them."""
    steps = Page(slug).steps
    labels = [s["label"] for s in steps]
    assert len(set(labels)) == len(labels)
    assert [s for s in steps[1:] if s["label"] == s["key"] or re.search(r"\b[ijs]=\d", s["label"])] == []
