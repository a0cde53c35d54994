"""What the site makes of the palette (``kernelviz/pie/palette.json``, one colour defined once):

- ``assets/palette.css``: a custom property ``--kv-NAME`` per colour, light in ``:root``, dark on a screen only
  (``@media screen``: on paper the page is light) under ``:root[data-theme="dark"]`` and, when the reader's system
  prefers dark and the page is not forced light, under ``@media screen and (prefers-color-scheme: dark)`` for
  ``:root:not([data-theme="light"])``; and a class ``kv-c-NAME`` per colour that colours text with it (what the
  math macros use).
- Math macros for the prose (Temml's: site/mathml.py): ``\\kvNAME{…}`` for each colour whose name is letters only
  (``\\kvm{m_i}``, ``\\kvl{l_i}``, ``\\kvo{O_i}``, ``\\kvq{Q_i}``, ``\\kvsplit{s}``, …), typeset as
  ``\\class{kv-c-NAME}{…}`` (the MathML element of what it colours gets the class), so the math follows the theme as
  the figure does.
"""

import re

from kernelviz.pie.palette import PALETTE

MACRO = re.compile(r"^[a-z]+$")


def css(palette=PALETTE):
    """The text of palette.css."""

    def block(selector, theme):
        lines = "".join(f"  --kv-{name}: {colours[theme]};\n" for name, colours in palette.items())
        return f"{selector} {{\n{lines}}}\n"

    classes = "".join(f".kv-c-{name} {{ color: var(--kv-{name}); }}\n" for name in palette)
    return (
        "/* Generated from kernelviz/pie/palette.json by kernelviz.site.palette: do not edit. */\n"
        + block(":root", "light")
        + "@media screen {\n"
        + block(':root[data-theme="dark"]', "dark")
        + "}\n"
        + "@media screen and (prefers-color-scheme: dark) {\n"
        + block(':root:not([data-theme="light"])', "dark")
        + "}\n"
        + classes
    )


def macros(palette=PALETTE):
    """{"\\\\kvNAME": "\\\\class{kv-c-NAME}{#1}"} for each colour whose name is letters only."""
    return {f"\\kv{name}": f"\\class{{kv-c-{name}}}{{#1}}" for name in palette if MACRO.match(name)}
