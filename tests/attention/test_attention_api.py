"""The public API of kernelviz.attention, snapshotted: changing it is a visible decision."""

import inspect

import kernelviz.attention as attention

OPTIONS = "Br=64, Bc=64, causal=False, dtype='float32', scale=None, sram_budget=None"


def test_names():
    assert attention.__all__ == [
        "ALGORITHMS",
        "FLOP_FORMULAS",
        "FORMULAS",
        "SOFTMAX",
        "AttentionResult",
        "BackwardResult",
        "Ledger",
        "Run",
        "SoftmaxResult",
        "SramBudgetError",
        "Transfer",
        "attention_backward_fp64",
        "attention_fp64",
        "closed_form",
        "flash_attention_1",
        "flash_attention_2",
        "flash_attention_2_backward",
        "flash_attention_2_mma",
        "flash_attention_3",
        "flash_decoding",
        "flops",
        "formulas",
        "naive_softmax",
        "online_softmax",
        "online_softmax_output",
        "paged_attention_fp64",
        "paged_decoding",
        "random_batch",
        "run",
        "safe_softmax",
        "standard_attention",
        "standard_attention_backward",
    ]
    assert (
        list(attention.ALGORITHMS)
        == list(attention.FORMULAS)
        == list(attention.FLOP_FORMULAS)
        == [
            "standard",
            "fa1",
            "fa2",
            "flash-decoding",
            "fa2-backward",
            "standard-backward",
            "fa2-mma",
            "fa2-pipe",
            "fa3",
            "paged-decoding",
        ]  # fmt: skip
    )
    assert list(attention.SOFTMAX) == ["naive-softmax", "safe-softmax", "online-softmax", "online-softmax-output"]


def test_signatures():
    functions = [name for name in attention.__all__ if name[0].islower() and name not in ("formulas", "flops")]
    sig = {name: str(inspect.signature(getattr(attention, name))) for name in functions}
    assert sig == {
        "attention_fp64": "(q, k, v, causal=False, scale=None)",
        "attention_backward_fp64": "(q, k, v, do, causal=False, scale=None)",
        "flash_attention_2_backward": f"(q, k, v, o, do, lse, *, {OPTIONS}, observe=None)",
        "standard_attention_backward": f"(q, k, v, do, *, {OPTIONS})",
        "standard_attention": f"(q, k, v, *, {OPTIONS})",
        "flash_attention_1": f"(q, k, v, *, {OPTIONS}, observe=None)",
        "flash_attention_2": f"(q, k, v, *, {OPTIONS}, observe=None)",  # its carries, for the figure's answers
        "flash_decoding": "(q, k, v, *, "
        + OPTIONS.replace("Bc=64, ", "Bc=64, n_splits=None, partials='unnormalized', ")
        + ", observe=None)",
        "flash_attention_2_mma": "(q, k, v, *, Br=64, Bc=64, warps=4, causal=False, dtype='float16', scale=None, "
        "sram_budget=None, p_in_shared=False, observe=None)",
        "flash_attention_3": "(q, k, v, *, Br=128, Bc=128, warpgroups=2, causal=False, dtype='float16', scale=None, "
        "sram_budget=None, observe=None)",
        "naive_softmax": "(x, b=4)",
        "safe_softmax": "(x, b=4)",
        "online_softmax": "(x, b=4)",
        "online_softmax_output": "(x, v, b=4)",
        "paged_attention_fp64": "(q, k_pages, v_pages, block_table, seq_lens, scale=None)",
        "paged_decoding": "(q, k_pages, v_pages, block_table, seq_lens, *, n_splits=1, dtype='float32', scale=None, "
        "sram_budget=None, observe=None)",
        "random_batch": "(seq_lens, page_size, H_q, H_kv, d, seed=0, shared_pages=0, spare_pages=0)",
        "run": "(algo, *, seed=0, dtype=None, sram_budget=None, observe=None, **sizes)",
        "closed_form": "(algo, *, dtype=None, **sizes)",
    }
    assert attention.Transfer._fields == ("tensor", "tile", "direction", "nbytes", "step", "bh", "kernel", "block")


def test_formulas():
    f = attention.formulas
    same = ("standard", "fa1", "fa2", "fa2_backward", "standard_backward")
    assert {name: str(inspect.signature(getattr(f, name))) for name in same} == dict.fromkeys(
        same, "(N, d, Br, Bc, N_kv=None, causal=False, itemsize=4, batch_heads=1)"
    )
    assert str(inspect.signature(f.flash_decoding)) == (
        "(N, d, Br, Bc, n_splits, N_kv=None, causal=False, itemsize=4, batch_heads=1, partials='unnormalized')"
    )
    assert str(inspect.signature(f.paged_decoding)) == "(seq_lens, d, page_size, H_q, H_kv, n_splits=1, itemsize=4)"
    assert str(inspect.signature(f.compulsory)) == "(N, d, N_kv=None, itemsize=4, batch_heads=1)"
    assert str(inspect.signature(f.compulsory_backward)) == "(N, d, N_kv=None, itemsize=4, batch_heads=1)"
    assert str(inspect.signature(f.q_rows_read)) == "(N, Br, Bc, N_kv=None, causal=False)"
    assert str(inspect.signature(f.fa2_mma_shared)) == (
        "(N, d, Br, Bc, *, N_kv=None, warps=4, itemsize=2, causal=False, p_in_shared=False, batch_heads=1)"
    )
    assert str(inspect.signature(f.score_matrix_bytes)) == "(N, N_kv=None, itemsize=4, batch_heads=1)"
    assert str(inspect.signature(f.tile_interactions)) == "(N, Br, Bc, N_kv=None, causal=False)"
    assert str(inspect.signature(f.split_overhead)) == "(N, d, n_splits, itemsize=4, batch_heads=1)"
