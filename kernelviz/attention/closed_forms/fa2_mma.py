"""FA2 on tensor cores (fa2_mma.py): its closed form of shared-memory traffic (``shared``); its HBM bytes and
FLOPs are FA2's (closed_forms/fa2.py)."""

from ..formulas import blocks_seeing, sl, tile_interactions


def shared(N, d, Br, Bc, *, N_kv=None, warps=4, itemsize=2, causal=False, p_in_shared=False, batch_heads=1):
    """Shared-memory traffic of FA2 on tensor cores (``attention.fa2_mma``; its HBM traffic is ``fa2``'s), counted
    at full tile size as the kernel moves it (rows past N or N_kv are stored as zeros and loaded too): each of the
    ``blocks_seeing`` blocks (all Tr = ceil(N / Br) unmasked) stores Qi and loads it into its warps' registers once
    (Br d s each way); on each of the tile_interactions visited tiles it stores Kj and Vj once (Bc d s each) and
    each of its `warps` warps loads all of both (warps Bc d s each). P stays in registers (0), or with
    ``p_in_shared`` takes a round trip through SRAM on every visited tile (Br Bc s stored, as much loaded). A block
    that sees no key (causal, N > N_kv) stores and loads nothing."""
    h, s = batch_heads, itemsize
    q = h * blocks_seeing(N, Br, Bc, N_kv, causal) * Br * d * s
    visited = h * tile_interactions(N, Br, Bc, N_kv, causal)
    kv, p = visited * Bc * d * s, visited * Br * Bc * s if p_in_shared else 0
    return {"Q": sl(q, q), "K": sl(kv, warps * kv), "V": sl(kv, warps * kv), "P": sl(p, p)}
