"""The figure library's source, read-only, one click from a page whose editors draw with it (site.library_page)."""

import html
import re

from tests.site.test_site_build import page

USES = "from kernelviz.figlib import sizes\nN, = sizes(N=2)\n"


def editors(*codes):
    return "".join(f'```pie title="E{n}"\n{code}```\n\n' for n, code in enumerate(codes))


def test_a_page_drawing_with_the_library_links_its_source_above_its_first_such_editor(build_site):
    result, out = build_site({"a.md": page(editors("x = 1\n", USES, USES)), "b.md": page("No editors.\n")})
    assert result.warnings == []
    text = (out / "a.html").read_text()
    assert text.count('<a href="figlib.html">Library source</a>') == 1
    assert text.index("Library source") > text.index('data-editor="0"')  # above the first editor that imports it
    assert text.index("Library source") < text.index('data-editor="1"')
    source = html.unescape(re.sub(r"<[^>]+>", "", (out / "figlib.html").read_text()))
    for piece in ("def sizes(**defaults):", "class Figure:", "def place_hbm(tensors, top, grow=PHONE):", '"q-fill"'):
        assert piece in source
    assert "Library source" not in (out / "b.html").read_text()


def test_no_page_using_the_library_writes_no_library_page(build_site):
    _, out = build_site({"a.md": page(editors("x = 1\n"))})
    assert not (out / "figlib.html").exists()
