"""The imports of kernelviz/ and web/src/, read from the source: no circle, and nothing imported from a higher layer.

Every import counts, the ones inside functions too (a deferred import that dodges a circle is still a circle).
Each module belongs to a component (the first glob of COMPONENTS that matches its name), and each component to a
layer. A module may import its own component and any component of a lower layer: nothing beside it (two components
of one layer know nothing of each other) and nothing above it.
"""

import ast
import fnmatch
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# ---- Python: kernelviz/ -------------------------------------------------------------------------------------------

PY_LAYERS = [  # bottom first
    ["glossary"],  # the names of the sizes, which every part speaks of
    ["pie", "progress"],  # pie: the drawing library, standard library only; progress: the terminal's progress bar
    ["figlib"],  # the figure library, on pie (both run in Pyodide)
    ["runner", "attention", "roofline"],  # runner: runs editors with pie bound; attention: the algorithms on NumPy,
    # alone; roofline: the GPUs' peak rates and the bounds they set
    ["cuda"],  # the kernels, checked against attention
    ["site leaves"],  # the site's small parts that know no page: tokens, highlighting, names, diagnostics
    ["site extensions"],  # the Markdown rules, one a file
    ["site"],  # the builder's stages, the pages, the server
    ["commands"],  # the command line: kernelviz.cli and commands/, one module a sub-command
]
PY_COMPONENTS = [  # (glob of module names, component): the first that matches
    ("kernelviz.cli", "commands"),
    ("kernelviz.__main__", "commands"),  # python -m kernelviz
    ("kernelviz.commands*", "commands"),
    ("kernelviz.glossary", "glossary"),
    ("kernelviz.pie*", "pie"),
    ("kernelviz.progress", "progress"),
    ("kernelviz.figlib*", "figlib"),
    ("kernelviz.runner", "runner"),
    ("kernelviz.attention*", "attention"),
    ("kernelviz.roofline*", "roofline"),
    ("kernelviz.cuda*", "cuda"),
    *(
        (f"kernelviz.site.{leaf}", "site leaves")
        for leaf in (
            "tokens",
            "highlight",
            "diagnostics",
            "locations",
            "nav",
            "js",
            "cuda_code",
            "cuda_render",
            "step_at",
            "library",
            "bars_svg",
            "fragments_svg",
        )
    ),
    ("kernelviz.site.extensions*", "site extensions"),
    ("kernelviz.site*", "site"),
    ("kernelviz", "package"),  # kernelviz/__init__.py: the version, nothing imported
]


def python_modules():
    """{module name: path} of kernelviz/ (without the wheel's bundled copy)."""
    found = {}
    for path in (ROOT / "kernelviz").rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if "bundled" in parts:
            continue
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def python_imports(name, path, modules):
    """The modules of `modules` that module `name` (at `path`) imports, anywhere in it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in modules}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            if target not in modules:
                continue
            # `from P import m` imports the module P.m where there is one, else names of P
            out |= {f"{target}.{a.name}" if f"{target}.{a.name}" in modules else target for a in node.names}
    out.discard(name)
    return out


def python_graph():
    modules = python_modules()
    return {name: python_imports(name, path, modules) for name, path in modules.items()}


# ---- JavaScript: web/src/ -----------------------------------------------------------------------------------------

JS_LAYERS = [  # bottom first; a component is a folder of web/src
    ["lib", "forms"],  # lib: the DOM, SVG and scheduling helpers; forms: the number field
    ["page"],  # the page's small behaviours: theme, clipboard, bullets, print, CUDA notes
    ["figure", "editors", "explorer", "softmax", "worker"],  # the runtime's parts, each on its own
    ["roofline"],  # a kernel page's roofline section, on the explorer's byte formulas
    ["entries", "build-time"],  # the bundles' entry points; what the builder runs in V8
]
JS_IMPORT = re.compile(r"""(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}/[^'"]+\.js)['"]""")


def js_graph():
    """{path under web/src: the paths under web/src it imports}, relative imports of .js files only."""
    src = ROOT / "web" / "src"
    graph = {}
    for path in src.rglob("*.js"):
        text = re.sub(r"^\s*//.*$", "", path.read_text(encoding="utf-8"), flags=re.M)  # comments say "import"
        text = re.sub(r"^\s*/?\*.*$", "", text, flags=re.M)
        targets = {(path.parent / spec).resolve() for spec in JS_IMPORT.findall(text)}
        graph[path.relative_to(src).as_posix()] = {t.relative_to(src).as_posix() for t in targets}
    return graph


# ---- the checks ---------------------------------------------------------------------------------------------------


def circles(graph):
    """The strongly connected components of more than one node (Tarjan's algorithm), each sorted."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def upward(graph, component_of, layers):
    """The imports that break the layers: [(importer, imported, why)]."""
    layer = {c: i for i, cs in enumerate(layers) for c in cs}
    bad = []
    for a, targets in sorted(graph.items()):
        for b in sorted(targets):
            ca, cb = component_of(a), component_of(b)
            if ca == cb:
                continue
            if layer[cb] > layer[ca]:
                bad.append((a, b, f"{ca} imports {cb}, a higher layer"))
            elif layer[cb] == layer[ca]:
                bad.append((a, b, f"{ca} imports {cb}, beside it in the same layer"))
    return bad


def python_component(name):
    return next(c for glob, c in PY_COMPONENTS if fnmatch.fnmatchcase(name, glob))


def js_component(path):
    return path.split("/")[0]


def test_the_checks_find_a_circle_and_an_upward_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert upward({"low/x": {"high/y"}, "high/y": {"low/z"}}, lambda p: p.split("/")[0], [["low"], ["high"]]) == [
        ("low/x", "high/y", "low imports high, a higher layer")
    ]


def test_the_readers_see_deferred_relative_and_dynamic_imports(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("from . import a\nfrom .b import thing\ndef f():\n    from ..c import d\n    import p.q\n")
    modules = {"p.q", "p.r", "p.r.a", "p.r.b", "p.c", "p.c.d", "p.r.m"}
    assert python_imports("p.r.m", module, modules) == {"p.r.a", "p.r.b", "p.c.d", "p.q"}
    assert JS_IMPORT.findall("import { a } from './x.js';\nconst m = await import('../y/z.js');") == [
        "./x.js",
        "../y/z.js",
    ]


@pytest.mark.parametrize("graph", [python_graph, js_graph], ids=["kernelviz", "web-src"])
def test_no_import_circle(graph):
    assert circles(graph()) == []


def test_no_python_import_from_a_higher_layer():
    graph = python_graph()
    assert upward(graph, python_component, [["package"], *PY_LAYERS]) == []
    assert graph["kernelviz.pie.bounds"] == set()  # the bottom of pie: the schema's bounds


def test_no_javascript_import_from_a_higher_layer():
    graph = js_graph()
    assert {js_component(p) for p in graph} <= {c for cs in JS_LAYERS for c in cs}
    assert upward(graph, js_component, JS_LAYERS) == []
