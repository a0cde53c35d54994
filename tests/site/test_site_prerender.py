"""The size form and its prerendered scenes (figure contract D): which sizes are prerendered, the form's markup,
each scene file exactly the Scene the runner draws at its sizes, the cache, and the real pages' ranges."""

import json
import math
import re
from pathlib import Path

import pytest
import yaml

from kernelviz.runner import Source, run
from kernelviz.site import prerender
from tests.site.page_scene import page_scene
from tests.site.test_site_build import page

KERNEL = """\
from kernelviz.figlib import Figure, sizes
N, Bc = sizes(N=4, Bc=2)
if N == 3:
    raise ValueError('the kernel refuses N = 3')
fig = Figure('ready')
K = fig.hbm('K', N, 2, Bc, 'k')
Kj = fig.sram('Kj', Bc, 2, 'k')
fig.blocks(1)
fig.zoom(0, [Kj])
for j in range(len(K)):
    fig.copy(K[j], Kj)
    fig.step('load K', f'load tile {j} of K', j=j)
fig.draw('t')
"""


def kernel_page(front="sizes: {N: [1, 5], Bc: [1, 3]}\nprerender: {Bc: [2, 3]}\n"):
    return page('Text.\n\n```pie title="The kernel"\n' + KERNEL + "```\n", front="title: A page\n" + front.rstrip())


def test_combinations_keep_the_defaults_first_and_at_most_six_tiles_or_splits():
    ranges = {"N": (1, 24), "Br": (1, 8), "Bc": (1, 8)}
    combos = prerender.combinations({"N": 8, "Br": 4, "Bc": 4}, ranges, {"Br": [2, 4], "Bc": [2, 4]})
    assert combos[0] == {"N": 8, "Br": 4, "Bc": 4} and combos.count(combos[0]) == 1
    assert all(math.ceil(c["N"] / c["Br"]) <= 6 and math.ceil(c["N"] / c["Bc"]) <= 6 for c in combos)
    assert {"N": 24, "Br": 4, "Bc": 4} in combos and {"N": 13, "Br": 2, "Bc": 4} not in combos
    assert {(math.ceil(c["N"] / c["Br"]), math.ceil(c["N"] / c["Bc"])) for c in combos} >= {(t, t) for t in range(1, 7)}
    fd = prerender.combinations({"N": 16, "Bc": 4, "splits": 2}, {"N": (1, 24), "Bc": (1, 8), "splits": (1, 6)})
    assert max(c["splits"] for c in fd) == 6 and all(math.ceil(c["N"] / c["Bc"]) <= 6 for c in fd)
    assert prerender.name({"N": 8, "Br": 4, "Bc": 4}) == "N8-Br4-Bc4"


def test_a_size_tied_to_another_is_prerendered_equal_to_it_and_a_switch_at_its_values():
    ranges = {"N": (1, 24), "N_kv": (1, 24), "Br": (1, 8), "Bc": (1, 8), "causal": (0, 1)}
    defaults = {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4, "causal": 0}
    only = {"Br": [2, 4], "Bc": [2, 4], "causal": [0]}
    combos = prerender.combinations(defaults, ranges, only, tied={"N_kv": "N"})
    plain = prerender.combinations({"N": 8, "Br": 4, "Bc": 4}, {n: ranges[n] for n in ("N", "Br", "Bc")},
                                   {"Br": [2, 4], "Bc": [2, 4]})  # fmt: skip
    assert combos[0] == defaults and all(c["N_kv"] == c["N"] and c["causal"] == 0 for c in combos)
    assert [{n: c[n] for n in ("N", "Br", "Bc")} for c in combos] == plain
    assert prerender.name(defaults) == "N8-N_kv8-Br4-Bc4-causal0"


def test_the_form_and_the_scene_files_are_what_the_runner_draws(build_site, scene_cache_dir):
    result, out = build_site({"k.md": kernel_page()}, strict=True)
    assert result.warnings == []
    html = (out / "k.html").read_text()
    aside = re.search(r'<aside class="kv-figure".*?</aside>', html, re.S).group(0)
    form = re.search(r'<form class="kv-sizes".*?</form>', aside).group(0)
    listed = json.loads(re.search(r"data-prerendered='([^']*)'", form).group(1))
    assert 'data-scenes="scenes/k/"' in form
    assert re.findall(r'<label>(\w+) <input ([^>]*)><span class="kv-range">([^<]*)</span></label>', form) == [
        ("N", 'name="N" type="number" min="1" max="5" step="1" value="4"', "1 to 5"),
        ("Bc", 'name="Bc" type="number" min="1" max="3" step="1" value="2"', "1 to 3"),
    ]
    # defaults first; Bc 2 or 3; tiles <= 6; N = 3 refused by the kernel, so not prerendered
    want = ["N4-Bc2"] + [f"N{n}-Bc{b}" for n in (1, 2, 4, 5) for b in (2, 3) if (n, b) != (4, 2)]
    assert listed == want
    assert sorted(p.stem for p in (out / "scenes" / "k").glob("*.json")) == sorted(want)
    assert json.loads((out / "scenes/k/N4-Bc2.json").read_text()) == page_scene(out / "k.html")
    for n, b in ((5, 3), (1, 2)):
        drawn = run([Source(KERNEL, "k.md")], sizes={"N": n, "Bc": b}).scene
        assert json.loads((out / f"scenes/k/N{n}-Bc{b}.json").read_text()) == drawn


def test_a_second_build_takes_the_scenes_from_the_cache(build_site, scene_cache_dir, monkeypatch, tmp_path):
    build_site({"k.md": kernel_page()})
    assert len(list(scene_cache_dir.glob("*.json"))) == 5 * 2 - 1  # all but the defaults, refused ones too
    monkeypatch.setattr(prerender, "run_batches", lambda *a, **k: pytest.fail("ran editors again"))
    _, out = build_site({"k.md": kernel_page()}, out=tmp_path / "again")
    assert len(list((out / "scenes" / "k").glob("*.json"))) == 8


def test_front_matter_that_disagrees_with_the_kernel_is_a_warning(build_site, scene_cache_dir):
    result, out = build_site({"k.md": kernel_page("sizes: {N: [1, 5], Br: [1, 3]}\n")})
    (warning,) = result.warnings
    assert "front matter sizes: names N, Br, but the kernel's sizes() names N, Bc" in warning.message
    assert 'class="kv-sizes"' not in (out / "k.html").read_text() and not (out / "scenes" / "k").exists()
    result, _ = build_site({"k.md": kernel_page("sizes: {N: [5, 9], Bc: [1, 3]}\n")})
    assert "N must be [min, max], whole numbers >= 1 around the kernel's N = 4" in result.warnings[0].message


@pytest.mark.parametrize(
    ("slug", "tiles"),
    [
        ("flash-attention-2", lambda s: (math.ceil(s["N"] / s["Br"]), math.ceil(s["N"] / s["Bc"]))),
        ("flash-attention-1", lambda s: (math.ceil(s["N"] / s["Br"]), math.ceil(s["N"] / s["Bc"]))),
        ("flash-decoding", lambda s: (s["splits"], math.ceil(s["N"] / s["Bc"]))),
        ("online-softmax", lambda s: (math.ceil(s["N"] / s["Bc"]),)),
    ],
)
def test_the_real_pages_prerender_every_count_of_tiles_and_splits_from_1_to_6(slug, tiles):
    text = (Path(__file__).resolve().parents[2] / "pages" / f"{slug}.md").read_text()
    front = yaml.safe_load(text.split("---")[1])
    ranges = {n: tuple(r) for n, r in front["sizes"].items()}
    found = {n: re.search(rf'\b{n}=(\d+|"\w+")', text).group(1) for n in ranges}  # the kernel's sizes(...)
    tied = {n: v.strip('"') for n, v in found.items() if v.startswith('"')}  # N_kv="N"
    defaults = {n: int(found[tied.get(n, n)]) for n in ranges}
    combos = prerender.combinations(defaults, ranges, front.get("prerender"), tied)
    counts = {t for c in combos for t in tiles(c)}
    assert set(range(1, 7)) <= counts
    assert 20 <= len(combos) <= 150, "enough to play with, few enough to build in seconds"
