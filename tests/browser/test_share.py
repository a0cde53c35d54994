"""Share and reuse, on the real built pages: the Copy buttons of the code blocks, "Link" beside the step player and
the figure saved as SVG and PNG.

- A prose code block's Copy puts exactly its text, as the build wrote it, on the clipboard (figlib.html: the kernel
  pages have no plain fences; every one of their code blocks is an editor or a CUDA block). A CUDA block's Copy puts
  lines of kernelviz/cuda/fa2.cu, each the file's line of its number, without line numbers, step notes, the
  "// this step:" banner or the elisions; a whole-kernel page's Copy puts the whole file. An editor's Copy, after
  an edit typed into it, puts the edited code.
- Without the Clipboard API (navigator.clipboard deleted by an init script) Copy still copies, by execCommand
  ('copy'): what a `copy` event listener on the document sees is the code.
- "Link" at step 5 copies a URL that opens the figure at step 5; with Bc=2 picked in the size form, a URL that opens
  it at those sizes.
- "SVG" saves a standalone file named after the page and the step: xmlns, a viewBox, as many shapes as the figure
  shows, no var( left; opened on its own, its Q tile and its background have the page's colours, in the light and in
  the dark theme (the export has the colours the page shows). "PNG" saves a PNG twice the SVG's size, not blank.
- Every new button has an accessible name, is in the page's Tab order and shows a focus ring when reached by Tab.

The clipboard is read back with navigator.clipboard.readText() (a context granted clipboard-read and -write).
Pyodide's requests are refused: the editors mount without it."""

import base64
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from figure_page import open_figure, without_python

ROOT = Path(__file__).resolve().parents[2]
CUDA = ROOT / "kernelviz" / "cuda"
SVG_NS = "{http://www.w3.org/2000/svg}"
SHAPES = "rect, line, circle, ellipse, path, polygon, polyline, text"
NO_CLIPBOARD = "delete Navigator.prototype.clipboard;"
RECORD_COPY = """document.addEventListener('copy', (e) => {
  const t = e.target;
  window.kvCopied = t && 'value' in t ? t.value.slice(t.selectionStart, t.selectionEnd) : getSelection().toString();
});"""


@pytest.fixture(scope="module")
def context(browser):
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"], accept_downloads=True)
    context.route("**/pyodide/**", lambda route: route.abort())
    yield context
    context.close()


@pytest.fixture
def page(context):
    pg = context.new_page()
    yield pg
    pg.close()


def clipboard(page):
    return page.evaluate("navigator.clipboard.readText()")


def built_text(page, selector, index):
    """The textContent of the `index`th `selector` of the page's HTML as the build wrote it (fetched again)."""
    return page.evaluate(
        """async ([selector, index]) => {
            const html = await (await fetch(location.href)).text();
            const doc = new DOMParser().parseFromString(html, 'text/html');
            return doc.querySelectorAll(selector)[index].textContent;
        }""",
        [selector, index],
    )


# Whether button `b` is in the palette's accent colour, resolved where it is (the theme in force): how it says copied.
IN_ACCENT = """(b) => {
  const probe = Object.assign(document.createElement('span'), { hidden: true });
  probe.style.color = 'var(--kv-accent)';
  b.parentElement.append(probe);
  const accent = getComputedStyle(probe).color;
  probe.remove();
  return getComputedStyle(b).color === accent;
}"""


def click_copy(page, button, says="Copied"):
    assert not button.evaluate(IN_ACCENT)
    button.click()
    page.wait_for_function("([b, says]) => b.textContent === says", arg=[button.element_handle(), says])
    assert button.evaluate(IN_ACCENT), f"{says}: in the accent colour"


def test_a_prose_code_block_copies_its_text(page, site_url):
    without_python(page).goto(f"{site_url}/figlib.html")
    block = page.locator(".kv-copyable").first
    block.locator(".kv-copy").wait_for()
    index = page.evaluate(
        "[...document.querySelectorAll('pre.kv-code')].indexOf(document.querySelector('.kv-copyable pre'))"
    )
    click_copy(page, block.locator(".kv-copy"))
    copied = clipboard(page)
    assert copied == built_text(page, "pre.kv-code", index)
    assert len(copied) > 20


def test_a_cuda_block_copies_lines_of_the_kernel_without_numbers_or_notes(page, site_url):
    source = (CUDA / "fa2.cu").read_text().split("\n")
    open_figure(without_python(page), f"{site_url}/flash-attention-2.html")
    # the block of step "load Q i=0": a banner, elided lines, and a note on a line that has a comment of its own
    block = page.locator("details.kv-cuda").nth(1)
    block.evaluate("d => (d.open = true)")
    assert block.locator(".kv-banner").count() == 1 and block.locator(".kv-elided").count() > 0
    assert block.locator(".kv-line:has(.kv-note):has(.c1)").count() > 0
    click_copy(page, block.locator(".kv-copy"))
    copied = clipboard(page)
    numbers = [int(n) for n in block.locator(".kv-line:not(.kv-banner):not(.kv-elided) > .kv-ln").all_text_contents()]
    lines = copied.split("\n")
    assert lines[-1] == "" and len(lines) - 1 == len(numbers)
    assert numbers == sorted(numbers)
    for n, line in zip(numbers, lines, strict=False):
        assert line == source[n - 1], f"line {n}: copied {line!r}, the file has {source[n - 1]!r}"
    assert "this step" not in copied and "⋯" not in copied


def test_a_whole_kernel_page_copies_the_file(page, site_url):
    without_python(page).goto(f"{site_url}/fa2.cu.html")
    button = page.get_by_role("button", name="Copy all of fa2.cu")
    click_copy(page, button)
    assert clipboard(page) == (CUDA / "fa2.cu").read_text()


def mounted(page):
    page.goto(page.url)
    page.evaluate("""() => {
        const last = [...document.querySelectorAll('.kv-editor')].at(-1);
        last.dispatchEvent(new FocusEvent('focusin', { bubbles: true }));
    }""")
    page.wait_for_function("window.kernelvizEditors && window.kernelvizEditors.editors.length === 2", timeout=20_000)


def test_an_editor_copies_its_code_as_edited(page, site_url):
    page.goto(f"{site_url}/flash-attention-2.html")
    page.evaluate("localStorage.clear()")
    mounted(page)
    editor = page.locator('.kv-editor[data-editor="1"]')
    editor.locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("# my note")
    code = page.evaluate("kernelvizEditors.editors[1].code()")
    assert code.endswith("# my note")
    button = page.get_by_role("button", name="Copy the code of editor 2")
    click_copy(page, button)
    assert clipboard(page) == code
    page.evaluate("kernelvizEditors.editors[1].reset()")


def test_copy_without_the_clipboard_api_copies_by_exec_command(browser, site_url):
    context = browser.new_context()
    try:
        context.add_init_script(NO_CLIPBOARD)
        context.add_init_script(RECORD_COPY)
        pg = without_python(context.new_page())
        pg.goto(f"{site_url}/fa2.cu.html")
        assert pg.evaluate("navigator.clipboard") is None
        button = pg.get_by_role("button", name="Copy all of fa2.cu")
        click_copy(pg, button)
        assert pg.evaluate("window.kvCopied") == (CUDA / "fa2.cu").read_text()
        assert pg.evaluate("document.activeElement.className") == "kv-copy"  # the focus is given back
    finally:
        context.close()


def go_to(page, k):
    page.locator(f'.kv-step-items button[data-goto="{k}"]').click()
    still = "document.getElementById('kv-figure').dataset.animating === 'false'"
    page.wait_for_function(f"window.kernelviz.step() === {k} && {still}")


def test_link_to_this_step_opens_that_step(page, context, site_url):
    open_figure(without_python(page), f"{site_url}/flash-attention-2.html")
    go_to(page, 5)
    click_copy(page, page.get_by_role("button", name="Copy a link to this step"), "Link copied")
    link = clipboard(page)
    assert link == f"{site_url}/flash-attention-2.html#step=5"
    other = without_python(context.new_page())
    open_figure(other, link)
    other.wait_for_function("window.kernelviz.step() === 5")
    other.close()


def test_link_carries_the_sizes_picked(page, context, site_url):
    open_figure(without_python(page), f"{site_url}/flash-attention-2.html")
    page.locator("form.kv-sizes input[name=Bc]").fill("2")
    page.wait_for_selector("form.kv-sizes[data-applied='N8-N_kv8-Br4-Bc2-causal0']", state="attached")
    go_to(page, 5)
    click_copy(page, page.get_by_role("button", name="Copy a link to this step"), "Link copied")
    link = clipboard(page)
    assert link.endswith("flash-attention-2.html#N=8&N_kv=8&Br=4&Bc=2&causal=0&step=5")
    other = without_python(context.new_page())
    open_figure(other, link)
    other.wait_for_selector("form.kv-sizes[data-applied='N8-N_kv8-Br4-Bc2-causal0']", state="attached")
    other.wait_for_function("window.kernelviz.step() === 5")
    assert other.evaluate("window.kernelviz.sizes()") == {"N": 8, "N_kv": 8, "Br": 4, "Bc": 2, "causal": 0}
    other.close()


def save(page, ext):
    """Press the figure's `ext` button: (file name, bytes)."""
    with page.expect_download() as info:
        page.get_by_role("button", name=f"Save the figure as {ext.upper()}").click()
    download = info.value
    return download.suggested_filename, Path(download.path()).read_bytes()


# The computed fill of the first rect painted with a Q tile's colour, and of the background, in `svg`.
COLOURS = """(svg) => {
    const rects = [...svg.querySelectorAll('rect')];
    const q = rects.findIndex((r) => /--kv-q-fill/.test(r.getAttribute('style') || ''));
    const paper = getComputedStyle(svg.querySelector('.kv-background')).fill;
    return { q, qFill: getComputedStyle(rects[q]).fill, paper };
}"""
OPENED_FILL = """(q) => {
    const svg = document.querySelector('svg');
    return { qFill: getComputedStyle(svg.querySelectorAll('rect')[q]).fill,
             paper: getComputedStyle(svg.querySelector('.kv-background')).fill };
}"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_figure_saves_as_a_standalone_svg_and_a_png(page, context, site_url, tmp_path, scheme):
    page.emulate_media(color_scheme=scheme)
    open_figure(without_python(page), f"{site_url}/flash-attention-2.html")
    go_to(page, 5)
    svg = page.locator("#kv-figure svg.kv-svg")
    shown = svg.evaluate(f"(s) => s.querySelectorAll('{SHAPES}').length")
    colours = svg.evaluate(COLOURS)
    assert colours["q"] >= 0

    name, data = save(page, "svg")
    assert name == "flash-attention-2-step-5.svg"
    text = data.decode()
    assert "var(" not in text
    root = ET.fromstring(data)
    assert root.tag == f"{SVG_NS}svg" and 'xmlns="http://www.w3.org/2000/svg"' in text
    assert len(root.get("viewBox").split()) == 4
    width, height = int(root.get("width")), int(root.get("height"))
    kinds = [s.strip() for s in SHAPES.split(",")]
    assert sum(1 for e in root.iter() if e.tag.removeprefix(SVG_NS) in kinds) == shown
    assert root.find(f".//{SVG_NS}pattern") is not None

    # opened on its own, the file has the page's colours (light or dark, as the page showed them)
    saved = tmp_path / name
    saved.write_bytes(data)
    alone = context.new_page()
    alone.goto(saved.as_uri())
    opened = alone.evaluate(OPENED_FILL, colours["q"])
    assert opened == {"qFill": colours["qFill"], "paper": colours["paper"]}
    dark = page.evaluate(
        "() => { const m = getComputedStyle(document.body).backgroundColor.match(/[\\d.]+/g).map(Number);"
        " return (m[0] + m[1] + m[2]) / 3 < 128; }"
    )
    assert dark == (scheme == "dark")
    alone.close()

    name, png = save(page, "png")
    assert name == "flash-attention-2-step-5.png"
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    assert struct.unpack(">II", png[16:24]) == (2 * width, 2 * height)
    # not blank: many pixels differ from the background's colour
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    differ = page.evaluate(
        """async ([url, paper]) => {
            const img = new Image();
            img.src = url;
            await img.decode();
            const c = Object.assign(document.createElement('canvas'), { width: img.width, height: img.height });
            const g = c.getContext('2d');
            g.drawImage(img, 0, 0);
            const bg = paper.match(/\\d+/g).map(Number);
            const px = g.getImageData(0, 0, img.width, img.height).data;
            let n = 0;
            for (let i = 0; i < px.length; i += 4 * 7)
                if (Math.abs(px[i] - bg[0]) + Math.abs(px[i + 1] - bg[1]) + Math.abs(px[i + 2] - bg[2]) > 60) n++;
            const corner = [...px.slice(0, 3)];
            return { n, corner, bg };
        }""",
        [url, colours["paper"]],
    )
    assert differ["n"] > 500, differ
    assert max(abs(a - b) for a, b in zip(differ["corner"], differ["bg"], strict=True)) <= 2, differ  # its paper


FOCUS_RING = "(b) => getComputedStyle(b).outlineStyle !== 'none' && parseFloat(getComputedStyle(b).outlineWidth) > 0"


def reached_by_tab(page, button):
    """Whether `button` is in the Tab order: from it, Shift+Tab then Tab comes back to it, with a focus ring."""
    button.focus()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Tab")
    return button.evaluate("(b) => document.activeElement === b") and button.evaluate(FOCUS_RING)


@pytest.mark.parametrize(
    ("name", "buttons"),
    [
        ("flash-attention-2", ["Copy a link to this step", "Save the figure as SVG", "Save the figure as PNG"]),
        ("flash-attention-2", ["Copy the CUDA code"]),
        ("fa2.cu", ["Copy all of fa2.cu"]),
        ("figlib", ["Copy the code"]),
    ],
)
def test_every_new_button_is_named_and_reached_by_tab(page, site_url, name, buttons):
    page.set_viewport_size({"width": 390, "height": 844})  # a phone's width: the touch sizes apply
    without_python(page).goto(f"{site_url}/{name}.html")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    page.wait_for_selector(".kv-copy, .kv-figure-tools", state="attached")
    page.evaluate("document.querySelectorAll('details.kv-cuda').forEach((d) => (d.open = true))")
    for label in buttons:
        button = page.get_by_role("button", name=label, exact=True).first
        assert button.evaluate("(b) => b.type") == "button"
        box = button.bounding_box()
        assert box["width"] >= 24 and box["height"] >= 24, f"{label}: {box}"
        assert reached_by_tab(page, button), f"{label} is not in the Tab order (or shows no focus ring)"


def test_the_editors_copy_is_reached_by_tab(page, site_url):
    page.goto(f"{site_url}/flash-attention-2.html")
    mounted(page)
    for i in (1, 2):
        button = page.get_by_role("button", name=f"Copy the code of editor {i}")
        assert reached_by_tab(page, button)
    assert re.search(r"Copy", page.locator(".kv-editor-copy").first.text_content())


# Every URL the page puts in the address bar (history.replaceState), from its first script on.
RECORD_URLS = """window.kvURLs = [];
const replace = history.replaceState.bind(history);
history.replaceState = (state, title, url) => {
  window.kvURLs.push(String(url));
  return replace(state, title, url);
};"""


def test_a_link_made_before_n_kv_draws_n_kv_equal_to_n_and_keeps_its_sizes(browser, site_url):
    """A link that names N and not N_kv (made before the form had N_kv) opens the figure at N_kv = N, as it did then;
    and the address bar keeps the sizes from load until the figure is drawn at them (here from the prerendered
    scene of N = N_kv = 12, Br = Bc = 4)."""
    context = browser.new_context()
    context.add_init_script(RECORD_URLS)
    page = without_python(context.new_page())
    page.goto(f"{site_url}/flash-attention-2.html#N=12&Br=4&Bc=4&step=7")
    page.wait_for_selector("form.kv-sizes[data-applied='N12-N_kv12-Br4-Bc4-causal0']", state="attached")
    page.wait_for_function("window.kernelviz.step() === 7")
    assert page.evaluate("window.kernelviz.sizes()") == {"N": 12, "N_kv": 12, "Br": 4, "Bc": 4, "causal": 0}
    assert page.evaluate("location.hash") == "#N=12&N_kv=12&Br=4&Bc=4&causal=0&step=7"
    urls = page.evaluate("window.kvURLs")
    assert urls and all("N=12&N_kv=12&Br=4&Bc=4" in u for u in urls), urls  # never without the sizes
    # Sizes that need Python (Br = 8 was not prerendered): it is asked for N_kv = N = 20, and, Python refused here,
    # says it could not draw them.
    page.goto(f"{site_url}/flash-attention-2.html#N=20&Br=8&Bc=8")
    page.wait_for_function("document.querySelector('.kv-sizes-status').textContent.includes('could not be drawn')")
    said = page.locator(".kv-sizes-status").text_content()
    assert "N = 20, N_kv = 20, Br = 8, Bc = 8" in said, said
    context.close()
