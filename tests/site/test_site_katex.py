"""KaTeX in-process (the builder's embedded V8, KaTeX's UMD build) against KaTeX under node (its ES-module build),
the way the site was typeset before, with the same options and the palette's macros: the same HTML, errors and
warnings for every formula of every page (none of which fails), and for formulas that fail or warn."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelviz.site import js, katex, pages, palette
from kernelviz.site.build import PAGES, WEB_DIST
from kernelviz.site.diagnostics import BuildError, Diagnostics
from kernelviz.site.extensions import math
from kernelviz.site.markdown import markdown

ROOT = Path(__file__).resolve().parents[2]
NODE_SCRIPT = Path(__file__).with_name("katex_node.mjs")
KATEX_MJS = ROOT / "web" / "node_modules" / "katex" / "dist" / "katex.mjs"
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
    if node is None or not KATEX_MJS.is_file():
        pytest.skip("node and web/node_modules (make setup) are needed to compare with KaTeX under node")
    payload = json.dumps({"items": [{"tex": tex, "display": display} for tex, display in formulas], "macros": macros})
    done = subprocess.run(
        [node, str(NODE_SCRIPT), str(KATEX_MJS), str(katex.WRAPPER)],
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
    got = katex.typeset(formulas, WEB_DIST, macros)
    failed = [tex for (tex, _), result in zip(formulas[: -len(EXTRA)], got, strict=False) if result.error]
    assert failed == []  # equal errors would be a vacuous agreement
    coloured = [r for (tex, _), r in zip(formulas, got, strict=True) if "\\kv" in tex]
    assert coloured and all('class="enclosing kv-c-' in r.html for r in coloured)  # the macros were honoured
    for (tex, _), mine, theirs in zip(formulas, got, expected, strict=True):
        assert mine.html == theirs.get("html"), tex
        assert mine.error == theirs.get("error"), tex
        assert mine.warnings == theirs.get("warnings", []), tex
    assert got[-4].error.startswith("KaTeX parse error")
    assert got[-3].warnings  # "é" in math mode is a strict-mode warning
    assert got[-1].error and "Undefined control sequence" in got[-1].error  # the \def did not leak


def test_macros_expand_in_every_formula_that_uses_them():
    macros = {r"\kvq": r"\textcolor{blue}{#1}"}
    [plain, coloured] = katex.typeset([(r"\textcolor{blue}{Q_i}", False), (r"\kvq{Q_i}", False)], WEB_DIST, macros)
    assert coloured.error is None and 'style="color:blue;"' in coloured.html
    # the same typeset boxes; only the MathML annotation (the source as written) differs
    assert coloured.html.split('class="katex-html"')[1] == plain.html.split('class="katex-html"')[1]


def test_the_engine_is_made_once_and_a_script_is_evaluated_once(tmp_path):
    katex.typeset([("x", False)], WEB_DIST)
    engine = js.context()
    script = tmp_path / "count.js"
    script.write_text("globalThis.kvCount = (globalThis.kvCount || 0) + 1; globalThis.kvGet = () => '' + kvCount;")
    js.load(script)
    js.load(script)
    assert js.call("kvGet", None) == 1
    katex.typeset([("y", False)], WEB_DIST)
    assert js.context() is engine


def test_a_runtime_without_katex_is_an_error_saying_how_to_build_it(tmp_path):
    with pytest.raises(BuildError, match=r"no .*build-time/katex\.min\.js.*make setup"):
        katex.typeset([("x", False)], tmp_path)


def test_a_script_that_throws_names_its_file(tmp_path):
    bad = tmp_path / "bad.js"
    bad.write_text("throw new Error('nope');")
    with pytest.raises(BuildError, match=r"bad\.js failed in V8.*nope"):
        js.load(bad)
