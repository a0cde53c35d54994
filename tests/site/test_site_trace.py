"""``{{ trace.EXPR }}``: ledger numbers in prose, checked against the closed-form counts of attention.formulas."""

import json
import re
from pathlib import Path

import pytest

from kernelviz.attention import formulas
from kernelviz.site.extensions import trace
from tests.attention.grid_ticks import expected_schedule, flat, per_block, visited_cell_by_cell

GPUS = Path(__file__).resolve().parents[2] / "kernelviz" / "roofline" / "gpus.json"


def spans(html):
    """{expr: text} of the trace numbers of a page."""
    return dict(re.findall(r'<span class="kv-trace" title="([^"]+)">([^<]*)</span>', html))


def test_fa2_numbers_match_the_formulas(build_site):
    N, d, Br, Bc = 16, 4, 4, 8
    body = (
        "K read {{ trace.reads.K }} times, Q {{ trace.reads.Q }}, O written {{ trace.writes.O }};\n"
        "{{ trace.bytes.total }} bytes, {{ trace.bytes.K }} of K; Tr = {{ trace.Tr }}, Tc = {{trace.Tc}};\n"
        "{{ trace.loads.K }} K tiles; ratio {{ trace.ratio_standard }}.\n"
    )
    front = f"title: T\ntrace: {{algo: fa2, N: {N}, d: {d}, Br: {Br}, Bc: {Bc}}}"
    result, out = build_site({"t.md": f"---\n{front}\n---\n{body}"})
    assert result.warnings == []
    got = spans((out / "t.html").read_text())
    fa2 = formulas.fa2(N, d, Br, Bc)
    standard = formulas.standard(N, d, Br, Bc)
    tensor = N * d * 4
    Tr, Tc = -(-N // Br), -(-N // Bc)
    assert got == {
        "trace.reads.K": str(fa2["K"]["read"] // tensor),
        "trace.reads.Q": "1",
        "trace.writes.O": "1",
        "trace.bytes.total": f"{formulas.total(fa2):,}",
        "trace.bytes.K": f"{fa2['K']['read']:,}",
        "trace.Tr": str(Tr),
        "trace.Tc": str(Tc),
        "trace.loads.K": str(Tr * Tc),
        "trace.ratio_standard": trace.format_number(formulas.total(standard) / formulas.total(fa2)),
    }
    assert got["trace.reads.K"] == str(Tr)  # K is read once per block of Q rows


def test_named_traces_and_softmax_variants(build_site):
    front = (
        "title: S\ntrace:\n  safe: {algo: safe-softmax, N: 16, Bc: 4}\n"
        "  out: {algo: online-softmax-output, N: 16, Bc: 4, d: 2}"
    )
    body = "{{ trace.safe.reads.x }} {{ trace.safe.writes.y }} {{ trace.out.reads.x }} {{ trace.out.T }}\n"
    result, out = build_site({"s.md": f"---\n{front}\n---\n{body}"})
    assert result.warnings == []
    got = spans((out / "s.html").read_text())
    safe = formulas.softmax("safe", 16)
    assert got["trace.safe.reads.x"] == str(safe["x"]["read"] // (16 * 4))
    assert got["trace.safe.writes.y"] == "1"
    assert got["trace.out.reads.x"] == "1" and got["trace.out.T"] == "4"


def test_paged_decoding_numbers_match_the_formula(build_site):
    """GQA against MHA at the same query heads: K/V bytes fall by g, from two runs of the ledger."""
    front = (
        "title: P\ntrace:\n  gqa: {algo: paged-decoding, seq_lens: [5, 17, 9], d: 8, page_size: 4, H_q: 8, H_kv: 2}\n"
        "  mha: {algo: paged-decoding, seq_lens: [5, 17, 9], d: 8, page_size: 4, H_q: 8, splits: 2}"
    )
    body = (
        "{{ trace.gqa.bytes.K }} {{ trace.gqa.bytes.total }} {{ trace.gqa.g }} {{ trace.gqa.pages }} "
        "{{ trace.gqa.loads.block_table }} {{ trace.mha.bytes.K }} {{ trace.mha.kv_bytes_per_token }}\n"
    )
    result, out = build_site({"p.md": f"---\n{front}\n---\n{body}"})
    assert result.warnings == []
    got = spans((out / "p.html").read_text())
    gqa = formulas.paged_decoding([5, 17, 9], 8, 4, 8, 2)
    mha = formulas.paged_decoding([5, 17, 9], 8, 4, 8, 8, 2)
    assert got == {
        "trace.gqa.bytes.K": f"{gqa['K']['read']:,}",
        "trace.gqa.bytes.total": f"{formulas.total(gqa):,}",
        "trace.gqa.g": "4",
        "trace.gqa.pages": "10",
        "trace.gqa.loads.block_table": "20",  # 10 pages, each entry read once per K/V head
        "trace.mha.bytes.K": f"{mha['K']['read']:,}",
        "trace.mha.kv_bytes_per_token": "512",  # 2 x 8 heads x 8 x 4 B
    }
    assert int(got["trace.mha.bytes.K"].replace(",", "")) == 4 * gqa["K"]["read"]


def test_placeholders_work_inside_math(build_site):
    front = "title: M\ntrace: {algo: fa2, N: 8, d: 4, Br: 4, Bc: 4}"
    result, out = build_site({"m.md": f"---\n{front}\n---\nK is read $T_r = {{{{ trace.Tr }}}}$ times.\n"})
    assert result.warnings == []
    # the number in the formula typeset (MathML: no TeX annotation is kept)
    assert "<msub><mi>T</mi><mi>r</mi></msub><mo>=</mo><mn>2</mn>" in (out / "m.html").read_text()


def test_unknown_names_and_missing_traces_warn_with_their_line(build_site, line):
    front = "title: U\ntrace: {algo: fa2, N: 8, d: 4, Br: 4, Bc: 4}"
    source = (
        f"---\n{front}\n---\nfine {{{{ trace.reads.K }}}}\nthen\n{{{{ trace.reads.Z }}}} and {{{{ trace.nope }}}}\n"
    )
    result, out = build_site({"u.md": source})
    assert [(w.line, w.message.split(":")[0]) for w in result.warnings] == [
        (line(source, "trace.reads.Z"), "{{ trace.reads.Z }}"),
        (line(source, "trace.reads.Z"), "{{ trace.nope }}"),
    ]
    assert "trace.reads has Q, K, V, O, L" in result.warnings[0].message
    assert '<span class="kv-trace kv-missing">{{ trace.reads.Z }}</span>' in (out / "u.html").read_text()
    result, _ = build_site({"u.md": "---\ntitle: U\n---\n{{ trace.N }}\n"})
    assert "no trace" in result.warnings[0].message


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("{algo: fa4, N: 8, d: 4, Br: 4, Bc: 4}", "algo must be one of"),
        ("{algo: fa2, N: 8, d: 4, Br: 4}", "missing Bc"),
        ("{algo: fa2, N: 8, d: 4, Br: 4, Bc: 4, splits: 2}", "splits is a flash-decoding size"),
        ("{algo: fa2, N: 0, d: 4, Br: 4, Bc: 4}", "N must be at least 1"),
        ("{algo: paged-decoding, seq_lens: [4, 0], d: 4, page_size: 4}", "seq_lens must be a list of lengths"),
        ("{algo: paged-decoding, seq_lens: [4], d: 4, page_size: 4, H_q: 3, H_kv: 2}", "not a multiple of H_kv"),
        ("{algo: paged-decoding, seq_lens: [4], d: 4}", "missing page_size"),
        ("{algo: safe-softmax, N: 8}", "missing Bc"),
        ("{algo: fa2, N: 8, d: 4, Br: 4, Bc: 4, schedule: {gpu: v100}}", "schedule.gpu: expected one of a100, h100"),
        ("{algo: standard, N: 8, d: 4, Br: 4, Bc: 4, schedule: {gpu: h100}}", "schedule is for fa1 and fa2"),
        ("{algo: fa2, N: 8, d: 4, Br: 4, Bc: 4, schedule: {gpu: h100, heads: 2}}", "schedule: expected {gpu: a100"),
        ("{algo: fa2, N: 8, d: 4, Br: 4, Bc: 4, schedule: h100}", "schedule: expected {gpu: a100"),
        ("{algo: fa1, N: 8, d: 4, Br: 4, Bc: 4, schedule: {gpu: a100, batch_heads: 0}}", "batch_heads must be a pos"),
        ("{algo: fa2, N: 8, d: 4, Br: 4, Bc: 4, closed_form: true, schedule: {gpu: h100}}", "not go with closed_form"),
    ],
)
def test_a_bad_trace_is_one_warning_at_the_front_matter(build_site, spec, message):
    result, _ = build_site({"b.md": f"---\ntitle: B\ntrace: {spec}\n---\n{{{{ trace.N }}}} {{{{ trace.Tr }}}}\n"})
    (w,) = result.warnings
    assert w.line == 3 and message in w.message  # the line of trace:


@pytest.mark.parametrize(
    "spec",
    [
        {"algo": "fa2-backward", "N": 9, "N_kv": 13, "d": 3, "Br": 4, "Bc": 5, "causal": True},
        {"algo": "standard-backward", "N": 8, "d": 4, "Br": 4, "Bc": 4},
        {"algo": "fa2", "N": 7, "d": 2, "Br": 3, "Bc": 2, "dtype": "float16", "batch_heads": 2},
    ],
)
def test_closed_form_numbers_are_the_ledgers(spec):
    """closed_form: true gives, without running, the byte numbers that running the ledger gives."""
    ran, closed = trace.compute(spec), trace.compute({**spec, "closed_form": True})
    for key in ("bytes", "read_bytes", "write_bytes", "ratio_standard", "flops", "N", "d"):
        assert closed[key] == pytest.approx(ran[key]), key
    with pytest.raises(ValueError, match="closed_form must be true or false"):
        trace.compute({**spec, "closed_form": "yes"})


def test_a_backward_is_measured_against_the_standard_backward():
    numbers = trace.compute({"algo": "fa2-backward", "N": 8, "d": 4, "Br": 4, "Bc": 4})
    std = formulas.total(formulas.standard_backward(8, 4, 4, 4))
    assert numbers["ratio_standard"] == pytest.approx(std / numbers["bytes"]["total"])
    assert numbers["reads"]["dQ"] == 2 and numbers["writes"]["dQ"] == 3  # 2 tiles of keys add into it; 1 zeroing
    assert numbers["flops"]["matmul"] == 5 * 2 * 8 * 8 * 4  # five products of 8 x 8 x 4: S again, dV, dP, dQ, dK
    assert numbers["cuda"]["shared_bytes"] == {"fa2_bwd_preprocess": 0, "fa2_bwd": 4 * (4 * 16 + 2 * 16 + 2 * 16 + 8)}


def test_old_size_names_warn_naming_the_new_ones(build_site, line):
    """n_splits, heads and b are now splits, batch_heads and Bc (kernelviz.glossary): in the front matter and in a
    placeholder they still work, each with a warning that names the new name."""
    front = (
        "title: O\ntrace:\n  fd: {algo: flash-decoding, N: 1, N_kv: 16, d: 4, Br: 1, Bc: 4, n_splits: 2, heads: 3}\n"
        "  soft: {algo: online-softmax, N: 16, b: 4}"
    )
    source = f"---\n{front}\n---\n{{{{ trace.fd.splits }}}} {{{{ trace.soft.T }}}}\nthen {{{{ trace.fd.n_splits }}}}\n"
    result, out = build_site({"o.md": source})
    assert [(w.line, w.message) for w in result.warnings] == [
        (1, "trace.fd: n_splits is now called splits"),
        (1, "trace.fd: heads is now called batch_heads"),
        (1, "trace.soft: b is now called Bc"),
        (line(source, "then"), "{{ trace.fd.n_splits }}: n_splits is now called splits"),
    ]
    got = spans((out / "o.html").read_text())
    assert got == {"trace.fd.splits": "2", "trace.soft.T": "4", "trace.fd.n_splits": "2"}


def test_a_trace_too_large_for_memory_is_a_warning_at_its_line(build_site, monkeypatch):
    """At N = 16384 standard attention holds N x N scores, gigabytes: the estimate says so before anything is
    allocated (the machine here is said to have 1 GiB), naming the page's algorithm and what to write instead."""
    from kernelviz.attention import footprint

    monkeypatch.setattr(footprint, "available", lambda *a, **k: 1 << 30)
    spec = "{algo: standard, N: 16384, d: 64, Br: 64, Bc: 64}"
    page = f"---\ntitle: B\nsummary: S\ntrace: {spec}\n---\n{{{{ trace.Tr }}}}\n"
    result, _ = build_site({"b.md": page})
    (w,) = result.warnings
    assert w.line == 4, w
    assert "trace: standard at N=16384 N_kv=16384 d=64 needs about" in w.message
    assert "and 1.0 GiB is available: add closed_form: true to the trace's sizes" in w.message


def test_the_baseline_of_a_ratio_is_never_run(build_site, monkeypatch):
    """fa2's ratio_standard takes standard attention's bytes from the closed form: only fa2 runs (a page's fa2 at
    N = 200000 was refused because the standard baseline would need 320.7 GiB)."""
    from kernelviz import attention

    ran, real = [], attention.run
    monkeypatch.setattr(attention, "run", lambda algo, **kw: ran.append(algo) or real(algo, **kw))
    page = (
        "---\ntitle: R\ntrace: {algo: fa2, N: 12, d: 4, Br: 4, Bc: 4, causal: true}\n---\n{{ trace.ratio_standard }}\n"
    )
    result, out = build_site({"r.md": page})
    assert result.warnings == [] and ran == ["fa2"]
    expected = formulas.total(formulas.standard(12, 4, 4, 4)) / formulas.total(formulas.fa2(12, 4, 4, 4, causal=True))
    assert spans((out / "r.html").read_text()) == {"trace.ratio_standard": trace.format_number(expected)}


def test_a_trace_too_long_to_run_names_its_algorithm_and_closed_form(build_site, monkeypatch):
    from kernelviz import attention

    monkeypatch.setattr(attention, "run", lambda *a, **k: pytest.fail("the trace ran"))
    monkeypatch.setattr(attention.footprint, "available", lambda *a, **k: 1 << 50)  # time, not memory, is the reason
    page = "---\ntitle: L\ntrace: {algo: fa2, N: 200000, d: 64, Br: 64, Bc: 64}\n---\n{{ trace.Tr }}\n"
    result, _ = build_site({"l.md": page})
    (w,) = result.warnings
    assert w.line == 3 and w.message.startswith("trace: fa2 at N=200000 N_kv=200000 d=64 computes 9,765,625 tile")
    assert " standard at" not in w.message and "add closed_form: true" in w.message


@pytest.mark.parametrize("algo", ["fa1", "fa2"])
def test_tiles_per_block_and_the_grid_on_a_gpu(build_site, algo):
    """The work per block (ragged tiles, N_kv > N, causal) against the mask counted cell by cell, and the grid of 5
    (batch, head) pairs on an A100 (its SM count read from gpus.json here) against a tick-by-tick simulation."""
    n, n_kv, Br, Bc = 13, 20, 4, 3
    sizes = f"N: {n}, N_kv: {n_kv}, d: 2, Br: {Br}, Bc: {Bc}"
    front = (
        f"title: G\ntrace:\n  full: {{algo: {algo}, {sizes}}}\n"
        f"  masked: {{algo: {algo}, {sizes}, causal: true, schedule: {{gpu: a100, batch_heads: 5}}}}"
    )
    per = ("first", "last", "min", "max", "total", "count", "mean", "max_over_mean")
    grid = ("sms", "blocks", "tiles", "waves", "launch_order", "heaviest_first", "lower_bound", "slowdown")
    grid += ("idle.launch_order", "idle.heaviest_first", "batch_heads")
    body = " ".join(
        [f"{{{{ trace.{run}.tiles_per_block.{k} }}}}" for run in ("full", "masked") for k in per]
        + [f"{{{{ trace.masked.schedule.{k} }}}}" for k in grid]
    )
    result, out = build_site({"g.md": f"---\n{front}\n---\n{body}\n"})
    assert result.warnings == []
    got = spans((out / "g.html").read_text())
    want = {}
    for run, causal in (("full", False), ("masked", True)):
        numbers = per_block(visited_cell_by_cell(n, n_kv, Br, Bc, causal))
        assert set(numbers) == set(per)
        want |= {f"trace.{run}.tiles_per_block.{k}": v for k, v in numbers.items()}
    sms = json.loads(GPUS.read_text())["gpus"]["a100"]["sms"]["value"]
    schedule = flat(expected_schedule(algo, visited_cell_by_cell(n, n_kv, Br, Bc, True), 5, sms))
    want |= {f"trace.masked.schedule.{k}": v for k, v in schedule.items()}
    want["trace.masked.schedule.batch_heads"] = 5
    assert got == {k: trace.format_number(v) for k, v in want.items()}
    assert got["trace.full.tiles_per_block.min"] == got["trace.full.tiles_per_block.max"] == "7"  # ceil(20 / 3)


def test_the_list_of_tiles_is_not_a_number(build_site, line):
    source = "---\ntitle: L\ntrace: {algo: fa2, N: 8, d: 4, Br: 4, Bc: 4}\n---\n{{ trace.tiles_per_block.list }}\n"
    result, _ = build_site({"l.md": source})
    (w,) = result.warnings
    assert w.line == line(source, "list") and "trace.tiles_per_block.list is a list (a chart draws it)" in w.message


def test_fa2_mma_shared_memory_numbers(build_site):
    """FA2 on tensor cores: FA2's HBM numbers at 2 bytes an element, and shared memory's traffic from
    formulas.fa2_mma_shared (P 0: it stays in registers), the kernel's __shared__ at the figure's sizes (rows padded
    by 8 elements), and standard attention at float16 for the ratio."""
    N, d, Br, Bc, warps = 8, 4, 4, 4, 2
    body = (
        "K {{ trace.shared.K }}, P {{ trace.shared.P }}, all {{ trace.shared.total }} = {{ trace.shared.store }} + "
        "{{ trace.shared.load }}; HBM {{ trace.bytes.total }}, ratio {{ trace.ratio_standard }}, warps "
        "{{ trace.warps }}, SRAM {{ trace.cuda.shared_bytes.fa2_mma }}.\n"
    )
    front = f"title: M\ntrace: {{algo: fa2-mma, N: {N}, d: {d}, Br: {Br}, Bc: {Bc}, warps: {warps}, dtype: float16}}"
    result, out = build_site({"m.md": f"---\n{front}\n---\n{body}"})
    assert result.warnings == []
    got = spans((out / "m.html").read_text())
    shared = formulas.fa2_mma_shared(N, d, Br, Bc, warps=warps)
    fa2, standard = formulas.fa2(N, d, Br, Bc, itemsize=2), formulas.standard(N, d, Br, Bc, itemsize=2)
    assert got == {
        "trace.shared.K": f"{shared['K']['store'] + shared['K']['load']:,}",
        "trace.shared.P": "0",
        "trace.shared.total": f"{sum(sl['store'] + sl['load'] for sl in shared.values()):,}",
        "trace.shared.store": f"{sum(sl['store'] for sl in shared.values()):,}",
        "trace.shared.load": f"{sum(sl['load'] for sl in shared.values()):,}",
        "trace.bytes.total": f"{formulas.total(fa2):,}",
        "trace.ratio_standard": trace.format_number(formulas.total(standard) / formulas.total(fa2)),
        "trace.warps": "2",
        "trace.cuda.shared_bytes.fa2_mma": f"{2 * (Br + 2 * Bc) * (d + 8):,}",
    }
    assert got["trace.shared.K"] == "384"  # by hand: 4 tile visits, Kj stored (32 B) and loaded by 2 warps (64 B)


def test_fa2_mma_p_in_shared_bfloat16_and_closed_form():
    spec = {"algo": "fa2-mma", "N": 9, "N_kv": 13, "d": 4, "Br": 4, "Bc": 4, "warps": 2, "causal": True}
    kept, sent = trace.compute(spec), trace.compute({**spec, "p_in_shared": True, "dtype": "bfloat16"})
    assert kept["shared"]["P"] == 0 and sent["shared"]["P"] == sent["shared"]["total"] - kept["shared"]["total"] > 0
    assert sent["ratio_standard"] == kept["ratio_standard"]  # standard attention at float16: 2 bytes an element too
    for run in (kept, sent):
        assert "p_in_shared" not in run and "causal" not in run  # flags, not numbers
    closed = trace.compute({**spec, "closed_form": True})
    assert closed["shared"] == kept["shared"] and closed["bytes"] == kept["bytes"]
    with pytest.raises(ValueError, match="dtype: fa2 takes float32 or float16, not bfloat16"):
        trace.compute({"algo": "fa2", "N": 8, "d": 4, "Br": 4, "Bc": 4, "dtype": "bfloat16"})
