"""Every free-text number control on every page, in Chromium: its range is stated next to it; a value typed below,
above or outside the numbers is refused (the statement says so) and, once the edit ends, the control shows what is
applied; a value inside the range is applied. What is applied is read from what the control drives (the URL, the
Scene, the panel's settings, the stored time limit), never from the control itself."""

import json

import pytest
from figure_page import PAGES as ALL_PAGES
from python_intent import mount_editors

PAGES = [name for name in ALL_PAGES if name != "index"]  # the index has no number control

# What each control applies, as a JS expression over `el` (the input) that gives a number.
SETTING = "((s) => { const v = s.settings[el.name]; return typeof v === 'object' ? "
SETTING += "s.nodes.find((n) => n.id === v.ref).value : v; })(window.kernelviz.scene())"
APPLIED = {
    "#kvx-n": "Number(new URLSearchParams(location.search).get('N'))",
    "#kvx-sram-kib": "Number(new URLSearchParams(location.search).get('sram'))",
    "#kvx-i": "Number(new URLSearchParams(location.search).get('i'))",
    ".kv-softmax-panel input": "JSON.parse(el.closest('.kv-softmax-panel').dataset.settings)[el.name]",
    ".kv-settings input": SETTING,
    ".kv-editor-limit": "Number(localStorage.getItem('kernelviz:limit') ?? 10)",
    ".kv-sizes input": "window.kernelviz.sizes()[el.name]",
}


def open_page(page, site_url, name):
    page.goto(f"{site_url}/{name}.html")
    if name == "overview":
        page.wait_for_selector("#kv-explorer[data-ready]")
        page.select_option("#kvx-sram", "custom")  # shows the custom budget's box
    if page.locator(".kv-editor").count():  # the time limits come with the editors, loaded on a reach
        mount_editors(page)
        page.wait_for_function(
            "document.querySelectorAll('.kv-editor-limit').length === document.querySelectorAll('.kv-editor').length"
        )
    if page.locator(".kv-softmax-panel").count():
        page.wait_for_selector(".kv-softmax-panel[data-ready]")
    page.wait_for_function(
        "performance.getEntriesByName('kv:figure-ready').length > 0 || !document.querySelector('#kv-figure')"
    )
    for summary in page.locator(".kv-settings:not([open]) > summary").all():  # folded at first
        summary.click()
    return page


def applied_expression(page, control):
    for selector, expression in APPLIED.items():
        if control.evaluate("(el, s) => el.matches(s)", selector):
            return expression
    pytest.fail(f"no probe of what {control.evaluate('(el) => el.outerHTML')} applies: add one to APPLIED")


# A size of the figure that was not prerendered is applied once Python has drawn it: a cold Pyodide, on 2 cores.
SLOW_MS = {".kv-sizes input": 180_000}


def wait_applied(page, control, expression, value):
    slow = [ms for selector, ms in SLOW_MS.items() if control.evaluate("(el, s) => el.matches(s)", selector)]
    page.wait_for_function(
        f"([el, want]) => Math.abs(({expression}) - want) < 1e-9",
        arg=[control.element_handle(), value],
        timeout=max(slow, default=3000),
    )


def hint(control):
    """(state, text) of the statement beside `control` (aria-describedby)."""
    return control.evaluate(
        "(el) => { const h = document.getElementById(el.getAttribute('aria-describedby'));"
        " return h && !h.hidden ? [h.dataset.state, h.textContent] : null; }"
    )


def fmt(v):
    return str(int(v)) if float(v).is_integer() else str(v)


def check_control(page, control):
    expression = applied_expression(page, control)
    lo, hi = float(control.get_attribute("min")), float(control.get_attribute("max"))
    whole = control.get_attribute("inputmode") == "numeric"
    stated = hint(control)
    assert stated is not None, "no range is stated beside the control"
    assert stated[0] == "ok" and f"{fmt(lo)} to {fmt(hi)}".replace("-", "−") in stated[1], stated
    before = float(control.input_value())
    wait_applied(page, control, expression, before)

    refused = [fmt(hi + 1), fmt(lo - 1)] + (["1.5"] if whole and lo <= 1.5 <= hi else [])
    for typed in refused:
        control.fill(typed)
        state, text = hint(control)
        assert state == "refused" and "to" in text and "applied" in text, (typed, text)
        wait_applied(page, control, expression, before)
        control.blur()
        assert float(control.input_value()) == before, f"the box shows {control.input_value()!r} after {typed!r}"
        assert hint(control)[0] == "refused"  # still says what was refused
    control.fill("")
    control.press_sequentially("1e")  # malformed: the browser reports no number
    assert hint(control)[0] == "refused"
    control.blur()
    assert float(control.input_value()) == before

    inside = float(round((lo + hi) / 2)) if whole else (lo + hi) / 2
    if inside == before:
        inside = lo + 1
    control.fill(fmt(inside))
    assert hint(control)[0] == "ok"
    wait_applied(page, control, expression, inside)
    control.blur()
    assert float(control.input_value()) == inside
    control.fill(fmt(before))  # back, so that controls set by this one (N sets i's range) stay as they were
    control.blur()


@pytest.mark.parametrize("name", PAGES)
def test_every_number_control_states_its_range_and_refuses_what_is_outside(page, site_url, name):
    open_page(page, site_url, name)
    controls = page.locator("input[type=number]:visible")
    count = controls.count()
    assert count >= 3, f"{name}: only {count} number controls found"
    for k in range(count):
        check_control(page, controls.nth(k))
    assert page.errors == []


def test_the_custom_sram_budget_refuses_2000_and_says_200_is_not_applied(page, site_url):
    """The reported case: typing 2000 goes through 2, 20 and 200; 2000 is refused and the budget goes back to the
    one applied before the edit, which the box shows when the edit ends."""
    open_page(page, site_url, "overview")
    kib = page.locator("#kvx-sram-kib")
    assert kib.input_value() == "163"
    assert "1 to 1024 KiB" in hint(kib)[1]
    kib.fill("")
    kib.press_sequentially("2000")
    state, text = hint(kib)
    assert state == "refused" and "2000 is above 1024" in text and "163 KiB applied" in text
    page.wait_for_function("new URLSearchParams(location.search).get('sram') === '163'")
    kib.press("Tab")
    assert kib.input_value() == "163"
    status = page.locator(".kvx-status").text_content()
    assert "163 KiB" in status and "200 KiB" not in status


def test_the_softmax_panel_applies_only_what_its_boxes_show(page, site_url):
    open_page(page, site_url, "online-softmax")
    large = page.locator(".kv-softmax-panel input[name=large]")
    large.fill("-5")
    large.blur()
    settings = json.loads(page.locator(".kv-softmax-panel").get_attribute("data-settings"))
    assert large.input_value() == fmt(settings["large"]) and settings["large"] >= 0
    caption = page.locator(".kv-softmax-panel table").nth(2).locator("caption").text_content()
    assert f"x = {fmt(settings['large'])} ·" in caption
