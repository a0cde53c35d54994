"""The symbols of the pages' math that stand for a slot of the figure, tagged at build time for the figure answers.

Temml writes $m_i$ as ``<msub><mi>m</mi><mi>i</mi></msub>`` (with a class when a palette macro colours it,
``\\kvm{m_i}``) and $S_{ij}$ with ``<mrow><mi>i</mi><mi>j</mi></mrow>`` as its subscript. ``tag`` adds
``data-kv-slot="NAME"`` to each such ``msub`` (or ``msubsup``: $K_j^\\top$) whose base and subscript are a pair of
``SYMBOLS``, NAME being the slot of the figure that holds it (the names the pages give their slots: ``Qi``, ``mi``,
``Sij``). An attribute changes nothing drawn; the page's script (web/src/figure/ui/symbols.js) links the two. A
symbol whose slot the page's figure does not have links to nothing.
"""

import re

# (base, subscript) -> the figure's slot: the names the kernel pages give the slots of shared memory
SYMBOLS = {
    ("m", "i"): "mi",
    ("l", "i"): "li",
    ("O", "i"): "Oi",
    ("Q", "i"): "Qi",
    ("K", "j"): "Kj",
    ("V", "j"): "Vj",
    ("S", "ij"): "Sij",
    ("x", "i"): "xi",
}

_MI = r"<mi(?: [^>]*)?>([A-Za-z])</mi>"
_SUB = re.compile(r"<(msub|msubsup)((?: [^>]*)?)>" + _MI + r"(?:" + _MI + r"|<mrow>" + _MI + _MI + r"</mrow>)")


def tag(html):
    """`html` (Temml's MathML) with ``data-kv-slot`` on each symbol of ``SYMBOLS`` (see the module docstring)."""

    def mark(m):
        tag_name, attrs, base = m.group(1), m.group(2), m.group(3)
        sub = m.group(4) or (m.group(5) or "") + (m.group(6) or "")
        slot = SYMBOLS.get((base, sub))
        if slot is None or "data-kv-slot" in attrs:
            return m.group(0)
        return m.group(0).replace(f"<{tag_name}{attrs}>", f'<{tag_name}{attrs} data-kv-slot="{slot}">', 1)

    return _SUB.sub(mark, html)
