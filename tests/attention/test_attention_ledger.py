"""The ledger's questions: trips, per-tile counts, transfers, SRAM per block and the budget."""

import pytest
from attention_cases import qkv

from kernelviz.attention import (
    Ledger,
    SramBudgetError,
    flash_attention_1,
    flash_attention_2,
    flash_decoding,
    standard_attention,
)


def test_fa2_figure_trip_counts():
    # the FA2 page's figure: Tr = Tc = 2. "K and V are read twice, once per block of Q"
    q, k, v = qkv(1, 8, 4)
    ledger = flash_attention_2(q, k, v, Br=4, Bc=4).ledger
    assert ledger.trips("K") == ledger.trips("V") == 2
    assert ledger.trips("Q") == 1 and ledger.trips("O", "write") == 1 and ledger.trips("L", "write") == 1
    assert ledger.trips("O", "read") == 0
    assert ledger.tile_counts("K") == {0: 2, 1: 2}
    assert ledger.tile_counts("Q") == {0: 1, 1: 1}
    # block 0 reads Q0 at step 0, K0 and V0 at step 1, K1 and V1 at step 2, writes O0 and L0 at step 3
    block0 = [(t.step, t.tensor, t.tile, t.direction) for t in ledger.transfers if t.block == 0]
    assert block0 == [
        (0, "Q", 0, "read"),
        (1, "K", 0, "read"),
        (1, "V", 0, "read"),
        (2, "K", 1, "read"),
        (2, "V", 1, "read"),
        (3, "O", 0, "write"),
        (3, "L", 0, "write"),
    ]
    assert all(t.nbytes == 4 * 4 * 4 for t in ledger.transfers if t.tensor in "QKVO")


def test_fa1_carries_o_l_m_on_every_step():
    q, k, v = qkv(1, 8, 4)
    ledger = flash_attention_1(q, k, v, Br=4, Bc=4).ledger
    assert ledger.trips("K") == ledger.trips("V") == 1
    assert ledger.trips("Q") == ledger.trips("O") == ledger.trips("l") == ledger.trips("m") == 2
    assert ledger.trips("O", "write") == 3  # initialization, then once per K/V tile


def test_standard_materializes_s_and_p():
    q, k, v = qkv(1, 8, 4)
    ledger = standard_attention(q, k, v, Br=4, Bc=4).ledger
    for name in ("S", "P"):
        assert ledger.trips(name) == ledger.trips(name, "write") == 1
    assert ledger.tile_counts("S", "write") == {(i, j): 1 for i in range(2) for j in range(2)}


def test_flash_decoding_tiles_per_split():
    q, k, v = qkv(1, 1, 4, 16)
    ledger = flash_decoding(q, k, v, Bc=4, n_splits=2).ledger
    assert ledger.trips("K") == 1 and ledger.trips("Q") == 2
    assert {t.tile for t in ledger.transfers if t.tensor == "K" and t.block == (0, 0)} == {0, 1}
    assert {t.tile for t in ledger.transfers if t.tensor == "K" and t.block == (0, 1)} == {2, 3}
    assert ledger.tile_counts("O_partial", "write") == {(0, 0): 1, (1, 0): 1}


def test_counts_per_head():
    q, k, v = qkv(3, 8, 4)
    ledger = flash_attention_2(q, k, v, Br=4, Bc=4).ledger
    assert ledger.tile_counts("K", bh=2) == {0: 2, 1: 2}
    assert ledger.tile_counts("K", bh=None) == {0: 6, 1: 6}
    assert ledger.trips("K") == 2
    assert ledger.total_bytes == ledger.read_bytes + ledger.write_bytes


def test_peak_sram_is_the_declared_block():
    q, k, v = qkv(1, 10, 8)
    ledger = flash_attention_2(q, k, v, Br=4, Bc=2, dtype="float16").ledger
    # Qi, Kj, Vj in float16; Sij, Oi, m_i, l_i in float32
    assert ledger.peak_sram == 4 * 8 * 2 + 2 * (2 * 8 * 2) + 4 * 2 * 4 + 4 * 8 * 4 + 2 * 4 * 4
    assert ledger.summary()["peak_sram_bytes"] == ledger.peak_sram


def test_over_budget_names_the_tiles_that_do_not_fit():
    q, k, v = qkv(1, 64, 64)
    need = flash_attention_2(q, k, v, Br=32, Bc=32).ledger.peak_sram
    flash_attention_2(q, k, v, Br=32, Bc=32, sram_budget=need)  # fits exactly
    with pytest.raises(SramBudgetError, match=r"fa2: .* over the budget of 20000 bytes.*do not: Vj") as e:
        flash_attention_2(q, k, v, Br=32, Bc=32, sram_budget=20000)  # Qi and Kj fit (16384 B), Vj does not
    assert "Qi, Kj fit" in str(e.value) and isinstance(e.value, ValueError)
    q, k, v = qkv(1, 512, 8)  # the softmax kernel holds a row block of S: 32 x 512 floats, more than the others
    with pytest.raises(SramBudgetError, match="^softmax: .*do not: Si"):
        standard_attention(q, k, v, Br=32, Bc=32, sram_budget=20000)
    with pytest.raises(ValueError, match="^sram_budget:"):
        Ledger(sram_budget=-1)


@pytest.mark.parametrize(
    ("n_kv", "Bc", "n_splits", "owned"),
    [(16, 4, 3, [[0, 1], [2, 3], []]), (20, 3, 3, [[0, 1, 2], [3, 4, 5], [6]]), (16, 4, 4, [[0], [1], [2], [3]])],
)
def test_flash_decoding_splits_own_whole_tiles_as_flash_attn_deals_them(n_kv, Bc, n_splits, owned):
    """ceil(Tc / n_splits) tiles a split (flash-attn's n_blocks_per_split), written out by hand: 4 tiles in 3 splits
    are 2, 2 and none; the empty split still reads the query row and writes its partials (m = -inf, l = 0, O = 0)."""
    q, k, v = qkv(1, 1, 4, n_kv)
    ledger = flash_decoding(q, k, v, Br=1, Bc=Bc, n_splits=n_splits).ledger
    for s, tiles in enumerate(owned):
        mine = [t for t in ledger.transfers if t.kernel == "split" and t.block == (0, s)]
        assert [t.tile for t in mine if t.tensor == "K"] == tiles, s
        assert [t.tensor for t in mine if t.tensor not in ("K", "V")] == ["Q", "O_partial", "m_partial", "l_partial"]


def test_shared_memory_traffic_is_summed_per_tensor_and_only_where_recorded():
    ledger = Ledger()
    assert "shared" not in ledger.numbers() and "shared" not in ledger.summary()
    ledger.smem("P", "store", 0)  # registers P: it reads 0
    ledger.smem("K", "store", 32, heads=3)
    ledger.smem("K", "load", 64, heads=3)
    assert ledger.numbers()["shared"] == {"P": 0, "K": 288, "total": 288, "store": 96, "load": 192}
    assert ledger.summary()["shared"] == {
        "per_tensor": {"P": {"store": 0, "load": 0}, "K": {"store": 96, "load": 192}},
        "store": 96,
        "load": 192,
        "total": 288,
    }
    with pytest.raises(ValueError, match="direction: expected 'store' or 'load', got 'read'"):
        ledger.smem("K", "read", 1)
