"""paged_decoding.cu on the CPU shim against paged_attention_fp64, on the cases the NumPy algorithm is checked on:
pages scattered through the pool and shared between sequences, lengths not multiples of the page, a sequence of
one token, groups of g = 1, 2, 4, 8 query heads, one split or several (some empty)."""

import subprocess
from pathlib import Path

import numpy as np
import pytest
from cuda_cases import TOL, needs_gxx, rel_err

from kernelviz.attention import paged_attention_fp64, paged_decoding, random_batch
from kernelviz.cuda import cpu, kernels

pytestmark = needs_gxx

CASES = [  # (seq_lens, page_size, g, H_kv, n_splits, d)
    ([5, 17, 9], 4, 4, 2, 1, 16),
    ([5, 17, 9], 4, 4, 2, 3, 16),
    ([1], 16, 1, 4, 1, 16),  # one token: one row of one page
    ([1, 40, 16], 16, 8, 1, 4, 16),  # multi-query; the one-token sequence has three empty splits
    ([33, 31], 8, 2, 2, 2, 32),
]


@pytest.mark.parametrize(("lens", "page_size", "g", "H_kv", "n_splits", "d"), CASES)
def test_matches_the_reference(lens, page_size, g, H_kv, n_splits, d):
    arrays = random_batch(lens, page_size, g * H_kv, H_kv, d, seed=g, shared_pages=1, spare_pages=3)
    out = cpu.run("paged_decoding", *arrays, n_splits=n_splits, threads=7)
    o = out["O"].reshape(arrays[0].shape)
    assert rel_err(o, paged_attention_fp64(*arrays)) <= TOL
    np.testing.assert_allclose(o, paged_decoding(*arrays, n_splits=n_splits).o, rtol=1e-5, atol=1e-6)
    assert out["O_partial"].shape == (len(lens) * g * H_kv, n_splits if n_splits > 1 else 0, d)


def test_padding_past_a_sequence_is_never_read():
    """The table's -1 entries past each sequence's pages, and the pool's pages no sequence uses, are untouched: a
    read of page -1 would reach the guard zone's NaN, and the spare pages are NaN here."""
    q, k_pages, v_pages, table, lens = random_batch([3, 20], 4, 2, 1, 16, spare_pages=2)
    used = set(table[table >= 0].tolist())
    for pool in (k_pages, v_pages):
        pool[[p for p in range(pool.shape[0]) if p not in used]] = np.nan
    assert (table == -1).any()
    out = cpu.run("paged_decoding", q, k_pages, v_pages, table, lens)
    expected = paged_attention_fp64(q, k_pages, v_pages, table, lens)
    assert rel_err(out["O"].reshape(q.shape), expected) <= TOL


def test_the_data_fixes_the_tiles_and_shapes_must_agree():
    arrays = random_batch([5], 4, 4, 2, 16)
    assert kernels.tiles_for("paged_decoding", arrays, 16) == (2, 4)  # G = 4 / 2, PAGE = 4
    with pytest.raises(ValueError, match=r"the inputs fix the tiles \(G, PAGE\) at \(2, 4\), not \(4, 16\)"):
        cpu.run("paged_decoding", *arrays, tiles=(4, 16))
    q, k, v, table, lens = arrays
    with pytest.raises(ValueError, match="K_pages .* and V_pages .* must be equal"):
        cpu.run("paged_decoding", q, k, v[:, :2], table, lens)
    with pytest.raises(ValueError, match="must have Q's 1 sequences"):
        cpu.run("paged_decoding", q, k, v, np.concatenate([table, table]), lens)
    with pytest.raises(ValueError, match="paged_decoding takes Q, K_pages, V_pages, block_table, seq_lens"):
        cpu.run("paged_decoding", q, k, v, table)


def test_plan_one_launch_for_one_split_two_for_more():
    assert [x.name for x in kernels.plan("paged_decoding", 6, 3, 64, (4, 16))] == ["paged_decode<4, 16, 64>"]
    launches = kernels.plan("paged_decoding", 6, 3, 64, (4, 16), n_splits=5)
    assert [(x.name, x.grid) for x in launches] == [("paged_decode<4, 16, 64>", (5, 6)), ("paged_combine<64>", (24,))]


# What the kernel would read, checked before it runs: before these checks, a length of 0 gave NaN (0/0), a page
# outside the pool read a guard zone (NaN), a length past the table's row read the next sequence's row (a finite,
# wrong answer), and a length of 2^32 + 5 was cast to int32's 5.
BAD = [  # (what to change, the message that names it)
    (lambda t, n: n.__setitem__(1, 0), r"seq_lens\[1\] = 0: sequence 1 must have at least 1 token"),
    (lambda t, n: n.__setitem__(0, -3), r"seq_lens\[0\] = -3: sequence 0 must have at least 1 token"),
    (lambda t, n: t.__setitem__((1, 2), 9), r"block_table\[1, 2\] = 9: page 2 of sequence 1 is not a page of the pool"),
    (lambda t, n: t.__setitem__((0, 0), -1), r"block_table\[0, 0\] = -1: page 0 of sequence 0 is not a page"),
    (lambda t, n: n.__setitem__(0, 13), r"seq_lens\[0\] = 13: sequence 0 needs 4 pages of 4 tokens, beyond its"),
    (lambda t, n: n.__setitem__(0, 2**32 + 5), r"seq_lens\[0\] = 4294967301: sequence 0 needs"),
]


def bad_batch(change):
    """A batch of two sequences (5 and 9 tokens, pages of 4: 2 and 3 pages, a table row of 3, a pool of 5 pages),
    with `change` applied to its table and lengths (as int64, so that a length past int32 can be planted)."""
    q, k, v, table, lens = random_batch([5, 9], 4, 2, 1, 16)
    assert k.shape[0] == 5 and table.shape == (2, 3)
    table, lens = table.astype(np.int64), lens.astype(np.int64)
    change(table, lens)
    return q, k, v, table, lens


@pytest.mark.parametrize(("change", "message"), BAD)
def test_each_bad_table_or_length_is_refused_by_name_on_the_shim(change, message):
    arrays = bad_batch(change)
    with pytest.raises(ValueError, match=message):
        cpu.run("paged_decoding", *arrays)
    with pytest.raises(ValueError, match=message):  # the NumPy algorithm: the same check, one source
        paged_decoding(*arrays)


def test_the_table_and_lengths_must_be_integers():
    q, k, v, table, lens = random_batch([5, 9], 4, 2, 1, 16)
    with pytest.raises(ValueError, match="seq_lens: expected integers, got dtype float64"):
        cpu.run("paged_decoding", q, k, v, table, lens + 0.5)
    with pytest.raises(ValueError, match="block_table: expected integers, got dtype float32"):
        cpu.run("paged_decoding", q, k, v, table.astype(np.float32), lens)


def fake_cupy(monkeypatch):
    """CuPy's few functions that launch.prepare calls before its first launch, stood in for by NumPy's, so that its
    checks run without a GPU (a device array's address: NumPy's)."""
    import sys
    import types

    from kernelviz.cuda import launch

    fake = types.SimpleNamespace(
        asarray=np.asarray, ascontiguousarray=np.ascontiguousarray, asnumpy=np.asarray, uint16=np.uint16
    )
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(launch, "device_address", cpu.address)
    monkeypatch.setattr(launch, "shared_limit", lambda: pytest.fail("launch.prepare went past its checks"))
    return launch


@pytest.mark.parametrize(("change", "message"), BAD[:3])
def test_the_gpu_launcher_makes_the_same_checks(monkeypatch, change, message):
    launch = fake_cupy(monkeypatch)
    with pytest.raises(ValueError, match=message):
        launch.prepare("paged_decoding", *bad_batch(change))


def misaligned(shape, by=2):
    """A float16 array of `shape` whose first element sits `by` bytes past a 16-byte boundary (a view into a larger
    buffer, as a slice of a tensor is)."""
    size = int(np.prod(shape))
    buffer = np.zeros(size + 16, np.float16)
    start = next(i for i in range(8) if (buffer.ctypes.data + 2 * i) % 16 == by)
    view = buffer[start : start + size].reshape(shape)
    assert view.ctypes.data % 16 == by
    return view


def test_fa2_mma_refuses_inputs_its_16_byte_loads_cannot_read(monkeypatch):
    """fa2_mma loads 16 bytes at a time (a uint4), which a GPU requires aligned to 16: a float16 view that starts
    2 bytes in would be read from the wrong address or fault. A CuPy float16 array passes to the kernel as it is
    (sixteen_bit views its bits without a copy), so the launcher checks the addresses; the shim runs the same check."""
    q, k, v = (np.zeros((1, 64, 16), np.float16) for _ in "qkv")
    k = misaligned(k.shape)
    at = k.ctypes.data
    with pytest.raises(ValueError, match=f"fa2_mma: K starts at address {at:#x}, 2 bytes past a 16-byte boundary"):
        kernels.check_inputs("fa2_mma", (q, k, v), (q, k, v), np.asarray, cpu.address)
    launch = fake_cupy(monkeypatch)
    with pytest.raises(ValueError, match=f"fa2_mma: K starts at address {at:#x}, 2 bytes past"):
        launch.prepare("fa2_mma", q, k, v)
    kernels.check_inputs("fa2_mma", (q, q, v), (q, q, v), np.asarray, cpu.address)  # aligned: passes


OFFSET_PROBE = Path(__file__).with_name("paged_offset_probe.cpp")


def pool_offsets(source, cases, tmp_path):
    """pool_offset(page, row, h, PAGE, H_kv, D) of paged_decoding.cu's text `source`, compiled on the CPU with the
    probe, for each case (-fwrapv: a 32-bit overflow wraps, as a GPU's does, instead of being undefined)."""
    cu, exe = tmp_path / "paged.cu", tmp_path / "probe"
    cu.write_text(source)
    command = [cpu.compiler(), *cpu.FLAGS, "-fwrapv", f"-I{cpu.HERE}", f'-DKV_FILE="{cu}"', str(OFFSET_PROBE)]
    done = subprocess.run([*command, "-o", str(exe)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    return [int(subprocess.run([exe, *map(str, c)], capture_output=True, check=True).stdout) for c in cases]


# (page, row, h, PAGE, H_kv, D): the pool's element index is ((page*PAGE + row)*H_kv + h)*D, worked in Python's
# integers; the last three pass 2^31 (a pool of 2^31 float32 elements is 8 GiB, so no test allocates one)
OFFSETS = [(3, 1, 1, 4, 2, 16), (2**20, 5, 3, 16, 8, 128), (2**23 - 1, 15, 7, 16, 8, 128), (2**30, 0, 0, 1, 1, 4)]


def test_the_pool_offset_is_64_bit(tmp_path):
    source = (kernels.FOLDER / "paged_decoding.cu").read_text()
    expected = [((page * size + row) * H_kv + h) * D for page, row, h, size, H_kv, D in OFFSETS]
    assert [x > 2**31 for x in expected] == [False, True, True, True]
    assert pool_offsets(source, OFFSETS, tmp_path) == expected


def test_a_32_bit_pool_offset_fails_the_test(tmp_path):
    """The planted bug: the offset in int, which wraps past 2^31 (every small pool of the other tests passes it)."""
    source = (kernels.FOLDER / "paged_decoding.cu").read_text()
    old = "return (((long)page*page_rows + row)*H_kv + h)*D;"
    assert source.count(old) == 1, "pool_offset's line is gone from paged_decoding.cu"
    planted = pool_offsets(source.replace(old, "return ((page*page_rows + row)*H_kv + h)*D;"), OFFSETS, tmp_path)
    expected = [((page * size + row) * H_kv + h) * D for page, row, h, size, H_kv, D in OFFSETS]
    assert planted[0] == expected[0] and planted[1:] != expected[1:]
