"""A kernel is one registration: its .cu file, its record (descriptor.Kernel) in its own module of
kernelviz/cuda/topics/, and one line of the registry (topics/__init__.py). No other code of kernelviz/cuda (its
Python, the CPU shim and harness) names it: kernels.py, verify.py, launch.py, cpu.py and cpu/harness.cpp loop over
the registry instead of switching on names. Prose (comments, docstrings) may still speak of a kernel."""

import ast
import re
from pathlib import Path

import pytest

from kernelviz.cuda import kernels
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
    return {record.name, record.algorithm} | entries


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
