"""The closed forms in JavaScript, generated from ``formulas.py`` and ``flops.py``: one source, no hand port.

The explorer and the kernel pages' roofline recompute byte and FLOP counts in the browser, which loads no Python.
Instead of a second copy kept equal by tests, the web build (``web/build.mjs``) runs this file as a script,

    python3 kernelviz/attention/js_port.py web/.gen

which translates the functions each module lists in its ``JS_MODULES`` to ES modules in ``web/.gen``
(``web/src/explorer/formulas.js`` and ``web/src/roofline/flops.js`` re-export them). Standard library only, so
any Python 3 runs it, before the package is installed.

The translator reads a small subset of Python, the one these integer formulas are written in, and refuses anything
else with the file, line and construct (``PortError``): functions with positional defaults and docstrings;
assignments (tuple unpacking too), ``+=``, ``if``/``else``, ``while``, ``for`` over ``range`` or an iterable,
``return``, ``yield``, ``break``; integer arithmetic (``//`` floors, ``%`` takes the divisor's sign, as in Python),
comparisons, ``and``/``or``/``not``, conditional expressions; dict, tuple and list displays, dict comprehensions,
``sum``/``min``/``max``/``len``/``list``/``range``, ``.items()``/``.values()``/``.update()``. Every count is an
integer below 2**53, exact in a JS number. Names the glossary retired become its names (``n_splits`` -> ``splits``).
"""

import ast
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RENAMED = {"n_splits": "splits"}  # glossary.KEYWORDS: the Python keyword and the book's name
SOURCES = ("formulas", "flops")  # each says what the browser imports from it: JS_MODULES = {module: (names)}
PRELUDE = """\
const floordiv = (a, b) => Math.floor(a / b);
const mod = (a, b) => ((a % b) + b) % b;
const sum = (xs) => { let t = 0; for (const x of xs) t += x; return t; };
function* range(a, b) { if (b === undefined) [a, b] = [0, a]; for (let i = a; i < b; i++) yield i; }
"""
BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Pow: "**"}
COMPARE = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "===", ast.NotEq: "!=="}
CALLS = {"min": "Math.min", "max": "Math.max"}


class PortError(ValueError):
    """A construct the translator does not take, named with its file and line."""


class Translator:
    def __init__(self, path):
        self.path = path

    def fail(self, node, what):
        raise PortError(f"{self.path.name}:{getattr(node, 'lineno', '?')}: {what} is not in the JS subset")

    def name(self, name):
        return {"None": "null", "True": "true", "False": "false"}.get(name, RENAMED.get(name, name))

    # ---- expressions
    def expr(self, n):  # noqa: C901 - one case per construct
        e = self.expr
        if isinstance(n, ast.Constant):
            if isinstance(n.value, bool) or n.value is None:
                return {True: "true", False: "false", None: "null"}[n.value]
            if isinstance(n.value, (int, str)):
                return repr(n.value) if isinstance(n.value, str) else str(n.value)
            self.fail(n, f"constant {n.value!r}")
        if isinstance(n, ast.Name):
            return self.name(n.id)
        if isinstance(n, ast.BinOp):
            if isinstance(n.op, ast.FloorDiv):
                return f"floordiv({e(n.left)}, {e(n.right)})"
            if isinstance(n.op, ast.Mod):
                return f"mod({e(n.left)}, {e(n.right)})"
            if type(n.op) not in BINARY:
                self.fail(n, type(n.op).__name__)
            return f"({e(n.left)} {BINARY[type(n.op)]} {e(n.right)})"
        if isinstance(n, ast.UnaryOp):
            op = {ast.USub: "-", ast.Not: "!"}.get(type(n.op)) or self.fail(n, type(n.op).__name__)
            return f"({op}{e(n.operand)})"
        if isinstance(n, ast.BoolOp):
            return "(" + (" && " if isinstance(n.op, ast.And) else " || ").join(map(e, n.values)) + ")"
        if isinstance(n, ast.Compare):
            if len(n.ops) != 1:
                self.fail(n, "a chained comparison")
            op, right = n.ops[0], n.comparators[0]
            if isinstance(op, (ast.Is, ast.IsNot)) and isinstance(right, ast.Constant) and right.value is None:
                return f"({e(n.left)} {'==' if isinstance(op, ast.Is) else '!='} null)"
            if type(op) not in COMPARE:
                self.fail(n, type(op).__name__)
            return f"({e(n.left)} {COMPARE[type(op)]} {e(right)})"
        if isinstance(n, ast.IfExp):
            return f"({e(n.test)} ? {e(n.body)} : {e(n.orelse)})"
        if isinstance(n, (ast.Tuple, ast.List)):
            return "[" + ", ".join(map(e, n.elts)) + "]"
        if isinstance(n, ast.Dict):
            items = [
                f"...{e(v)}" if k is None else f"{self.key(k)}: {e(v)}" for k, v in zip(n.keys, n.values, strict=True)
            ]
            return "({" + ", ".join(items) + "})"
        if isinstance(n, ast.Subscript):
            return f"{e(n.value)}[{e(n.slice)}]"
        if isinstance(n, ast.DictComp):
            target, it = self.comprehension(n)
            return f"Object.fromEntries(Array.from({it}, ({target}) => [{e(n.key)}, {e(n.value)}]))"
        if isinstance(n, ast.Call):
            return self.call(n)
        self.fail(n, type(n).__name__)

    def key(self, k):
        """An object literal's key: a string that is a name as it is, any other expression computed."""
        if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.isidentifier():
            return k.value
        return f"[{self.expr(k)}]"

    def comprehension(self, n):
        if len(n.generators) != 1 or n.generators[0].ifs or n.generators[0].is_async:
            self.fail(n, "a comprehension with more than one 'for' or an 'if'")
        gen = n.generators[0]
        return self.expr(gen.target), self.expr(gen.iter)

    def call(self, n):
        e = self.expr
        if isinstance(n.func, ast.Attribute):
            obj, method = e(n.func.value), n.func.attr
            if method in ("items", "values") and not n.args:
                return f"Object.{'entries' if method == 'items' else 'values'}({obj})"
            if method == "update" and not n.args:
                return "Object.assign(" + obj + ", {" + ", ".join(f"{k.arg}: {e(k.value)}" for k in n.keywords) + "})"
            self.fail(n, f"the method .{method}()")
        if n.keywords or not isinstance(n.func, ast.Name):
            self.fail(n, "a call with keyword arguments")
        fn = n.func.id
        if fn == "sum" and len(n.args) == 1 and isinstance(n.args[0], ast.GeneratorExp):
            target, it = self.comprehension(n.args[0])
            return f"sum(Array.from({it}, ({target}) => {e(n.args[0].elt)}))"
        args = ", ".join(map(e, n.args))
        if fn == "len":
            return f"{args}.length"
        if fn == "list":
            return f"[...{args}]"
        return f"{CALLS.get(fn, self.name(fn))}({args})"

    # ---- statements
    def assigned(self, body):
        """Names a function assigns (declared once with `let` at its top: Python's scope is the function)."""
        names = []
        for node in ast.walk(ast.Module(body=body, type_ignores=[])):
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.For, ast.AugAssign)):
                targets = [node.target]
            for t in targets:
                for leaf in ast.walk(t):
                    if isinstance(leaf, ast.Name) and isinstance(leaf.ctx, ast.Store) and leaf.id not in names:
                        names.append(leaf.id)
        return names

    def block(self, body, indent):
        return [line for stmt in body for line in self.stmt(stmt, indent)]

    def stmt(self, n, ind):  # noqa: C901 - one case per construct
        pad, e = "  " * ind, self.expr
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str):
            return []  # a docstring: the function's comment
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Yield):
            return [f"{pad}yield {e(n.value.value)};"]
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):
            return [f"{pad}{e(n.value)};"]
        if isinstance(n, ast.Assign) and len(n.targets) == 1:
            return [f"{pad}{e(n.targets[0])} = {e(n.value)};"]
        if isinstance(n, ast.AugAssign) and type(n.op) in (ast.Add, ast.Sub, ast.Mult):
            return [f"{pad}{e(n.target)} {BINARY[type(n.op)]}= {e(n.value)};"]
        if isinstance(n, ast.Return):
            return [f"{pad}return{' ' + e(n.value) if n.value else ''};"]
        if isinstance(n, ast.Break):
            return [f"{pad}break;"]
        if isinstance(n, ast.If):
            out = [f"{pad}if {e(n.test)} {{", *self.block(n.body, ind + 1)]
            if n.orelse:
                out += [f"{pad}}} else {{", *self.block(n.orelse, ind + 1)]
            return [*out, f"{pad}}}"]
        if isinstance(n, ast.While) and not n.orelse:
            return [f"{pad}while {e(n.test)} {{", *self.block(n.body, ind + 1), f"{pad}}}"]
        if isinstance(n, ast.For) and not n.orelse:
            return [f"{pad}for ({e(n.target)} of {e(n.iter)}) {{", *self.block(n.body, ind + 1), f"{pad}}}"]
        self.fail(n, type(n).__name__)

    def function(self, f, exported, name=None, where=None):
        """`f` as a JS function named `name` (default its own), its docstring a comment headed `where`."""
        a = f.args
        if a.vararg or a.kwarg or a.posonlyargs:
            self.fail(f, "*args, **kwargs or positional-only parameters")
        params = a.args + a.kwonlyargs  # keyword-only parameters become trailing positional ones
        defaults = [None] * (len(a.args) - len(a.defaults)) + list(a.defaults) + list(a.kw_defaults)
        shown = [
            self.name(p.arg) + ("" if d is None else f" = {self.expr(d)}")
            for p, d in zip(params, defaults, strict=True)
        ]
        star = "*" if any(isinstance(x, (ast.Yield, ast.YieldFrom)) for x in ast.walk(f)) else ""
        doc = ast.get_docstring(f)
        for old, new in RENAMED.items():  # the comment speaks the code's names
            doc = doc and re.sub(rf"\b{old}\b", new, doc)
        doc = doc and doc.replace("*/", "* /").replace("\n", "\n * ")
        head = [f"/** {where or f'{self.path.stem}.{f.name}'}: {doc} */"] if doc else []
        local = [self.name(x) for x in self.assigned(f.body) if x not in {p.arg for p in params}]
        body = ([f"  let {', '.join(local)};"] if local else []) + self.block(f.body, 1)
        export = "export " if exported else ""
        return [*head, f"{export}function{star} {name or f.name}({', '.join(shown)}) {{", *body, "}"]


def modules(root=HERE):
    """{generated module: (the source of its helpers, its spec {"form", "as", "helpers"})}, from each source's
    JS_MODULES (a literal) under `root` (the folder of formulas.py)."""
    out = {}
    for origin in SOURCES:
        tree = ast.parse((Path(root) / f"{origin}.py").read_text())
        found = [n.value for n in tree.body if isinstance(n, ast.Assign) and _named(n, "JS_MODULES")]
        for module, spec in (ast.literal_eval(found[0]) if found else {}).items():
            out[module] = (origin, spec)
    return out


def _named(node, name):
    return len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name


class Pool:
    """The top-level definitions a generated module draws on: {name: (FunctionDef, Translator, label)}, constants,
    and {name: source module} of the names the sources import from a sibling module (formulas, flops)."""

    def __init__(self):
        self.defs, self.consts, self.imported = {}, {}, {}

    def read(self, path, rename=None, only=None, origin=None):
        """Add `path`'s functions (those of `only`, renamed by `rename`; their comments headed `origin`.name) and
        constants; refuse other statements."""
        tree = ast.parse(path.read_text(), str(path))
        t = Translator(path)
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                if only is not None and node.name not in only:
                    continue  # a form this generated module does not hold
                name = (rename or {}).get(node.name, node.name)
                if name in self.defs:
                    t.fail(node, f"a second function {name} (the first: {self.defs[name][2]})")
                self.defs[name] = (node, t, f"{origin or path.stem}.{name}")
            elif isinstance(node, ast.Assign) and _named(node, "JS_MODULES"):
                continue  # what the browser imports: read by modules(), not translated
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and only is None:
                self.consts[node.targets[0].id] = (node, t)
            elif isinstance(node, ast.ImportFrom) and node.level in (1, 2) and node.module:
                self.imported.update({a.name: node.module for a in node.names})
            elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                t.fail(node, type(node).__name__)
        return t


def closed_forms(root, form, named):
    """[(path, {form: exported name})]: the modules of closed_forms/ under `root` that define `form`, the name each
    goes by (`named` with its stem: "{stem}_shared")."""
    found = []
    for path in sorted((Path(root) / "closed_forms").glob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        if path.name != "__init__.py" and any(isinstance(n, ast.FunctionDef) and n.name == form for n in tree.body):
            found.append((path, {form: named.format(stem=path.stem)}))
    return found


def port(module, exports=None, source=None, root=HERE):
    """The ES module `module` of ``modules(root)``: its helpers' source's functions and every algorithm's closed
    form it holds (``closed_forms``), of which the exports and what they call, the others left out. With `source`,
    the one file `source`, exporting `exports`."""
    pool, specs = Pool(), modules(root)
    if source is not None:
        pool.read(Path(source))
        label, exports = Path(source).name, exports or ()
    else:
        origin, spec = specs[module]
        pool.read(Path(root) / f"{origin}.py")
        label = f"{origin}.py and closed_forms/*.py ({spec['form']})"
        forms = closed_forms(root, spec["form"], spec["as"])
        for path, rename in forms:
            pool.read(path, rename, only=set(rename), origin=origin)
        exports = [*spec["helpers"], *(name for _, rename in forms for name in rename.values())]
    missing = [x for x in exports if x not in pool.defs and x not in pool.consts]
    if missing:
        raise PortError(f"{label}: no {', '.join(missing)} to export")
    needed, todo, outside = set(), list(exports), {}
    while todo:  # the exports and what they call, transitively
        name = todo.pop()
        if name in needed or name not in pool.defs:
            continue
        needed.add(name)
        for n in ast.walk(pool.defs[name][0]):
            if isinstance(n, ast.Name) and n.id in pool.defs:
                todo.append(n.id)
            elif isinstance(n, ast.Name) and n.id in pool.imported and n.id not in pool.consts:
                outside.setdefault(pool.imported[n.id], set()).add(n.id)
    imports = []
    for other, names in sorted(outside.items()):
        lacking = sorted(names - set(specs[other][1]["helpers"] if other in specs else ()))
        if lacking:
            raise PortError(f"{label}: {other}.js does not export {', '.join(lacking)}: add it to its JS_MODULES")
        imports.append(f"import {{ {', '.join(sorted(names))} }} from './{other}.js';")
    header = f"// Generated from kernelviz/attention/{label} by kernelviz/attention/js_port.py: do not edit.\n"
    lines = [header.rstrip(), *imports, PRELUDE.rstrip()]
    for name, (node, tr) in pool.consts.items():
        lines.append(f"{'export ' if name in exports else ''}const {name} = {tr.expr(node.value)};")
    for name, (node, tr, where) in pool.defs.items():
        if name in needed:
            lines += ["", *tr.function(node, name in exports, name, where)]
    return "\n".join(lines) + "\n"


def write(out_dir):
    """Write formulas.js and flops.js into `out_dir`; the paths written."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for module in modules():
        path = out_dir / f"{module}.js"
        text = port(module)
        if not path.exists() or path.read_text() != text:  # unchanged files keep their time (make, esbuild)
            path.write_text(text)
        paths.append(path)
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 kernelviz/attention/js_port.py OUT_DIR")
    write(sys.argv[1])
