"""The explorer's JavaScript port of the byte formulas agrees with kernelviz.attention on many settings.

web/src/explorer/formulas.js ports kernelviz/attention/formulas.py function by function, and
web/src/explorer/sram.js gives the FA2 block's SRAM tiles (its record's generated ``block``) and ports the ledger's
fit rule. Here node runs the JS on a dense grid plus a seeded random sample of settings, and every answer must equal
Python's exactly. sram.js's split (shared memory, registers) and footprint.js's memory and traffic limit are held to
sums by hand and to the Python."""

import inspect
import itertools
import random
import re

import numpy as np
import pytest
from explorer_node import run_js

from kernelviz.attention import SramBudgetError, flash_attention_2, formulas
from kernelviz.attention.js_port import RENAMED
from kernelviz.cuda import kernels
from kernelviz.glossary import OLD

CALLS = """
const mods = { ...(await load('formulas')), ...(await load('sram')), ...(await load('footprint')) };
console.log(JSON.stringify(input.map(([fn, args]) => mods[fn](...args))));
"""


def run_calls(calls):
    """[(function name, [args])] -> the JS results, in one node process."""
    return run_js(CALLS, calls)


def settings():
    """A dense grid of small and ragged sizes, the explorer's own sizes, and a seeded random sample."""
    grid = list(
        itertools.product(
            [1, 7, 64, 100, 256, 1000],  # N
            [None, 1, 50, 64, 300],  # N_kv
            [16, 64],  # d
            [1, 16, 48, 64],  # Br
            [1, 16, 40, 128],  # Bc
            [False, True],  # causal
            [2, 4],  # itemsize
            [1, 3],  # batch_heads
        )
    )
    explorer = list(
        itertools.product(
            [64, 96, 4096, 131072], [None], [32, 128, 256], [16, 256], [16, 64], [False, True], [2, 4], [1]
        )
    )
    rng = random.Random(8)
    sample = [
        (
            rng.randint(1, 5000),
            rng.choice([None, rng.randint(1, 5000)]),
            rng.randint(1, 300),
            rng.randint(1, 300),
            rng.randint(1, 300),
            rng.random() < 0.5,
            rng.choice([2, 4]),
            rng.randint(1, 8),
        )
        for _ in range(300)
    ]
    return grid + explorer + sample


def calls_for(N, N_kv, d, Br, Bc, causal, s, h):
    tr = formulas.cdiv(N, Br)
    return [
        ("cdiv", [N, Br]),
        ("tiles_visited", [0, N, Br, Bc, N_kv, causal]),
        ("tiles_visited", [tr - 1, N, Br, Bc, N_kv, causal]),
        ("tiles_visited", [tr // 2, N, Br, Bc, N_kv, causal]),
        ("tile_interactions", [N, Br, Bc, N_kv, causal]),
        ("kv_rows_read", [N, Br, Bc, N_kv, causal]),
        ("rows_seeing", [N, Br, Bc, N_kv, causal]),
        ("score_matrix_bytes", [N, N_kv, s, h]),
        ("compulsory", [N, d, N_kv, s, h]),
        ("standard", [N, d, Br, Bc, N_kv, causal, s, h]),
        ("fa2", [N, d, Br, Bc, N_kv, causal, s, h]),
    ]


def test_every_formula_matches_python_on_many_settings():
    calls = [c for setting in settings() for c in calls_for(*setting)]
    assert len(calls) > 10_000
    js = run_calls(calls)
    mismatches = []
    for (fn, args), got in zip(calls, js, strict=True):
        want = getattr(formulas, fn)(*args)
        if got != want:
            mismatches.append((fn, args, want, got))
    assert mismatches == [], f"{len(mismatches)} mismatches, first: {mismatches[:3]}"


def test_total_matches_python():
    counts = [formulas.fa2(100, 64, 16, 40, None, True, 2, 3), formulas.standard(4096, 128, 64, 64)]
    assert run_calls([("total", [c]) for c in counts]) == [formulas.total(c) for c in counts]


def test_defaults_match_python():
    # Omitted trailing arguments take Python's keyword defaults (N_kv = N, causal False, itemsize 4, one head).
    js = run_calls([("standard", [512, 64, 64, 32]), ("fa2", [512, 64, 64, 32]), ("compulsory", [512, 64])])
    assert js == [formulas.standard(512, 64, 64, 32), formulas.fa2(512, 64, 64, 32), formulas.compulsory(512, 64)]


SIGNATURES = r"""
const mods = await load('formulas');
const params = (f) => f.toString().match(/^function\s*\w*\s*\(([^)]*)\)/)[1].split(',').map((p) => p.trim());
console.log(JSON.stringify(Object.entries(mods).map(([n, v]) => [n, typeof v === 'function' ? params(v) : v])));
"""
PYTHON_DEFAULT = {"null": None, "false": False, "true": True}


def test_every_export_is_pythons_with_the_same_parameters_and_defaults():
    """The port exports only functions and constants of formulas.py, each function with Python's parameters in
    Python's order and its defaults (None is null), so a change to one side that the other lacks fails here even
    before the grid above reaches it; and every function it exports is one the grid compares. A Python keyword the
    glossary keeps only as API (``n_splits``) has the book's name in JS (``splits``): js_port.RENAMED, each an old
    name of glossary.OLD."""
    book_name = RENAMED
    assert all(OLD[old] == new for old, new in RENAMED.items())
    compared = {fn for fn, _ in calls_for(100, None, 64, 16, 40, True, 2, 3)} | {"total", "rw"}
    # the algorithms only the kernel pages' roofline calls: compared in tests/roofline/test_roofline_js.py
    compared |= {"fa1", "q_rows_read", "fa2_backward", "standard_backward", "flash_decoding", "paged_decoding"}
    for name, js in run_js(SIGNATURES, None):
        python = getattr(formulas, name, None)
        assert python is not None, f"formulas.js exports {name}, which formulas.py lacks"
        if not isinstance(js, list):
            assert js == python, name
            continue
        assert name in compared, f"formulas.js exports {name}, which no test here compares with Python"
        want = [
            book_name.get(p.name, p.name)
            if p.default is p.empty
            else f"{book_name.get(p.name, p.name)} = {p.default!r}"
            for p in inspect.signature(python).parameters.values()
        ]
        got = []
        for p in js:
            left, eq, right = p.partition(" = ")
            got.append(
                f"{left} = {PYTHON_DEFAULT.get(right, right)!r}".replace("'", "").replace('"', "") if eq else left
            )
        assert got == [w.replace("'", "") for w in want], name


DTYPE_BYTES = {"float32": 4, "float16": 2}


def fa2_ledger_sram(Br, Bc, d, dtype, budget=None):
    """The SRAM tiles flash_attention_2 declares for one block (tiny inputs: only Br, Bc, d, dtype matter)."""
    x = np.ones((1, 3, d), np.float32)
    return flash_attention_2(x, x, x, Br=Br, Bc=Bc, dtype=dtype, sram_budget=budget).ledger.sram["fa2"]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_sram_tiles_match_the_fa2_ledger(dtype):
    shapes = list(itertools.product([1, 16, 64, 128, 256], [16, 48, 128], [32, 64, 96, 256]))
    js = run_calls([("blockTiles", [Br, Bc, d, DTYPE_BYTES[dtype]]) for Br, d, Bc in shapes])
    for (Br, d, Bc), got in zip(shapes, js, strict=True):
        want = fa2_ledger_sram(Br, Bc, d, dtype)
        assert list(got.items()) == list(want.items()), (Br, Bc, d, dtype)  # same tiles, same order


@pytest.mark.parametrize("budget_kib", [8, 24, 48, 100, 163, 227])
def test_the_tile_that_does_not_fit_matches_the_ledger(budget_kib):
    budget = budget_kib * 1024
    shapes = list(itertools.product([16, 64, 128, 256], [32, 128, 256], [64, 128], ["float32", "float16"]))
    tiles = [fa2_ledger_sram(Br, Bc, d, dt) for Br, Bc, d, dt in shapes]
    js = run_calls([("sram_fit", [t, budget]) for t in tiles])
    seen_over = 0
    for (Br, Bc, d, dt), got in zip(shapes, js, strict=True):
        try:
            fa2_ledger_sram(Br, Bc, d, dt, budget)
        except SramBudgetError as e:
            named = re.findall(r"(\w+) \(\d+ B\)", str(e).split("do not:")[1])
            assert not got["fits"] and got["over"] == named, (Br, Bc, d, dt, str(e))
            seen_over += 1
        else:
            assert got["fits"] and got["over"] == [], (Br, Bc, d, dt)
    if budget_kib <= 48:
        assert seen_over > 0  # the small budgets exercise the error path


SPLIT_SHAPES = list(itertools.product([16, 64, 128], [16, 64, 256], [32, 64, 128], [2, 4]))  # Br, Bc, d, itemsize


def test_the_split_puts_q_k_v_in_shared_memory_and_the_rest_in_registers():
    js = run_calls([("blockSplit", [Br, Bc, d, s]) for Br, Bc, d, s in SPLIT_SHAPES])
    for (Br, Bc, d, s), got in zip(SPLIT_SHAPES, js, strict=True):
        assert list(got["shared"]) == ["Qi", "Kj", "Vj"]
        assert list(got["registers"]) == ["Sij", "Oi", "mi", "li"]
        assert sum(got["shared"].values()) == (Br + 2 * Bc) * d * s  # the tiles in the storage dtype
        assert sum(got["registers"].values()) == 4 * (Br * Bc + Br * d + 2 * Br)  # float32 accumulators, m, l
        ledger = fa2_ledger_sram(Br, Bc, d, "float16" if s == 2 else "float32")
        assert {**got["shared"], **got["registers"]} == ledger  # the same tiles as the teaching model, split


def test_the_tensor_core_kernel_declares_the_shared_tiles_padded_by_8_elements_a_row():
    # At the overview's sizes (d = 64, 64 x 64 tiles, float16): Q, K, V tiles 3 * 64 * 64 * 2 = 24,576 bytes; the
    # kernel pads each of their 64 + 2 * 64 rows by 8 elements of 2 bytes: 27,648 bytes.
    (got,) = run_calls([("blockSplit", [64, 64, 64, 2])])
    assert sum(got["shared"].values()) == 3 * 64 * 64 * 2 == 24576
    assert sum(got["registers"].values()) == 64 * 64 * 4 + 64 * 64 * 4 + 2 * 64 * 4 == 33280
    declared = kernels.shared_memory("fa2-mma", dict(N=64, d=64, Br=64, Bc=64))["fa2_mma"]
    assert declared == 24576 + (64 + 2 * 64) * 8 * 2 == 27648


FOOTPRINT_SHAPES = [(64, 32, 4), (1000, 64, 2), (4096, 64, 2), (131072, 64, 2), (131072, 256, 4)]


def test_the_memory_each_allocates_grows_apart_with_n():
    js = run_calls([("hbm_footprint", [N, d, s]) for N, d, s in FOOTPRINT_SHAPES])
    for (N, d, s), got in zip(FOOTPRINT_SHAPES, js, strict=True):
        tensors = formulas.total(formulas.compulsory(N, d, itemsize=s))  # Q, K, V read once, O written once: 4 N d s
        assert tensors == 4 * N * d * s
        assert got == {"standard": tensors + 2 * formulas.score_matrix_bytes(N, itemsize=s), "fa2": tensors + 4 * N}
    # 128K tokens, d = 64, float16: Q, K, V, O 64 MiB; S and P 32 GiB each
    assert js[3] == {"standard": 64 * 2**20 + 64 * 2**30, "fa2": 64 * 2**20 + 512 * 2**10}
    ratios = [got["standard"] / got["fa2"] for got in js[1:4]]
    assert ratios == sorted(ratios) and ratios[-1] > 500  # d = 64: grows with N


@pytest.mark.parametrize("causal", [False, True])
def test_the_traffic_ratio_tends_to_a_constant(causal):
    shapes = [(64, 64, 64), (128, 32, 64), (16, 128, 256), (32, 256, 96)]  # Br, Bc, d
    js = run_calls([("traffic_ratio_limit", [Br, d, causal]) for Br, Bc, d in shapes])
    for (Br, Bc, d), limit in zip(shapes, js, strict=True):

        def moved(N, Br=Br, Bc=Bc, d=d):
            std = formulas.total(formulas.standard(N, d, Br, Bc, causal=causal, itemsize=2))
            return std / formulas.total(formulas.fa2(N, d, Br, Bc, causal=causal, itemsize=2))

        near = [moved(N) for N in (4096, 32768, 2**20)]
        assert near == sorted(near), (Br, Bc, d)  # it rises towards the limit
        assert abs(near[-1] - limit) < 1e-3 * limit, (Br, Bc, d, near, limit)
        assert abs(moved(512) - limit) < 0.45 * limit  # and is near it already at N = 512, not growing with N
