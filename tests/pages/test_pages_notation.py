"""One meaning per symbol across the book: d (and D in code) is the head dimension, l the softmax's running
denominator, Δ the backward's rowsum(dO ∘ O)."""

import ast
import re

import pytest

from tests.pages.kernel_pages import EDITOR, ROOT, Page

PAGES = sorted((ROOT / "pages").glob("*.md"))
MATH = re.compile(r"\$\$(.+?)\$\$|\$([^$\n]+?)\$", re.S)
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def math_of(text):
    """The formulas of a page's Markdown, code blocks left out."""
    return [a or b for a, b in MATH.findall(FENCE.sub("", text))]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_the_denominator_is_l_never_d(path):
    """The denominator's colour (\\kvl) wraps l, never d or d′: d is the head dimension."""
    for tex in math_of(path.read_text(encoding="utf-8")):
        assert not re.search(r"\\kvl\{d", tex), tex


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_d_in_an_editor_is_only_ever_the_head_dimension(path):
    """An editor that binds D binds it once, to a number: the head dimension the figure is drawn at."""
    for title, code in EDITOR.findall(path.read_text(encoding="utf-8")):
        bound = [n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name) and n.id in ("D", "d")]
        stores = [n for n in bound if isinstance(n.ctx, ast.Store)]
        assert all(n.id == "D" for n in stores), (path.name, title)
        if stores:
            assert len(stores) == 1 and re.search(r"^D = \d+  # the head dimension", code, re.M), (path.name, title)


def test_the_backward_math_writes_delta_for_rowsum_of_do_times_o():
    text = (ROOT / "pages" / "flash-attention-2-backward.md").read_text(encoding="utf-8")
    formulas = math_of(text)
    assert any(r"\Delta = \operatorname{rowsum}(dO \circ O)" in tex for tex in formulas)
    assert [tex for tex in formulas if re.search(r"(?<![\\\w])D(?!\w)", tex)] == ["D"]  # "Dao writes it $D$", once


def test_the_backward_steps_name_delta_not_d():
    """The backward page's step keys (the figure's, the bullets' and the CUDA blocks' that play them) say Δ where
    they name rowsum(dO ∘ O): a step key's bare D would read as the head dimension."""
    text = (ROOT / "pages" / "flash-attention-2-backward.md").read_text(encoding="utf-8")
    keys = re.findall(r"fig\.step\('([^']+)'", text) + re.findall(r"\[step: ([^\]]+?)(?: \w+=\d+)*\]", text)
    keys += re.findall(r'step="([^"]+?)(?: \w+=\d+)*"', text)
    assert {"write Δ,dQ", "load Q,dO,L,Δ"} <= set(keys)
    assert [k for k in keys if re.search(r"(?<!\w)D(?!\w)", k)] == []


def test_the_online_softmax_figure_names_its_carries_m_l_and_o():
    page = Page("online-softmax")
    captions = {i["label"] for i in page.figure["items"] if i["w"] == i["h"] == 0}
    assert {"m", "l", "o′"} <= captions and "d′" not in captions
