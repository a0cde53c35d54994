"""Unit by unit: each resource's least time is its count over the unit's rate (gpus.json), and the bound the largest.

The rates are recomputed here from the table's raw figures (SMs, clock, per-clock-per-SM throughputs, the data
sheets' per-second rates), not read from the code under test; the counts come from the closed forms, which the
attention tests hold equal to what the algorithms count as they run.
"""

import json
from pathlib import Path

import pytest

from kernelviz.attention import flops, formulas
from kernelviz.attention.topics import REGISTRY
from kernelviz.cli import main
from kernelviz.roofline import GPUS, GPUS_FILE
from kernelviz.roofline.units import HBM, MUFU, OTHER, SHARED, TENSOR, units

RAW = {key: {k: v["value"] if isinstance(v, dict) and "value" in v else v for k, v in g.items()}
       for key, g in json.loads(GPUS_FILE.read_text())["gpus"].items()}  # fmt: skip


def raw_rate(key, unit, family):
    g = RAW[key]
    return {
        HBM: g["hbm_bytes_per_s"],
        SHARED: g["sms"] * g["shared_bytes_per_clock_per_sm"] * g["clock_hz"],
        TENSOR: g["tensor_flops_per_s_by_instruction"][family]["value"],
        MUFU: g["sms"] * g["sfu_ops_per_clock_per_sm"] * g["clock_hz"],
        OTHER: g["fp32_flops_per_s"],
    }[unit]


@pytest.mark.parametrize("key", sorted(GPUS))
def test_each_unit_s_time_is_its_count_over_its_rate_and_the_bound_is_the_largest(key):
    args = (1000, 64, 64, 48)
    nbytes, work = formulas.total(formulas.fa2(*args, causal=True, itemsize=2)), flops.fa2(*args, causal=True)
    shared = 123_456
    answer = units(nbytes, work, GPUS[key], shared_bytes=shared)
    counts = {HBM: nbytes, SHARED: shared, TENSOR: work["matmul"], MUFU: work["exp"], OTHER: work["other"]}
    assert set(answer["units"]) == set(counts)
    for unit, u in answer["units"].items():
        assert u["count"] == counts[unit]
        assert u["seconds"] == pytest.approx(counts[unit] / raw_rate(key, unit, answer["family"]), rel=1e-12)
    seconds = {unit: u["seconds"] for unit, u in answer["units"].items()}
    assert answer["bound"] == max(seconds, key=seconds.get) and answer["lower_bound_s"] == max(seconds.values())


def test_without_a_shared_count_shared_memory_is_no_unit_and_the_family_defaults_to_the_fastest():
    answer = units(10**6, flops.count(10**9, 10**6, 10**6), GPUS["h100"])
    assert SHARED not in answer["units"] and answer["family"] == "wgmma"
    assert answer["tensor_s_by_family"]["mma.sync"] == pytest.approx(
        1.5 * answer["tensor_s_by_family"]["wgmma"], rel=1e-3
    )  # 659.7 of 989.5
    with pytest.raises(ValueError, match="a100 runs no wgmma: its tensor-core instructions are mma.sync"):
        units(1, flops.count(1, 1, 1), GPUS["a100"], family="wgmma")


def test_fa4_s_wall_from_the_book_s_counts():
    """FA2 forward at d = 128 (tiles of 512 query rows, so that HBM is not the wall): on an H100 the tensor cores
    bound it, on a B200 the exponentials do (FA4's point: 2.25x the tensor rate, the same 16 MUFU results per
    clock per SM), from the book's own closed forms."""
    args = (4096, 128, 512, 128)
    nbytes, work = formulas.total(formulas.fa2(*args, itemsize=2)), flops.fa2(*args)
    h100, b200 = units(nbytes, work, GPUS["h100"]), units(nbytes, work, GPUS["b200"])
    assert h100["bound"] == TENSOR and b200["bound"] == MUFU
    assert b200["units"][MUFU]["seconds"] > b200["units"][TENSOR]["seconds"]


def run(capsys, *argv):
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_roofline_json_carries_the_units_of_each_algorithm_on_each_gpu(capsys):
    report = json.loads(run(capsys, "roofline", "--N", "1000", "--d", "64", "--causal", "--json"))
    for row in report["algorithms"]:
        assert set(row["units"]) == set(GPUS), row["algorithm"]
        for answer in row["units"].values():
            assert answer["units"][HBM]["count"] == row["bytes"]
            assert answer["units"][MUFU]["count"] == row["flops"]["exp"]
            assert (SHARED in answer["units"]) == (REGISTRY[row["algorithm"]].shared_unit)
    mma = next(row for row in report["algorithms"] if row["algorithm"] == "fa2-mma")
    shared = formulas.fa2_mma_shared(1000, 64, 64, 64, causal=True, itemsize=2)
    assert mma["shared_bytes"] == sum(sl["store"] + sl["load"] for sl in shared.values())
    assert mma["units"]["h100"]["family"] == "mma.sync" and mma["units"]["a100"]["family"] == "mma.sync"
    text = run(capsys, "roofline", "--N", "1000", "--d", "64", "--gpu", "b200")
    assert "fa2 on b200, unit by unit (count / rate = least time): bound by " in text
    assert "exponentials (MUFU)" in text and "<- the bound" in text


def test_trace_gpu_json_carries_the_units_of_the_run_s_own_counts(capsys):
    report = json.loads(run(capsys, "trace", "fa2-mma", "--N", "96", "--d", "32", "--Br", "32", "--Bc", "16",
                            "--causal", "--dtype", "float16", "--gpu", "h100", "--json"))  # fmt: skip
    want = units(report["total_bytes"], report["flops"], GPUS["h100"], "mma.sync", report["shared"]["total"])
    assert report["units"] == json.loads(json.dumps(want))
    assert report["units"]["units"][SHARED]["count"] == report["shared"]["total"] > 0
    text = run(capsys, "trace", "fa2", "--N", "64", "--d", "16", "--gpu", "a100")
    assert f"unit by unit on a100 (count / rate = least time): bound by {HBM}" in text


def test_a_planted_bug_fails_the_rate_check():
    """Exponentials taken at the fp32 rate (the old roofline's CUDA-core stand-in): the independent rate differs."""
    import kernelviz.roofline.units as module

    source = Path(module.__file__).read_text()
    planted = source.replace("device.sfu_ops_per_s", "device.fp32_flops_per_s")
    assert planted != source
    space = {"__name__": "planted"}
    exec(compile(planted, "planted_units.py", "exec"), space)
    work = flops.count(10**11, 10**9, 1)  # tensor cores 0.1 ms, MUFU 0.26 ms, and 15 µs at the fp32 rate
    assert units(1, work, GPUS["h100"])["bound"] == MUFU
    answer = space["units"](1, work, GPUS["h100"])
    assert answer["units"][MUFU]["seconds"] != pytest.approx(10**9 / raw_rate("h100", MUFU, "wgmma"))
    assert answer["bound"] != MUFU  # the wall FA3 names disappears


def fa2_b200(Br, Bc):
    """fa2's units on the B200 at N = 8192, d = 128, 16-bit: the closed forms' counts over the raw table's rates."""
    nbytes = formulas.total(formulas.fa2(8192, 128, Br, Bc, itemsize=2))
    work = flops.fa2(8192, 128, Br, Bc)
    return {u: work_s for u, work_s in ((HBM, nbytes / raw_rate("b200", HBM, "tcgen05.mma")),
            (TENSOR, work["matmul"] / raw_rate("b200", TENSOR, "tcgen05.mma")),
            (MUFU, work["exp"] / raw_rate("b200", MUFU, "tcgen05.mma")))}  # fmt: skip


def test_the_fa2_page_s_b200_numbers_hold():
    """The FA2 page's prose on B200's exponential wall (pages/flash-attention-2.md), from the book's own counts:
    the exponentials take a hair longer than the products at d = 128 (512 FLOPs an exponential on a B200), HBM is
    the bound at Br = 64 and 256, and falls under the exponentials from Br = 296 (N = 8192) on; at Br = 512,
    Bc = 128 the times the page quotes (15.4, 15.3, 8.9 µs) and the bound its command prints."""
    g = RAW["b200"]
    assert g["tensor_flops_per_s_by_instruction"]["tcgen05.mma"]["value"] / raw_rate("b200", MUFU, "tcgen05.mma") == (
        pytest.approx(512, rel=2e-3)
    )
    at = fa2_b200(512, 128)
    assert [round(at[u] * 1e6, 1) for u in (MUFU, TENSOR, HBM)] == [15.4, 15.3, 8.9]
    assert max(at, key=at.get) == MUFU and at[MUFU] / at[TENSOR] == pytest.approx(1 + 1 / 128, rel=1e-3)
    for Br in (64, 256):
        assert max(fa2_b200(Br, 128).items(), key=lambda kv: kv[1])[0] == HBM, Br
    assert fa2_b200(288, 128)[HBM] > fa2_b200(288, 128)[MUFU] and fa2_b200(296, 128)[HBM] < fa2_b200(296, 128)[MUFU]
    prose = (Path(__file__).resolve().parents[2] / "pages" / "flash-attention-2.md").read_text()
    assert "--N 8192 --d 128 --Br 512 --Bc 128 --gpu b200" in prose
    assert "(15.4 µs against 15.3 µs of tensor-core time and 8.9 µs of HBM)" in prose
    assert "passes about 300 rows in 16-bit (296 at $N = 8192$)" in prose
    out = json.loads(run_cli("roofline", "--N", "8192", "--d", "128", "--Br", "512", "--Bc", "128", "--gpu", "b200",
                             "--json"))  # fmt: skip
    row = next(r for r in out["algorithms"] if r["algorithm"] == "fa2")
    assert row["units"]["b200"]["bound"] == MUFU


def run_cli(*argv):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(list(argv)) == 0
    return out.getvalue()
