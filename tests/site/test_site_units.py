"""The small parts of the site builder on their own: fence info strings, link rewriting, the nav, JSON in HTML,
number formatting, line numbers of inline tokens, lean highlighting."""

import html as html_module
import json
import re
from pathlib import Path

import pytest

from kernelviz.site import highlight, nav, render
from kernelviz.site.extensions import fence_info, links, trace
from kernelviz.site.markdown import markdown
from kernelviz.site.pages import Page
from kernelviz.site.tokens import walk


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ('pie title="Drawing helpers"', ("pie", {"title": "Drawing helpers"}, "")),
        (
            'cuda cite="fa2.cu#load_kv" step="block 0 · j = 0 · load K0, V0"',
            ("cuda", {"cite": "fa2.cu#load_kv", "step": "block 0 · j = 0 · load K0, V0"}, ""),
        ),
        ("cuda cite='a.cu#b' title=bare", ("cuda", {"cite": "a.cu#b", "title": "bare"}, "")),
        ("python", ("python", {}, "")),
        ("pie stray words", ("pie", {}, "stray words")),
    ],
)
def test_fence_info(info, expected):
    assert fence_info.parse(info) == expected


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("other.md", "other.html"),
        ("other.md#part", "other.html#part"),
        ("#here", "#here"),
        ("img/x.png", "img/x.png"),
        ("https://example.org/a.md", "https://example.org/a.md"),
        ("mailto:x@example.org", "mailto:x@example.org"),
    ],
)
def test_links_rewrite(href, expected):
    assert links.rewrite(href) == expected


def test_nav_entries_fill_the_plan_and_add_pages_beyond_it():
    def p(slug, **meta):
        return Page(None, f"{slug}.md", slug, "", meta=meta)

    entries = nav.entries(
        [p("flash-decoding", nav=8, title="Kernel visualization: Flash Decoding"), p("extra", nav=10, title="Extra")]
    )
    assert [(e.position, e.text, e.href) for e in entries] == [
        (0, "Overview", None),
        (1, "1. Online softmax", None),
        (2, "2. Flash Attention 1", None),
        (3, "3. Flash Attention 2", None),
        (4, "4. Flash Attention 2 on tensor cores", None),
        (5, "5. Flash Attention 2, pipelined", None),
        (6, "6. FlashAttention-3 on Hopper", None),
        (7, "7. Flash Attention 2 backward", None),
        (8, "8. Flash decoding", "flash-decoding.html"),
        (9, "9. Paged decoding", None),
        (10, "10. Extra", "extra.html"),
    ]


def test_json_for_html_cannot_close_its_script_element():
    value = {"label": "</script><script>alert(1)</script> & <!--"}
    text = render.json_for_html(value)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == value


@pytest.mark.parametrize(("x", "text"), [(2, "2"), (2.0, "2"), (1234567, "1,234,567"), (2.5, "2.5"), (1 / 3, "0.333")])
def test_trace_numbers_format(x, text):
    assert trace.format_number(x) == text


def test_inline_tokens_know_their_line():
    md = markdown()
    tokens = md.parse("---\ntitle: x\n---\n\nfirst line\nsecond [link](a.md)\nthird {{ trace.N }}\n", {})
    lines = {t.type: line for t, line in walk(tokens) if t.type in ("link_open", "kv_trace")}
    assert lines == {"link_open": 6, "kv_trace": 7}


def test_python_is_highlighted_lean_with_the_same_text_and_the_same_colours():
    """Only spans of the classes site.css colours are kept; the text is the code's, and each coloured token keeps its
    span (against Pygments' own full output)."""
    code = (Path(highlight.__file__).parents[1] / "figlib" / "layout.py").read_text()
    lean, full = highlight.python(code), highlight._html(code, highlight.PythonLexer)
    assert html_module.unescape(re.sub(r"<[^>]+>", "", lean)) == code.removesuffix("\n")  # (as before: no last newline)
    kept = re.findall(r'<span class="([\w-]+)">', lean)
    assert kept and set(kept) <= highlight.COLOURED
    coloured = [m for m in re.findall(r'<span class="([\w-]+)">', full) if m in highlight.COLOURED]
    assert kept == coloured  # every coloured token, in order
    assert len(lean) < 0.7 * len(full)
    assert {"k", "nf", "c1", "mi"} <= highlight.COLOURED and not {"n", "p", "o"} & highlight.COLOURED


def test_plain_fences_are_highlighted_when_pygments_knows_the_language():
    md = markdown()
    html = md.render("```python\nx = 1\n```\n\n```nosuchlanguage\ny\n```\n")
    # a name and an operator take no colour: text, not spans (highlight.COLOURED); the number is coloured
    assert '<pre class="kv-code" data-language="python">x = <span class="mi">1</span></pre>' in html
    assert '<pre><code class="language-nosuchlanguage">y\n</code></pre>' in html


@pytest.mark.parametrize(
    ("title", "expected"),
    [("Tile j = 1", "tile-j-1"), ("Why nothing travels?", "why-nothing-travels"), ("∑", "section")],
)
def test_heading_slugs(title, expected):
    from kernelviz.site.markdown import slug

    assert slug(title) == expected
