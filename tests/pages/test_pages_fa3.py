"""The FlashAttention-3 page's figure (issue 42), run from the page's own editors: its HBM counter against the ledger
(FA2's in float16, which FA3 shares) at ragged, causal and ring sizes; its ring and barriers as fa3.cu runs them; and
its timeline against counts and rates worked out here from gpus.json, with both overlaps of the kernel present, and
absent when the kernel waits for its own product before its softmax (wait_group 0 for 1: a planted bug)."""

import io
import json
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from kernelviz.figlib import sizing
from tests.pages.kernel_pages import Page

SLUG = "flash-attention-3"
# The counters' reference: `kernelviz trace fa3` (attention/fa3.py) with the kernel's 2 consumer warpgroups
ALGO = "fa3"
WARPGROUPS = ["--warpgroups", "2"]
GPUS = json.loads((Path(__file__).resolve().parents[2] / "kernelviz" / "roofline" / "gpus.json").read_text())["gpus"]


def timeline(sizes=None, edit=None):
    """Run the page's two editors in one namespace, as the runner does, and return it (its `tl`: the Timeline)."""
    helpers, kernel = [code for _, code in _editors()]
    if edit:
        kernel = edit(kernel)
    sizing.give(sizes)
    ns = {}
    exec(compile(helpers, "helpers", "exec"), ns)
    exec(compile(kernel, "kernel", "exec"), ns)
    return ns


def _editors():
    from tests.pages.kernel_pages import EDITOR, ROOT

    return EDITOR.findall((ROOT / "pages" / f"{SLUG}.md").read_text(encoding="utf-8"))


def ledger(sizes, key="total_bytes"):
    """`kernelviz trace fa3 ... --dtype float16 --json`'s total_bytes (or `key`: "shared", its shared-memory
    traffic's total) at the figure's tiles (d = 4, Br = 4, Bc = 4)."""
    from kernelviz import cli

    causal = ["--causal"] if sizes.get("causal") else []
    args = [ALGO, "--N", str(sizes.get("N", 8)), "--N-kv", str(sizes.get("N_kv", 12)), "--d", "4", "--Br", "4",
            "--Bc", "4", "--dtype", "float16", *causal, *WARPGROUPS, "--json"]  # fmt: skip
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli.main(["trace", *args]) == 0
    traced = json.loads(out.getvalue())
    return traced["shared"]["total"] if key == "shared" else traced[key]


@pytest.mark.parametrize(
    "sizes",
    [{}, {"N": 7, "N_kv": 13}, {"N": 8, "N_kv": 12, "causal": 1}, {"N": 12, "N_kv": 5, "causal": 1},
     {"N": 8, "N_kv": 16, "stages": 4}, {"N": 1, "N_kv": 1}],
)  # fmt: skip
def test_the_counter_ends_on_the_ledgers_bytes(sizes):
    page = Page(SLUG, sizes or None)
    assert page.result.error is None, page.result.error
    assert page.counter(len(page.steps) - 1) == ledger(sizes)


SRAM_SIZES = [{}, {"N": 5, "N_kv": 13}, {"N": 12, "N_kv": 5, "causal": 1}, {"N": 8, "N_kv": 16, "stages": 4}]


@pytest.mark.parametrize("sizes", SRAM_SIZES)
def test_the_sram_counter_ends_on_the_ledgers_shared_traffic(sizes):
    """What the TMA stores (Q once a block, its rows past N as zeros; K_j and V_j a visited tile), what wgmma reads
    where it lies (each consumer's Q and all of K_j for S, all of V_j for P V) and the epilogue's O through shared
    memory, against the ledger of attention/fa3.py; ragged, causal with a block that sees no key, and four stages."""
    page = Page(SLUG, sizes or None)
    assert page.result.error is None, page.result.error
    counts = [page.counter(k, "smem-bytes") for k in range(len(page.steps))]
    assert counts == sorted(counts) and counts[0] == 0
    assert counts[-1] == ledger(sizes, "shared")


def test_a_product_that_reads_no_v_from_shared_memory_is_caught():
    """A planted bug: the figure forgets that P V reads V_j from shared memory; the counter falls short."""
    old = "                fig.access(RING[(j - 1) % stages][1])\n"
    page = Page(SLUG, edit=lambda code: code.replace(old, "") if old in code else pytest.fail("kernel changed"))
    assert page.counter(len(page.steps) - 1, "smem-bytes") < ledger({}, "shared")


def test_the_ring_refills_a_stage_only_after_both_consumers_released_it():
    for stages in (2, 3, 4):
        keys = Page(SLUG, {"N": 4, "N_kv": 24, "stages": stages}).keys
        for t in range(stages, 6):  # tile t goes into the stage tile t - stages held
            load = keys.index(f"load K,V i=0 j={t}")
            released = keys.index(f"softmax i=0 j={t - stages + 1} c=2")  # consumer 2 releases tile t - stages
            assert load > released
            assert keys.index(f"wgmma i=0 j={t} c=1") > load, "a consumer waits for the stage to be full"
        assert [k for k in keys if k.startswith("load K,V")][:stages] == [f"load K,V i=0 j={t}" for t in range(stages)]


def rates(gpu):
    """One SM's rates, worked out here from gpus.json: wgmma's tensor FLOP/s, SFU results a clock x the boost clock,
    HBM bytes/s, each over the SMs."""
    entry = GPUS[gpu]
    sms, clock = entry["sms"]["value"], entry["clock_hz"]["value"]
    return {"tensor": entry["tensor_flops_per_s_by_instruction"]["wgmma"]["value"] / sms,
            "sfu": entry["sfu_ops_per_clock_per_sm"]["value"] * clock,
            "hbm": entry["hbm_bytes_per_s"]["value"] / sms}  # fmt: skip


@pytest.mark.parametrize("gpu, name", [(1, "h100"), (2, "h200")])
def test_the_timeline_times_the_kernels_tile_at_the_gpus_rates(gpu, name):
    tl = timeline({"gpu": gpu})["tl"]
    want = rates(name)
    product = 2 * 64 * 128 * 128 / want["tensor"]  # a consumer's 64 rows, Bc = 128 keys, d = 128
    softmax = 64 * 128 / want["sfu"]  # an exponential a score
    copy = (128 * 128 * 2 + 128 * 128 * 2) / want["hbm"]  # K_j and V_j: 128 rows of 128 halves each
    by = {}
    for a in tl.actions:
        by.setdefault(re.match(r"[A-Za-z]+", a.label).group(0), []).append(a.duration)
    for label, seconds in (("S", product), ("PV", product), ("softmax", softmax), ("K", copy)):
        assert by[label] and all(d == pytest.approx(seconds, rel=1e-9) for d in by[label]), label


def test_both_overlaps_are_there_and_the_tensor_cores_do_one_product_at_a_time():
    tl = timeline()["tl"]
    assert tl.overlap("1: SFU", "2: tensor") > 0, "consumer 1's softmax under consumer 2's products"
    assert tl.overlap("1: SFU", "1: tensor") > 0, "a consumer's softmax under its own P V"
    assert tl.overlap("1: tensor", "2: tensor") == 0
    assert tl.overlap("1: SFU", "2: SFU") == 0
    copies = {a.label: a for a in tl.actions if a.lane == "producer"}
    for a in tl.actions:  # a product of tile j starts after K_j, V_j landed (its stage's full barrier)
        if a.label.startswith("S"):
            j = int(a.label[1:])
            assert a.start >= copies[f"K{j},V{j}"].end


def test_waiting_for_the_own_product_before_the_softmax_loses_the_overlap_inside_a_consumer():
    """A planted bug: wait_group 0 where fa3.cu waits with wait_group 1 (the softmax of S_j waits for P_{j-1} V_{j-1}
    too). The overlap within a consumer is gone; the test above would fail on it."""
    old = "deps=[acts[w, 'S'], sfu[0]]"
    bad = "deps=[acts[w, 'S'], sfu[0], acts.get((w, 'PV'))]"
    tl = timeline(edit=lambda code: code.replace(old, bad) if old in code else pytest.fail("kernel changed"))["tl"]
    assert tl.overlap("1: SFU", "1: tensor") == 0
    assert tl.makespan > timeline()["tl"].makespan
