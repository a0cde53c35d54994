"""attention.run: one run by name on random inputs (the CLI's and the pages' {{ trace }}), and Ledger.numbers."""

import numpy as np
import pytest

from kernelviz.attention import formulas, online_softmax_output, run


def test_a_run_is_the_algorithm_on_the_seeded_inputs():
    done = run("flash-decoding", N=1, N_kv=16, d=4, Br=1, Bc=4, splits=2, batch_heads=3, seed=7)
    rng = np.random.default_rng(7)  # q, then k, then v, as the module docstring says
    q, k, v = (rng.standard_normal(s) for s in [(3, 1, 4), (3, 16, 4), (3, 16, 4)])
    for name, x in zip("qkv", (q, k, v), strict=True):
        np.testing.assert_array_equal(done.inputs[name], x)
    fd = formulas.flash_decoding(1, 4, 1, 4, 2, N_kv=16, batch_heads=3)
    assert done.result.ledger.total_bytes == formulas.total(fd)
    assert done.sizes == {"N_kv": 16, "batch_heads": 3, "causal": False, "N": 1, "d": 4, "Br": 1, "Bc": 4, "splits": 2}
    assert done.counts == {"Tr": 1, "Tc": 4}


def test_a_softmax_run():
    done = run("online-softmax-output", N=10, Bc=4, d=2)
    rng = np.random.default_rng(0)
    x, v = rng.standard_normal((1, 10)), rng.standard_normal((10, 2))
    np.testing.assert_array_equal(done.inputs["x"], x)
    np.testing.assert_array_equal(done.inputs["v"], v)
    np.testing.assert_allclose(done.result.out, online_softmax_output(x, v, b=4).out)
    assert done.counts == {"T": 3} and done.sizes["rows"] == 1


@pytest.mark.parametrize(
    ("algo", "sizes", "message"),
    [
        (
            "fa4",
            {"N": 8, "d": 4},
            "algo must be one of standard, fa1, fa2, flash-decoding, fa2-backward, standard-backward, fa2-mma, "
            "fa2-pipe, fa3, paged-decoding",
        ),
        ("fa2", {"N": 8, "d": 4, "Br": 4}, "missing Bc"),
        ("fa2", {"N": 8, "d": 4, "Br": 4, "Bc": 4, "splits": 2}, "splits is a flash-decoding size"),
        ("fa2", {"N": 0, "d": 4, "Br": 4, "Bc": 4}, "N must be at least 1, got 0"),
        ("fa2", {"N": 8, "d": 4, "Br": 4, "Bc": True}, "Bc must be int, got True"),
        ("fa2", {"N": 8, "d": 4, "Br": 4, "Bc": 4, "Bq": 4}, "unknown size 'Bq'"),
        ("safe-softmax", {"N": 8}, "missing Bc"),
        ("online-softmax-output", {"N": 8, "Bc": 4}, "missing d"),
    ],
)
def test_bad_sizes_are_named(algo, sizes, message):
    with pytest.raises(ValueError, match=message):
        run(algo, **sizes)


def test_ledger_numbers_are_the_closed_forms():
    N, d, Br, Bc = 16, 4, 4, 8
    numbers = run("fa2", N=N, d=d, Br=Br, Bc=Bc).result.ledger.numbers()
    fa2, tensor = formulas.fa2(N, d, Br, Bc), N * d * 4
    assert numbers["reads"]["K"] == fa2["K"]["read"] / tensor == N // Br  # K once per block of Q rows
    assert numbers["writes"]["O"] == 1 and numbers["reads"]["O"] == 0
    assert numbers["loads"]["K"] == (N // Br) * (N // Bc) and numbers["stores"]["O"] == N // Br
    assert numbers["read_bytes"]["V"] == fa2["V"]["read"] and numbers["write_bytes"]["L"] == fa2["L"]["write"]
    assert numbers["bytes"]["total"] == formulas.total(fa2)
    assert numbers["bytes"]["read"] + numbers["bytes"]["write"] == numbers["bytes"]["total"]
    assert numbers["bytes"]["Q"] == tensor
    assert numbers["peak_sram"] == 4 * (2 * Br * d + 2 * Bc * d + Br * Bc + 2 * Br)  # FA2's __shared__ tiles


def test_old_size_names_work_with_a_warning_naming_the_new_one():
    with pytest.warns(FutureWarning, match="attention.run: n_splits is now called splits"):
        done = run("flash-decoding", N=1, N_kv=16, d=4, Br=1, Bc=4, n_splits=2)
    assert done.sizes["splits"] == 2 and "n_splits" not in done.sizes
    with pytest.warns(FutureWarning, match="attention.run: b is now called Bc"):
        assert run("safe-softmax", N=8, b=4).counts == {"T": 2}
    with pytest.raises(ValueError, match="splits is given twice"):
        run("flash-decoding", N=1, N_kv=16, d=4, Br=1, Bc=4, n_splits=2, splits=2)
