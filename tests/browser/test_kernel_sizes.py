"""The kernel pages at the sizes a reader picks, in Chromium (issue 12): on every kernel page the size form and the
URL re-draw the figure from the prerendered scene files, its step count following the kernel's loops (the runner at
those sizes) and its final HBM counter equal to the ledger (`kernelviz trace ... --json` total_bytes, run here,
independent of the page); every bullet bound by key plays the first step with its key, or is disabled. With Python:
the edit of the issue's first paragraph (more tiles, through the kernel's sizes call) and Run leave every bullet
playing its own step, and the form then draws other sizes of the edited kernel with Python."""

import re

import pytest
from figure_page import (
    HBM_BYTES,
    KERNEL_PAGES,
    MEASURE_EVERY_STEP,
    SIZE_FORM,
    STEP_KEYS,
    fit_problems,
    ledger_total,
    open_figure,
    parse,
    ragged,
    step_count,
    wait_applied,
)
from python_intent import start_python

from tests.pages.kernel_pages import Page


def check_figure(page, slug, sizes):
    """The figure shows the kernel at `sizes`: its steps, its final HBM counter, and its bullets by key."""
    keys = page.evaluate(STEP_KEYS)
    assert step_count(page) == len(keys) == len(Page(slug, sizes).steps), (slug, sizes)
    page.evaluate("(k) => window.kernelviz.goTo(k)", len(keys) - 1)
    total = ledger_total(slug, sizes)
    if total is not None:
        assert page.evaluate(HBM_BYTES) == total, (slug, sizes)
    for li in page.locator("li[data-step-key]").all():
        key = li.get_attribute("data-step-key")
        if key not in keys:
            assert li.get_attribute("aria-disabled") == "true", (slug, sizes, key)
            continue
        assert li.get_attribute("aria-disabled") is None, (slug, sizes, key)
        li.evaluate("(el) => el.click()")  # (a click where the bullet is, without scrolling the page to it)
        assert page.evaluate("window.kernelviz.step()") == keys.index(key), (slug, sizes, key)


@pytest.mark.parametrize("slug", KERNEL_PAGES)
def test_the_form_and_the_url_redraw_the_figure_at_prerendered_sizes(reading, site_url, slug):
    page = reading
    open_figure(page, f"{site_url}/{slug}.html")
    form = page.evaluate(SIZE_FORM)
    names, default = list(form["sizes"]), form["sizes"]
    others = [parse(key, names) for key in form["prerendered"]]
    assert default in others  # the page's own sizes are prerendered too
    # The form: one box changed, to a prerendered size, a ragged one where there is one.
    one = [s for s in others if sum(s[n] != default[n] for n in names) == 1]
    target = next((s for s in one if ragged(s)), one[0])
    name = next(n for n in names if target[n] != default[n])
    page.locator(f"form.kv-sizes input[name={name}]").fill(str(target[name]))
    wait_applied(page, target)
    check_figure(page, slug, target)
    assert page.evaluate("location.hash").startswith("#" + "&".join(f"{n}={v}" for n, v in target.items()))
    # The URL: several sizes at once, and the step, restored on load.
    several = max(others, key=lambda s: (sum(s[n] != default[n] for n in names), ragged(s)))
    hash_ = "&".join(f"{n}={v}" for n, v in several.items())
    page.goto(f"{site_url}/{slug}.html#{hash_}&step=3")  # the same page: a link followed in it (hashchange)
    wait_applied(page, several)
    page.reload()  # and on load
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    wait_applied(page, several)
    assert page.evaluate("window.kernelviz.step()") == 3
    boxes = [page.locator(f"form.kv-sizes input[name={n}]").input_value() for n in names]
    assert boxes == [str(several[n]) for n in names]
    check_figure(page, slug, several)
    assert fit_problems(page.evaluate(MEASURE_EVERY_STEP)) == [], (slug, several)  # it fits at these sizes too
    assert page.errors == []


@pytest.mark.slow
def test_the_kernel_edited_to_more_tiles_keeps_every_bullet_on_its_own_step(shared_page, site_url):
    """The issue's first paragraph: Tr, Tc = 2, 2 made 2, 3 (here through the kernel's sizes call), Run; every
    bullet then plays its own step. Then the form draws other sizes of the edited kernel, with Python."""
    page = shared_page
    page.goto(f"{site_url}/flash-attention-2.html")
    start_python(page)
    last = page.evaluate("kernelvizEditors.editors.length") - 1
    code = page.evaluate("(i) => kernelvizEditors.editors[i].code()", last)
    call = re.search(r"\bsizes\(N=[^)]*\)", code).group(0)  # sizes(N=8, N_kv="N", Br=4, Bc=4, causal=0)
    edited = {"N": 12, "N_kv": 12, "Br": 6, "Bc": 4, "causal": 0}  # Tr, Tc = 2, 3
    page.evaluate(
        """([i, code]) => { const v = kernelvizEditors.editors[i].view;
        v.dispatch({changes: {from: 0, to: v.state.doc.length, insert: code}, userEvent: 'input.paste'}); }""",
        [last, code.replace(call, "sizes(N=12, N_kv=12, Br=6, Bc=4, causal=0)")],
    )
    before = step_count(page)
    page.locator(f'.kv-editor[data-editor="{last}"] .kv-editor-runAll').click()
    wait_applied(page, edited)  # the form shows the sizes the edited kernel drew at
    assert step_count(page) > before
    check_figure(page, "flash-attention-2", edited)
    # Other sizes of the edited kernel: not the prerendered scene (the page's code), Python runs the edit.
    page.locator("form.kv-sizes input[name=Bc]").fill("3")
    wait_applied(page, {**edited, "Bc": 3})
    check_figure(page, "flash-attention-2", {**edited, "Bc": 3})
    assert page.evaluate("window.kernelviz.step()") >= 0


@pytest.mark.slow
def test_sizes_not_prerendered_start_python_and_the_figure_stays_until_it_draws_them(shared_page, site_url):
    page = shared_page
    page.goto(f"{site_url}/flash-attention-2.html")
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")
    form = page.evaluate(SIZE_FORM)
    name, value = next(
        (name, v)
        for name, (lo, hi) in form["ranges"].items()
        if name not in {*form["tied"], *form["tied"].values()}  # N_kv follows N: changing N changes two boxes
        for v in range(lo, hi + 1)
        if "-".join(f"{k}{x}" for k, x in {**form["sizes"], name: v}.items()) not in form["prerendered"]
    )
    wanted = {**form["sizes"], name: value}  # one box changed, to a size not drawn in advance
    before = step_count(page)
    page.locator(f"form.kv-sizes input[name={name}]").fill(str(value))
    if page.evaluate("!(window.kernelvizEditors && kernelvizEditors.python.state === 'ready')"):
        page.wait_for_function("document.querySelector('.kv-sizes-status').textContent.includes('Python')")
        assert step_count(page) == before and page.locator("#kv-figure .kv-error").count() == 0  # never blank
    wait_applied(page, wanted)
    check_figure(page, "flash-attention-2", wanted)
