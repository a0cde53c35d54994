"""A topic is one registration, repo-wide: for every algorithm (kernelviz.attention's records) and every kernel
(kernelviz.cuda's), the code that names it outside its own files and other topics' own files is its registrations
only: attention/topics/__init__.py, cuda/topics/__init__.py and site/nav.py (its page in the reading order). The
scan (tests/attention/algorithm_names.py) reads every code file of kernelviz/ (Python identifiers and strings, C++
and CUDA, JavaScript and CSS, comments and docstrings left out) and of web/src; data (cuda/report.json, gpus.json)
is not code. Exemptions name their reason (``EXEMPT``); web/src has its own test: the explorer and the roofline
learn each algorithm's facts from data generated from the records (web/.gen/topics.js), not from its name."""

import shutil

import pytest

from tests.attention.algorithm_names import (
    EXEMPT,
    REGISTRATIONS,
    ROOT,
    code_files,
    code_words,
    js_code,
    naming,
    owned,
    shared,
    topics,
)
from tests.cuda.test_cuda_registry import pattern

TOPICS = topics()
WEB_EXEMPT = {  # (file, name): why a word there is not the topic
    ("web/src/softmax/compute.js", "standard"): "the softmax page's standard (safe) softmax, not standard attention",
    ("web/src/softmax/panel.js", "standard"): "the softmax page's standard (safe) softmax, not standard attention",
}


@pytest.fixture(scope="module")
def package():
    return code_files(ROOT, ["kernelviz"])


def outside(topic, files):
    """{file: names} naming `topic` in `files` outside its own, every topic's own, its registrations and the exempt."""
    return {p: n for p, n in shared(topic, files, ROOT, TOPICS).items() if p not in REGISTRATIONS and p not in EXEMPT}


def test_the_scan_reads_javascript_and_css_code_not_comments(tmp_path):
    script = tmp_path / "x.js"
    script.write_text(
        "// fa2-mma in a comment\n/* paged-decoding\n   in a block */ const url = 'http://h/fa3';\n"
        "const f = F.flash_decoding(1); // and fa1\nconst s = `a ${'fa2'} b`;\n"
    )
    lines = js_code(script)
    assert len(lines) == 5  # a comment's line breaks stay: the lines keep their numbers
    found = {t.name: set(naming(t, {script: lines}).get(script, ())) for t in TOPICS if t.kind == "algorithm"}
    assert {name: hits for name, hits in found.items() if hits} == {
        "fa3": {"fa3"},  # in a string: code (a // inside a string is not a comment)
        "flash-decoding": {"flash_decoding"},
        "fa2": {"fa2"},
    }
    style = tmp_path / "x.css"
    style.write_text("/* .fa2 */\n.fa1 .row { color: red; }\n")
    assert [line.strip() for line in js_code(style) if pattern("fa1").search(line)] == [".fa1 .row { color: red; }"]
    assert code_words(tmp_path / "report.json") is None  # data is not code


def test_the_scan_covers_every_kind_of_code_of_kernelviz(package):
    suffixes = {p.suffix for p in package}
    assert {".py", ".cu", ".h", ".cpp", ".css", ".js"} <= suffixes
    assert not any(p.suffix == ".json" for p in package)
    assert all((ROOT / path).is_file() for path in REGISTRATIONS | set(EXEMPT))  # no stale entry


@pytest.mark.parametrize("topic", TOPICS, ids=repr)
def test_a_topic_is_named_in_kernelviz_only_by_its_registrations(topic, package):
    assert outside(topic, package) == {}
    mine = [w for p, words in package.items() if owned(p, topic.own) for w in words]
    assert any(pattern(n).search(w) for n in topic.names for w in mine), topic  # the search finds what is there


def test_a_planted_name_switch_is_caught(tmp_path):
    """Put back a branch on a name (as commands/roofline.py had: fa2-mma left out in float32) into a copy of the
    command: the check names the file."""
    source = (ROOT / "kernelviz" / "commands" / "roofline.py").read_text()
    planted = source.replace(
        "    for record in rooflined(itemsize):\n",
        '    for record in rooflined(itemsize):\n        if record.name == "fa2-mma" and itemsize == 4:\n'
        "            continue\n",
    )
    assert planted != source
    copy = tmp_path / "kernelviz" / "commands" / "roofline.py"
    copy.parent.mkdir(parents=True)
    copy.write_text(planted)
    fa2_mma = next(t for t in TOPICS if t.kind == "algorithm" and t.name == "fa2-mma")
    assert shared(fa2_mma, code_files(tmp_path, ["kernelviz"]), tmp_path, TOPICS) == {
        "kernelviz/commands/roofline.py": {"fa2-mma"}
    }


def test_a_planted_name_in_the_browser_code_is_caught(tmp_path):
    """A copy of web/src/roofline/units.js with a branch on a kernel's name: the web scan names it."""
    target = tmp_path / "web" / "src" / "roofline" / "units.js"
    target.parent.mkdir(parents=True)
    shutil.copy(ROOT / "web" / "src" / "roofline" / "units.js", target)
    fa2_pipe = next(t for t in TOPICS if t.kind == "algorithm" and t.name == "fa2-pipe")
    assert shared(fa2_pipe, code_files(tmp_path, ["web/src"]), tmp_path, TOPICS) == {}
    target.write_text(target.read_text() + "\nexport const piped = (row) => row.algorithm === 'fa2-pipe';\n")
    assert shared(fa2_pipe, code_files(tmp_path, ["web/src"]), tmp_path, TOPICS) == {
        "web/src/roofline/units.js": {"fa2-pipe"}
    }


def test_no_topic_is_named_in_the_browser_code():
    files = code_files(ROOT, ["web/src"])
    found = {}
    for topic in TOPICS:
        for path, names in outside(topic, files).items():
            left = {n for n in names if (path, n) not in WEB_EXEMPT}
            if left:
                found.setdefault(path, set()).update(left)
    assert found == {}
