"""The roofline's bars and table in Chromium: on each kernel page the reader picks a GPU and changes the size form,
and each algorithm's bar per unit (its least time alone: count / rate), the bound named, and the table's column per
unit on that GPU equal `kernelviz trace ALGO --gpu GPU --json`'s units at those sizes (run here, independent of the
page); Hopper's plot draws the mma.sync ceiling under the wgmma roof, at gpus.json's rate."""

import pytest
from figure_page import SIZE_FORM, open_figure, parse, wait_applied

from kernelviz.roofline import GPUS
from kernelviz.roofline.units import units
from tests.pages.kernel_pages import trace_args
from tests.roofline.roofline_pages import SLUGS, algorithms, trace

BARS = """() => [...document.querySelectorAll('section.kv-roofline .kv-roof-units-algo')].map((a) => ({
  algorithm: a.dataset.algorithm, bound: a.dataset.bound, family: a.dataset.family,
  gpu: a.closest('.kv-roof-units').dataset.gpu,
  units: Object.fromEntries([...a.querySelectorAll('.kv-roof-unit')].map((u) =>
    [u.dataset.unit, { count: Number(u.dataset.count), seconds: Number(u.dataset.seconds) }])) }))"""
TABLE = """() => [...document.querySelectorAll('section.kv-roofline .kv-roof-unit-table tbody tr')].map((tr) => ({
  algorithm: tr.dataset.algorithm,
  units: [...tr.querySelectorAll('td[data-key=unit]')].map((td) => ({ unit: td.dataset.unit, gpu: td.dataset.gpu,
    seconds: td.dataset.value === '' ? null : Number(td.dataset.value), bound: 'bound' in td.dataset })) }))"""
DRAWN = """(want) => { const b = document.querySelector('section.kv-roofline .kv-roof-body');
  const [sizes, , gpu] = JSON.parse(b.dataset.drawn);
  return gpu === want.gpu && Object.entries(want.sizes).every(([k, v]) => sizes[k] === v); }"""


def expected(slug, sizes, gpu):
    """{algorithm: trace's units on `gpu`} at the form's `sizes` (the roofline's fa2-mma at its default warps)."""
    args = trace_args(slug, sizes)
    out = {}
    for algo in algorithms(slug):
        if slug == "paged-decoding":  # standard: each sequence alone (tests.roofline.roofline_pages.expected)
            if algo == "standard":
                one = ["--N", "1", "--Br", "1", "--Bc", str(sizes["page_size"]), "--batch-heads", str(sizes["H_q"])]
                runs = [trace(["standard", *one, "--N-kv", str(sizes[L]), "--d", "4", "--json"]) for L in ("L0", "L1")]
            else:
                runs = [trace(args)]
            nbytes = sum(r["total_bytes"] for r in runs)
            work = {kind: sum(r["flops"][kind] for r in runs) for kind in ("matmul", "exp", "other")}
            out[algo] = units(nbytes, work, GPUS[gpu])
        else:
            own = [a for n, a in enumerate(args[1:]) if not {"--warps", "--stages"} & set(args[n : n + 2])]
            out[algo] = trace([algo, *own, "--gpu", gpu])["units"]
    return out


def check(shown, want, gpu):
    assert [a["algorithm"] for a in shown] == list(want)
    for a in shown:
        w = want[a["algorithm"]]
        assert (a["gpu"], a["bound"], a["family"]) == (gpu, w["bound"], w["family"]), a["algorithm"]
        assert list(a["units"]) == list(w["units"]), a["algorithm"]
        for unit, u in a["units"].items():
            assert u["count"] == w["units"][unit]["count"], (a["algorithm"], unit)
            assert u["seconds"] == pytest.approx(w["units"][unit]["seconds"], rel=1e-12), (a["algorithm"], unit)


def check_table(shown, want, gpu):
    """The table's unit columns on `gpu`: every unit the GPU has, a time where trace counts the unit (else none), the
    bound's marked."""
    assert [row["algorithm"] for row in shown] == list(want)
    for row in shown:
        w = want[row["algorithm"]]
        assert {u["gpu"] for u in row["units"]} == {gpu}
        counted = {u["unit"]: u["seconds"] for u in row["units"] if u["seconds"] is not None}
        assert list(counted) == list(w["units"]), row["algorithm"]
        for unit, seconds in counted.items():
            assert seconds == pytest.approx(w["units"][unit]["seconds"], rel=1e-12), (row["algorithm"], unit)
        assert [u["unit"] for u in row["units"] if u["bound"]] == [w["bound"]], row["algorithm"]


def pick(page, gpu, sizes):
    page.locator(f".kv-roof-gpus input[value='{gpu}']").check()
    page.wait_for_function(DRAWN, arg={"gpu": gpu, "sizes": sizes})


@pytest.mark.parametrize("slug", SLUGS)
def test_the_bars_follow_the_gpu_and_the_size_form_and_equal_trace(reading, site_url, slug):
    page = reading
    open_figure(page, f"{site_url}/{slug}.html")
    page.wait_for_selector("section.kv-roofline[data-ready]")
    form = page.evaluate(SIZE_FORM)
    names, sizes = list(form["sizes"]), form["sizes"]
    pick(page, "b200", sizes)
    want = expected(slug, sizes, "b200")
    check(page.evaluate(BARS), want, "b200")
    check_table(page.evaluate(TABLE), want, "b200")
    # a prerendered size one box away, then the H100
    others = [parse(key, names) for key in form["prerendered"]]
    target = next(s for s in others if sum(s[n] != sizes[n] for n in names if n not in ("N_kv", "causal")) == 1)
    name = next(n for n in names if target[n] != sizes[n])
    page.locator(f"form.kv-sizes input[name={name}]").fill(str(target[name]))
    wanted = {**sizes, name: target[name]}
    if name == "N" and "N_kv" in sizes and sizes["N_kv"] == sizes["N"]:
        wanted["N_kv"] = target[name]
    wait_applied(page, wanted)
    pick(page, "h100", wanted)
    want = expected(slug, wanted, "h100")
    check(page.evaluate(BARS), want, "h100")
    check_table(page.evaluate(TABLE), want, "h100")
    ceilings = page.evaluate("""() => [...document.querySelectorAll('svg.kv-roof-plot .kv-roof-ceiling')].map((c) =>
      [c.closest('.kv-roof-ceilings').dataset.gpu, c.dataset.family, Number(c.dataset.flopsPerS)])""")
    rates = {k: g.tensor_flops_per_s_by_instruction for k, g in GPUS.items()}
    assert ceilings == [[k, f, r] for k, fam in rates.items() for f, r in fam.items() if r < max(fam.values())]
    assert [c[:2] for c in ceilings] == [["h100", "mma.sync"], ["h200", "mma.sync"]]
    assert page.errors == []


@pytest.mark.parametrize(("slug", "columns"), [("flash-attention-2", 5), ("flash-attention-3", 6)])
def test_the_units_table_fits_a_phone_without_scrolling(browser, site_url, slug, columns):
    """At 390 px, the longest numbers (N = 32,768, d = 128) on the B200: the algorithm and every unit's column (with
    shared memory on the FA3 page, six) fit the column of text, so the table by unit never hides a unit to the side."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    open_figure(page, f"{site_url}/{slug}.html")
    page.wait_for_selector("section.kv-roofline[data-ready]")
    page.locator(".kv-roof-presets input[value='N32768-d128']").check()
    page.locator(".kv-roof-gpus input[value='b200']").check()
    page.wait_for_selector(".kv-roof-unit-table[data-gpu='b200']")
    box = page.evaluate(
        "(() => { const t = document.querySelector('.kv-roof-unit-table');"
        " return [t.scrollWidth, t.clientWidth, t.querySelectorAll('thead th').length]; })()"
    )
    assert box[0] <= box[1] and box[2] == columns, box  # algorithm, HBM, (shared memory,) tensor, MUFU, other
    context.close()
