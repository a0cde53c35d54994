"""The CUDA blocks in the browser: rendered when opened, as the builder wrote them before; plain code without
JavaScript; their step's values follow the sizes the reader picks, and a step that does not run at those sizes gets
none; the whole kernel is one click away."""

import json
import re

import pytest
from figure_page import KERNEL_PAGES, open_figure, without_python

from kernelviz.cuda import regions
from tests.pages import cuda_blocks_before as before


def test_the_step_values_follow_the_sizes_the_figure_shows(page, site_url):
    """When the size form (figure contract D) says the figure shows other sizes (its data-applied key), every note is
    computed again: j = 1 makes the tile's first key 1*Bc, 8 when Bc is 8."""
    form = '<form class="kv-sizes"><label>Bc <input name="Bc" type="number" min="1" max="16" value="4"></label></form>'

    def with_form(route):
        body = route.fetch().text()
        route.fulfill(body=body.replace('<article class="kv-prose">', f'<article class="kv-prose">{form}', 1),
                      content_type="text/html")  # fmt: skip

    page.route("**/flash-attention-1.html", with_form)
    open_figure(without_python(page), f"{site_url}/flash-attention-1.html")
    block = page.locator("details.kv-cuda[data-at*='\"j\":1']").first
    block.locator("summary").click()
    note = block.locator('.kv-note[data-name="col0"]').first
    assert note.text_content().startswith("// col0 = 1*Bc")
    page.evaluate("document.querySelector('form.kv-sizes').dataset.applied = 'Bc8'")
    page.wait_for_function("(n) => n.textContent === '// col0 = 1*Bc = 8'", arg=note.element_handle())
    page.evaluate("document.querySelector('form.kv-sizes').dataset.applied = 'Bc3'")
    page.wait_for_function("(n) => n.textContent === '// col0 = 1*Bc = 3'", arg=note.element_handle())


def test_a_block_links_to_its_place_in_the_whole_kernel(page, site_url):
    open_figure(without_python(page), f"{site_url}/flash-attention-1.html")
    block = page.locator("details.kv-cuda").nth(1)
    block.locator("summary").click()
    block.locator(".kv-cuda-where a").click()
    page.wait_for_url("**/fa1.cu.html#load_kv")
    assert page.locator("#load_kv").count() == 1
    assert "the whole kernel" in page.locator("h1").text_content()
    assert page.locator("table.kv-report tbody tr").count() >= 4  # two instances, two architectures


# Each block of the page: its cite, indices, host formulas and the inner HTML of its <pre>, opened as a reader does
# (a click on its summary); with the HTML of `before` (the old builder's, by block) as this browser parses it.
OPEN_EVERY_BLOCK = """() => [...document.querySelectorAll('details.kv-cuda')].map((d) => {
  const plain = d.querySelector('pre').querySelector('.kv-line') === null;
  d.querySelector('summary').click();
  return { cite: d.dataset.cite, at: JSON.parse(d.dataset.at || '{}'), host: JSON.parse(d.dataset.host || '{}'),
           plain, open: d.open, html: d.querySelector('pre').innerHTML };
})"""
AS_PARSED = """(htmls) => htmls.map((h) => {
  const pre = document.createElement('pre');
  pre.innerHTML = h;
  return pre.innerHTML;
})"""


@pytest.mark.parametrize("slug", KERNEL_PAGES)
def test_every_block_opened_shows_what_the_builder_wrote_into_it_before(page, site_url, slug):
    """Opened, every CUDA block of every kernel page shows the lines, scope, step values, links and highlighting the
    builder wrote into it before blocks were rendered in the browser (tests/pages/cuda_blocks_before.py, the old
    renderer), at the sizes the figure shows; before that it held plain text only."""
    open_figure(without_python(page), f"{site_url}/{slug}.html")
    sizes = page.evaluate("window.kernelviz.sizes()")
    blocks = page.evaluate(OPEN_EVERY_BLOCK)
    assert len(blocks) >= 15 and sizes
    expected = page.evaluate(AS_PARSED, [before.pre_html(b["cite"], b["at"], sizes, b["host"]) for b in blocks])
    for block, want in zip(blocks, expected, strict=True):
        assert block["plain"] and block["open"], block["cite"]
        assert block["html"] == want, f"{slug}: {block['cite']} at {block['at']}"
    assert page.errors == []


def test_with_javascript_off_a_block_is_its_code_as_plain_text(browser, site_url):
    """Without JavaScript a block opens (a <details>) on its code: the region's lines, the scope around them and the
    step's values, as text."""
    context = browser.new_context(java_script_enabled=False)
    try:
        pg = context.new_page()
        pg.goto(f"{site_url}/flash-attention-1.html")
        blocks = pg.locator("details.kv-cuda")
        assert blocks.count() > 10
        for k in range(blocks.count()):
            block = blocks.nth(k)
            block.locator("summary").click()
            pre = block.locator("pre.kv-cuda-code")
            assert pre.is_visible()
            text = pre.inner_text()
            for line in regions.region(block.get_attribute("data-cite")).splitlines():  # code, values, comment
                shown = all(part.strip() in text for part in line.partition("//")[::2])
                assert shown, f"{block.get_attribute('data-cite')}: {line!r} not shown"
            if block.get_attribute("data-at"):
                at = json.loads(block.get_attribute("data-at"))
                assert text.startswith("// this step: " + ", ".join(f"{n} = {v}" for n, v in at.items()))
        assert "col0 = 1*Bc = 4" in pg.locator("main").inner_text()  # a step's value, at the figure's Bc = 4
    finally:
        context.close()


# The figure at other sizes: wait until it shows `key` (the size form's data-applied).
def show_sizes(page, key):
    pairs = re.findall(r"([A-Za-z_]+)(\d+)", key)
    page.evaluate("(hash) => (location.hash = hash)", "&".join(f"{n}={v}" for n, v in pairs))
    page.wait_for_function("(key) => document.querySelector('form.kv-sizes').dataset.applied === key", arg=key)


def test_a_step_that_does_not_run_at_the_sizes_shown_gets_no_values(page, site_url):
    """Flash decoding, every block open, at N 16, Bc 4, splits 4 (else the first prerendered sizes with one): a CUDA
    block whose step the figure does not have at these sizes (disabled) says, open as it is, that it does not run,
    and none of its notes has a value; every other block shows what the old builder would have written at these
    sizes."""
    open_figure(without_python(page), f"{site_url}/flash-decoding.html")
    page.evaluate(OPEN_EVERY_BLOCK)
    prerendered = json.loads(page.locator("form.kv-sizes").get_attribute("data-prerendered"))
    for key in ["N16-Bc4-splits4", *prerendered]:
        show_sizes(page, key)
        if page.locator("details.kv-cuda[aria-disabled='true']").count():
            break
    disabled = page.locator("details.kv-cuda[aria-disabled='true']")
    assert disabled.count() > 0, "no size of the form leaves a CUDA block without its step"
    for block in disabled.all():
        assert block.evaluate("(d) => d.open")
        banner = block.locator(".kv-banner").text_content()
        assert banner.endswith("this pass does not run at these sizes"), banner
        for note in block.locator(".kv-note").all():
            assert note.text_content() == f"// {note.get_attribute('data-name')} = {note.get_attribute('data-expr')}"
    sizes = page.evaluate("window.kernelviz.sizes()")
    blocks = page.evaluate("""() => [...document.querySelectorAll('details.kv-cuda:not([aria-disabled])')].map((d) => ({
      cite: d.dataset.cite, at: JSON.parse(d.dataset.at || '{}'), host: JSON.parse(d.dataset.host || '{}'),
      open: d.open, html: d.querySelector('pre').innerHTML }))""")
    expected = page.evaluate(AS_PARSED, [before.pre_html(b["cite"], b["at"], sizes, b["host"]) for b in blocks])
    for block, want in zip(blocks, expected, strict=True):
        assert block["open"] and block["html"] == want, f"{block['cite']} at {block['at']}, {sizes}"
    assert "does not run" not in "".join(b["html"] for b in blocks)
