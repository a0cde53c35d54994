"""NVRTC, the compiler the GPU launcher uses, builds every kernel instance a launch plan asks for, for sm_80 and
sm_90, with no GPU: the symbols, shared memory and parameter lists the launcher relies on are checked here."""

import re
import shutil
import subprocess

import numpy as np
import pytest
from cuda_cases import needs_nvrtc

from kernelviz.cuda import kernels, nvrtc
from kernelviz.cuda.descriptor import TensorMap

pytestmark = needs_nvrtc
HEAD_DIMS = (16, 64, 128)


def plans(kernel):
    """The launches of `kernel` at every head dimension, for a shape with two splits."""
    return [
        launch for d in kernels.head_dims(kernel, HEAD_DIMS) for launch in kernels.plan(kernel, 2, 130, d, n_splits=2)
    ]


@pytest.fixture(scope="module", params=[(k, a) for k in kernels.KERNELS for a in kernels.archs(k)], ids=str)
def built(request):
    """(kernel, its launches, the NVRTC Build of all their instances for one architecture)."""
    kernel, arch = request.param
    launches = plans(kernel)
    return kernel, launches, nvrtc.build(kernel, [launch.name for launch in launches], arch)


def demangled(symbol):
    """c++filt's reading of a mangled symbol (binutils; independent of compile.demangle)."""
    exe = shutil.which("c++filt")
    if exe is None:
        pytest.skip("c++filt is missing: apt-get install binutils")
    return subprocess.run([exe, symbol], capture_output=True, text=True, check=True).stdout.strip()


def test_every_instance_is_built_with_its_symbol(built):
    kernel, launches, build = built
    names = {launch.name for launch in launches}
    assert set(build.lowered) == names == set(build.rows)
    assert build.cubin.read_bytes()[:4] == b"\x7fELF"
    for name, symbol in build.lowered.items():
        assert demangled(symbol).startswith(f"void {name}(")


def test_shared_memory_is_what_the_host_computes(built):
    kernel, launches, build = built
    for launch in launches:
        row = build.rows[launch.name]
        assert row.shared_bytes == launch.shared_bytes, launch
        assert row.spill_stores == row.spill_loads == 0, row
        assert 0 < row.registers <= 255


def _parameters(signature):
    """'void f<1>(float const*, int)' -> ['float const*', 'int']."""
    return [p.strip() for p in re.search(r"\((.*)\)$", signature).group(1).split(",")]


@pytest.mark.parametrize("kernel", kernels.KERNELS)
def test_launch_arguments_match_the_compiled_signatures(kernel):
    """Kinds and order: a tensor map (fa3's) is a CUtensorMap by value; a named array is a float pointer (paged
    decoding's block table and lengths: int; fa2_mma's and fa3's Q, K, V, O: unsigned short, the bits of fp16/bf16),
    const where the launch only reads it (Q, K, V and what an earlier launch wrote, except FA2 backward's dQ, which
    its main kernel adds into); np.int32 is an int and np.float32 a float."""
    launches = kernels.plan(kernel, 2, 130, 64, n_splits=3)
    build = nvrtc.build(kernel, [launch.name for launch in launches], kernels.archs(kernel)[-1])
    arguments = kernels.arguments(kernel, 130, 0.125, causal=True, n_splits=3, bc=64)
    assert len(arguments) == len(launches)
    read = set(kernels.inputs(kernel, 2, 130, 64))
    for launch, args in zip(launches, arguments, strict=True):
        params = _parameters(demangled(build.lowered[launch.name]))
        assert len(params) == len(args), (launch.name, params, args)
        for param, arg in zip(params, args, strict=True):
            if isinstance(arg, TensorMap):  # by value (fa3's Q, K, V, O)
                assert param == "CUtensorMap", (launch.name, param, arg)
            elif isinstance(arg, str):
                kind = kernels.element_type(kernel, arg)
                assert param == (f"{kind} const*" if arg in read else f"{kind}*"), (launch.name, param, arg)
            else:
                assert param == {np.int32: "int", np.float32: "float"}[type(arg)], (launch.name, param, arg)
        # O is the answer: any launch that takes it may write it (paged decoding's first launch does, with one split)
        read |= {arg for arg in args if isinstance(arg, str)} - ({"dQ"} if kernel == "fa2_bwd" else set()) - {"O"}


def test_a_compile_error_names_the_file_and_line():
    lines = (kernels.FOLDER / "fa2.cu").read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if "float m_new" in line)
    lines[at] = lines[at].replace("float m_new", "flot m_new")
    with pytest.raises(RuntimeError, match=rf'NVRTC failed on fa2.cu for sm_80:\nfa2.cu\({at + 1}\): error: .*"flot"'):
        nvrtc.build("fa2", ["fa2<32, 32, 64>"], "sm_80", source="\n".join(lines))


def test_builds_are_cached_by_their_inputs():
    first = nvrtc.build("fa2", ["fa2<32, 32, 64>"], "sm_80")
    written = first.cubin.stat().st_mtime_ns
    assert nvrtc.build("fa2", ["fa2<32, 32, 64>"], "sm_80") == first
    assert first.cubin.stat().st_mtime_ns == written  # a lookup: nothing was compiled or written again
    source = (kernels.FOLDER / "fa2.cu").read_text() + "\n// changed\n"
    assert nvrtc.build("fa2", ["fa2<32, 32, 64>"], "sm_80", source=source).cubin != first.cubin
