"""The code colours of site.css (--site-code-*, each light-dark(light, dark), used by site-code.css) read at WCAG AA
(4.5:1) on every background code is drawn on: the code block's, a whole-kernel page's regions (.kv-cuda-file
.kv-region) and the page's paper, in both themes. The contrast is WCAG 2's, computed here from the hex values (not
by axe, which the browser tests run on the built pages)."""

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "kernelviz" / "site" / "static"
CSS = "".join((STATIC / name).read_text("utf-8") for name in ("site.css", "site-code.css"))
PAIR = re.compile(r"--(site-[\w-]+):\s*light-dark\((#[0-9a-f]{6}),\s*(#[0-9a-f]{6})\)")
COLOURS = {name: {"light": light, "dark": dark} for name, light, dark in PAIR.findall(CSS)}
INKS = ["site-code-" + n for n in ("keyword", "type", "name", "string", "number", "comment", "preproc")]
GROUNDS = ["site-code-bg", "site-code-region", "site-paper"]


def luminance(hex_colour):
    """WCAG 2's relative luminance of an sRGB colour #rrggbb."""
    channels = [int(hex_colour[k : k + 2], 16) / 255 for k in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_contrast_formula_on_known_pairs():
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)  # the classic just-failing grey
    # the measure (axe): the old string colour on a region's tint
    assert contrast("#b45309", "#f2eef9") == pytest.approx(4.39, abs=0.01)


def test_every_code_colour_and_background_is_defined_light_and_dark():
    assert set(INKS + GROUNDS) <= set(COLOURS), sorted(set(INKS + GROUNDS) - set(COLOURS))
    assert "background: var(--site-code-region);" in CSS  # the regions are drawn on the colour checked here


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("ground", GROUNDS)
def test_every_code_colour_reads_on_every_code_background(theme, ground):
    low = {
        ink: round(contrast(COLOURS[ink][theme], COLOURS[ground][theme]), 2)
        for ink in INKS
        if contrast(COLOURS[ink][theme], COLOURS[ground][theme]) < 4.5
    }
    assert low == {}, f"{theme}, on {ground} {COLOURS[ground][theme]}: below 4.5:1"
