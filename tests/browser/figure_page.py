"""The built site's kernel pages, for the figure's browser tests: which they are, opening one with Python kept out
(its worker is not needed to draw, play or resize a figure, and loading it costs the 2 shared cores), and reading
the figure as it stands."""

KERNEL_PAGES = ["online-softmax", "flash-attention-1", "flash-attention-2", "flash-decoding"]
SCREENS = {"1366x768": {"width": 1366, "height": 768}, "1920x1080": {"width": 1920, "height": 1080}}


def without_python(page):
    """`page`, with the editors bundle replaced by an empty module: the figure runs alone."""
    page.route("**/assets/editors.js", lambda route: route.fulfill(body="", content_type="text/javascript"))
    return page


def open_figure(page, url):
    """Go to `url` and wait until its figure is drawn and playable."""
    page.goto(url)
    page.wait_for_function("performance.getEntriesByName('kv:figure-ready').length > 0 && window.kernelviz")
    page.wait_for_selector("#kv-figure svg")


def step_count(page):
    return page.locator("#kv-figure .kv-step-items button").count()


# The integer in the figure's HBM counter (the text element carrying data-kv="hbm-bytes"), now.
HBM_BYTES = """() => {
  const t = document.querySelector('#kv-figure svg [data-kv="hbm-bytes"]');
  if (!t) return null;
  const m = /\\d+/.exec(t.textContent);
  return m ? Number(m[0]) : null;
}"""
