"""The closed forms' JavaScript is generated from formulas.py, flops.py and closed_forms/ (attention.js_port), not by
hand.

What the generated functions compute is compared with Python on a grid by tests/explorer/test_explorer_formulas.py
and tests/roofline/test_roofline_js.py (they run web/src/explorer/formulas.js and web/src/roofline/flops.js, which
re-export the generated modules). Here: the build's web/.gen is what the translator makes of today's source; a change
to the Python source changes the JavaScript (a planted change shows up in node's answer); Python's integer semantics
survive the translation where JS's differ (floor division and remainder of negative numbers); and a construct
outside the subset is refused with its file and line.
"""

import inspect
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelviz.attention import formulas, js_port
from kernelviz.glossary import OLD

ROOT = Path(__file__).resolve().parents[2]
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")


def node_call(directory, module, calls):
    """[(function, args)] run in the ES module `directory`/`module`.js under node: the answers."""
    script = (
        "import { readFileSync } from 'node:fs'; import { pathToFileURL } from 'node:url';"
        f"const m = await import(pathToFileURL({json.dumps(str(Path(directory) / (module + '.js')))}));"
        "const calls = JSON.parse(readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(calls.map(([f, a]) => m[f](...a))));"
    )
    out = subprocess.run([NODE, "--input-type=module", "-e", script], input=json.dumps(calls), text=True,
                         capture_output=True, check=True, timeout=60)  # fmt: skip
    return json.loads(out.stdout)


@pytest.mark.parametrize("module", list(js_port.modules()))
def test_the_build_s_generated_module_is_today_s_translation(module):
    """web/.gen is written by `node build.mjs` (make's web/dist/.built, which depends on formulas.py and flops.py);
    a stale one fails here, naming the fix."""
    generated = ROOT / "web" / ".gen" / f"{module}.js"
    assert generated.exists(), "web/.gen is missing: run `cd web && node build.mjs`"
    assert generated.read_text() == js_port.port(module), "web/.gen is stale: run `cd web && node build.mjs`"


def test_the_hand_ports_are_gone():
    """The browser's modules re-export the generated ones: no function body of their own."""
    for path in ("web/src/explorer/formulas.js", "web/src/roofline/flops.js"):
        code = [line for line in (ROOT / path).read_text().splitlines() if not line.startswith("//")]
        assert len(code) == 1 and code[0].startswith("export * from '#gen/"), path


@needs_node
def test_a_change_to_the_python_reaches_the_javascript(tmp_path):
    """Plant a change in a copy of fa2's closed form (closed_forms/fa2.py: fa2 reads Q twice): the translated fa2
    follows it; the rest stays."""
    source = (tree_copy(tmp_path) / "fa2.py").read_text()
    planted = source.replace('return {"Q": rw(q), "K": rw(kv)', 'return {"Q": rw(2 * q), "K": rw(kv)')
    assert planted != source
    (tmp_path / "closed_forms" / "fa2.py").write_text(planted)
    (tmp_path / "formulas.js").write_text(js_port.port("formulas", root=tmp_path))
    args = [100, 64, 16, 40, None, True, 2, 3]
    fa2, standard = node_call(tmp_path, "formulas", [("fa2", args), ("standard", args)])
    want = formulas.fa2(*args)
    assert fa2["Q"]["read"] == 2 * want["Q"]["read"] and fa2["K"] == want["K"]
    assert standard == formulas.standard(*args)


@needs_node
def test_floor_division_and_remainder_keep_python_s_signs(tmp_path):
    (tmp_path / "m.py").write_text("def f(a, b):\n    return a // b, a % b, -a // b\n")
    (tmp_path / "m.js").write_text(js_port.port("m", exports=["f"], source=tmp_path / "m.py"))
    pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (-1, 64), (12345678901, 97)]
    got = node_call(tmp_path, "m", [("f", list(p)) for p in pairs])
    assert got == [[a // b, a % b, -a // b] for a, b in pairs]


@pytest.mark.parametrize(
    ("code", "what"),
    [
        ("def f(x):\n    return [y for y in x]\n", "ListComp"),
        ("def f(x):\n    return x / 2\n", "Div"),
        ("def f(x):\n    return g(x, k=1)\n", "keyword arguments"),
        ("def f(*x):\n    return 0\n", r"\*args"),
        ("def f(x):\n    return 0 < x < 2\n", "chained comparison"),
    ],
)
def test_a_construct_outside_the_subset_is_refused_with_its_line(tmp_path, code, what):
    path = tmp_path / "bad.py"
    path.write_text(code)
    with pytest.raises(js_port.PortError, match=rf"bad\.py:\d: .*{what}"):
        js_port.port("bad", exports=["f"], source=path)


def test_an_export_the_source_lacks_is_named(tmp_path):
    (tmp_path / "m.py").write_text("def f():\n    return 0\n")
    with pytest.raises(js_port.PortError, match="m.py: no g to export"):
        js_port.port("m", exports=["f", "g"], source=tmp_path / "m.py")


def test_renamed_names_are_the_glossary_s():
    """The JS speaks the book's names: each renamed Python keyword is an old name the glossary maps to it."""
    assert js_port.RENAMED and all(OLD[old] == new for old, new in js_port.RENAMED.items())
    assert "n_splits" not in js_port.port("formulas") + js_port.port("flops")


@needs_node
def test_the_generated_shared_memory_count_equals_python_s(tmp_path):
    """fa2_mma_shared (keyword-only in Python, trailing positional in JS) over ragged, causal and padded sizes."""
    for module in ("formulas", "shared"):
        (tmp_path / f"{module}.js").write_text(js_port.port(module))
    cases = [
        (N, d, Br, Bc, N_kv, warps, s, causal, p_in_shared, h)
        for N in (1, 100, 1000)
        for d in (16, 64)
        for Br, Bc in ((16, 16), (64, 40))
        for N_kv in (None, 37, 2000)
        for warps, s in ((1, 2), (4, 2))
        for causal in (False, True)
        for p_in_shared in (False, True)
        for h in (1, 3)
    ]
    got = node_call(tmp_path, "shared", [("fa2_mma_shared", list(c)) for c in cases])
    for (N, d, Br, Bc, N_kv, warps, s, causal, p_in, h), js in zip(cases, got, strict=True):
        want = formulas.fa2_mma_shared(N, d, Br, Bc, N_kv=N_kv, warps=warps, itemsize=s, causal=causal,
                                       p_in_shared=p_in, batch_heads=h)  # fmt: skip
        assert js == want, (N, d, Br, Bc, N_kv, warps, s, causal, p_in, h)


SAMPLE = dict(  # a value for each parameter of a closed form: ragged tiles, causal, 16-bit, several heads and splits
    N=100, d=16, Br=16, Bc=40, N_kv=37, causal=True, itemsize=2, batch_heads=3, n_splits=3, partials="lse",
    seq_lens=[5, 9, 1], page_size=4, H_q=4, H_kv=2, warps=2, warpgroups=3, p_in_shared=True,
)  # fmt: skip


@needs_node
def test_every_generated_closed_form_equals_python_s(tmp_path):
    """Each algorithm's closed form the browser gets (closed_forms.published: fa3_shared and any new one too), run in
    node with its parameters in order (keyword-only ones trailing), equals Python's at sizes where N > N_kv."""
    from kernelviz.attention.closed_forms import published

    checked = 0
    for module, (_, spec) in js_port.modules().items():
        (tmp_path / f"{module}.js").write_text(js_port.port(module))
        forms = published({module: spec})
        params = {name: list(inspect.signature(f).parameters) for name, f in forms.items()}
        unknown = {name: [p for p in ps if p not in SAMPLE] for name, ps in params.items()}
        assert not any(unknown.values()), f"give SAMPLE a value for {unknown}"
        calls = [(name, [SAMPLE[p] for p in ps]) for name, ps in params.items()]
        for (name, _), js in zip(calls, node_call(tmp_path, module, calls), strict=True):
            assert js == forms[name](**{p: SAMPLE[p] for p in params[name]}), (module, name)
            checked += 1
    assert checked >= 16  # 7 byte counts, 7 FLOP counts, 2 shared-memory counts (fa2_mma, fa3)


def tree_copy(tmp_path):
    """A copy of the sources js_port reads (formulas.py, flops.py, closed_forms/) under `tmp_path`."""
    attention = ROOT / "kernelviz" / "attention"
    for name in ("formulas.py", "flops.py"):
        shutil.copy(attention / name, tmp_path / name)
    shutil.copytree(attention / "closed_forms", tmp_path / "closed_forms")
    return tmp_path / "closed_forms"


@needs_node
def test_a_new_algorithm_s_closed_form_reaches_the_browser_by_its_module_alone(tmp_path):
    """closed_forms/piped.py, and no other edit: formulas.js exports piped, which node runs as Python does."""
    (tree_copy(tmp_path) / "piped.py").write_text(
        '"""A new algorithm: FA2\'s traffic and Q twice."""\n\nfrom ..formulas import kv_rows_read, rw\n\n\n'
        "def hbm(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1):\n"
        "    kv = batch_heads * kv_rows_read(N, Br, Bc, N_kv, causal) * d * itemsize\n"
        '    return {"Q": rw(2 * batch_heads * N * d * itemsize), "K": rw(kv), "V": rw(kv)}\n'
    )
    (tmp_path / "formulas.js").write_text(js_port.port("formulas", root=tmp_path))
    (got,) = node_call(tmp_path, "formulas", [("piped", [100, 16, 16, 40, 37, True, 2, 3])])
    fa2 = formulas.fa2(100, 16, 16, 40, 37, True, 2, 3)
    assert got == {"Q": {"read": 2 * 3 * 100 * 16 * 2, "write": 0}, "K": fa2["K"], "V": fa2["V"]}


def test_a_closed_form_calling_what_the_other_module_does_not_export_is_named(tmp_path):
    (tree_copy(tmp_path) / "odd.py").write_text(
        "from ..flops import count\nfrom ..formulas import floor_sum\n\n\ndef flops(N):\n"
        "    return count(floor_sum(N, 2, 1, 0))\n"
    )
    with pytest.raises(js_port.PortError, match="formulas.js does not export floor_sum: add it to its JS_MODULES"):
        js_port.port("flops", root=tmp_path)


def test_a_closed_form_is_not_published_over_a_helper_of_its_name():
    from types import SimpleNamespace

    from kernelviz.attention.closed_forms import publish

    module = SimpleNamespace(__name__="m", JS_MODULES={"m": {"form": "hbm", "as": "{stem}", "helpers": ()}})
    module.fa2 = len  # a helper that happens to be called as an algorithm's module
    with pytest.raises(ValueError, match=r"m\.fa2 is a helper there, and kernelviz\.attention\.closed_forms\.fa2"):
        publish(module)
