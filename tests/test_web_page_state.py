"""The bundles share the page's state through one module, web/src/page/state.js: it alone writes and reads the two
global slots (``kernelviz``, the figure runtime's API; ``kernelvizEditors``, the editors'), which tests reach as
``window.kernelviz`` through page.evaluate; every other module asks through its named functions. Here the source is
scanned for the slots (comments aside), and node runs state.js with and without a published runtime."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parents[1] / "web" / "src"
STATE = "page/state.js"
NODE = shutil.which("node")
GLOBAL = re.compile(
    r"\b(?:window|globalThis|self)\s*(?:\?\.|\.)\s*kernelviz(?:Editors)?\b|\b(?:window|globalThis|self)\s*\[|\bkernelvizEditors\b"
)


def code_naming_slots(text):
    """What `text`'s code (comments aside) reaches the global slots by: window.kernelviz, globalThis.kernelvizEditors,
    a global indexed (globalThis[name]), the bare kernelvizEditors."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
    return [re.sub(r"\s+", "", m) for m in GLOBAL.findall(code)]


def test_the_scan_finds_a_slot_in_code_and_not_in_comments_or_other_words():
    planted = "// window.kernelviz in a comment\nwindow.kernelviz = {};\nconst q = globalThis?.kernelvizEditors;\n"
    assert code_naming_slots(planted) == ["window.kernelviz", "globalThis?.kernelvizEditors"]
    assert code_naming_slots("const k = 'kernelviz'; globalThis['kernelviz'] = 1;") == ["globalThis["]
    assert code_naming_slots("warn('kernelviz: no'); const r = 'from kernelviz.runner import run';") == []


def test_only_the_state_module_names_the_global_slots():
    found = {}
    for path in sorted(WEB.rglob("*.js")):
        rel = path.relative_to(WEB).as_posix()
        if rel != STATE and (hits := code_naming_slots(path.read_text(encoding="utf-8"))):
            found[rel] = hits
    assert found == {}
    assert set(code_naming_slots((WEB / STATE).read_text(encoding="utf-8"))) == {"globalThis[", "kernelvizEditors"}


SCRIPT = """
import { pathToFileURL } from 'node:url';
const state = await import(pathToFileURL(process.argv[1]));
const before = { scene: state.scene(), sizes: state.sizes(), chosen: state.chosenSizes(), draw: state.canDraw(),
  runtime: state.runtime(), editors: state.editors() };
await state.quiet();  // the next task, without a runtime
const calls = [];
state.publishRuntime({ setScene: (s) => s.ok, scene: () => 'drawn', sizes: () => ({ N: 8 }), chosenSizes: () => null,
  ranAt: (d, e) => calls.push([d, e]), quiet: () => { calls.push('quiet'); return Promise.resolve(); } });
await state.quiet();
state.ranAt({ N: 12 }, true);
const api = { run: 1 };
const after = { scene: state.scene(), sizes: state.sizes(), draw: state.canDraw(), set: state.setScene({ ok: true }),
  published: state.publishEditors(api) === api, editors: state.editors(),
  handle: globalThis.kernelviz === state.runtime(), editorsHandle: globalThis.kernelvizEditors === api, calls };
console.log(JSON.stringify({ before, after }));
"""


def test_the_functions_ask_the_published_runtime_and_answer_without_one():
    if NODE is None:
        pytest.skip("node is not installed")
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", SCRIPT, str(WEB / STATE)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=WEB.parent,
    )
    got = json.loads(out.stdout)
    assert got["before"] == {
        "scene": None,
        "sizes": {},
        "chosen": None,
        "draw": False,
        "runtime": None,
        "editors": None,
    }
    assert got["after"] == {
        "scene": "drawn",
        "sizes": {"N": 8},
        "draw": True,
        "set": True,
        "published": True,
        "editors": {"run": 1},
        "handle": True,
        "editorsHandle": True,
        "calls": ["quiet", [{"N": 12}, True]],
    }
