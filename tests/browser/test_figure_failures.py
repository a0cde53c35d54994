"""A page whose figure cannot be drawn says why where the figure would be, never an empty canvas: editors that
failed when the site was built, and an embedded Scene that is `null`."""

import pytest

from kernelviz.site.build import build
from kernelviz.site.isolated import Limits

FAILING = """---
title: Fails
---
Some prose.

```pie title="Kernel"
pie.show_canvas('right')
raise ValueError('no tile 7')
```
"""
DRAWS = FAILING.replace("raise ValueError('no tile 7')", "pie.scalar(1, out='a')")


@pytest.fixture(scope="module")
def failing_site(tmp_path_factory, serve_dir):
    root = tmp_path_factory.mktemp("failing")
    (root / "pages").mkdir()
    (root / "pages" / "fails.md").write_text(FAILING)
    (root / "pages" / "nulled.md").write_text(DRAWS)
    build(root / "pages", root / "site", log=None, limits=Limits(seconds=10))
    (root / "site" / "scenes" / "nulled.json").write_text("null")  # the Scene the page preloads
    (root / "site" / "lost.html").write_text(
        (root / "site" / "nulled.html").read_text().replace("nulled.json", "lost.json")
    )
    return serve_dir(root / "site")


@pytest.mark.parametrize(
    "name, said",
    [
        ("fails", "editor 1 (Kernel) failed: ValueError: no tile 7"),
        ("nulled", "the scene must be object"),
        ("lost", "the figure's scene scenes/lost.json: HTTP 404"),  # its preload finds no file
    ],
)
def test_the_figure_shows_why_it_cannot_be_drawn(page, failing_site, name, said):
    page.goto(f"{failing_site}/{name}.html")
    error = page.locator("#kv-figure .kv-error[role=alert]")
    error.wait_for()
    assert "The figure cannot be drawn" in error.inner_text() and said in error.inner_text()
