"""Every page in pages/ builds in strict mode, and every editor block on every page runs and draws a valid Scene."""

import json
import re
from pathlib import Path

import pytest

from kernelviz.site import build as site_build
from kernelviz.site import figures, pages, scene_file
from kernelviz.site.diagnostics import BuildError, Diagnostics
from kernelviz.site.markdown import markdown
from tests.pages.kernel_pages import KERNEL_PAGES
from tests.site.page_scene import page_scene

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


def test_a_page_links_one_stylesheet_with_the_css_of_its_own_entries_only(real_site):
    """Each page links one stylesheet in its head: the palette's, site.css and main.css, then the CSS of the entries
    its front matter loads (the overview: explorer.css) or its {{ roofline }} does; none holds editors.css
    (editors.js links it when it loads).
    The math's CSS is math.css, which a page with math links in its text: Temml's and the site's, and the one font
    it names (Temml's, for script capitals) is in the site; nothing of KaTeX is left."""

    def sheet(slug):
        head = (real_site.out / f"{slug}.html").read_text().split("<body", 1)[0]
        (name,) = re.findall(r'<link rel="stylesheet" href="assets/([^"]+)">', head)
        return name, re.findall(r"^/\* (\S+) \*/$", (real_site.out / "assets" / name).read_text(), re.M)

    common = ["palette.css", "site.css", "site-code.css", "site-drawn.css", "main.css"]
    assert sheet("overview") == ("page-explorer.css", [*common, "explorer.css"])
    assert sheet("online-softmax") == ("page-softmax-panel.css", [*common, "softmax-panel.css"])
    assert sheet("index") == ("page.css", common)
    assert sheet("flash-attention-2") == ("page-roofline.css", [*common, "roofline.css"])  # editors, {{ roofline }}
    assert all('href="assets/math.css"' in (real_site.out / f"{slug}.html").read_text() for slug in KERNEL_PAGES)
    math_css = (real_site.out / "assets/math.css").read_text()
    fonts = re.findall(r"url\(['\"]?([^)'\"]+\.woff2)['\"]?\)", math_css)
    assert fonts == ["temml/Temml.woff2"] and (real_site.out / "assets" / fonts[0]).is_file()
    assert not (real_site.out / "assets" / "katex").exists()
    assert not any("katex" in (real_site.out / f"{slug}.html").read_text().lower() for slug in KERNEL_PAGES)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.stem)
def test_every_editor_block_runs(path, validate_scene):
    diagnostics = Diagnostics()
    page = pages.parse(path, markdown(), diagnostics)
    figures.run_editors([page], diagnostics)
    if not page.editors:
        pytest.skip(f"{path.name} has no editors")
    assert page.run.ok, str(page.run.error) + "\n" + page.run.error.traceback
    validate_scene(page.run.scene)
    if any(node["kind"] == "step_list" for node in page.run.scene["nodes"]):
        assert page.steps(), "a step list without labels"


def test_packed_and_unpacked_every_real_scene_is_itself_and_a_third_smaller(real_site):
    scenes = sorted((real_site.out / "scenes").glob("*.json"))
    assert len(scenes) >= 6  # one a kernel page
    for path in scenes:
        packed = json.loads(path.read_text())
        assert packed["packedScene"] == 1
        scene = scene_file.unpack(packed)
        assert scene_file.pack(scene) == packed  # the file is what pack makes of what it unpacks to
        plain = json.dumps(scene, separators=(",", ":"), ensure_ascii=False)
        assert len(path.read_text()) < 0.8 * len(plain), path.name
        assert page_scene(real_site.out / f"{path.stem}.html") == scene  # the page preloads it
