"""A kernel is one registration: its .cu file, its record (descriptor.Kernel) in its own module of
kernelviz/cuda/topics/, and one line of the registry (topics/__init__.py). No other code of kernelviz/cuda (its
Python, the CPU shim and harness) names it: kernels.py, verify.py, launch.py, cpu.py and cpu/harness.cpp loop over
the registry instead of switching on names. Prose (comments, docstrings) may still speak of a kernel."""

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from kernelviz.cuda import cpu, kernels, verify
from kernelviz.cuda.topics import TOPICS

CUDA = Path(kernels.__file__).parent
TOPICS_DIR = CUDA / "topics"
REGISTRY = TOPICS_DIR / "__init__.py"


def pattern(name):
    """`name` as a whole word: not inside a longer identifier, nor the head of another kernel's name (fa2 in
    fa2_mma or fa2-mma); fa2.cu and fa2<32, 32, 64> name fa2."""
    return re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w]|-\w)")


def python_words(path):
    """The identifiers and string constants of a Python file's code: not its comments, not its docstrings."""
    tree = ast.parse(path.read_text())
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    words = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            words.append(node.value)
        elif isinstance(node, ast.Name):
            words.append(node.id)
        elif isinstance(node, ast.Attribute):
            words.append(node.attr)
        elif isinstance(node, ast.alias):
            words += [node.name, node.asname or ""]
        elif isinstance(node, ast.ImportFrom):
            words.append(node.module or "")
        elif isinstance(node, ast.FunctionDef | ast.ClassDef | ast.arg | ast.keyword):
            words.append(getattr(node, "name", None) or getattr(node, "arg", None) or "")
    return words


def cpp_code(path):
    """A C++ file's text without its comments (// to the end of a line, /* ... */)."""
    text = re.sub(r"/\*.*?\*/", " ", path.read_text(), flags=re.S)
    return [re.sub(r"//.*", "", line) for line in text.splitlines()]


def code_files():
    """{path: [words]} of kernelviz/cuda's Python (topics/ too) and of cpu/'s C++."""
    found = {path: python_words(path) for path in CUDA.rglob("*.py")}
    found |= {path: cpp_code(path) for path in (CUDA / "cpu").iterdir() if path.suffix in (".h", ".cpp")}
    return found


def names(record):
    """What names a kernel: its name, its algorithm's name, its launches' entry points (fa2_bwd_preprocess)."""
    d = 64
    entries = {n.partition("<")[0] for n in kernels.instances(record.name, record.default_tiles(d), d)}
    return ({record.name, record.algorithm} - {None}) | entries  # a kernel may run no algorithm of attention/


def test_the_code_that_finds_a_name_finds_it_in_code_and_not_in_prose(tmp_path):
    source = tmp_path / "x.py"
    source.write_text('"""fa2 here is prose."""\n# fa2 in a comment\nA = "fa2_mma<64>"\nB = fa2.KERNEL\n')
    words = python_words(source)
    assert any(pattern("fa2_mma").search(w) for w in words)
    assert [w for w in words if pattern("fa2").search(w)] == ["fa2"]  # the module, not the prose, not fa2_mma
    assert not pattern("fa2").search("fa2-mma") and pattern("fa2").search("fa2.cu")
    header = tmp_path / "x.h"
    header.write_text("// fa1 in a comment\n/* fa1\n*/ int run(); call(fa1<32, 32, 64>);\n")
    assert [line.strip() for line in cpp_code(header) if pattern("fa1").search(line)] == [
        "int run(); call(fa1<32, 32, 64>);"
    ]


def test_every_kernel_is_registered_once_with_its_file_and_module():
    assert [r.name for r in TOPICS] == list(kernels.KERNELS)
    assert len(set(kernels.KERNELS)) == len(TOPICS)
    for record in TOPICS:
        assert (CUDA / record.file).is_file(), record.file
        assert (TOPICS_DIR / f"{record.name}.py").is_file(), record.name


@pytest.mark.parametrize("record", TOPICS, ids=lambda r: r.name)
def test_a_kernel_is_named_only_by_its_own_module_and_the_registry(record):
    own = TOPICS_DIR / f"{record.name}.py"
    found = {}
    for name in names(record):
        rx = pattern(name)
        found[name] = {
            str(path.relative_to(CUDA)) for path, words in code_files().items() if any(rx.search(w) for w in words)
        }
    allowed = {str(own.relative_to(CUDA)), str(REGISTRY.relative_to(CUDA))}
    assert {name: files - allowed for name, files in found.items()} == {name: set() for name in found}
    assert str(own.relative_to(CUDA)) in found[record.name]  # the search finds what is there


def test_no_python_file_of_kernelviz_cuda_is_over_400_lines():
    long = {str(p.relative_to(CUDA)): n for p in CUDA.rglob("*.py") if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


AXPY = """
template <int Bc>
__global__ void axpy(const float* X, const int* idx, float* Y, float a, int N) {
    int row = blockIdx.x;
    for (int c = threadIdx.x; c < N; c += blockDim.x) Y[row*N + c] = a * X[row*N + idx[c]];
}
"""


def axpy_record(arguments):
    """A kernel none of kernelviz/cuda's code knows: Y[r, c] = a * X[r, idx[c]], registered by its record alone."""
    from kernelviz.cuda.descriptor import Kernel, Launch, rel_err

    return Kernel(
        name="axpy",
        algorithm=None,
        default_tiles=lambda d: (1, 8),
        shared_bytes=lambda tiles, d: [0],
        launches=lambda bh, n, d, tiles, threads, n_splits, dtype, smem: [
            Launch(f"axpy<{tiles[1]}>", (bh,), threads, smem[0])
        ],
        inputs=lambda bh, n, d, n_kv: {"X": (bh, n), "idx": (n,), "V": (bh, n, d)},
        outputs=lambda bh, n, d, n_splits, tiles: {"Y": (bh, n)},
        arguments=arguments,
        shared_formula="0",
        error=lambda out, arrays, causal: rel_err(out["Y"], 2.5 * arrays[0][:, arrays[1]]),
        index_inputs=("idx",),
        sizes=lambda arrays: (arrays[0].shape[0], arrays[0].shape[1], 1, arrays[0].shape[1]),
    )


def register(monkeypatch, record):
    monkeypatch.setitem(kernels.REGISTRY, record.name, record)


@pytest.mark.skipif(cpu.compiler() is None, reason="needs g++")
def test_a_kernel_registered_by_its_record_alone_runs_on_the_cpu_shim(monkeypatch):
    """No code of kernelviz/cuda names it, the harness included: its record says the buffers (an int input among
    them), the launch and the arguments, and the harness types each from the kernel's signature."""

    def args(n, scale, causal, n_splits, n_kv, kv_heads, bc):
        return [("X", "idx", "Y", np.float32(2.5), np.int32(n))]

    register(monkeypatch, axpy_record(args))
    rng = np.random.default_rng(0)
    x, idx = rng.standard_normal((3, 10)).astype(np.float32), rng.permutation(10)
    out = cpu.run("axpy", x, idx, np.zeros((3, 10, 1)), source=AXPY)
    np.testing.assert_array_equal(out["Y"], np.float32(2.5) * x[:, idx])  # each element once: exact
    assert verify.error("axpy", out, x, idx) == 0.0


@pytest.mark.skipif(cpu.compiler() is None, reason="needs g++")
def test_the_harness_refuses_arguments_that_do_not_match_the_kernels_signature(monkeypatch):
    """A record whose arguments disagree with the .cu (an int where the kernel takes a float, a float buffer where it
    takes an int one) fails naming the launch and the argument, before the kernel runs."""
    x, idx, v = np.ones((2, 4), np.float32), np.arange(4), np.zeros((2, 4, 1))
    wrong = {
        "argument 3 is a float, not what the host passed (an int)": [("X", "idx", "Y", np.int32(2), np.int32(4))],
        "argument 1 is a pointer to another element type, not what the host passed (buffer X)": [
            ("X", "X", "Y", np.float32(2.5), np.int32(4))
        ],
        "takes 5 arguments, given 4": [("X", "idx", "Y", np.int32(4))],
    }
    for message, launch_args in wrong.items():
        register(monkeypatch, axpy_record(lambda *_, a=launch_args: a))
        with pytest.raises(cpu.KernelRunError, match=r"axpy<8>:? " + re.escape(message)):
            cpu.run("axpy", x, idx, v, source=AXPY)
