"""The size form, the URL and the key-bound bullets in Chromium, on a page with a hand-made figure whose steps and
HBM counter follow the sizes (sizes_harness.py): sizes from the form or the URL re-draw the figure, its step list and
its counter from the prerendered scene files; a size out of range is refused with the range stated and the box shows
what is applied; a size that needs Python on a page without it is refused, saying so, and the figure stays; bullets
bound by key play the first step with their key at every size, or are disabled with a reason."""

import functools
import tempfile

import pytest
from figure_page import HBM_BYTES
from sizes_harness import harness, ledger

STEP_KEYS = """() => { const s = window.kernelviz.scene().nodes.find((n) => n.kind === 'step_list').steps;
  return s.map((step) => step.key); }"""


@functools.cache
def site():
    return harness(tempfile.mkdtemp(prefix="kv-sizes-"))


@pytest.fixture(scope="module")
def context(browser):
    context = browser.new_context(viewport={"width": 1366, "height": 768}, reduced_motion="reduce")
    yield context
    context.close()


@pytest.fixture
def url(serve_dir):
    return serve_dir(site()) + "/index.html"


@pytest.fixture
def page(context):
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    yield page
    page.close()


def open_at(page, url):
    page.goto(url)
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0")


def applied(page):
    return page.locator("form.kv-sizes").get_attribute("data-applied")


def wait_applied(page, key):
    page.wait_for_function("(k) => document.querySelector('form.kv-sizes').dataset.applied === k", arg=key)


def last_counter(page):
    """The HBM counter at the last step (played there), and the number of steps."""
    count = page.locator("#kv-figure .kv-step-items button").count()
    page.evaluate("(k) => window.kernelviz.goTo(k)", count - 1)
    return page.evaluate(HBM_BYTES), count


def bullet(page, key):
    return page.locator(f"li[data-step-key='{key}']")


def test_the_form_redraws_the_figure_its_steps_and_its_counter_at_other_sizes(page, url):
    open_at(page, url)
    assert applied(page) == "N8-Br4-Bc4"
    assert last_counter(page) == (ledger(8, 4, 4), 1 + 2 * (2 + 2))
    page.locator("form.kv-sizes input[name=N]").fill("12")
    wait_applied(page, "N12-Br4-Bc4")
    assert last_counter(page) == (ledger(12, 4, 4), 1 + 3 * (3 + 2))
    page.locator("form.kv-sizes input[name=Bc]").fill("3")
    wait_applied(page, "N12-Br4-Bc3")
    assert last_counter(page) == (ledger(12, 4, 3), 1 + 3 * (4 + 2))
    assert page.evaluate("location.hash").startswith("#N=12&Br=4&Bc=3&step=")
    assert page.evaluate("window.kernelviz.sizes()") == {"N": 12, "Br": 4, "Bc": 3}
    assert page.errors == []


def test_a_size_out_of_range_is_refused_and_the_box_shows_what_is_applied(page, url):
    open_at(page, url)
    box = page.locator("form.kv-sizes input[name=N]")
    box.fill("99")
    hint = page.locator("form.kv-sizes .kv-range").first
    assert hint.get_attribute("data-state") == "refused" and "1 to 24" in hint.text_content()
    box.blur()
    assert box.input_value() == "8" and applied(page) == "N8-Br4-Bc4"
    assert page.locator("#kv-figure .kv-step-items button").count() == 9  # the figure did not change


def test_sizes_that_need_python_on_a_page_without_it_are_refused_saying_so(page, url):
    open_at(page, url)
    before = page.evaluate("window.kernelviz.scene()")
    box = page.locator("form.kv-sizes input[name=N]")
    box.fill("5")  # in range, not prerendered, and the page has no editors
    page.wait_for_function("document.querySelector('.kv-sizes-status').textContent.includes('Python')")
    status = page.locator(".kv-sizes-status").text_content()
    assert "N = 5" in status and "stays at N = 8" in status
    box.blur()
    assert box.input_value() == "8" and applied(page) == "N8-Br4-Bc4"
    assert page.evaluate("window.kernelviz.scene()") == before
    assert page.locator("#kv-figure svg").count() == 1 and page.locator("#kv-figure .kv-error").count() == 0


def test_the_url_carries_the_sizes_and_the_step_and_restores_them(page, url):
    open_at(page, url + "#N=12&Br=4&Bc=3&step=7")
    wait_applied(page, "N12-Br4-Bc3")
    assert [page.locator(f"form.kv-sizes input[name={n}]").input_value() for n in ("N", "Br", "Bc")] == ["12", "4", "3"]
    page.wait_for_function("window.kernelviz.step() === 7")
    page.evaluate("location.hash = '#N=4&Br=4&Bc=4&step=2'")  # a link followed in the page
    wait_applied(page, "N4-Br4-Bc4")
    page.wait_for_function("window.kernelviz.step() === 2")
    assert last_counter(page) == (ledger(4, 4, 4), 1 + 1 * (1 + 2))
    page.evaluate("location.hash = '#the-algorithm'")  # a heading's anchor is not the figure's
    assert applied(page) == "N4-Br4-Bc4"


def test_bullets_play_the_first_step_with_their_key_at_every_size(page, url):
    open_at(page, url)
    gone = bullet(page, "load Q i=2")  # block 2 exists only when N > 2 Br
    assert gone.get_attribute("aria-disabled") == "true" and "no step" in gone.text_content()
    gone.click()
    assert page.evaluate("window.kernelviz.step()") == 0  # a disabled bullet plays nothing
    assert page.locator(".kv-cuda[data-step-key='write O i=2']").get_attribute("aria-disabled") == "true"
    for sizes in ((12, 4, 3), (8, 2, 4), (8, 4, 4)):  # through the URL: all three sizes at once
        page.evaluate("(s) => { location.hash = `#N=${s[0]}&Br=${s[1]}&Bc=${s[2]}`; }", sizes)
        wait_applied(page, "N{}-Br{}-Bc{}".format(*sizes))
        keys = page.evaluate(STEP_KEYS)
        for li in page.locator("li[data-step-key]").all():
            key = li.get_attribute("data-step-key")
            if key not in keys:
                assert li.get_attribute("aria-disabled") == "true", (sizes, key)
                continue
            assert li.get_attribute("aria-disabled") is None and "no step" not in li.text_content()
            li.click()
            assert page.evaluate("window.kernelviz.step()") == keys.index(key), (sizes, key)


def test_a_new_size_keeps_the_step_shown_by_its_key(page, url):
    open_at(page, url)
    bullet(page, "write O i=0").click()
    k8 = page.evaluate("window.kernelviz.step()")
    page.locator("form.kv-sizes input[name=N]").fill("12")
    wait_applied(page, "N12-Br4-Bc4")
    k12 = page.evaluate("window.kernelviz.step()")
    assert k12 != k8 and page.evaluate(STEP_KEYS)[k12] == "write O i=0"  # 3 tiles of K before it now, not 2
