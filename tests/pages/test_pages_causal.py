"""The Flash Attention 1 and 2 figures with the causal mask (issue 29): at sizes with causal on, N_kv < N and
N_kv > N, ragged tiles included, no step loads or fills a tile the mask hides from the block whole, every tile a
block sees is visited, the HBM counter ends on ``kernelviz trace ... --causal --N-kv`` total, and the cells of S
the mask hides are drawn masked (@paper) while the others fill (@s-1, @s-2).

The reference for what a block sees is counted cell by cell from the rule (row r sees key c iff c <= r + N_kv - N),
not from the page's own tile formula."""

import re

import pytest

from tests.pages.kernel_pages import Page, trace_total

CAUSAL = [
    {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4, "causal": 1},
    {"N": 12, "N_kv": 5, "Br": 4, "Bc": 2, "causal": 1},  # N_kv < N: the first 7 rows see no key
    {"N": 6, "N_kv": 13, "Br": 4, "Bc": 3, "causal": 1},  # N_kv > N: a cache before the queries, ragged
    {"N": 7, "N_kv": 7, "Br": 2, "Bc": 3, "causal": 1},  # ragged, Br != Bc
]
SLUGS = {"flash-attention-1": ("load Q,O,l,m", "fill Sij"), "flash-attention-2": ("load K,V", "fill Sij")}
AT = re.compile(r"(\w+)=(\d+)")


def sees(s, i, j):
    """Whether some row of block i sees some key of tile j, counted cell by cell."""
    rows = range(i * s["Br"], min(s["N"], (i + 1) * s["Br"]))
    keys = range(j * s["Bc"], min(s["N_kv"], (j + 1) * s["Bc"]))
    return any(c <= r + s["N_kv"] - s["N"] for r in rows for c in keys)


def pairs(page, action):
    """{(i, j)} of the steps whose key starts with `action`."""
    out = set()
    for key in page.keys:
        if key.startswith(action + " "):
            at = dict((n, int(v)) for n, v in AT.findall(key))
            out.add((at["i"], at["j"]))
    return out


@pytest.fixture(scope="module")
def pages():
    cache = {}

    def get(slug, sizes):
        key = (slug, tuple(sizes.items()))
        if key not in cache:
            cache[key] = Page(slug, sizes)
        return cache[key]

    return get


CASES = [(slug, s) for slug in SLUGS for s in CAUSAL]


def ids(case):
    return f"{case[0]}-" + "-".join(f"{k}{v}" for k, v in case[1].items())


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_the_steps_visit_exactly_the_tiles_a_block_sees(pages, case):
    slug, s = case
    page = pages(slug, s)
    assert page.result.ok, page.result.error.traceback
    Tr, Tc = -(-s["N"] // s["Br"]), -(-s["N_kv"] // s["Bc"])
    seen = {(i, j) for i in range(Tr) for j in range(Tc) if sees(s, i, j)}
    assert len(seen) < Tr * Tc, "the mask hides some tile whole at these sizes"
    for action in SLUGS[slug]:
        assert pairs(page, action) == seen, action


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_the_counter_ends_on_the_causal_trace(pages, case, capsys):
    slug, s = case
    page = pages(slug, s)
    counts = [page.counter(k) for k in range(len(page.steps))]
    assert counts == sorted(counts)
    unmasked = trace_total(capsys, slug, {**s, "causal": 0})
    assert counts[-1] == trace_total(capsys, slug, s) < unmasked


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_masked_cells_are_drawn_masked_when_s_fills(pages, case):
    slug, s = case
    page = pages(slug, s)
    masked_seen = 0
    for key in page.keys:
        if not key.startswith("fill Sij "):
            continue
        at = dict((n, int(v)) for n, v in AT.findall(key))
        end = page.items(key)
        stagger = page.steps[page.index(key)]["stagger"]
        assert len(stagger) == s["Br"] * s["Bc"]
        for item, n, _ in stagger:
            r, c = divmod(n, s["Bc"])
            hidden = at["j"] * s["Bc"] + c > at["i"] * s["Br"] + r + s["N_kv"] - s["N"]
            assert (end[item]["fill"] == "@paper") == hidden, (key, r, c)
            assert end[item]["fill"] in ("@paper", "@s-1", "@s-2")
            masked_seen += hidden
    assert masked_seen, "a diagonal tile has masked cells at these sizes"


@pytest.mark.parametrize("slug", SLUGS)
def test_captions_say_which_tiles_a_block_visits(pages, slug):
    page = pages(slug, CAUSAL[1])
    captions = " ".join(step["caption"] for step in page.steps)
    assert "mask" in captions
    unmasked = pages(slug, {**CAUSAL[1], "causal": 0})
    assert "mask" not in " ".join(step["caption"] for step in unmasked.steps)


# N = 12 queries, N_kv = 4 keys, Br = Bc = 4: row r sees key c iff c <= r - 8, so blocks 0 and 1 (rows 0-7) see no key
BLIND = {"N": 12, "N_kv": 4, "Br": 4, "Bc": 4, "causal": 1}
# the figures' d = 4: per block of 4 rows O is 4 * 4 * s bytes (s = 4 float32; 2 float16 on tensor cores), L 4 * 4
BLIND_BYTES = {"flash-attention-2": 2 * (64 + 16), "flash-attention-2-tensor-cores": 2 * (32 + 16)}


@pytest.mark.parametrize("slug", BLIND_BYTES)
def test_a_block_that_sees_no_key_loads_nothing_and_writes_o_and_l(pages, slug):
    """As flash-attn's forward kernel (and attention/fa2.py, kernelviz/cuda/fa2.cu's no_key region): the block returns
    before loading Q; its only steps are the zoom and the write of O = 0, L = -inf, and the counter after the two such
    blocks is their O and L bytes, worked out by hand."""
    page = pages(slug, BLIND)
    assert page.result.ok, page.result.error.traceback
    keys = page.keys
    assert keys[: keys.index("zoom i=2")] == ["start", "zoom i=0", "write O,L i=0", "zoom i=1", "write O,L i=1"]
    assert "load Q i=2" in keys
    assert page.counter("write O,L i=1") == BLIND_BYTES[slug]
    assert "sees no key" in page.steps[keys.index("write O,L i=0")]["caption"]


KERNEL_LOOPS = "Tr, Tc = -(-N // Br), -(-N_kv // Bc)"


@pytest.mark.parametrize("causal", [0, 1])
@pytest.mark.parametrize("slug", BLIND_BYTES)
def test_more_tiles_than_the_sizes_give_is_an_error_naming_them(slug, causal):
    """Issue 37: `Tr, Tc = 2, 3` in the kernel editor at N = N_kv = 8, Bc = 4 ran and was cut to the 2 tiles K has,
    silently. The loop now asks for K[2], and the figure library's error (shown at its line in the editor) says that
    K has 2 tiles at these sizes and which size gives 3; the same for a third block of rows."""
    page = Page(slug, {"causal": causal}, edit=lambda code: code.replace(KERNEL_LOOPS, "Tr, Tc = 2, 3"))
    assert page.result.error is not None, "Tc = 3 ran without a word"
    assert "K[2]: K has 2 tiles at N_kv = 8, Bc = 4" in page.result.error.message
    assert "3 tiles need N_kv = 12" in page.result.error.message
    page = Page(slug, {"causal": causal}, edit=lambda code: code.replace(KERNEL_LOOPS, "Tr, Tc = 3, 2"))
    assert "block 2 is not in the grid of 2 blocks" in page.result.error.message
