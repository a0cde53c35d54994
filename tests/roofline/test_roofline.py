"""The GPU table (every figure sourced) and the roofline bound computed from a ledger's bytes and FLOPs."""

import json
import re

import pytest

from kernelviz.attention import flash_attention_2
from kernelviz.roofline import FIGURES, GPUS, GPUS_FILE, bound, gpu, load


def test_the_issue_s_gpus_are_in_the_table():
    assert {"a100", "h100", "h200", "b200"} <= set(GPUS)


@pytest.mark.parametrize("key", sorted(GPUS))
def test_every_figure_has_a_vendor_source_and_its_printed_form(key):
    """A figure the vendor does not state (the B200's SM count) says so and comes from a measurement or a paper."""
    device = GPUS[key]
    for figure in FIGURES:
        source = device.sources[figure]
        vendor = not source.get("not_stated_by_vendor")
        host = source["url"].split("/")[2]
        assert source["url"].startswith("https://") and ("nvidia" in host) == vendor, (key, figure)
        assert (source["kind"] == "vendor") == vendor, (key, figure)
        assert source["title"] and source["as_printed"], (key, figure)
        assert getattr(device, figure) > 0


def test_dense_tensor_rates_are_half_of_the_printed_sparse_ones():
    """The data sheets print fp16 tensor-core rates with sparsity (marked *): the table keeps half of that."""
    for device in GPUS.values():
        printed = device.sources["tensor_flops_per_s"]["as_printed"]
        sparse = float(re.findall(r"([\d,.]+) TFLOPS\*", printed)[-1].replace(",", ""))
        gpus_on_the_sheet = device.sources["tensor_flops_per_s"].get("of", 1)  # HGX B200: a board of 8
        assert device.tensor_flops_per_s == pytest.approx(sparse * 1e12 / 2 / gpus_on_the_sheet, rel=1e-3), device.key


def test_a_figure_without_a_source_is_refused(tmp_path):
    table = json.loads(GPUS_FILE.read_text())
    table["gpus"]["h100"]["sms"]["source"] = "a blog"
    path = tmp_path / "gpus.json"
    path.write_text(json.dumps(table))
    with pytest.raises(ValueError, match=r"h100\.sms: source 'a blog'"):
        load(path)


def test_unknown_gpu_names_the_known_ones():
    with pytest.raises(ValueError, match="a100, h100, h200"):
        gpu("v100")
    assert gpu("H100") is GPUS["h100"]


def test_bound_takes_bytes_and_flops_from_the_ledger():
    import numpy as np

    rng = np.random.default_rng(1)
    q, k, v = (rng.standard_normal((2, 40, 8)) for _ in range(3))
    ledger = flash_attention_2(q, k, v, Br=8, Bc=16).ledger
    device = GPUS["a100"]
    point = bound(ledger.total_bytes, ledger.flops.by_kind, device)
    flops = ledger.flops["matmul"] + ledger.flops["exp"] + ledger.flops["other"]
    assert point["bytes"] == ledger.total_bytes and point["flops"] == flops
    assert point["intensity"] == pytest.approx(flops / ledger.total_bytes)
    memory = ledger.total_bytes / 2.039e12
    compute = ledger.flops["matmul"] / 312e12
    assert point["seconds"]["memory"] == pytest.approx(memory)
    assert point["seconds"]["tensor cores"] == pytest.approx(compute)
    assert point["lower_bound_s"] == max(point["seconds"].values())


def test_the_bound_switches_at_the_ridge():
    """Below the ridge point (tensor peak / bandwidth FLOPs per byte) memory bounds; above it the tensor cores."""
    device = GPUS["h100"]
    nbytes = 10**9
    below = bound(nbytes, {"matmul": int(0.5 * device.ridge * nbytes), "exp": 0, "other": 0}, device)
    above = bound(nbytes, {"matmul": int(2 * device.ridge * nbytes), "exp": 0, "other": 0}, device)
    assert below["bound"] == "memory" and above["bound"] == "tensor cores"
    assert below["attained_flops_per_s"] < device.tensor_flops_per_s
    assert above["attained_flops_per_s"] == pytest.approx(device.tensor_flops_per_s)


def test_elementwise_work_is_bounded_by_the_cuda_cores():
    device = GPUS["a100"]
    point = bound(1, {"matmul": 0, "exp": 10**12, "other": 10**12}, device)
    assert point["bound"] == "CUDA cores"
    assert point["lower_bound_s"] == pytest.approx(2e12 / 19.5e12)
