"""The browser's algorithm records (web/.gen/topics.js, written by kernelviz.attention.js_topics, read through
web/src/explorer/topics.js) say what the Python records say, and their closed forms, called by parameter name as the
roofline and the explorer call them, count what Python's do: node runs them at ragged, causal and split sizes and
every count must equal Python's exactly. The roofline's units table (web/.gen/bound.js) is Python's
``roofline.BOUND_UNITS``."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelviz.attention import js_topics
from kernelviz.attention.algorithm import PAGED, Algorithm
from kernelviz.attention.fa2 import flash_attention_2
from kernelviz.attention.topics import REGISTRY, TOPICS
from kernelviz.roofline import BOUND_UNITS, js_bound

WEB = Path(__file__).resolve().parents[2] / "web"
NODE = shutil.which("node")
ITEMSIZE = {"float32": 4, "float16": 2, "bfloat16": 2}

SCRIPT = """
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const topics = await import(pathToFileURL(process.argv[1] + '/src/explorer/topics.js'));
const { BOUND_UNITS } = await import(pathToFileURL(process.argv[1] + '/.gen/bound.js'));
const input = JSON.parse(readFileSync(0, 'utf8'));
const shared = (r) => r.shared && (r.shared.call ? 'js' : r.shared.source);
const data = Object.fromEntries(Object.entries(topics.TOPICS).map(([name, r]) => [name,
  { ...r, bytes: Boolean(r.bytes), flops: Boolean(r.flops), shared: shared(r) }]));
const counted = input.cases.map(([algorithm, form, values]) => {
  try { return topics.evaluate(algorithm, form, values); } catch (e) { return { error: e.message }; }
});
console.log(JSON.stringify({ order: Object.keys(topics.TOPICS), data, counted, units: BOUND_UNITS }));
"""


def run_node(cases):
    if NODE is None:
        pytest.skip("node is not installed")
    if not (WEB / ".gen" / "topics.js").exists():
        pytest.skip("web/.gen/topics.js is not generated: run `cd web && node build.mjs`")
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", SCRIPT, str(WEB)],
        input=json.dumps({"cases": cases}),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=WEB,
    )
    return json.loads(out.stdout)


DENSE_SIZES = [  # (N, N_kv, d, Br, Bc, causal, batch_heads, splits)
    (1, 1, 4, 1, 1, False, 1, 1),
    (7, 24, 16, 3, 8, True, 3, 2),
    (100, 5, 64, 64, 2, False, 2, 3),
    (129, 129, 8, 16, 64, True, 1, 4),
]


def cases():
    """[(algorithm, form, values)] of every record's closed forms at DENSE_SIZES (or a batch) in each dtype it takes."""
    out = []
    for r in TOPICS:
        for form in ("bytes", "flops", "shared"):
            if getattr(r, form) is None:
                continue
            for dtype in r.dtypes:
                if r.inputs is PAGED:
                    for lens, page, hq, hkv, splits in [([5, 9], 4, 2, 1, 2), ([1, 33, 16], 16, 8, 2, 3)]:
                        values = {"seq_lens": lens, "d": 4, "page_size": page, "H_q": hq, "H_kv": hkv}
                        out.append((r.name, form, {**values, "splits": splits, "itemsize": ITEMSIZE[dtype]}))
                    continue
                for n, n_kv, d, br, bc, causal, bh, splits in DENSE_SIZES:
                    values = {"N": n, "N_kv": n_kv, "d": d, "Br": br, "Bc": bc, "causal": causal}
                    out.append(
                        (r.name, form, {**values, "batch_heads": bh, "splits": splits, "itemsize": ITEMSIZE[dtype]})
                    )
    return out


def python(algorithm, form, values):
    """What the record's closed form counts at `values`, called as Python calls it (its options at their defaults)."""
    record = REGISTRY[algorithm]
    fn = getattr(record, form)
    v = dict(values)
    if record.inputs is PAGED:
        args = (v["seq_lens"], v["d"], v["page_size"], v["H_q"], v["H_kv"], v["splits"])
        return fn(*args, v["itemsize"]) if form == "bytes" else fn(*args)
    keep = {"N_kv": v["N_kv"], "causal": v["causal"], "batch_heads": v["batch_heads"]}
    if form != "flops":
        keep["itemsize"] = v["itemsize"]
    keep.update({o.argument: o.default for o in record.options if o.default is not None and form == "shared"})
    if record.option("splits"):
        keep["n_splits"] = v["splits"]
    return fn(v["N"], v["d"], v["Br"], v["Bc"], **keep)


def test_the_browsers_records_say_what_the_python_records_say():
    out = run_node([])
    assert out["order"] == [r.name for r in TOPICS]
    for r in TOPICS:
        got = out["data"][r.name]
        assert got["family"] == r.family and got["baseline"] == r.baseline, r.name
        assert got["options"] == [o.name for o in r.options], r.name
        assert got["defaults"] == {o.name: o.default for o in r.options if o.default is not None}, r.name
        assert (got["dtypes"], got["instruction"]) == (list(r.dtypes), r.instruction), r.name
        assert (got["bytes"], got["flops"]) == (r.bytes is not None, r.flops is not None), r.name
        assert (got["inputs"] == "paged") == ("seq_lens" in r.inputs.sizes), r.name
    assert out["units"] == {u: {"counts": list(c), "rate": rate} for u, (c, rate) in BOUND_UNITS.items()}


def unported():
    """The records whose shared-memory closed form has no JavaScript, as topics.js says: {name: its source}."""
    data = run_node([])["data"]
    return {name: r["shared"] for name, r in data.items() if r["shared"] not in (None, "js")}


def test_every_closed_form_the_browser_calls_counts_what_python_counts():
    skip = unported()
    todo = [c for c in cases() if not (c[1] == "shared" and c[0] in skip)]
    out = run_node(todo)
    assert len(todo) > 100
    assert any(form == "shared" for _, form, _ in todo)  # fa2-mma's, at its option defaults
    for (algorithm, form, values), got in zip(todo, out["counted"], strict=True):
        assert got == python(algorithm, form, values), (algorithm, form, values)


def test_a_shared_closed_form_without_javascript_is_an_error_naming_its_source():
    missing = unported()
    if not missing:
        pytest.skip("every record's shared-memory closed form has JavaScript")
    names = sorted(missing)
    out = run_node([(n, "shared", {"N": 8, "N_kv": 8, "d": 4, "Br": 4, "Bc": 4, "itemsize": 2}) for n in names])
    for name, got in zip(names, out["counted"], strict=True):
        fn = REGISTRY[name].shared
        assert missing[name] == f"{fn.__module__}.{fn.__qualname__}"
        assert got["error"] == f"{name}: its shared closed form ({missing[name]}) has no JavaScript"


def test_an_unknown_algorithm_is_an_error_listing_the_known_ones():
    (got,) = run_node([("fa9", "bytes", {})])["counted"]
    assert got["error"].startswith("no algorithm fa9; expected one of standard, ")


def test_the_generator_binds_a_ported_function_by_name_and_names_the_source_of_one_it_cannot():
    """Planted: a record whose closed form is a lambda gets no call, only its source; a ported one its JS name and
    parameters in the order js_port writes them (the glossary's splits for n_splits)."""
    split = next(r for r in TOPICS if r.option("splits"))  # its closed forms take n_splits
    lam = Algorithm(name="planted", function=flash_attention_2, bytes=lambda *a: {}, flops=split.flops)
    text = js_topics.record_js(lam, js_topics._ported())
    assert '"bytes": { call: null, params: null, source: "' in text
    assert (
        f"{__name__}.test_the_generator_binds_a_ported_function_by_name_and_names_the_source_of_one_it_cannot" in text
    )
    assert (
        f'"flops": {{ call: flops.{split.name.replace("-", "_")}, params: ["N", "d", "Br", "Bc", "splits", "N_kv"'
        in text
    )
    assert '"shared": null' in text


def test_the_units_table_is_generated_from_python_s(monkeypatch):
    """Planted: a unit added to BOUND_UNITS appears in bound.js; the one written is the table as it stands."""
    monkeypatch.setitem(js_bound.BOUND_UNITS, "planted unit", (("exp",), "fp32_flops_per_s"))
    assert '"planted unit": {\n    "counts": [\n      "exp"\n    ],\n    "rate": "fp32_flops_per_s"' in (
        js_bound.module_text()
    )
