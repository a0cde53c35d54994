"""FA2 on tensor cores (attention.fa2_mma): its output against the fp64 reference within the error its 16-bit
roundings allow, FA2's HBM ledger exactly, and its shared-memory traffic equal to formulas.fa2_mma_shared."""

import json

import numpy as np
import pytest
from attention_cases import SIZES, qkv

from kernelviz.attention import (
    FLOP_FORMULAS,
    FORMULAS,
    attention_fp64,
    closed_form,
    flash_attention_2,
    flash_attention_2_mma,
    flops,
    formulas,
    half,
    run,
)
from kernelviz.cli import main

CODE = {"float16": "fp16", "bfloat16": "bf16"}


def stored(x, dtype):
    """The inputs as the algorithm reads them, in float32: float16 cast by NumPy as every algorithm casts (float64 to
    float16 directly: rounding through float32 first differs in a rare tie), bfloat16 rounded from float32."""
    return np.asarray(x).astype(np.float16).astype(np.float32) if dtype == "float16" else half.round(x, "bf16")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize(
    "n, n_kv, d, Br, Bc, warps, causal",
    [
        (37, 37, 16, 8, 8, 2, True),
        (64, 64, 64, 64, 64, 4, False),
        (50, 90, 8, 12, 16, 4, True),
        (90, 50, 8, 6, 7, 3, True),  # N > N_kv: rows 0..39 see no key
        (1, 100, 32, 4, 32, 1, False),
        (30, 30, 8, 5, 4, 2, False),  # warps of 3 and 2 rows
        (9, 12, 8, 3, 4, 4, True),  # warps of 1 row, the last with none
    ],
)
def test_within_the_error_of_its_roundings(dtype, n, n_kv, d, Br, Bc, warps, causal):
    """Against attention_fp64 on the rounded inputs, only two roundings differ: P~ to 16 bits before P~ V, and
    O to 16 bits. With u the unit roundoff (fp16 2^-11, bf16 2^-8) and M = max over rows of sum_j p_j |v_j| (the
    output of attention on |V|), each moves a row by at most u M: P~'s by sum_j |p~_j - p_j| |v_j| / l <= u M
    (l is summed from the unrounded P, as the kernel does), O's by u |o| <= u M. fp16's subnormals (P < 2^-14)
    round absolutely, by at most 2^-25 each, so N_kv 2^-25 max|V| more; float32 arithmetic adds about 1e-6 M.
    The log-sum-exp is float32 from unrounded P: 1e-5 as for FA2."""
    q, k, v = qkv(2, n, d, n_kv, seed=n + d)
    q16, k16, v16 = (stored(x, dtype) for x in (q, k, v))
    o_ref, lse_ref = attention_fp64(q16, k16, v16, causal=causal)
    magnitude = np.abs(attention_fp64(q16, k16, np.abs(v16), causal=causal)[0]).max()
    u = half.UNIT_ROUNDOFF[CODE[dtype]]
    subnormal = n_kv * 2.0**-25 * np.abs(v16).max() if dtype == "float16" else 0.0
    r = flash_attention_2_mma(q, k, v, Br=Br, Bc=Bc, warps=warps, causal=causal, dtype=dtype)
    assert r.o.dtype == (np.float16 if dtype == "float16" else np.float32)
    assert np.array_equal(stored(r.o, dtype), r.o.astype(np.float32))  # O is stored in the 16-bit type
    err = np.abs(r.o.astype(np.float64) - o_ref).max()
    assert err <= (2 * u + 1e-5) * magnitude + subnormal
    finite = np.isfinite(lse_ref)
    assert np.array_equal(np.isneginf(r.lse), ~finite)
    np.testing.assert_allclose(r.lse[finite], lse_ref[finite], rtol=1e-5, atol=1e-5)
    if not finite.all():
        assert np.all(r.o[~finite] == 0)
    assert err > 0  # the roundings are real: a float32 P V would be exact to 1e-6


def test_rounding_p_is_what_moves_it_off_fa2():
    """With P~ kept in float32 the same loops give FA2's float32 output on the rounded inputs, to float32's error:
    the per-warp split changes nothing, the rounding of P~ and O is the whole difference."""
    q, k, v = qkv(1, 40, 16, 40, seed=4)
    q16, k16, v16 = (stored(x, "float16") for x in (q, k, v))
    fa2 = flash_attention_2(q16, k16, v16, Br=8, Bc=8, causal=True).o
    mma = flash_attention_2_mma(q, k, v, Br=8, Bc=8, warps=4, causal=True)
    assert np.abs(mma.o - fa2).max() <= 2 * 2.0**-11 * np.abs(v16).max()
    assert np.abs(mma.o - fa2).max() > 1e-5  # ... and it is a 16-bit error, not float32's


def grid():
    """The closed forms' sizes (attention_cases.SIZES) at 1, 2 and 4 warps of Br rows each, and 3 warps of a block
    of 2 Br + 1 rows (the last warp fewer), causal or not."""
    for n, n_kv, d, Br, Bc in SIZES:
        for causal in (False, True):
            for warps in (1, 2, 4):
                yield n, n_kv, d, Br * warps, Bc, warps, causal
            yield n, n_kv, d, 2 * Br + 1, Bc, 3, causal


@pytest.mark.parametrize("n, n_kv, d, Br, Bc, warps, causal", list(grid()))
def test_ledgers_meet_the_closed_forms(n, n_kv, d, Br, Bc, warps, causal):
    """HBM: FA2's ledger at float16, transfer by transfer, and formulas.fa2; FLOPs: flops.fa2 (rounding is a cast);
    shared memory: formulas.fa2_mma_shared, with P in registers and through SRAM."""
    q, k, v = qkv(2, n, d, n_kv, seed=1)
    sizes = dict(N_kv=n_kv, causal=causal, batch_heads=2)
    fa2 = flash_attention_2(q, k, v, Br=Br, Bc=Bc, causal=causal, dtype="float16").ledger
    for p_in_shared in (False, True):
        r = flash_attention_2_mma(q, k, v, Br=Br, Bc=Bc, warps=warps, causal=causal, p_in_shared=p_in_shared)
        ledger = r.ledger
        assert ledger.transfers == [t._replace(kernel="fa2_mma") for t in fa2.transfers]
        assert ledger.per_tensor == fa2.per_tensor == FORMULAS["fa2-mma"](n, d, Br, Bc, itemsize=2, **sizes)
        assert ledger.flops.by_kind == FLOP_FORMULAS["fa2-mma"](n, d, Br, Bc, **sizes) == fa2.flops.by_kind
        expected = formulas.fa2_mma_shared(n, d, Br, Bc, warps=warps, p_in_shared=p_in_shared, **sizes)
        assert ledger.smem_bytes == expected


def test_p_in_shared_adds_exactly_the_p_round_trip():
    n, d, Br, Bc, bh = 45, 16, 16, 8, 3
    q, k, v = qkv(bh, n, d, seed=2)
    kept, sent = (flash_attention_2_mma(q, k, v, Br=Br, Bc=Bc, causal=True, p_in_shared=p) for p in (False, True))
    a, b = kept.ledger.numbers()["shared"], sent.ledger.numbers()["shared"]
    visited = sum(kept.ledger.tile_counts("K", bh=None).values())  # K/V tiles visited, all heads
    assert visited == bh * sum(formulas.tiles_visited(i, n, Br, Bc, causal=True) for i in range(3))
    assert a["P"] == 0 and b["P"] == 2 * visited * Br * Bc * 2
    assert b["total"] - a["total"] == b["P"] and b["store"] - a["store"] == b["load"] - a["load"] == b["P"] // 2
    assert {t: a[t] for t in "QKV"} == {t: b[t] for t in "QKV"}
    assert np.array_equal(kept.o, sent.o) and np.array_equal(kept.lse, sent.lse)  # P~ is 16-bit either way
    assert "P" not in kept.ledger.sram["fa2_mma"] and sent.ledger.sram["fa2_mma"]["P"] == Br * Bc * 2
    assert kept.ledger.numbers()["bytes"] == sent.ledger.numbers()["bytes"]  # HBM: the same


def test_the_shared_numbers_are_counted_by_hand():
    """N = 8, d = 4, Br = Bc = 4, 2 warps, fp16: 2 blocks, each storing and loading Qi (4·4·2 = 32 B); 4 tile
    visits, each storing Kj and Vj (32 B) and 2 warps loading each (64 B)."""
    numbers = run("fa2-mma", N=8, d=4, Br=4, Bc=4, warps=2).result.ledger.numbers()["shared"]
    assert numbers == {"Q": 128, "K": 384, "V": 384, "P": 0, "total": 896, "store": 320, "load": 576}
    assert "shared" not in run("standard", N=8, d=4, Br=4, Bc=4).result.ledger.numbers()  # uncounted: unnamed
    assert "shared" not in run("standard", N=8, d=4, Br=4, Bc=4).result.ledger.summary()


def test_closed_form_gives_the_ledgers_numbers():
    spec = dict(N=30, N_kv=21, d=8, Br=8, Bc=4, warps=2, causal=True, batch_heads=2, p_in_shared=True)
    ran, closed = run("fa2-mma", **spec).result.ledger.numbers(), closed_form("fa2-mma", **spec)
    assert closed["shared"] == ran["shared"] and closed["bytes"] == ran["bytes"] and closed["flops"] == ran["flops"]
    assert closed_form("fa2-mma", **spec, dtype="bfloat16")["shared"] == ran["shared"]  # 2 bytes an element too


@pytest.mark.parametrize(
    "call, message",
    [
        (dict(dtype="float32"), r"float16 or bfloat16 \(tensor cores' mma.m16n8k16 takes 16-bit operands\)"),
        (dict(warps=0), r"warps: expected a positive integer"),
    ],
)
def test_bad_arguments_are_named(call, message):
    q, k, v = qkv(1, 8, 4)
    with pytest.raises(ValueError, match=message):
        flash_attention_2_mma(q, k, v, **{"Br": 8, "Bc": 4, **call})


def test_runs_route_its_options_and_dtypes():
    assert run("fa2-mma", N=8, d=4, Br=4, Bc=4).result.params["dtype"] == "float16"  # its default
    assert run("fa2-mma", N=8, d=4, Br=4, Bc=4).sizes["warps"] == 4
    with pytest.raises(ValueError, match="warps: fa2-mma's .*, not fa2's"):
        run("fa2", N=8, d=4, Br=4, Bc=4, warps=2)
    with pytest.raises(ValueError, match="dtype: fa2 takes float32 or float16, not bfloat16; bfloat16 is fa2-mma's"):
        run("fa2", N=8, d=4, Br=4, Bc=4, dtype="bfloat16")
    with pytest.raises(ValueError, match="dtype: fa2-mma takes float16 or bfloat16 .*, not float32"):
        run("fa2-mma", N=8, d=4, Br=4, Bc=4, dtype="float32")


def trace(capsys, *argv):
    code = main(["trace", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_cli_reports_shared_traffic(capsys):
    code, out, _ = trace(capsys, "fa2-mma", "--N", "40", "--d", "8", "--Br", "8", "--Bc", "16", "--warps", "2",
                         "--causal", "--p-in-shared", "--dtype", "bfloat16", "--json")  # fmt: skip
    assert code == 0
    report = json.loads(out)
    expected = formulas.fa2_mma_shared(40, 8, 8, 16, warps=2, causal=True, p_in_shared=True)
    assert report["shared"]["per_tensor"] == expected
    assert report["shared"]["total"] == sum(sl["store"] + sl["load"] for sl in expected.values())
    assert report["params"]["dtype"] == "bfloat16" and report["params"]["warps"] == 2
    assert report["total_bytes"] == formulas.total(formulas.fa2(40, 8, 8, 16, causal=True, itemsize=2))
    code, out, _ = trace(capsys, "fa2-mma", "--N", "40", "--d", "8")  # the table, float16 by default
    assert code == 0 and "dtype=float16" in out and "(P stays in registers)" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["fa2", "--dtype", "bfloat16"], "dtype: fa2 takes float32 or float16, not bfloat16"),
        (["fa2-mma", "--dtype", "float32"], "16-bit operands"),
        (["fa2", "--warps", "2"], "--warps: fa2-mma's options"),
        (["standard", "--p-in-shared"], "--p-in-shared: fa2-mma's options"),
    ],
)
def test_the_cli_refuses_what_does_not_go_together(capsys, argv, message):
    code, _, err = trace(capsys, *argv[:1], "--N", "8", "--d", "4", *argv[1:])
    assert code == 2 and message in err


def test_its_flops_are_fa2s():
    assert FLOP_FORMULAS["fa2-mma"] is flops.fa2 and FORMULAS["fa2-mma"] is formulas.fa2
