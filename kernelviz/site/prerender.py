"""The size form beside a kernel figure, and the scenes prerendered for it (figure contract D).

A page whose kernel asks for its sizes (``figlib.sizes(N=8, Br=4, Bc=4)``: the run's ``sizes``) and whose front
matter gives the form's ranges, in the kernel's order,

    sizes: {N: [1, 24], Br: [1, 8], Bc: [1, 8]}    # name: [min, max] (min 0 for a switch such as causal)
    prerender: {Br: [2, 4], Bc: [2, 4]}             # optional: only these values of these sizes are prerendered

(sizes named as in ``kernelviz.glossary``; an old name is a warning naming the new one)
gets in its figure's box the form

    <form class="kv-sizes" data-scenes="scenes/SLUG/" data-prerendered='["N8-Br4-Bc4", ...]'>
      <label>N <input name="N" type="number" min="1" max="24" step="1" value="8"><span class="kv-range">1 to
      24</span></label> ...</form>

and the files ``scenes/SLUG/N8-Br4-Bc4.json`` (name=value pairs in the form's order, joined by ``-``), each the
Scene the runner draws at those sizes, exactly what the page would embed. Prerendered: every combination within the
ranges (and `prerender`'s values) whose tiles, ceil(N / B) for each size B named ``B...``, and whose ``splits`` are
at most ``TILES`` (and splits at most the tiles), and that the kernel draws without an error; the kernel's own sizes
always. A size whose default is another size (``sizes(N=8, N_kv="N")``: the run's ``tied``) is prerendered equal to
it, and the form keeps it equal while the reader leaves it so (``data-tied``). Other sizes in range are drawn by
Python in the browser.

Scenes are kept between builds under the hash of what draws them (``scene_cache``), so a rebuild runs only what
changed; the runs themselves go to child processes (``isolated.run_batches``), a batch per CPU.
"""

import itertools
import json
import math
import os

from .. import glossary
from ..runner import Source
from . import scene_cache
from .isolated import Job, run_batches

TILES = 6  # the most tiles (ceil(N / B)) or splits a prerendered combination has


def name(sizes):
    """The file name (without .json) of the scene at `sizes`: 'N8-Br4-Bc4'."""
    return "-".join(f"{k}{v}" for k, v in sizes.items())


def form_spec(page, diagnostics):
    """{name: (min, max)} of `page`'s form, checked against the sizes its kernel asked for; None (with a warning
    when the front matter and the kernel disagree) when the page has no form."""
    ranges, asked = page.meta.get("sizes"), dict(getattr(page.run, "sizes", None) or {})
    if ranges is None or page.run is None or not page.run.ok:
        return None
    ranges = named(page, "sizes", diagnostics)
    problem = None
    if list(ranges) != list(asked):
        problem = f"names {', '.join(map(str, ranges))}, but the kernel's sizes() names {', '.join(asked) or 'none'}"
    else:
        for n, r in ranges.items():
            least = 0 if asked[n] == 0 else 1  # a size whose default is 0 may be 0 (figlib.sizes): a switch
            ok = isinstance(r, list) and len(r) == 2 and all(isinstance(v, int) and v >= least for v in r)
            if not ok or not r[0] <= asked[n] <= r[1]:
                problem = f"{n} must be [min, max], whole numbers >= {least} around the kernel's {n} = {asked[n]}; "
                problem += f"got {r!r}"
                break
    if problem:
        diagnostics.warn(page.file, page.meta_line, f"front matter sizes: {problem}")
        return None
    return {n: tuple(r) for n, r in ranges.items()}


def named(page, key, diagnostics):
    """The front matter's `key` (sizes, prerender: {name: ...}) with its sizes named as in the glossary; an old name
    is a warning naming the new one."""
    try:
        spec, messages = glossary.canonical(page.meta.get(key) or {}, f"front matter {key}")
    except ValueError as e:
        diagnostics.warn(page.file, page.meta_line, str(e))
        return dict(page.meta.get(key) or {})
    for message in messages:
        diagnostics.warn(page.file, page.meta_line, message)
    return spec


def combinations(defaults, ranges, only=None, tied=None, tiles=TILES):
    """The sizes to prerender (dicts in the form's order): see the module docstring. `only`: {name: [values]};
    `tied`: {name: the size it equals} (the run's ``tied``)."""
    only, tied = only or {}, tied or {}
    values = [[None] if n in tied else [v for v in range(lo, hi + 1) if n not in only or v in only[n]]
              for n, (lo, hi) in ranges.items()]  # fmt: skip
    out = [dict(defaults)]
    for combo in itertools.product(*values):
        sizes = dict(zip(ranges, combo, strict=True))
        sizes.update({n: sizes[to] for n, to in tied.items()})  # a size tied to another takes its value
        if any(not ranges[n][0] <= sizes[n] <= ranges[n][1] for n in tied):
            continue
        blocks = [math.ceil(sizes.get("N", 1) / v) for n, v in sizes.items() if n.startswith("B")]
        splits = sizes.get("splits", 1)  # a split needs a tile of its own
        if max([*blocks, splits]) <= tiles and splits <= min(blocks, default=splits) and sizes != defaults:
            out.append(sizes)
    return out


def prerender(site, diagnostics, limits=None):
    """Prerender the scenes of every page of `site` with a size form. Returns ({slug: the form's HTML}, {path in
    the site: JSON text} of the scene files)."""
    planned, todo, drawing = {}, [], None
    for page in site:
        ranges = form_spec(page, diagnostics)
        if ranges is None:
            continue
        drawing = drawing or scene_cache.drawing_digest()  # read once a build, and only when a page has a form
        defaults, digest = dict(page.run.sizes), scene_cache.page_digest(page.editors, drawing)
        only = named(page, "prerender", diagnostics)
        tied = {n: to for n, to in page.run.tied.items() if n in ranges and to in ranges}
        wanted = combinations(defaults, ranges, only, tied)
        drawn = {name(defaults): json.dumps(page.run.scene, separators=(",", ":"))}
        for sizes in wanted[1:]:
            key = scene_cache.key(digest, sizes)
            text = scene_cache.get(key)
            if text is None:
                todo.append((page, sizes, key, drawn))
            else:
                drawn[name(sizes)] = text
        planned[page.slug] = (ranges, defaults, wanted, drawn, tied)
    if todo:
        workers = min(4, os.cpu_count() or 1)
        batches = [todo[n::workers] for n in range(workers)]
        jobs = [[Job([Source(e.code, p.file, e.first_line) for e in p.editors], {"sizes": s}) for p, s, _, _ in b]
                for b in batches]  # fmt: skip
        for batch, results in zip(batches, run_batches(jobs, limits), strict=True):
            for (_, sizes, key, drawn), result in zip(batch, results, strict=True):
                text = json.dumps(result.scene, separators=(",", ":")) if result.ok else ""
                scene_cache.keep(key, text)  # a combination the kernel refuses is remembered as such
                drawn[name(sizes)] = text
    forms, files = {}, {}
    for slug, (ranges, defaults, wanted, drawn, tied) in planned.items():
        names = [name(s) for s in wanted if drawn.get(name(s))]
        for n in names:
            files[f"scenes/{slug}/{n}.json"] = drawn[n]
        forms[slug] = form_html(slug, ranges, defaults, names, tied)
    return forms, files


def form_html(slug, ranges, defaults, names, tied=None):
    """The size form (see the module docstring). `tied`: {name: size it follows while the two are equal}, written
    as data-tied (figure/page/sizes-form.js), only when there is one."""
    inputs = "".join(  # each with its range, which the runtime's hint takes over (forms/number-field.js)
        f'<label>{n} <input name="{n}" type="number" min="{lo}" max="{hi}" step="1" value="{defaults[n]}">'
        f'<span class="kv-range">{lo} to {hi}</span></label>'
        for n, (lo, hi) in ranges.items()
    )
    listed = json.dumps(names, separators=(",", ":"))
    follows = f" data-tied='{json.dumps(tied, separators=(',', ':'))}'" if tied else ""
    return (
        f'<form class="kv-sizes" data-scenes="scenes/{slug}/" data-prerendered=\'{listed}\'{follows} '
        f'aria-label="Sizes of the figure">{inputs}</form>'
    )
