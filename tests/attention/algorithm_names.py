"""Where the code names a topic: an algorithm of kernelviz.attention (its record's name, flash-decoding, or its
module's, flash_decoding) or a kernel of kernelviz.cuda (its name, its algorithm's, its entry points'), as a whole
word of a file's code: a Python file's identifiers and string constants (not its comments or docstrings:
``tests/cuda/test_cuda_registry.python_words``), C++ and CUDA without comments (``cpp_code``), JavaScript and CSS
without comments (``js_code``). Run it to print, for each topic, the files outside its own that name it:

    PYTHONPATH=. .venv/bin/python -m tests.attention.algorithm_names [--root TREE] [--before TREE] [FOLDER ...]

FOLDER defaults to kernelviz and web/src. --root: count in another checkout, with this tree's list of topics;
--before: also count in TREE (say a checkout of the commit before a change) and print both counts per topic.

A topic's own files are its modules: for an algorithm, the one its function is defined in, its record's
(attention/topics/), its closed forms' (attention/closed_forms/), its own command's (``command``), and its CUDA
kernel's (a .cu file and its record in cuda/topics/, whose ``algorithm`` names it); for a kernel, its .cu file, its
record's module, and its algorithm's own files. Another topic's own files may name it too: the topic it builds on
(FA2's backward runs FA2's forward, fa2_pipe.cu includes fa2_mma's tiles), which adding that topic did not touch.
"""

import re
import sys
from pathlib import Path

from kernelviz.attention.topics import TOPICS
from tests.cuda.test_cuda_registry import cpp_code, pattern, python_words

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("kernelviz", "web/src")
CPP = (".cu", ".cuh", ".cpp", ".h")
JS = (".js", ".css")
# The files a topic is registered in, and may be named in outside its own: its record in a registry, its page in
# the reading order.
REGISTRATIONS = {
    "kernelviz/attention/topics/__init__.py",
    "kernelviz/cuda/topics/__init__.py",
    "kernelviz/site/nav.py",
}
EXEMPT = {  # file: why a name there is not a topic's
    "kernelviz/site/extensions/references.py": "its keys (ref:fa2, ref:flash-decoding) are the papers' citation keys",
}
# A string literal (kept: a name in one is code) or a comment (dropped), in JavaScript and CSS
_JS_TOKEN = re.compile(r"""(?P<s>'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`)|//[^\n]*|/\*.*?\*/""", re.S)


def js_code(path):
    """A JavaScript or CSS file's lines without its comments (// to the end of a line, /* ... */); a // or /* in a
    string stays (a URL, a glob), and a comment's line breaks stay, so lines keep their numbers."""
    text = path.read_text(encoding="utf-8")
    return _JS_TOKEN.sub(lambda m: m.group() if m.group("s") else re.sub(r"[^\n]", " ", m.group()), text).splitlines()


def code_words(path):
    """The words of `path`'s code to search: by its suffix, Python, C++ or JavaScript/CSS; None for other files."""
    if path.suffix == ".py":
        return python_words(path)
    if path.suffix in CPP:
        return cpp_code(path)
    if path.suffix in JS:
        return js_code(path)
    return None  # data (report.json, gpus.json), markup, images: not code


def code_files(root=ROOT, folders=FOLDERS):
    """{path: words} of the code files under `folders` of `root` (the wheel's bundled copy left out)."""
    found = {}
    for folder in folders:
        for path in sorted((Path(root) / folder).rglob("*")):
            if path.is_file() and "bundled" not in path.parts and (words := code_words(path)) is not None:
                found[path] = words
    return found


def words_of(paths):
    return {path: code_words(path) for path in paths}


def kernel_stems(name):
    """The stems of the CUDA kernels whose record runs algorithm `name` (its .cu file, its cuda/topics module)."""
    from kernelviz.cuda.topics import TOPICS as KERNELS

    return {k.name for k in KERNELS if k.algorithm == name}


def stems(record):
    """The stems of an algorithm's own modules: its function's, its record's, its command's, its kernel's (its closed
    forms' module, closed_forms/<stem>.py, is named as its record's or as the algorithm)."""
    modules = [getattr(record.function, "__module__", "") or "", getattr(record, "command", None) or ""]
    own = {m.rpartition(".")[2] for m in modules if m} | {record.name.replace("-", "_")}
    own |= {m.__name__.rpartition(".")[2] for m in _record_modules() if record in _records(m)}
    return own | kernel_stems(record.name)


def _record_modules():
    import kernelviz.attention.topics as topics

    return [m for m in vars(topics).values() if type(m) is type(topics) and m.__name__.startswith(topics.__name__)]


def _records(module):
    return [v for v in vars(module).values() if v in TOPICS]


class Topic:
    """A topic to look for: its `kind` ("algorithm" or "kernel"), `name`, the `names` that name it, and the `own`
    stems of its files."""

    def __init__(self, kind, name, names, own):
        self.kind, self.name, self.names, self.own = kind, name, set(names), set(own)

    def __repr__(self):
        return f"{self.kind} {self.name}"


def algorithm_topic(record):
    return Topic("algorithm", record.name, {record.name, record.name.replace("-", "_")}, stems(record))


def kernel_topic(kernel):
    """A kernel of kernelviz.cuda: named by its name and its entry points (fa2_bwd_preprocess; its algorithm's name is
    the algorithm's topic); its own files are its .cu file, its record's module and its algorithm's own files."""
    from kernelviz.attention.topics import REGISTRY
    from tests.cuda.test_cuda_registry import names

    own = {kernel.name, Path(kernel.file).stem}
    if kernel.algorithm in REGISTRY:
        own |= stems(REGISTRY[kernel.algorithm])
    return Topic("kernel", kernel.name, (names(kernel) - {kernel.algorithm}) | {kernel.name}, own)


def topics():
    """Every topic: the algorithms, then the kernels, in their registries' orders."""
    from kernelviz.cuda.topics import TOPICS as KERNELS

    return [*map(algorithm_topic, TOPICS), *map(kernel_topic, KERNELS)]


def owned(path, own):
    return path.stem in own and path.name != "__init__.py"


def naming(topic, files):
    """{path: names found} of the files of `files` ({path: words}) that name `topic` (a Topic, or an algorithm's
    record), its own left out."""
    topic = topic if isinstance(topic, Topic) else algorithm_topic(topic)
    found = {}
    for path, words in files.items():
        if owned(path, topic.own):
            continue
        hits = {n for n in topic.names if any(pattern(n).search(w) for w in words)}
        if hits:
            found[path] = hits
    return found


def shared(topic, files, root=ROOT, every=None):
    """{relative path: names} of the files that name `topic` and are no topic's own (of `every`, default all): the
    files a new topic would have to edit besides its own."""
    every = topics() if every is None else every
    return {
        p.relative_to(root).as_posix(): hits
        for p, hits in naming(topic, files).items()
        if not any(owned(p, t.own) for t in every)
    }


def main(argv):
    root, before = ROOT, None
    while argv[:1] in (["--root"], ["--before"]):
        if argv[0] == "--root":
            root = Path(argv[1])
        else:
            before = Path(argv[1])
        argv = argv[2:]
    folders = argv or FOLDERS
    files, every = code_files(root, folders), topics()
    old = code_files(before, folders) if before else None
    print(f"{'topic':<32}{'before' if before else '':>7}{'after' if before else 'files':>7}  files outside its own "
          f"and every topic's own (registrations marked *)")  # fmt: skip
    for topic in every:
        found = shared(topic, files, root, every)
        listed = " ".join(p + ("*" if p in REGISTRATIONS else "") for p in found)
        count = f"{len(shared(topic, old, before, every)):>7}" if before else f"{'':>7}"
        print(f"{topic.kind + ' ' + topic.name:<32}{count}{len(found):>7}  {listed}")


if __name__ == "__main__":
    main(sys.argv[1:])
