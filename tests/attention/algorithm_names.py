"""Where the code of kernelviz/ names an algorithm of kernelviz.attention: its record's name (flash-decoding) or its
module's (flash_decoding), as a whole word of a Python file's identifiers and string constants (not its comments or
docstrings: ``tests/cuda/test_cuda_registry.python_words``). Run it to print, for each algorithm, the files outside
its own that name it:

    PYTHONPATH=. .venv/bin/python -m tests.attention.algorithm_names [--root TREE] [FOLDER ...]   (default: kernelviz)

(--root: count in another checkout, e.g. one of the commit before the registry, with this tree's list of algorithms.)

An algorithm's own files are its modules: the one its function is defined in, its record's (attention/topics/), and
its own command's (``command``), and its CUDA kernel's (a .cu file and its record in cuda/topics/, whose
``algorithm`` names it)."""

import sys
from pathlib import Path

from kernelviz.attention.topics import TOPICS
from tests.cuda.test_cuda_registry import pattern, python_words

ROOT = Path(__file__).resolve().parents[2]


def kernel_stems(name):
    """The stems of the CUDA kernels whose record runs algorithm `name` (its .cu file, its cuda/topics module)."""
    from kernelviz.cuda.topics import TOPICS as KERNELS

    return {k.name for k in KERNELS if k.algorithm == name}


def stems(record):
    """The stems of an algorithm's own modules: its function's, its record's, its command's, its kernel's."""
    modules = [getattr(record.function, "__module__", "") or "", getattr(record, "command", None) or ""]
    own = {m.rpartition(".")[2] for m in modules if m} | {record.name.replace("-", "_")}
    own |= {m.__name__.rpartition(".")[2] for m in _record_modules() if record in _records(m)}
    return own | kernel_stems(record.name)


def _record_modules():
    import kernelviz.attention.topics as topics

    return [m for m in vars(topics).values() if type(m) is type(topics) and m.__name__.startswith(topics.__name__)]


def _records(module):
    return [v for v in vars(module).values() if v in TOPICS]


def words_of(paths):
    return {path: python_words(path) for path in paths}


def naming(record, files):
    """{path: names found} of the files of `files` ({path: words}) that name `record`, its own left out."""
    own = stems(record)
    names = {record.name, record.name.replace("-", "_")}
    found = {}
    for path, words in files.items():
        if path.stem in own and path.name != "__init__.py":
            continue
        hits = {n for n in names if any(pattern(n).search(w) for w in words)}
        if hits:
            found[path] = hits
    return found


def main(argv):
    root = ROOT
    if argv[:1] == ["--root"]:
        root, argv = Path(argv[1]), argv[2:]
    folders = argv or ["kernelviz"]
    files = words_of(p for folder in folders for p in sorted((root / folder).rglob("*.py")) if "bundled" not in p.parts)
    for record in TOPICS:
        found = naming(record, files)
        listed = " ".join(str(p.relative_to(root)) for p in found)
        print(f"{record.name:<22}{len(found):>3}  {listed}")


if __name__ == "__main__":
    main(sys.argv[1:])
