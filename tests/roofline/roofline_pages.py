"""The roofline sections of the kernel pages as the tests check them: what `kernelviz trace ALGO --gpu GPU --json`
says at the sizes a page's form shows, and what the section shows (read from the built HTML or from the live page
by the same JavaScript)."""

import contextlib
import html
import io
import json
import re

import yaml

from kernelviz.attention import flops, formulas
from kernelviz.attention.words import size
from kernelviz.cli import main
from kernelviz.commands.roofline import _seconds, table
from kernelviz.roofline import GPUS, bound
from tests.pages.kernel_pages import KERNEL_PAGES, ROOT, trace_args


def front_matter(slug):
    return yaml.safe_load((ROOT / "pages" / f"{slug}.md").read_text(encoding="utf-8").split("---")[1])


# the pages whose front matter puts a roofline on them (every attention kernel's; online softmax has no FLOP count)
SLUGS = tuple(slug for slug in KERNEL_PAGES if "roofline" in front_matter(slug))

# Run in a page (or on a DOM parsed from the built HTML): the section's points and table, by algorithm and GPU.
READ = """(root) => {
  const section = root.querySelector('section.kv-roofline');
  if (!section) return null;
  const svg = section.querySelector('svg.kv-roof-plot');
  const roofs = [...svg.querySelectorAll('g.kv-roof')].map((g) => [g.dataset.gpu, g.querySelectorAll('path').length]);
  const points = [...svg.querySelectorAll('g.kv-roof-point')].map((g) => ({
    algorithm: g.dataset.algorithm, gpu: g.dataset.gpu, intensity: Number(g.dataset.intensity),
    flops_per_s: Number(g.dataset.flopsPerS), shapes: g.children.length - 1 }));
  const rows = [...section.querySelectorAll('.kv-roof-table tbody tr')].map((tr) => {
    const cell = (key) => tr.querySelector(`td[data-key="${key}"]`);
    const bounds = Object.fromEntries([...tr.querySelectorAll('td[data-key="bound"]')].map((td) =>
      [td.dataset.gpu, { bound: td.dataset.bound, lower_bound_s: Number(td.dataset.value), text: td.textContent }]));
    return { algorithm: tr.dataset.algorithm, bytes: Number(cell('bytes').dataset.value),
      flops: Number(cell('flops').dataset.value), intensity: Number(cell('intensity').dataset.value),
      texts: [cell('bytes').textContent, cell('flops').textContent, cell('intensity').textContent], bounds };
  });
  const body = section.querySelector('.kv-roof-body');
  return { roofs, points, rows, params: JSON.parse(body.dataset.params),
    measured: [...svg.querySelectorAll('g.kv-roof-measured')].map((g) => ({ algorithm: g.dataset.algorithm,
      intensity: Number(g.dataset.intensity), flops_per_s: Number(g.dataset.flopsPerS) })),
    note: section.querySelector('.kv-roof-measured-note').textContent };
}"""


def algorithms(slug):
    """The algorithms the page's front matter puts on its roofline."""
    return front_matter(slug)["roofline"]["algorithms"]


def read_html(text):
    """READ's answer, from a built page's HTML (as a reader without JavaScript gets it); None without a section."""
    m = re.search(r'<section class="kv-roofline".*?</section>', text, re.S)
    if m is None:
        return None
    section = m[0]
    roofs = [[gpu, len(re.findall(r"<path ", inner))] for gpu, inner in
             re.findall(r'<g class="kv-roof kv-roof-gpu-\d" data-gpu="(\w+)">(.*?)</g>', section, re.S)]  # fmt: skip
    point = re.compile(
        r'<g class="kv-roof-point[^"]*" data-algorithm="([\w-]+)" data-gpu="(\w+)" '
        r'data-intensity="([^"]+)" data-flops-per-s="([^"]+)"><title>[^<]*</title>(.*?)</g>',
        re.S,
    )
    points = [dict(algorithm=a, gpu=g, intensity=float(i), flops_per_s=float(f), shapes=len(re.findall(r"<\w+ ", s)))
              for a, g, i, f, s in point.findall(section)]  # fmt: skip
    rows = []
    bounds_table = re.search(r'<div class="kv-roof-table".*?</table>', section, re.S)[0]  # (not the units' table)
    for algo, inner in re.findall(r'<tr data-algorithm="([\w-]+)">(.*?)</tr>', bounds_table, re.S):
        cells = re.findall(r'<td data-key="(\w+)"(?: data-gpu="(\w+)" data-bound="([^"]+)")? data-value="([^"]+)">'
                           r"(.*?)</td>", inner)  # fmt: skip
        text = lambda t: html.unescape(re.sub(r"<[^>]+>", "", t))  # noqa: E731
        plain = {k: (float(v), text(t)) for k, g, b, v, t in cells if not g}
        bounds = {g: dict(bound=b, lower_bound_s=float(v), text=text(t)) for k, g, b, v, t in cells if g}
        rows.append(dict(algorithm=algo, bytes=plain["bytes"][0], flops=plain["flops"][0],
                         intensity=plain["intensity"][0], texts=[plain[k][1] for k in ("bytes", "flops", "intensity")],
                         bounds=bounds))  # fmt: skip
    measured = [dict(algorithm=a, intensity=float(i), flops_per_s=float(f)) for a, i, f in re.findall(
        r'<g class="kv-roof-measured" data-algorithm="([\w-]+)" data-intensity="([^"]+)" data-flops-per-s="([^"]+)"',
        section)]  # fmt: skip
    params = json.loads(html.unescape(re.search(r'class="kv-roof-body" data-params="([^"]*)"', section)[1]))
    note = re.search(r'<(p|div) class="kv-roof-measured-note"[^>]*>(.*?)</\1>', section, re.S)[2]
    note = re.sub(r"<[^>]+>", "", note)
    return dict(roofs=roofs, points=points, rows=rows, params=params, measured=measured, note=html.unescape(note))


def trace(argv):
    """`kernelviz trace ARGV` in this process: its JSON."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["trace", *argv]) == 0, argv
    return json.loads(out.getvalue())


def expected(slug, sizes):
    """{algorithm: {gpu: trace's roofline}} of the page's algorithms at the form's `sizes`, each traced with the
    arguments that count what the page's figure draws there (tests.pages.kernel_pages.trace_args), the algorithm
    swapped in. On the paged decoding page, standard attention decodes each sequence alone, every query head on its
    own: a trace per sequence (one query row against its L keys, in tiles of a page, --batch-heads H_q), and the
    bound of their sum."""
    args = trace_args(slug, sizes)
    out = {}
    for algo in algorithms(slug):
        if slug == "paged-decoding" and algo == "standard":
            one = ["--N", "1", "--Br", "1", "--Bc", str(sizes["page_size"]), "--batch-heads", str(sizes["H_q"])]
            runs = [trace(["standard", *one, "--N-kv", str(sizes[L]), "--d", "4", "--json"]) for L in ("L0", "L1")]
            nbytes = sum(r["total_bytes"] for r in runs)
            work = {kind: sum(r["flops"][kind] for r in runs) for kind in ("matmul", "exp", "other")}
            out[algo] = {gpu: bound(nbytes, work, GPUS[gpu]) for gpu in GPUS}
        else:  # (--warps and --stages are the page's own kernel's; the roofline's fa2 has neither)
            own = [a for n, a in enumerate(args[1:]) if not {"--warps", "--stages"} & set(args[n : n + 2])]
            out[algo] = {gpu: trace([algo, *own, "--gpu", gpu])["roofline"] for gpu in GPUS}
    return out


def closed_form(algorithms, p):
    """{algorithm: {"bytes", "flops" (by kind), "bounds": {gpu: bound}}} at the params `p` the JS shows
    (model.params's), from the Python closed forms: the reference for the realistic presets, too large to trace."""
    itemsize = {"float32": 4, "float16": 2}[p["dtype"]]
    if not p.get("seq_lens"):
        rows = table(p["N"], p["d"], p["Br"], p["Bc"], p["N_kv"], p["causal"], itemsize, p["batch_heads"], p["splits"])
        return {r["algorithm"]: r for r in rows if r["algorithm"] in algorithms}
    lens, d, page, H_q, H_kv, splits = (p[k] for k in ("seq_lens", "d", "page_size", "H_q", "H_kv", "splits"))
    out = {}
    for algo in algorithms:
        if algo == "paged-decoding":
            nbytes = formulas.total(formulas.paged_decoding(lens, d, page, H_q, H_kv, splits, itemsize))
            work = flops.paged_decoding(lens, d, page, H_q, H_kv, splits)
        else:  # standard: each sequence alone, one query row, H_q heads
            each = [(formulas.standard(1, d, 1, page, N_kv=L, itemsize=itemsize, batch_heads=H_q),
                     flops.standard(1, d, 1, page, N_kv=L, batch_heads=H_q)) for L in lens]  # fmt: skip
            nbytes = sum(formulas.total(b) for b, _ in each)
            work = {kind: sum(f[kind] for _, f in each) for kind in ("matmul", "exp", "other")}
        out[algo] = {"bytes": nbytes, "flops": work, "bounds": {g: bound(nbytes, work, GPUS[g]) for g in GPUS}}
    return out


def check(shown, want, rel=1e-12):
    """Assert the section's points and table (READ's) equal trace's numbers (`expected`'s)."""
    import pytest

    assert [r["algorithm"] for r in shown["rows"]] == list(want)
    assert sorted(shown["roofs"]) == sorted([gpu, 2] for gpu in GPUS)  # the tensor-core and the fp32 roof each
    assert len(shown["points"]) == len(want) * len(GPUS)
    for point in shown["points"]:
        roof = want[point["algorithm"]][point["gpu"]]
        assert point["intensity"] == pytest.approx(roof["intensity"], rel=rel)
        assert point["flops_per_s"] == pytest.approx(roof["attained_flops_per_s"], rel=rel)
        assert point["shapes"] == 1
    for row in shown["rows"]:
        for gpu, roof in want[row["algorithm"]].items():
            assert (row["bytes"], row["flops"]) == (roof["bytes"], roof["flops"]), (row["algorithm"], gpu)
            assert row["intensity"] == pytest.approx(roof["intensity"], rel=rel)
            cell = row["bounds"][gpu]
            assert cell["bound"] == roof["bound"], (row["algorithm"], gpu)
            assert cell["lower_bound_s"] == pytest.approx(roof["lower_bound_s"], rel=rel), (row["algorithm"], gpu)
            # the bound, and the time as `kernelviz roofline` prints it (s, ms, µs, ns: never ps)
            assert cell["text"] == f"{roof['bound']}, {_seconds(cell['lower_bound_s'])}", cell["text"]
        assert row["texts"][0] == size(int(row["bytes"])), row["texts"][0]  # binary units, as the command line
