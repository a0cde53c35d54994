"""An edit the figure cannot draw says why, in the reader's sizes, at the editor's line (issue 32, item 5): a loop
past the last tile of a tensor names the tensor, its tiles, the sizes that made them and the size that gives more,
on each kernel page; run at that size, the same edit draws."""

import pytest

from kernelviz.figlib import Figure, sizes, sizing, split_tiles
from kernelviz.runner import Source, run
from tests.pages.kernel_pages import EDITOR, ROOT


def page_editors(slug):
    text = (ROOT / "pages" / f"{slug}.md").read_text(encoding="utf-8")
    return [code for _, code in EDITOR.findall(text)]


def line_of(code, text):
    (n,) = [n for n, line in enumerate(code.splitlines(), 1) if text in line]
    return n


# slug, (old, new) in the kernel editor, the line that fails, what the error says, sizes at which the edit draws
EDITS = [
    ("flash-attention-2", ("for j in range(Tj):", "for j in range(3):"), "fig.copy([K[j], V[j]]",
     "K[2]: K has 2 tiles at N_kv = 8, Bc = 4 (K[0] to K[1]); 3 tiles need N_kv = 12", {"N_kv": 12}),
    ("flash-attention-1", ("for i in range(first, Tr):", "for i in range(first, 3):"), "fig.copy([Q[i], O[i]",
     "Q[2]: Q has 2 tiles at N = 8, Br = 4 (Q[0] to Q[1]); 3 tiles need N = 12", {"N": 12}),
    ("online-softmax", ("for i in range(-(-N // Bc)):", "for i in range(5):"), "fig.copy([X[i], V[i]]",
     "x[4]: x has 4 tiles at N = 8, Bc = 2 (x[0] to x[3]); 5 tiles need N = 10", {"N": 10}),
    ("flash-decoding", ("for s in range(splits):", "for s in range(3):"), "enumerate(owned[s])",
     "split 2: there are 2 splits at splits = 2 (0 to 1); 3 splits need splits = 3", {"splits": 3}),
    ("flash-decoding", ("enumerate(owned[s])", "enumerate(range(3 * s, 3 * s + 3))"), "fig.copy([K[n], V[n]]",
     "K[4]: K has 4 tiles at N = 16, Bc = 4 (K[0] to K[3]); 5 tiles need N = 20", {"N": 24}),
]  # fmt: skip


@pytest.mark.parametrize(("slug", "edit", "at", "says", "fixed"), EDITS)
def test_a_loop_past_the_last_tile_says_which_size_gives_more(slug, edit, at, says, fixed):
    codes = page_editors(slug)
    assert codes[-1].count(edit[0]) == 1, (slug, edit)
    codes[-1] = codes[-1].replace(*edit)
    sources = [Source(c, f"{slug} editor {n + 1}") for n, c in enumerate(codes)]
    error = run(sources).error
    assert error is not None and error.kind == "IndexError", (slug, error)
    assert error.editor == len(codes) - 1 and error.line == line_of(codes[-1], at), (slug, error)
    assert error.message.startswith(says), error.message
    assert "in the size form beside the figure, or in sizes(...)" in error.message
    assert run(sources, fixed).error is None  # the advice works: at that size the same edit draws


def test_tensors_still_index_and_slice_as_lists():
    sizing.give(None)  # no sizes from an earlier run
    sizes_ = dict(zip(("N", "Bc"), sizes(N=8, Bc=4), strict=True))
    fig = Figure()
    K = fig.hbm("K", sizes_["N"], 4, sizes_["Bc"], "k")
    assert K[-1] is K[1] and K[0:5] == [K[0], K[1]] and len(K) == 2
    with pytest.raises(IndexError, match=r"K\[-3\]: K has 2 tiles at N = 8, Bc = 4"):
        K[-3]
    assert list(split_tiles(4, 3)[-1]) == []


def test_sizes_are_ints_that_know_their_names():
    sizing.give(None)
    n, bc = sizes(N=8, Bc=4)
    assert (n, bc) == (8, 4) and n.name == "N" and bc.name == "Bc"
    assert f"{n}" == repr(n) == "8" and type(n + 1) is int and -(-n // bc) == 2
