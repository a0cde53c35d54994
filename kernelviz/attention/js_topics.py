"""The algorithm records (``topics/``) as data for the browser: ``web/.gen/topics.js``, so no JavaScript switches
on an algorithm's name. The web build (``web/build.mjs``) runs it beside ``js_port.py``,

    python3 -m kernelviz.attention.js_topics web/.gen

and writes one ES module that exports ``TOPICS``, {name: record}, in the registry's order, each record

    {name, family, baseline, inputs: 'dense' | 'paged' | 'scores', options: [name], defaults: {option: default},
     dtypes: [dtype], instruction, bytes, flops, shared}

where `baseline` says the record is its family's baseline (drawn in contrast), `options` are the names of the options
it takes (``Option.name``), `defaults` the ones a run fills in ({option: default}), and each closed form is ``{call,
params}`` or null: `call` the function js_port generated from ``formulas.py`` / ``flops.py`` (imported from
``./formulas.js``, ``./flops.js``, ``./shared.js``), `params` its parameter names in the order it takes them (Python's
keyword-only ones last, as js_port writes them; the glossary's names: ``n_splits`` -> ``splits``), or null where the
record has none. A closed form js_port does not translate (one in a topic's own module) is ``{call: null, source}``,
and the browser says it cannot count it. web/src/explorer/topics.js reads it (``evaluate``).
"""

import inspect
import json
import sys
from pathlib import Path

from . import js_port
from .algorithm import DENSE, PAGED
from .topics import TOPICS

HEADER = "// Generated from kernelviz/attention/topics/ by kernelviz/attention/js_topics.py: do not edit.\n"
FORMS = ("bytes", "flops", "shared", "block")  # the closed forms an Algorithm carries (algorithm.Algorithm)


def _ported():
    """{(Python module, function name): (generated module, its JS name)} of every function js_port exports. A
    generated module's spec is the names it exports (one list), or {"form", "as", "helpers"}: the helpers of its
    source, and each ``closed_forms/<stem>.py``'s function `form` under the name `as` makes of its stem."""
    out = {}
    for module, (origin, spec) in js_port.modules().items():
        if not isinstance(spec, dict):
            out.update({(f"kernelviz.attention.{origin}", name): (module, name) for name in spec})
            continue
        out.update({(f"kernelviz.attention.{origin}", name): (module, name) for name in spec.get("helpers", ())})
        for path in sorted((js_port.HERE / "closed_forms").glob("*.py")):
            named = spec["as"].format(stem=path.stem)
            out[(f"kernelviz.attention.closed_forms.{path.stem}", spec["form"])] = (module, named)
    return out


def own_module(fn):
    """(the generated module's name, its text) of the file `fn` is defined in, when js_port translates that file
    (nothing but functions in its subset, constants and relative imports), else None."""
    path = Path(inspect.getsourcefile(fn))
    stem = path.stem
    try:
        return stem, js_port.port(stem, (fn.__name__,), source=path)
    except (js_port.PortError, SyntaxError):
        return None


def closed_form(fn, ported=None, own=None):
    """The JavaScript expression of closed form `fn`: ``{call: module.name, params: [...]}``, from a module js_port
    generates or else from its own file translated whole (added to `own`, {module: text}); 'null' for none; with
    `call` null and its `source` named where its file is not in js_port's subset."""
    ported = _ported() if ported is None else ported
    if fn is None:
        return "null"
    found = ported.get((fn.__module__, fn.__name__))
    if found is None and (translated := own_module(fn)) is not None:
        found = (translated[0], fn.__name__)
        if own is not None:
            own[translated[0]] = translated[1]
    if found is None:
        return f"{{ call: null, params: null, source: {json.dumps(f'{fn.__module__}.{fn.__qualname__}')} }}"
    params = [js_port.RENAMED.get(p, p) for p in inspect.signature(fn).parameters]
    return f"{{ call: {found[0]}.{found[1]}, params: {json.dumps(params)} }}"


def inputs_kind(record):
    """'dense' (q, k, v), 'paged' (a batch in a paged cache) or 'scores' (the softmax variants)."""
    return {id(DENSE): "dense", id(PAGED): "paged"}.get(id(record.inputs), "scores")


def record_js(record, ported, own=None):
    """One record as a JavaScript object literal (the modules its closed forms need added to `own`)."""
    data = {
        "name": record.name,
        "title": record.title,
        "family": record.family,
        "baseline": record.baseline,
        "inputs": inputs_kind(record),
        "options": [o.name for o in record.options],
        "defaults": {o.name: o.default for o in record.options if o.default is not None},
        "dtypes": list(record.dtypes),
        "instruction": record.instruction,
    }
    fields = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in data.items()]
    fields += [f"{json.dumps(form)}: {closed_form(getattr(record, form), ported, own)}" for form in FORMS]
    return "{ " + ", ".join(fields) + " }"


def modules_text():
    """{file name: text} of topics.js and of the modules of its records' own closed forms (fa2_block.js)."""
    ported, own = _ported(), {}
    body = [f"  {json.dumps(r.name)}: {record_js(r, ported, own)}," for r in TOPICS]
    modules = sorted({module for module, _ in ported.values()} | set(own))
    imports = [f"import * as {m} from './{m}.js';" for m in modules]
    topics = HEADER + "\n".join(imports) + "\n\nexport const TOPICS = {\n" + "\n".join(body) + "\n};\n"
    return {"topics.js": topics, **{f"{m}.js": text for m, text in own.items()}}


def write(out_dir):
    """Write topics.js and its own modules into `out_dir` (each left alone when unchanged: make and esbuild go by
    their time); their paths."""
    paths = []
    for name, text in modules_text().items():
        path = Path(out_dir) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        paths.append(path)
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 -m kernelviz.attention.js_topics OUT_DIR")
    write(sys.argv[1])
