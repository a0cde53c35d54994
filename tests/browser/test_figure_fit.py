"""The figure fits its box (issue 12, item 7): on every kernel page at 1366×768 and 1920×1080, at every step, the
drawing fills at least 70 % of the canvas's width or height, nothing drawn falls outside the canvas, and no label
renders below 11 px on screen (its font size times the SVG's zoom)."""

import pytest
from figure_page import KERNEL_PAGES, MEASURE_EVERY_STEP, SCREENS, fit_problems, open_figure, without_python


@pytest.mark.parametrize("screen", list(SCREENS))
def test_the_figure_fills_its_canvas_clips_nothing_and_stays_legible_on_every_kernel_page(browser, site_url, screen):
    context = browser.new_context(viewport=SCREENS[screen], reduced_motion="reduce")
    page = without_python(context.new_page())
    for slug in KERNEL_PAGES:
        open_figure(page, f"{site_url}/{slug}.html")
        m = page.evaluate(MEASURE_EVERY_STEP)
        assert m["steps"] > 1, slug
        assert fit_problems(m) == [], f"{slug} at {screen}"
    context.close()
