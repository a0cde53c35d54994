"""The figures stage (site.figures): each page with editors gets one declared result, a Figure, and nothing else."""

import dataclasses
import json

from kernelviz.site import figures, pages, scene_file
from kernelviz.site.diagnostics import Diagnostics
from kernelviz.site.markdown import markdown
from tests.site.test_site_build import page
from tests.site.test_site_prerender import kernel_page


def parsed(tmp_path, files):
    md, diagnostics = markdown(), Diagnostics(None)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return [pages.parse(tmp_path / name, md, diagnostics) for name in files], diagnostics


def test_each_page_gets_a_figure_and_no_other_attribute(tmp_path, fake_dist, figure_md, scene_cache_dir):
    broken = page('```pie title="Oops"\nraise ValueError("no")\n```\n')
    site, diagnostics = parsed(
        tmp_path, {"a.md": page(figure_md), "k.md": kernel_page(), "b.md": broken, "t.md": page("x")}
    )
    fields = [{f.name for f in dataclasses.fields(p)} | set(vars(p)) for p in site]
    files = figures.stage(site, fake_dist, diagnostics)
    assert [{f.name for f in dataclasses.fields(p)} | set(vars(p)) for p in site] == fields  # nothing hung on Page
    a, k, b, t = site
    assert isinstance(a.figure, figures.Figure) and a.run.ok and a.failure is None and a.figure.form == ""
    assert a.figure.drawn.svg.startswith("<svg") and "kv-dock" in a.figure.drawn.dock
    assert k.figure.form.startswith('<form class="kv-sizes" data-scenes="scenes/k/"') and k.figure.drawn is not None
    # the size form's scenes, and the Scene each page with a figure opens with (which it preloads); none for b's
    assert {"scenes/a.json", "scenes/k.json"} < set(files) and "scenes/b.json" not in files
    assert all(name.startswith("scenes/k/") for name in set(files) - {"scenes/a.json", "scenes/k.json"})
    assert scene_file.unpack(json.loads(files["scenes/a.json"])) == a.scene and figures.scene_path(b) is None
    assert b.figure.drawn is None and "editor 1 (Oops) failed: ValueError: no" in b.failure
    assert [w.message for w in diagnostics.warnings] == ["editor 1 (Oops) failed: ValueError: no"]
    assert t.figure is None and t.run is None and t.failure is None and t.scene is None
