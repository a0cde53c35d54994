"""Code wraps at its column's width, in Chromium at 1600 × 1000: no code block on any built page (the editors once
mounted, every CUDA block opened, the overview's code panel, each kernel's own page) scrolls sideways, and a long
comment wraps onto more lines instead."""

import pytest
from python_intent import mount_editors

from tests.browser.test_controls_ranges import PAGES

SIDEWAYS = """() => [...document.querySelectorAll('pre.kv-code, .cm-scroller, pre.kvx-code')]
  .filter((el) => el.getClientRects().length && el.scrollWidth > el.clientWidth + 1)
  .map((el) => [el.className, el.scrollWidth, el.clientWidth, el.textContent.slice(0, 60)])"""


def kernel_pages(built_site):
    return sorted(p.name.removesuffix(".html") for p in built_site.glob("*.cu.html"))


def open_all(page, site_url, name):
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.goto(f"{site_url}/{name}.html")
    if page.locator(".kv-editor").count():
        mount_editors(page)
        mounted = "document.querySelectorAll('.kv-editor .cm-editor').length"
        page.wait_for_function(f"{mounted} === document.querySelectorAll('.kv-editor').length")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")


@pytest.mark.parametrize("name", PAGES)
def test_no_code_block_scrolls_sideways(page, site_url, name):
    open_all(page, site_url, name)
    assert page.locator("pre.kv-code, .cm-scroller, pre.kvx-code").count() > 0
    assert page.evaluate(SIDEWAYS) == []


def test_no_kernel_page_scrolls_sideways(page, site_url, built_site):
    names = kernel_pages(built_site)
    assert names, "the build has no page per kernel (FILE.cu.html)"
    for name in names:
        open_all(page, site_url, name)
        assert page.evaluate(SIDEWAYS) == [], name


LONGEST_LINE = """() => { const views = window.kernelvizEditors.editors.map((e) => e.view);
  const lines = views.flatMap((v) => [...v.contentDOM.querySelectorAll('.cm-line')].map((line) => [v, line]));
  const [view, line] = lines.reduce((a, b) => (b[1].textContent.length > a[1].textContent.length ? b : a));
  return { chars: line.textContent.length * view.defaultCharacterWidth, width: view.contentDOM.clientWidth,
    height: line.getBoundingClientRect().height, lineHeight: view.defaultLineHeight }; }"""


def test_the_longest_line_of_an_editor_wraps(page, site_url):
    open_all(page, site_url, "flash-attention-2")
    line = page.evaluate(LONGEST_LINE)
    assert line["chars"] > line["width"], f"no line long enough to need wrapping: {line}"
    assert line["height"] > 1.5 * line["lineHeight"], line  # more than one line of text
