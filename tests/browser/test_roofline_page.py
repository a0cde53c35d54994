"""The roofline section in Chromium: on each kernel page the reader changes the size form (and, on the pages with
one, the causal switch) and the plot's points and the table's numbers follow, equal to `kernelviz trace ALGO --gpu
GPU --json` at those sizes (run here, independent of the page); a realistic preset equals `kernelviz roofline`'s
table (commands.roofline.table) at N = 4096; without JavaScript the section and its plot are there as built."""

import pytest
from figure_page import SIZE_FORM, open_figure, parse, ragged, wait_applied

from kernelviz.roofline import GPUS
from tests.roofline.roofline_pages import READ, SLUGS, algorithms, check, closed_form, expected

SHOWN = f"() => ({READ})(document)"
DRAWN_AT = """(want) => { const b = document.querySelector('section.kv-roofline .kv-roof-body');
  const [sizes, preset] = JSON.parse(b.dataset.drawn);
  return preset === want.preset && Object.entries(want.sizes).every(([k, v]) => sizes[k] === v); }"""


def wait_drawn(page, sizes, preset="figure"):
    page.wait_for_function(DRAWN_AT, arg={"sizes": sizes, "preset": preset})


def change(page, sizes, name, value):
    page.locator(f"form.kv-sizes input[name={name}]").fill(str(value))
    wanted = {**sizes, name: value}
    if name == "N" and "N_kv" in sizes and sizes["N_kv"] == sizes["N"]:
        wanted["N_kv"] = value  # N_kv follows N while the two are equal
    wait_applied(page, wanted)
    wait_drawn(page, wanted)
    return wanted


def preset_params(slug, sizes):
    """The preset N = 4096, d = 64 (batch x heads 32, float16, tiles of 64) as the page's kernel counts it: flash
    decoding's form N is its keys, against one query row; paged decoding's batch is two sequences of 4096 tokens in
    pages of 16, 16 query heads on the figure's one K/V head."""
    if slug == "flash-decoding":
        return dict(N=1, N_kv=4096, d=64, Br=1, Bc=64, causal=False, splits=sizes["splits"], batch_heads=32,
                    dtype="float16")  # fmt: skip
    if slug == "paged-decoding":
        return dict(seq_lens=[4096, 4096], page_size=16, H_q=16, H_kv=1, splits=sizes["splits"], d=64, dtype="float16")
    return dict(N=4096, N_kv=4096, d=64, Br=64, Bc=64, causal=bool(sizes.get("causal")), batch_heads=32,
                dtype="float16")  # fmt: skip


@pytest.mark.parametrize("slug", SLUGS)
def test_the_roofline_follows_the_size_form_and_equals_trace(reading, site_url, slug):
    page = reading
    open_figure(page, f"{site_url}/{slug}.html")
    page.wait_for_selector("section.kv-roofline[data-ready]")
    form = page.evaluate(SIZE_FORM)
    names, default = list(form["sizes"]), form["sizes"]
    check(page.evaluate(SHOWN), expected(slug, default))
    # One box changed to a prerendered size, a ragged one where there is one (not the causal switch).
    others = [parse(key, names) for key in form["prerendered"]]
    one = [s for s in others if sum(s[n] != default[n] for n in names if n not in ("N_kv", "causal")) == 1]
    target = next((s for s in one if ragged(s) and s.get("causal", 0) == 0), one[0])
    name = next(n for n in names if target[n] != default[n])
    sizes = change(page, default, name, target[name])
    check(page.evaluate(SHOWN), expected(slug, sizes))
    # A realistic preset: the table at N = 4096, d = 64 on the same page.
    page.locator(".kv-roof-presets input[value='N4096-d64']").check()
    wait_drawn(page, sizes, "N4096-d64")
    shown = page.evaluate(SHOWN)
    p = preset_params(slug, sizes)
    assert {k: shown["params"][k] for k in p} == p
    want = closed_form(algorithms(slug), shown["params"])
    for row in shown["rows"]:
        assert (row["bytes"], row["flops"]) == (
            want[row["algorithm"]]["bytes"],
            sum(want[row["algorithm"]]["flops"].values()),
        )
        for gpu, cell in row["bounds"].items():
            bound = want[row["algorithm"]]["bounds"][gpu]
            assert cell["bound"] == bound["bound"]
            assert cell["lower_bound_s"] == pytest.approx(bound["lower_bound_s"], rel=1e-12)
    page.locator(".kv-roof-presets input[value='figure']").check()
    wait_drawn(page, sizes)
    if "causal" in names:  # the mask: fewer tiles for the flash kernels, the same work for standard attention
        sizes = change(page, sizes, "causal", 1)
        check(page.evaluate(SHOWN), expected(slug, sizes))
    assert page.errors == []


def test_without_javascript_the_section_and_its_plot_are_there(browser, site_url):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 900})
    page = context.new_page()
    page.goto(f"{site_url}/flash-attention-2.html")
    plot = page.locator("section.kv-roofline svg.kv-roof-plot")
    plot.scroll_into_view_if_needed()
    assert plot.is_visible()
    box = plot.bounding_box()
    assert 300 <= box["width"] <= 390 and box["height"] > 150  # fits a phone's width, scaled down from the build's
    assert page.locator("svg.kv-roof-plot g.kv-roof").count() == len(GPUS)  # a100, h100, h200, b200
    assert page.locator("svg.kv-roof-plot g.kv-roof-point").count() == 3 * len(GPUS)  # fa2, fa1, standard on each
    assert page.locator(".kv-roof-table tbody tr").count() == 3
    context.close()


# The table's scroll region: [its width as laid out, the width it has], data-more, the line saying it scrolls, and
# its role, tab stop and name.
TABLE = """() => { const t = document.querySelector('section.kv-roofline .kv-roof-table');
  const hint = document.querySelector('section.kv-roofline .kv-roof-more');
  return { widths: [t.scrollWidth, t.clientWidth], more: t.dataset.more || '', hint: hint.checkVisibility(),
           role: t.getAttribute('role'), tabindex: t.tabIndex, label: t.getAttribute('aria-label') }; }"""


@pytest.mark.parametrize("slug", SLUGS)
def test_the_table_fits_a_laptop_at_the_figure_s_and_a_realistic_size(browser, site_url, slug):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    page = context.new_page()
    open_figure(page, f"{site_url}/{slug}.html")
    page.wait_for_selector("section.kv-roofline[data-ready]")
    sizes = page.evaluate(SIZE_FORM)["sizes"]
    for preset in ("figure", "N32768-d128"):  # the realistic size with the longest numbers
        if preset != "figure":
            page.locator(f".kv-roof-presets input[value='{preset}']").check()
            wait_drawn(page, sizes, preset)
        table = page.evaluate(TABLE)
        assert table["widths"][0] <= table["widths"][1], (slug, preset, table)
        assert table["more"] == "" and not table["hint"], (slug, preset, table)
    context.close()


def test_on_a_phone_the_table_says_it_scrolls_and_a_keyboard_scrolls_it(browser, site_url):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    open_figure(page, f"{site_url}/flash-attention-2.html")
    page.wait_for_selector("section.kv-roofline[data-ready]")
    table = page.evaluate(TABLE)
    assert table["widths"][0] > table["widths"][1], table  # wider than a phone: it scrolls
    assert table["more"] == "right" and table["hint"], table  # a shadow on the right, and the line above it
    assert (table["role"], table["tabindex"], table["label"]) == ("region", 0, "The roofline in numbers")
    assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    region = page.locator("section.kv-roofline .kv-roof-table")
    region.focus()
    step = page.evaluate("window.kernelviz.step()")
    for _ in range(20):  # the arrow keys scroll the focused region (not the figure's steps) to its end
        page.keyboard.press("ArrowRight")
    page.wait_for_function(f"({TABLE})().more === 'left'")  # scrolled to the end: the shadow moves to the left
    assert page.evaluate("window.kernelviz.step()") == step
    assert page.evaluate(TABLE)["hint"]  # (it still scrolls, back)
    context.close()


def test_a_change_of_preset_or_sizes_is_said_in_a_live_region(reading, site_url):
    page = reading
    open_figure(page, f"{site_url}/flash-attention-2.html")
    page.wait_for_selector("section.kv-roofline[data-ready]")
    said = page.locator("section.kv-roofline .kv-roof-said")
    assert said.get_attribute("role") == "status" and said.text_content() == ""  # nothing said on load
    sizes = page.evaluate(SIZE_FORM)["sizes"]
    page.locator(".kv-roof-presets input[value='N4096-d64']").check()
    wait_drawn(page, sizes, "N4096-d64")
    text = said.text_content()
    first = page.evaluate("document.querySelector('.kv-roof-table thead th:nth-child(5)').textContent")  # A100's
    cell = page.locator(".kv-roof-table tr[data-algorithm='fa2'] td[data-key='bound']").first.text_content()
    assert text.startswith("Roofline at N = 4096, N_kv = 4096, d = 64,"), text
    assert f"On {first}: fa2 bound by {cell.replace(', ', ', at least ')}" in text, (text, cell)
    page.locator(".kv-roof-presets input[value='figure']").check()
    sizes = change(page, sizes, "Bc", 2)
    assert said.text_content().startswith("Roofline at N = 8, N_kv = 8, d = 4, Br = 4, Bc = 2,"), said.text_content()
