"""The CUDA blocks in the browser: their step's values follow the sizes the reader picks, and the whole kernel is one
click away."""

from figure_page import open_figure, without_python


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
    note = page.locator('details.kv-cuda[data-at*=\'"j":1\'] .kv-note[data-name="col0"]').first
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
