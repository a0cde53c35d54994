"""Math to MathML by Temml in-process (the builder's embedded V8, Temml's minified build) against Temml under node
(its ES-module build) with the builder's own wrapper and the palette's macros: the same MathML, errors and warnings for
every formula of every page (none of which fails), and for formulas that fail or warn. And what the MathML is: MathML
Core elements, no typeset boxes, the palette's colours as classes."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelviz.site import js, mathml, pages, palette
from kernelviz.site.build import PAGES, WEB_DIST
from kernelviz.site.diagnostics import BuildError, Diagnostics
from kernelviz.site.extensions import math
from kernelviz.site.markdown import markdown

ROOT = Path(__file__).resolve().parents[2]
NODE_SCRIPT = Path(__file__).with_name("mathml_node.mjs")
TEMML_MJS = ROOT / "web" / "node_modules" / "temml" / "dist" / "temml.mjs"
# beyond the pages: a parse error, a strict-mode warning, a \def (which must not leak into the next formula)
EXTRA = [(r"\frac{1}{", False), ("é", True), (r"\def\x{7}\x", False), (r"\x", False)]


def page_formulas():
    md, diagnostics = markdown(), Diagnostics(None)
    found = []
    for path in pages.collect(PAGES):
        page = pages.parse(path, md, diagnostics)
        found += [math.tex_of(token) for token, _ in math.formulas(page)]
    return found


def node_typeset(formulas, macros):
    node = shutil.which("node")
    if node is None or not TEMML_MJS.is_file():
        pytest.skip("node and web/node_modules (make setup) are needed to compare with Temml under node")
    payload = json.dumps({"items": [{"tex": tex, "display": display} for tex, display in formulas], "macros": macros})
    done = subprocess.run(
        [node, str(NODE_SCRIPT), str(TEMML_MJS), str(mathml.WRAPPER)],
        input=payload,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def test_every_formula_of_every_page_is_typeset_as_node_typesets_it():
    formulas = page_formulas()
    assert len(formulas) > 50  # the pages are full of math: a parse that found none would pass vacuously
    formulas += EXTRA
    macros = palette.macros()
    expected = node_typeset(formulas, macros)
    got = mathml.typeset(formulas, WEB_DIST, macros)
    failed = [tex for (tex, _), result in zip(formulas[: -len(EXTRA)], got, strict=False) if result.error]
    assert failed == []  # equal errors would be a vacuous agreement
    warned = [tex for (tex, _), result in zip(formulas[: -len(EXTRA)], got, strict=False) if result.warnings]
    assert warned == []
    coloured = [r for (tex, _), r in zip(formulas, got, strict=True) if "\\kv" in tex]
    assert coloured and all(re.search(r'<m\w+ class="kv-c-[a-z]+"', r.html) for r in coloured)  # macros honoured
    for (tex, _), mine, theirs in zip(formulas, got, expected, strict=True):
        assert mine.html == theirs.get("html"), tex
        assert mine.error == theirs.get("error"), tex
        assert mine.warnings == theirs.get("warnings", []), tex
    assert got[-4].error.startswith("Temml parse error")
    assert got[-3].html and got[-3].warnings  # "é" in math mode: typeset, and a strict-mode warning
    assert got[-1].error and "Unsupported function name: \\x" in got[-1].error  # the \def did not leak


def test_math_is_mathml_core_with_no_typeset_boxes():
    [inline, display] = mathml.typeset([(r"\frac{a}{b}", False), (r"\sum_{j=0}^{T_c-1} e^{x_j}", True)], WEB_DIST)
    assert inline.html.startswith("<math>") and inline.html.endswith("</math>")
    assert "<mfrac><mi>a</mi><mi>b</mi></mfrac>" in inline.html
    assert display.html.startswith('<math display="block"') and "<munderover>" in display.html
    assert "<msup>" in display.html and "<msub>" in display.html
    for html in (inline.html, display.html):
        assert "<span" not in html and "katex" not in html  # nothing but MathML: the browser lays it out
        assert "<annotation" not in html  # the TeX source is not carried a second time


def test_macros_expand_in_every_formula_that_uses_them():
    macros = {r"\kvq": r"\class{kv-c-q}{#1}"}
    [plain, coloured] = mathml.typeset([(r"{Q_i}", False), (r"\kvq{Q_i}", False)], WEB_DIST, macros)
    assert coloured.error is None and coloured.warnings == []
    # the same MathML, the coloured part in an element of the palette's class
    assert coloured.html == plain.html.replace("<msub>", '<msub class="kv-c-q">')


def test_only_the_palettes_classes_are_trusted():
    [theirs] = mathml.typeset([(r"\class{evil}{x}", False)], WEB_DIST)
    assert theirs.error and "evil" not in (theirs.html or "")


def test_the_engine_is_made_once_and_a_script_is_evaluated_once(tmp_path):
    mathml.typeset([("x", False)], WEB_DIST)
    engine = js.context()
    script = tmp_path / "count.js"
    script.write_text("globalThis.kvCount = (globalThis.kvCount || 0) + 1; globalThis.kvGet = () => '' + kvCount;")
    js.load(script)
    js.load(script)
    assert js.call("kvGet", None) == 1
    mathml.typeset([("y", False)], WEB_DIST)
    assert js.context() is engine


def test_a_runtime_without_temml_is_an_error_saying_how_to_build_it(tmp_path):
    with pytest.raises(BuildError, match=r"no .*build-time/temml\.min\.js.*make setup"):
        mathml.typeset([("x", False)], tmp_path)


def test_a_script_that_throws_names_its_file(tmp_path):
    bad = tmp_path / "bad.js"
    bad.write_text("throw new Error('nope');")
    with pytest.raises(BuildError, match=r"bad\.js failed in V8.*nope"):
        js.load(bad)
