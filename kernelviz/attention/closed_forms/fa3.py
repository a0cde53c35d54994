"""FlashAttention 3 (fa3.py): its closed form of shared-memory traffic (``shared``); its HBM bytes and FLOPs are
FA2's (closed_forms/fa2.py)."""

from ..formulas import blocks_seeing, cdiv, sl, tile_interactions


def shared(N, d, Br, Bc, *, N_kv=None, warpgroups=2, itemsize=2, causal=False, batch_heads=1):
    """Shared-memory traffic of FA3 (``attention.fa3``), at full tile size as the kernel moves it: each of the
    ``blocks_seeing`` blocks has the TMA store its Qi once (Br d s); on each of the tile_interactions visited tiles
    the TMA stores Kj and Vj (Bc d s each) and wgmma reads the warpgroups' rows of Qi (Br d s in all) and, for each of
    the `warpgroups`, all of Kj and Vj (warpgroups Bc d s each); P stays in registers (0); every one of the Tr =
    ceil(N / Br) blocks stores its O tile and the TMA store reads it (Br d s each way). The ring's stages change
    what is held, not what moves."""
    h, s = batch_heads, itemsize
    q = h * blocks_seeing(N, Br, Bc, N_kv, causal) * Br * d * s
    visited = h * tile_interactions(N, Br, Bc, N_kv, causal)
    kv = visited * Bc * d * s
    o = h * cdiv(N, Br) * Br * d * s
    return {
        "Q": sl(q, visited * Br * d * s),
        "K": sl(kv, warpgroups * kv),
        "V": sl(kv, warpgroups * kv),
        "P": sl(),
        "O": sl(o, o),
    }
