"""Fixture sites: pages written into a tmp folder and built end to end, against a small stand-in runtime bundle
(the real one is tested with the real pages) and a CUDA folder of our own."""

import shutil
import textwrap

import pytest

from kernelviz.site.build import WEB_DIST

FIXTURE_CU = """\
// a kernel file for the site tests
__global__ void k(float* x) {
    // region: load
    int i = threadIdx.x;  // which element
    x[i] = 2.f * x[i];
    // endregion
    // region: store
    x[0] = 0.f;
    // endregion
}
"""


@pytest.fixture(scope="session")
def fake_dist(tmp_path_factory):
    """A stand-in for web/dist: the files a site needs, an `explorer` entry with its CSS, and the editors' bundle
    (editors.js links its own editors.css), with the real Temml build and Scene checker that the builder runs."""
    dist = tmp_path_factory.mktemp("dist")
    for name, text in {
        "main.js": "export {};\n",
        "main.css": ".kv-figure{}\n",
        "explorer.js": "export {};\n",
        "explorer.css": ".kvx{}\n",
        "editors.js": "export {};\n",
        "editors.css": ".kv-editor-bar{}\n",
        "temml/temml.css": "math{}\n",
        "chunks/c-1.js": "export {};\n",
    }.items():
        (dist / name).parent.mkdir(parents=True, exist_ok=True)
        (dist / name).write_text(text)
    shutil.copytree(WEB_DIST / "build-time", dist / "build-time")
    return dist


@pytest.fixture
def cuda_dir(tmp_path, monkeypatch):
    """kernelviz/cuda replaced by a folder holding fixture.cu (regions `load` and `store`)."""
    from kernelviz.cuda import regions

    folder = tmp_path / "cuda"
    folder.mkdir()
    (folder / "fixture.cu").write_text(FIXTURE_CU)
    monkeypatch.setattr(regions, "FOLDER", folder)
    return folder


@pytest.fixture
def build_site(tmp_path, fake_dist, cuda_dir):
    """build_site({"name.md": text}, strict=False, limits=None) -> (BuildResult, out folder); texts are dedented."""
    from kernelviz.site.build import build

    def run(files, strict=False, out=None, log=None, limits=None):
        pages = tmp_path / "pages"
        pages.mkdir(exist_ok=True)
        for name, text in files.items():
            (pages / name).write_text(textwrap.dedent(text).lstrip())
        out = out or tmp_path / "site"
        return build(pages, out, strict=strict, web_dist=fake_dist, log=log, limits=limits), out

    return run


@pytest.fixture
def scene_cache_dir(tmp_path, monkeypatch):
    """An empty scene cache of this test's own (kernelviz.site.scene_cache.CACHE), so no scene comes from another's."""
    from kernelviz.site import scene_cache

    folder = tmp_path / "cache"
    monkeypatch.setattr(scene_cache, "CACHE", folder)
    return folder


@pytest.fixture
def figure_md():
    """Markdown of a figure: two editors drawing a step list with steps 'start', 'load Q0', 'load K0'."""
    return FIGURE


def line_of(text, needle):
    """The line (from 1) of the first line of the dedented, stripped `text` that contains `needle`."""
    lines = textwrap.dedent(text).lstrip().splitlines()
    return next(n for n, line in enumerate(lines, 1) if needle in line)


@pytest.fixture
def line():
    return line_of


FIGURE = """
```pie title="Helpers"
import json
items = [dict(x=0, y=0, w=1, h=1, fill='#99f6e4', label='Q0')]
figure = pie.diagram(json.dumps(items), out='figure')
```

```pie title="Kernel"
pie.show_canvas('right')
steps = [dict(label='start'), dict(label='load Q0', end=[[0, dict(fill='#fde68a')]]), dict(label='load K0')]
pie.ui.step_list(figure, steps=steps)
```
"""
