"""The per-unit rates of gpus.json: each cited, and each derived figure equal to the published one it implies.

The published figures are independent of each other (a data sheet's TFLOPS, a white paper's clock and SM count, the
programming guide's per-clock throughputs, the FA3 paper's special-function rate), so checking that the products
agree tests the table, not our arithmetic. The tolerances are the rounding of the printed figures.
"""

import json

import pytest

from kernelviz.roofline import BY_INSTRUCTION, GPUS, GPUS_FILE, RATES, load

TABLE = json.loads(GPUS_FILE.read_text())


@pytest.mark.parametrize("key", sorted(GPUS))
def test_every_rate_and_family_cites_a_source_in_the_table(key):
    entry = TABLE["gpus"][key]
    figures = [entry[r] for r in RATES] + list(entry[BY_INSTRUCTION].values())
    for fig in figures:
        assert fig["source"] in TABLE["sources"] and fig["as_printed"] and fig["value"] > 0, (key, fig)
        source = TABLE["sources"][fig["source"]]
        assert source["url"].startswith("https://") and source["kind"] in ("vendor", "paper", "measurement")
        if source["kind"] != "vendor":  # a paper or a measurement stands in for what the vendor prints
            assert fig.get("not_stated_by_vendor") or "[" in fig["as_printed"], (key, fig)


def test_a_rate_without_a_source_is_refused(tmp_path):
    table = json.loads(GPUS_FILE.read_text())
    table["gpus"]["b200"][BY_INSTRUCTION]["tcgen05.mma"]["source"] = "a rumour"
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps(table))
    with pytest.raises(ValueError, match=r"b200\.tensor_flops_per_s_by_instruction\.tcgen05\.mma: source 'a rumour'"):
        load(path)
    del table["gpus"]["a100"]["clock_hz"]
    path.write_text(json.dumps(table))
    with pytest.raises(ValueError, match="a100: no clock_hz"):
        load(path)


@pytest.mark.parametrize("key", ["a100", "h100", "h200"])
def test_tensor_rate_is_sms_times_per_sm_per_clock_times_the_clock(key):
    """A100: 108 x 2048 x 1.41 GHz = 311.9 TFLOP/s (sheet: 312); H100/H200: 132 x 4096 x 1.83 GHz = 989.4 (989.5).
    The sheets print 3-4 digits: agreement to 0.1%. (The B200's clock is derived from its rate, so not tested here.)"""
    g = GPUS[key]
    assert g.sms * g.tensor_flops_per_clock_per_sm * g.clock_hz == pytest.approx(g.tensor_flops_per_s, rel=1e-3)


def test_b200_clock_is_the_derivation_it_states():
    g, fig = GPUS["b200"], TABLE["gpus"]["b200"]["clock_hz"]
    assert fig["not_stated_by_vendor"] and fig["derived"] == "2.25e15 / (148 x 8192)"
    assert g.clock_hz == pytest.approx(2.25e15 / (148 * 8192), rel=1e-3)


def test_h100_special_functions_match_the_fa3_paper():
    """FA3: 3.9 TFLOPS of special functions on the H100 SXM5, printed to two digits ([3.85, 3.95)); the table's
    132 SMs x 16 MUFU results per clock x 1.83 GHz = 3.865e12 must round to it."""
    g = GPUS["h100"]
    stated = TABLE["gpus"]["h100"]["special_function_flops_per_s"]
    assert stated["source"] == "fa3-paper"
    assert abs(g.sfu_ops_per_s - stated["value"]) < 0.05e12
    assert g.sfu_ops_per_clock_per_sm == 16


def test_fa4_s_asymmetry_from_h100_to_b200():
    """FA4: tensor-core rate grows 2.25x (1 to 2.25 PFLOP/s) while MUFU and shared memory per SM per clock stay."""
    h, b = GPUS["h100"], GPUS["b200"]
    assert b.tensor_flops_per_s / h.tensor_flops_per_s == pytest.approx(2.25, rel=0.02)
    assert (b.sfu_ops_per_clock_per_sm, b.shared_bytes_per_clock_per_sm) == (16, 128)
    assert (h.sfu_ops_per_clock_per_sm, h.shared_bytes_per_clock_per_sm) == (16, 128)
    assert b.tensor_flops_per_clock_per_sm == 2 * h.tensor_flops_per_clock_per_sm


@pytest.mark.parametrize("key", ["h100", "h200"])
def test_hopper_has_both_families_and_mma_sync_is_two_thirds_of_wgmma(key):
    """FA3 (citing Luo et al.'s microbenchmark): mma.sync reaches about 2/3 of the wgmma peak on Hopper."""
    rates = GPUS[key].tensor_flops_per_s_by_instruction
    assert set(rates) == {"wgmma", "mma.sync"} and rates["wgmma"] == GPUS[key].tensor_flops_per_s
    assert rates["mma.sync"] == pytest.approx(rates["wgmma"] * 2 / 3, rel=1e-3)
    assert GPUS[key].sources["by_instruction.mma.sync"]["not_stated_by_vendor"]


def test_the_fastest_family_is_the_tensor_roof():
    for g in GPUS.values():
        assert max(g.tensor_flops_per_s_by_instruction.values()) == g.tensor_flops_per_s, g.key
    assert set(GPUS["a100"].tensor_flops_per_s_by_instruction) == {"mma.sync"}
    assert set(GPUS["b200"].tensor_flops_per_s_by_instruction) == {"tcgen05.mma"}


def test_per_sm_and_per_second_rates():
    """Shared memory: 128 B/clock/SM x 1.41 GHz = 180.5 GB/s per A100 SM, x 108 = 19.5 TB/s; the HBM share and the
    tensor rate per SM divide by the SM count."""
    a = GPUS["a100"]
    assert a.shared_bytes_per_s_per_sm == pytest.approx(128 * 1.41e9)
    assert a.shared_bytes_per_s == pytest.approx(108 * 128 * 1.41e9)
    assert a.hbm_bytes_per_s_per_sm == pytest.approx(2.039e12 / 108)
    assert a.tensor_flops_per_s_per_sm() == pytest.approx(312e12 / 108)
    assert GPUS["h100"].tensor_flops_per_s_per_sm("mma.sync") == pytest.approx(659.7e12 / 132)
