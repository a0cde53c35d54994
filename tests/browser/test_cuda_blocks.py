"""The CUDA blocks in the browser: their step's values follow the sizes the reader picks, and the whole kernel is one
click away."""

from kernel_pages import open_figure, without_python


def test_the_step_values_follow_a_size_form(page, site_url):
    """A size form (figure contract D: form.kv-sizes, inputs named as the sizes) changed by the reader recomputes
    every note: j = 1 makes the tile's first key 1*Bc, 8 when Bc is 8."""
    open_figure(without_python(page), f"{site_url}/flash-attention-1.html")
    note = page.locator('details.kv-cuda[data-at*=\'"j":1\'] .kv-note[data-name="col0"]').first
    assert note.text_content().startswith("// col0 = 1*Bc")
    page.evaluate(
        """() => {
        const form = Object.assign(document.createElement('form'), {className: 'kv-sizes'});
        form.innerHTML = '<label>Bc <input name="Bc" type="number" value="4"></label>';
        document.querySelector('.kv-prose').prepend(form);
        const input = form.querySelector('input');
        input.value = '8';
        input.dispatchEvent(new Event('input', {bubbles: true}));
    }"""
    )
    assert note.text_content() == "// col0 = 1*Bc = 8"
    page.evaluate(
        """() => { const i = document.querySelector('form.kv-sizes input'); i.value = '3';
                   i.dispatchEvent(new Event('change', {bubbles: true})); }"""
    )
    assert note.text_content() == "// col0 = 1*Bc = 3"


def test_a_block_links_to_its_place_in_the_whole_kernel(page, site_url):
    open_figure(without_python(page), f"{site_url}/flash-attention-1.html")
    block = page.locator("details.kv-cuda").nth(1)
    block.locator("summary").click()
    block.locator(".kv-cuda-where a").click()
    page.wait_for_url("**/fa1.cu.html#load_kv")
    assert page.locator("#load_kv").count() == 1
    assert "the whole kernel" in page.locator("h1").text_content()
    assert page.locator("table.kv-report tbody tr").count() >= 4  # two instances, two architectures
