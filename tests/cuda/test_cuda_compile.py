"""nvcc compiles every kernel for its architectures (sm_80 and sm_90; fa3 for sm_90a), no GPU needed, and what ptxas
reports agrees with the host."""

import pytest
from cuda_cases import needs_nvcc

from kernelviz.cuda import compile, cpu, kernels

pytestmark = needs_nvcc


@pytest.fixture(scope="module")
def compiled():
    """{kernel: [Row]}: the three files compiled once, in parallel, for both architectures (cached by hash)."""
    return compile.compile_all()


def test_every_kernel_compiles_for_every_arch(compiled):
    for kernel in kernels.KERNELS:
        names = set(compile.instances(kernel))
        seen = {(r.kernel, r.arch) for r in compiled[kernel]}
        archs = kernels.archs(kernel)
        assert seen == {(name.replace(" ", "").replace(",", ", "), arch) for name in names for arch in archs}


def test_ptxas_shared_memory_is_what_the_host_computes(compiled):
    expected = {}
    for kernel in kernels.KERNELS:
        for d in kernels.head_dims(kernel, compile.HEAD_DIMS):
            for dtype in kernels.compiled_dtypes(kernel):
                for options in kernels.kernel(kernel).compiled_options:  # fa2_pipe: stages 2 and 1
                    for launch in kernels.plan(kernel, 1, 1, d, n_splits=2, dtype=dtype, **options):
                        expected[launch.name] = launch.shared_bytes
    rows = [r for found in compiled.values() for r in found]
    assert {r.kernel: r.shared_bytes for r in rows} == expected


def test_no_spills_and_under_the_limit(compiled):
    for row in (r for found in compiled.values() for r in found):
        assert row.spill_stores == row.spill_loads == 0, row
        assert row.shared_bytes <= kernels.STATIC_SHARED_LIMIT
        assert 0 < row.registers <= 255


def test_table_lists_every_row(compiled):
    text = compile.table(compiled["fa2"])
    assert text.splitlines()[0].split()[:3] == ["kernel", "arch", "registers"]
    assert "fa2<32, 32, 64>" in text and "sm_90" in text


def test_a_compile_error_names_the_file():
    broken = (kernels.FOLDER / "fa2.cu").read_text().replace("float m_new", "flot m_new", 1)
    with pytest.raises(RuntimeError, match=r"nvcc failed on fa2.cu"):
        compile.compile_file("fa2", archs=("sm_80",), source=broken)


def test_parse_ptxas_and_demangle():
    log = """ptxas info    : Compiling entry function '_Z8fd_splitILi64ELi64EEvPKfS1_S1_PfS2_S2_ifii' for 'sm_90'
ptxas info    : Function properties for _Z8fd_splitILi64ELi64EEvPKfS1_S1_PfS2_S2_ifii
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 92 registers, used 1 barriers, 33548 bytes smem
"""
    assert compile.parse_ptxas(log) == [compile.Row("fd_split<64, 64>", "sm_90", 92, 33548, 4, 12, 8)]


def test_shared_memory_is_checked_before_launch():
    with pytest.raises(kernels.SharedMemoryError, match=r"fa2<64, 64, 128> needs 147968 bytes .* allows 49152"):
        kernels.plan("fa2", 1, 128, 128, tiles=(64, 64))
    if cpu.compiler():
        q = k = v = __import__("numpy").zeros((1, 8, 128), dtype="float32")
        with pytest.raises(kernels.SharedMemoryError):  # the CPU backend refuses it too, before building
            cpu.run("fa2", q, k, v, tiles=(64, 64))
