"""The math's symbols tagged with the figure's slots (site.math_symbols): on Temml's own MathML of the pages'
notation, m_i, l_i, O_i, S_ij and K_j^T get data-kv-slot; other symbols do not; and the tags are all that changes."""

import re
from pathlib import Path

from kernelviz.site import mathml, palette
from kernelviz.site.extensions.math_symbols import tag

WEB_DIST = Path(__file__).resolve().parents[2] / "web" / "dist"
TEX = r"\kvm{m_i} + \kvl{l_i} + \kvo{O_i} + S_{ij} + Q_i K_j^{\top} + V_j + m_j + x^2 + S_{ji} + \tilde P_{ij}"


def test_the_pages_symbols_get_their_slots_and_nothing_else_changes():
    [typeset] = mathml.typeset([(TEX, False)], WEB_DIST, macros=palette.macros())
    tagged = tag(typeset.html)
    assert re.findall(r'data-kv-slot="(\w+)"', tagged) == ["mi", "li", "Oi", "Sij", "Qi", "Kj", "Vj"]
    assert re.sub(r' data-kv-slot="\w+"', "", tagged) == typeset.html  # nothing drawn changes
    assert tag(tagged) == tagged  # tagging twice tags once
