"""The palette (kernelviz/pie/palette.json) in the site: palette.css with a custom property per colour, light and
dark (dark on a screen only), and the math macros \\kvNAME{…} of the prose, which colour math by the same names."""

import json
import re

from kernelviz.pie.palette import PALETTE
from kernelviz.site import palette
from tests.site.test_site_build import page


def test_palette_css_has_every_colour_light_and_dark():
    css = palette.css()
    blocks = dict(re.findall(r'(:root(?:\[data-theme="dark"\]|:not\(\[data-theme="light"\]\))?) \{\n([^}]*)\}', css))
    assert set(blocks) == {":root", ':root[data-theme="dark"]', ':root:not([data-theme="light"])'}
    for name, colours in PALETTE.items():
        assert f"--kv-{name}: {colours['light']};" in blocks[":root"]
        assert f"--kv-{name}: {colours['dark']};" in blocks[':root[data-theme="dark"]']
        assert f".kv-c-{name} {{ color: var(--kv-{name}); }}" in css
    assert '@media screen {\n:root[data-theme="dark"] {' in css, "on paper a dark theme prints light"
    assert '@media screen and (prefers-color-scheme: dark) {\n:root:not([data-theme="light"]) {' in css


def test_macros_are_made_for_letter_names_only():
    macros = palette.macros()
    assert macros["\\kvm"] == "\\class{kv-c-m}{#1}" and macros["\\kvsplit"] == "\\class{kv-c-split}{#1}"
    assert not any(re.search(r"[^a-z\\]", name) for name in macros)  # no \kvo-1


def test_prose_math_uses_the_macros_and_the_css_is_written(build_site):
    body = r"Carry $\kvm{m_i}$ and $\kvl{l_i}$." + "\n\n$$\n\\kvo{O_i} = x\n$$\n\nBut $\\class{evil}{x}$.\n"
    result, out = build_site({"m.md": page(body)})
    text = (out / "m.html").read_text()
    for name, slot in (("m", "mi"), ("l", "li"), ("o", "Oi")):  # (tagged with the figure's slot: math_symbols)
        assert f'<msub class="kv-c-{name}" data-kv-slot="{slot}">' in text
    assert 'class="evil"' not in text, "only the palette's classes are trusted"
    (untrusted,) = result.warnings  # \class{evil} is refused: a warning, and the formula shown as its source
    assert "\\class{evil}" in untrusted.message and '<code class="kv-math-error">' in text
    assert (out / "assets" / "palette.css").read_text() == palette.css()
    assert '<link rel="stylesheet" href="assets/page.css">' in text  # which holds the palette's
    assert palette.css().strip() in (out / "assets" / "page.css").read_text()
    assert json.dumps(result.warnings, default=str).count("kv-c") == 0  # the palette's own are trusted
