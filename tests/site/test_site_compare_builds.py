"""tests/site/compare_builds.py: the comparison of two built sites, and (slow, on request) the working tree's site
against a revision's: ``KERNELVIZ_COMPARE_REV=main pytest -m slow tests/site/test_site_compare_builds.py``."""

import os

import pytest

from tests.site import compare_builds


def _site(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_compare_lists_each_difference_by_kind(tmp_path):
    same = {"index.html": "<p>a</p>", "scenes/fa2/N8.json": "{}", "assets/main.js": "x"}
    before = _site(tmp_path / "before", {**same, "old.html": "", "scenes/fa2/N4.json": "[1]", "assets/a.py": "1"})
    after = _site(tmp_path / "after", {**same, "new.html": "", "scenes/fa2/N4.json": "[2]", "assets/a.py": "2"})
    found = compare_builds.compare(before, after)
    assert found == {
        "pages": [("new.html", "only after"), ("old.html", "only before")],
        "scenes": [("scenes/fa2/N4.json", "differs")],
        "assets": [("assets/a.py", "differs")],
    }
    lines = compare_builds.report(found, {"pages": 2, "scenes": 2, "assets": 2})
    assert lines[0] == "pages: 2 files, 2 differ" and "  differs      scenes/fa2/N4.json" in lines


def test_identical_sites_have_no_difference(tmp_path):
    files = {"a.html": "<p>é</p>", "scenes/x/N1.json": "{}"}
    assert compare_builds.compare(_site(tmp_path / "a", files), _site(tmp_path / "b", files)) == {}


def test_kinds():
    kinds = [compare_builds.kind(n) for n in ("fa2.cu.html", "scenes/a/b.json", "assets/x.html", ".kernelviz-site")]
    assert kinds == ["pages", "scenes", "assets", "other"]


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("KERNELVIZ_COMPARE_REV"), reason="set KERNELVIZ_COMPARE_REV=REV to compare")
def test_pages_and_scenes_are_those_of_the_revision(tmp_path):
    found, counts = compare_builds.compare_builds(os.environ["KERNELVIZ_COMPARE_REV"], tmp_path)
    assert counts.get("pages") and counts.get("scenes")
    differing = {k: v for k, v in found.items() if k in ("pages", "scenes")}
    assert not differing, "\n".join(compare_builds.report(found, counts))
