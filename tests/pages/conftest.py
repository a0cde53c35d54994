"""Fixtures of the page tests."""

import shutil

import pytest


@pytest.fixture(scope="module")
def stand_in_runtime(tmp_path_factory):
    """web/dist stand-in (main.js, Temml's CSS, the softmax-panel and roofline entries) with the real build-time
    scripts (Temml, which typesets the math, the Scene checker, the roofline's drawing)."""
    from kernelviz.site.build import WEB_DIST

    dist = tmp_path_factory.mktemp("web") / "dist"
    for name in ("main.js", "softmax-panel.js", "roofline.js", "temml/temml.css"):
        (dist / name).parent.mkdir(parents=True, exist_ok=True)
        (dist / name).write_text("/* stand-in */\n")
    shutil.copytree(WEB_DIST / "build-time", dist / "build-time")  # Temml and the Scene checker, which the build runs
    return dist
