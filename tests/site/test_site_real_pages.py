"""Every page in pages/ builds in strict mode, and every editor block on every page runs and draws a valid Scene."""

import re
from pathlib import Path

import pytest

from kernelviz.site import build as site_build
from kernelviz.site import pages
from kernelviz.site.diagnostics import BuildError, Diagnostics
from kernelviz.site.markdown import markdown

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "pages").glob("*.md"))


@pytest.fixture(scope="module")
def real_site(tmp_path_factory):
    """The real pages built (not strict, so every warning is seen) against the real runtime bundle."""
    try:
        return site_build.build(ROOT / "pages", tmp_path_factory.mktemp("real") / "site", log=None)
    except BuildError as e:
        pytest.fail(f"the real site does not build: {e}")


def test_there_is_a_home_page():
    assert ROOT / "pages" / "index.md" in PAGES


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_page_builds_without_a_warning(real_site, path):
    warnings = [str(w) for w in real_site.warnings if Path(w.file).resolve() == path.resolve()]
    assert warnings == [], "\n".join(warnings)
    assert path.stem in real_site.pages


def test_the_real_site_builds_in_strict_mode(real_site):
    assert [str(w) for w in real_site.warnings] == []


def test_a_page_links_the_css_of_its_own_entries_only(real_site):
    """The overview page (scripts: [explorer]) links explorer.css; a page without scripts links no entry's CSS
    but main.css, and none links editors.css (editors.js links it when it loads)."""

    def sheets(slug):
        text = (real_site.out / f"{slug}.html").read_text()
        return set(re.findall(r'<link rel="stylesheet" href="assets/([^"]+)">', text))

    common = {"katex/katex.min.css", "palette.css", "site.css", "main.css"}
    assert sheets("overview") == common | {"explorer.css"}
    assert sheets("online-softmax") == common | {"softmax-panel.css"}
    assert sheets("index") == common
    assert sheets("flash-attention-2") == common  # a page with editors


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_every_editor_block_runs(path, validate_scene):
    diagnostics = Diagnostics()
    page = pages.parse(path, markdown(), diagnostics)
    site_build.run_editors([page], diagnostics)
    if not page.editors:
        pytest.skip(f"{path.name} has no editors")
    assert page.run.ok, str(page.run.error) + "\n" + page.run.error.traceback
    validate_scene(page.run.scene)
    if any(node["kind"] == "step_list" for node in page.run.scene["nodes"]):
        assert page.steps(), "a step list without labels"
