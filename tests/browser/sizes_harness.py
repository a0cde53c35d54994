"""A page with a size form, as the site builder writes one (figure contract D and E), around a small hand-made
figure whose steps and HBM counter follow the sizes: Tr = ceil(N / Br) blocks of Q, each loading Tc = ceil(N / Bc)
tiles of K and V, then writing its output. Some sizes are prerendered as scene files; bullets and a CUDA block are
bound by key. Python is not on this page (it has no editors): sizes that were not prerendered cannot be drawn.

`harness(dest)` writes it; `scene(N, Br, Bc)` is the Scene at those sizes and `ledger(N, Br, Bc)` its bytes, counted
here independently of the scene (float32: Q, K, V read once per use, O written once).
"""

import json
import math
import shutil
from pathlib import Path

from kernelviz.site import palette

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "web" / "dist"
D = 2  # the head dimension of the hand-made figure
PRERENDERED = [(8, 4, 4), (12, 4, 4), (12, 4, 3), (4, 4, 4), (8, 2, 4)]
RANGES = {"N": (1, 24), "Br": (1, 8), "Bc": (1, 8)}


def _item(**fields):
    base = {"x": 0, "y": 0, "w": 1, "h": 1, "fill": "none", "stroke": "none", "label": "", "font": 12, "wrap": 0}
    return {**base, "line": False, "color": "@ink", **fields}


def ledger(n, br, bc):
    """Bytes moved to and from HBM: each block reads its Q rows and every K, V tile and writes its O rows."""
    tr = math.ceil(n / br)
    return 4 * D * (n + tr * 2 * n + n)


def scene(n, br, bc):
    tr, tc = math.ceil(n / br), math.ceil(n / bc)
    items = [_item(x=0, y=-i * 1.2, fill="@q-fill", stroke="@q", label=f"Q{i}") for i in range(tr)]
    items += [_item(x=2 + j * 1.2, y=0, fill="@k-fill", stroke="@k", label=f"K{j}") for j in range(tc)]
    counter = len(items)
    items.append(_item(x=0, y=2, w=0, h=0, label="HBM 0 B", kv="hbm-bytes"))
    steps, total = [{"label": "start", "key": "start", "caption": "nothing has moved yet"}], 0

    def step(label, key, at, moved, highlight):
        nonlocal total
        total += moved
        steps.append(
            {
                "label": label,
                "key": key,
                "at": at,
                "caption": label,
                "end": [[counter, {"label": f"HBM {total} B"}], [highlight, {"fill": "@o-1"}]],
            }
        )

    for i in range(tr):
        rows = min(br, n - i * br)
        step(f"block {i} · load Q{i}", f"load Q i={i}", {"i": i}, 4 * D * rows, i)
        for j in range(tc):
            cols = min(bc, n - j * bc)
            step(f"block {i} · load K{j}, V{j}", f"load K,V i={i} j={j}", {"i": i, "j": j}, 4 * D * 2 * cols, tr + j)
        step(f"block {i} · write O{i}", f"write O i={i}", {"i": i}, 4 * D * rows, i)
    return {
        "version": 1,
        "canvas": {"side": "right"},
        "settings": {"unit": 40, "gridOpacity": 0, "canvasColor": "#ffffff", "originX": 0, "originY": 0},
        "nodes": [
            {"id": "fig", "kind": "diagram", "items": items},
            {"id": "steps", "kind": "step_list", "figure": {"ref": "fig"}, "steps": steps},
        ],
    }


def key(n, br, bc):
    return f"N{n}-Br{br}-Bc{bc}"


BULLETS = ["load Q i=0", "load K,V i=0 j=2", "write O i=0", "load Q i=2", "write O i=2"]


def page_html(first):
    inputs = "".join(
        f'<label>{name} <input name="{name}" type="number" min="{lo}" max="{hi}" step="1" value="{v}"></label>'
        for (name, (lo, hi)), v in zip(RANGES.items(), first, strict=True)
    )
    prerendered = json.dumps([key(*s) for s in PRERENDERED])
    bullets = "".join(f'<li data-step-key="{k}">{k}</li>' for k in BULLETS)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>sizes</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="assets/palette.css">
<link rel="stylesheet" href="assets/main.css"></head>
<body data-page="sizes">
<main class="kv-page" data-canvas-side="right"><article class="kv-prose">
<h1>Sizes</h1>
<form class="kv-sizes" data-scenes="scenes/sizes-" data-prerendered='{prerendered}'>{inputs}</form>
<ul>{bullets}</ul>
<details class="kv-cuda" data-step-key="write O i=2"><summary>CUDA implementation</summary><pre>// write</pre></details>
</article><aside class="kv-figure" id="kv-figure"></aside></main>
<script type="application/json" id="kv-scene">{json.dumps(scene(*first))}</script>
<script type="module" src="assets/main.js"></script>
</body></html>
"""


def harness(dest):
    """Write the harness into `dest`: index.html at N=8, Br=Bc=4, and the prerendered scenes. Returns `dest`."""
    dest = Path(dest)
    (dest / "assets").mkdir(parents=True, exist_ok=True)
    for name in ("main.js", "main.css", "scene-check.js"):
        shutil.copy(DIST / name, dest / "assets" / name)
    (dest / "assets" / "palette.css").write_text(palette.css())
    (dest / "scenes").mkdir(exist_ok=True)
    for sizes in PRERENDERED:
        (dest / "scenes" / f"sizes-{key(*sizes)}.json").write_text(json.dumps(scene(*sizes)))
    (dest / "index.html").write_text(page_html(PRERENDERED[0]))
    return dest
