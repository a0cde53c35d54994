"""figlib.sizes: the kernel's sizes are its defaults, overridden by what the runner was given (contract D)."""

from kernelviz.runner import Source, run

KERNEL = "from kernelviz.figlib import sizes\nN, Br, Bc = sizes(N=8, Br=4, Bc=4)\nprint(N, Br, Bc)\n"


def test_defaults_without_sizes_and_overrides_with_them():
    result = run([KERNEL])
    assert result.ok and result.stdout == "8 4 4\n" and result.sizes == {"N": 8, "Br": 4, "Bc": 4}
    result = run([KERNEL], sizes={"N": 13, "Bc": 2})
    assert result.ok and result.stdout == "13 4 2\n" and result.sizes == {"N": 13, "Br": 4, "Bc": 2}


def test_each_run_forgets_the_last_runs_sizes():
    assert run([KERNEL], sizes={"N": 3}).stdout == "3 4 4\n"
    assert run([KERNEL]).stdout == "8 4 4\n"
    assert run(["x = 1"]).sizes == {}


def test_a_size_the_kernel_does_not_name_is_an_error_at_its_line():
    result = run([Source("x = 1\n", "helpers"), Source(KERNEL, "kernel", first_line=30)], sizes={"splits": 3})
    err = result.error
    assert (err.editor, err.line, err.file_line, err.kind) == (1, 2, 31, "ValueError")
    assert err.message == "sizes: the runner was given splits=3, but this kernel's sizes are N, Br, Bc"


def test_bad_sizes_are_errors_naming_them():
    err = run([KERNEL], sizes={"N": 0}).error
    assert err.line == 2 and err.message == "sizes (given to the runner): N must be a whole number at least 1, got 0"
    err = run([KERNEL], sizes={"Br": "4"}).error
    assert "Br must be a whole number at least 1, got '4'" in err.message
    err = run(["from kernelviz.figlib import sizes\nsizes(N=2.5)"]).error
    assert err.message == "sizes: N must be a whole number at least 1, got 2.5"
    err = run(["from kernelviz.figlib import sizes\nsizes()"]).error
    assert err.kind == "TypeError" and "name at least one size" in err.message


def test_an_old_size_name_works_with_a_warning_naming_the_new_one():
    """kernelviz.glossary: n_splits is now splits, in the kernel's sizes() and in what the runner is given."""
    old = "from kernelviz.figlib import sizes\nN, s = sizes(N=8, n_splits=2)\nprint(N, s)\n"
    result = run([old], sizes={"N": 5})
    assert result.ok and result.stdout == "5 2\n" and result.sizes == {"N": 5, "splits": 2}
    assert "sizes: n_splits is now called splits" in result.stderr
    result = run(["from kernelviz.figlib import sizes\nprint(*sizes(N=8, splits=2))\n"], sizes={"n_splits": 3})
    assert result.ok and result.stdout == "8 3\n" and result.sizes == {"N": 8, "splits": 3}
    assert "sizes (given to the runner): n_splits is now called splits" in result.stderr


def test_split_tiles_is_the_partition_of_the_ledger_and_of_the_kernel():
    """One partition of the K/V tiles everywhere (issue 32): the figure library's, the NumPy ledger's and the CUDA
    host's tiles_per_split (flash-attn's n_blocks_per_split) agree for every tile count and split count to 12; the
    ranges cover the tiles in order, each ceil(tiles / splits) long but the trailing ones (which may be empty)."""
    from kernelviz.attention.flash_decoding import split_tiles as ledger_split_tiles
    from kernelviz.cuda.kernels import tiles_per_split
    from kernelviz.figlib import split_tiles

    for tiles in range(1, 13):
        for splits in range(1, 13):
            owned = split_tiles(tiles, splits)
            assert owned == ledger_split_tiles(tiles, splits)
            per = tiles_per_split(tiles * 4, 4, splits)
            assert [list(r) for r in owned] == [list(range(tiles))[s * per : (s + 1) * per] for s in range(splits)]
    assert [list(r) for r in split_tiles(4, 3)] == [[0, 1], [2, 3], []]
    assert [list(r) for r in split_tiles(7, 3)] == [[0, 1, 2], [3, 4, 5], [6]]


def test_a_size_whose_default_is_0_may_be_0_and_only_it():
    switch = "from kernelviz.figlib import sizes\nN, causal = sizes(N=8, causal=0)\nprint(N, causal)"
    assert run([switch], sizes={"causal": 0}).stdout == "8 0\n"
    assert run([switch], sizes={"causal": 1}).stdout == "8 1\n"
    err = run([switch], sizes={"causal": -1}).error
    assert err.message == "sizes (given to the runner): causal must be a whole number at least 0, got -1"
    err = run([switch], sizes={"N": 0}).error
    assert err.message == "sizes (given to the runner): N must be a whole number at least 1, got 0"


def test_a_size_whose_default_is_another_size_takes_its_value_unless_given():
    tie = "from kernelviz.figlib import sizes\nN, N_kv, Bc = sizes(N=8, N_kv='N', Bc=4)\nprint(N, N_kv, Bc)"
    result = run([tie])
    assert result.stdout == "8 8 4\n" and result.sizes == {"N": 8, "N_kv": 8, "Bc": 4}
    assert result.tied == {"N_kv": "N"}
    assert run([tie], sizes={"N": 12}).stdout == "12 12 4\n"  # N given alone: N_kv follows it
    assert run([tie], sizes={"N": 12, "N_kv": 5}).stdout == "12 5 4\n"
    assert run([KERNEL]).tied == {}  # and the next run forgets it
    err = run([tie], sizes={"N_kv": 0}).error
    assert err.message == "sizes (given to the runner): N_kv must be a whole number at least 1, got 0"


def test_a_default_naming_no_size_before_it_is_an_error_naming_them():
    err = run(["from kernelviz.figlib import sizes\nsizes(N_kv='N', N=8)"]).error
    assert (
        err.message
        == "sizes: N_kv='N' must name a size given a number before it (none here), e.g. sizes(N=8, N_kv='N')"
    )
    err = run(["from kernelviz.figlib import sizes\nsizes(N=8, Bc=4, N_kv='M')"]).error
    assert "N_kv='M' must name a size given a number before it (N, Bc)" in err.message
