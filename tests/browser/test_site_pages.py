"""The built site in Chromium: every page loads with nothing fetched from outside 127.0.0.1 and no console error,
its links resolve, the figure draws from the Scene embedded at build time, the home page lists the pages, and
playing steps fetches nothing.

Pages start Python (Pyodide) in a worker once idle; these tests do not wait for it (the editors' tests do)."""

import re
from pathlib import Path

import pytest

SLUGS = sorted(p.stem for p in (Path(__file__).resolve().parents[2] / "pages").glob("*.md"))
NAV = [
    "Overview",
    "1. Online softmax",
    "2. Flash Attention 1",
    "3. Flash Attention 2",
    "4. Flash Attention 2 on tensor cores",
    "5. Flash Attention 2, pipelined",
    "6. FlashAttention-3 on Hopper",
    "7. Flash Attention 2 backward",
    "8. Flash decoding",
    "9. Paged decoding",
]


def open_page(page, url):
    """Load `url` and, when it has a Scene, wait for the runtime to draw it."""
    page.goto(url, wait_until="load")
    if page.locator("#kv-scene").count():
        page.wait_for_selector("#kv-figure svg:not([data-prerendered])", timeout=10_000)
    page.wait_for_timeout(300)  # let late module imports and their errors arrive


@pytest.mark.parametrize("slug", SLUGS)
def test_page_loads_locally_without_errors_and_its_links_resolve(page, site_url, outside_requests, slug):
    open_page(page, f"{site_url}/{slug}.html")
    assert page.evaluate("document.body.dataset.page") == slug
    assert outside_requests(page) == []
    assert page.errors == []
    hrefs = page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")
    local = sorted({h.split("#")[0] for h in hrefs if h.startswith(site_url)})
    assert f"{site_url}/index.html" in local  # the nav
    for url in local:
        assert page.request.get(url).status == 200, url
    for href in hrefs:
        if href.startswith(f"{site_url}/{slug}.html#"):
            fragment = href.split("#", 1)[1]
            assert page.locator(f"[id='{fragment}']").count() == 1, href


def test_the_nav_links_each_page_and_marks_the_current_one(page, site_url):
    page.route("**/pyodide/**", lambda route: route.abort())  # Python is not needed to follow links: spare the CPU
    open_page(page, f"{site_url}/index.html")
    items = page.locator(".kv-nav li")
    assert [re.sub(r"\s*coming$", "", t.strip()) for t in items.all_inner_texts()] == NAV
    count = page.locator(".kv-nav li a").count()
    assert count >= 1
    for n in range(count):  # from each page, follow the next link of its own nav
        link = page.locator(".kv-nav li a").nth(n)
        text = link.inner_text()
        link.click()
        page.wait_for_load_state("load")
        assert page.evaluate("document.body.dataset.page") in SLUGS
        assert page.locator(".kv-nav a[aria-current='page']").inner_text() == text


def test_the_home_page_lists_the_pages_of_the_nav(page, site_url):
    open_page(page, f"{site_url}/index.html")
    entries = page.locator(".kv-contents > li")
    assert entries.count() == len(NAV)
    titles = [entries.nth(n).locator("a, .kv-contents-title").first.inner_text() for n in range(len(NAV))]
    assert titles == NAV
    for n in range(len(NAV)):
        assert entries.nth(n).locator("p").inner_text().strip(), f"{NAV[n]} has no description"


def test_a_bound_bullet_plays_its_step(page, site_url):
    for slug in SLUGS:
        open_page(page, f"{site_url}/{slug}.html")
        bullets = page.locator("li[data-step]")
        if bullets.count():
            break
    else:
        pytest.skip("no page binds bullets to steps yet")
    last = bullets.nth(bullets.count() - 1)
    step = int(last.get_attribute("data-step"))
    last.click()
    page.wait_for_function(f"window.kernelviz && window.kernelviz.step() === {step}", timeout=5_000)


def test_playing_steps_fetches_nothing(page, site_url):
    """Each step writes the page's URL (its hash); nothing the page named by URL, its icon included, is fetched
    again for it."""
    open_page(page, f"{site_url}/flash-attention-2.html")
    page.wait_for_load_state("networkidle")
    before = len(page.requested)
    page.evaluate("async () => { for (const k of [1, 2, 3, 4]) await window.kernelviz.goTo(k); }")
    assert page.evaluate("location.hash") == "#step=4"
    page.wait_for_timeout(300)
    assert page.requested[before:] == []
