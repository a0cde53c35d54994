"""An algorithm is one registration: its module, its record (algorithm.Algorithm) in its own module of
kernelviz/attention/topics/, and one entry of the registry (topics/__init__.py). runs.py, the command line, the
pages' {{ trace }} and the footprint, blocks and numbers modules loop over the registry instead of switching on
names: no code of kernelviz/attention nor of the site's extensions names an algorithm outside its own files (its
closed forms' module of closed_forms/ among them) but the registry; the package's public functions and formulas.py's
and flops.py's closed forms come from the records. Another topic's own files may name the one they build on (FA2's
backward runs FA2's forward). tests/test_topics_named.py holds the same of the whole of kernelviz/ and web/src."""

import json
from pathlib import Path

import numpy as np
import pytest

from kernelviz import attention
from kernelviz.attention import flops, formulas, runs
from kernelviz.attention.algorithm import Algorithm, Option
from kernelviz.attention.fa2 import flash_attention_2
from kernelviz.attention.topics import REGISTRY, TOPICS
from kernelviz.cli import main
from kernelviz.site.extensions import trace
from tests.attention.algorithm_names import ROOT, naming, stems, words_of

ATTENTION = ROOT / "kernelviz" / "attention"
EXTENSIONS = ROOT / "kernelviz" / "site" / "extensions"
ALLOWED = {"kernelviz/attention/topics/__init__.py"}  # the registry


def scanned():
    """{path: words} of kernelviz/attention's code and the site's extensions' (references.py aside: its keys are
    the papers' citation keys, ``ref:fa2``, not algorithms)."""
    paths = [*ATTENTION.rglob("*.py"), *(p for p in EXTENSIONS.glob("*.py") if p.name != "references.py")]
    return words_of(sorted(paths))


def topic_files(files):
    """The files that are some topic's own (a record's module, its function's, its kernel's)."""
    own = {stem for record in TOPICS for stem in stems(record)}
    return {str(p.relative_to(ROOT)) for p in files if p.stem in own and p.name != "__init__.py"}


def test_the_scan_finds_a_name_in_code_and_not_in_prose(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('"""fa2 and paged-decoding in prose."""\n# fa2-mma in a comment\nA = "fa2-mma" if x else 1\n')
    found = {r.name: naming(r, words_of([planted])) for r in TOPICS if r.name in ("fa2", "fa2-mma", "paged-decoding")}
    assert found == {"fa2": {}, "fa2-mma": {planted: {"fa2-mma"}}, "paged-decoding": {}}
    branch = tmp_path / "branch.py"
    branch.write_text("if algo.endswith('x'):\n    y = formulas.flash_decoding\n")  # a module name names it too
    assert naming(REGISTRY["flash-decoding"], words_of([branch])) == {branch: {"flash_decoding"}}


def test_every_algorithm_is_registered_once_with_its_record_module():
    names = [r.name for r in TOPICS]
    assert len(set(names)) == len(names) and list(REGISTRY) == names
    for record in TOPICS:
        assert any((ATTENTION / "topics" / f"{stem}.py").is_file() for stem in stems(record)), record.name
    # the package's tables are views of the registry, in its order
    assert list(attention.ALGORITHMS) + list(attention.SOFTMAX) == names
    assert all(attention.FORMULAS[r.name] is r.bytes for r in TOPICS if r.bytes is not None)


@pytest.mark.parametrize("record", TOPICS, ids=lambda r: r.name)
def test_an_algorithm_is_named_outside_its_own_files_only_by_the_registry(record):
    files = scanned()
    found = {str(p.relative_to(ROOT)) for p in naming(record, files)}
    assert found - ALLOWED - topic_files(files) == set()
    topic = next(p for p in files if p.parent.name == "topics" and p.stem in stems(record))
    assert record.name in files[topic]  # the search would find it: its record says its name


SOURCES = {".py", ".cu", ".cuh", ".h", ".cpp", ".js", ".css", ".html"}  # code, not data (report.json, gpus.json)


def test_no_source_file_of_kernelviz_is_over_400_lines():
    files = [p for p in (ROOT / "kernelviz").rglob("*") if p.suffix in SOURCES and "bundled" not in p.parts]
    long = {str(p.relative_to(ROOT)): n for p in files if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


def piped(q, k, v, *, depth=2, **options):
    """A new algorithm no code of kernelviz names: FA2 (its traffic exactly) with an option of its own (no other
    record's: fa2-pipe owns stages)."""
    result = flash_attention_2(q, k, v, **options)
    result.algorithm, result.params = "piped", {**result.params, "depth": depth}
    return result


PIPED = Algorithm(
    name="piped",
    function=piped,
    options=(Option("depth", int, default=2, stray="{given}: piped's, not {algo}'s", help="depth of the ring"),),
    bytes=formulas.fa2,
    flops=flops.fa2,
    minimum=formulas.compulsory,
)


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(REGISTRY, PIPED.name, PIPED)


def test_a_new_algorithm_registered_by_its_record_alone_runs_prints_and_is_cited(registered, capsys):
    sizes = dict(N=12, d=4, Br=4, Bc=4, causal=True)
    done = runs.run("piped", depth=3, **sizes)
    assert done.result.params["depth"] == 3 and done.sizes["depth"] == 3  # its option reached its function
    fa2 = formulas.fa2(12, 4, 4, 4, causal=True)
    numbers = done.numbers()
    assert numbers["bytes"]["total"] == formulas.total(fa2)
    standard = formulas.standard(12, 4, 4, 4, causal=True)  # measured against the forward family's baseline
    assert numbers["ratio_standard"] == formulas.total(standard) / formulas.total(fa2)
    assert numbers["Tr"] == 3 and numbers["depth"] == 3 and "causal" not in numbers
    cited = trace.compute({"algo": "piped", **sizes})
    assert cited["bytes"] == numbers["bytes"] and "cuda" not in cited  # no kernel of kernelviz/cuda runs it
    closed = trace.compute({"algo": "piped", **sizes, "closed_form": True})
    assert closed["bytes"]["total"] == formulas.total(fa2) and closed["depth"] == 2  # its default
    assert main(["trace", "piped", "--N", "12", "--d", "4", "--Br", "4", "--Bc", "4", "--depth", "5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["algorithm"] == "piped" and report["params"]["depth"] == 5
    assert report["total_bytes"] == formulas.total(formulas.fa2(12, 4, 4, 4))


def test_a_new_algorithms_option_is_refused_elsewhere_naming_it(registered, capsys):
    with pytest.raises(ValueError, match="depth: piped's, not fa2's"):
        runs.run("fa2", N=8, d=4, Br=4, Bc=4, depth=2)
    assert main(["trace", "fa2", "--N", "8", "--depth", "2"]) == 2
    assert "--depth: piped's options, not fa2's" in capsys.readouterr().err
    with pytest.raises(ValueError, match="depth must be at least 1"):
        runs.run("piped", N=8, d=4, Br=4, Bc=4, depth=0)


def test_the_registry_says_how_to_add_one():
    doc = Path(runs.__file__).with_name("topics").joinpath("__init__.py").read_text()
    assert "To add an algorithm" in doc and "TOPICS" in doc
    assert np.isfinite(runs.run("fa2", N=4, d=2, Br=2, Bc=2).numbers()["ratio_standard"])
