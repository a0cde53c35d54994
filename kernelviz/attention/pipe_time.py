"""The time fa2_pipe.cu's loop takes on one SM, by the figure library's timeline (figlib.timeline, which states the
model: an action takes count / rate, and starts when its unit is free and what it waits for is done).

One block of Br rows visiting `tiles` K/V tiles of Bc keys at head dimension d, 16-bit elements, issued as the kernel
issues them: Q's copy; the copies of tiles 0 .. stages - 1 (the prologue, and tile stages - 1 at the top of the
first iteration); then for each tile j: S = Q Kj^T on the tensor cores once Q and tile j have landed (wait_copy);
P = exp2(S - m) on the special-function units; O += P Vj on the tensor cores; and, once P V of tile j is done (the
release barrier), the copy of tile j + stages into its buffer. Last, O and L written. Per tile: copy 2 Bc d s bytes,
S and P V 2 Br Bc d FLOPs each, Br Bc exponentials.
"""

from ..figlib.rates import GPUS, unit_rates
from ..figlib.timeline import Timeline

LANES = [("copies", "@k-2"), ("tensor cores", "@s-2"), ("SFU", "@m-2")]
ITEMSIZE = 2


def block(Br, Bc, d, tiles, stages, rates):
    """The Timeline of one block (see the module docstring), `rates` as figlib.rates.unit_rates gives them."""
    tl = Timeline(LANES, rates, title="one block on one SM")
    q = tl.act("copies", "Q", Br * d * ITEMSIZE, "hbm")
    copies = [tl.act("copies", f"K{j},V{j}", 2 * Bc * d * ITEMSIZE, "hbm") for j in range(min(stages, tiles))]
    pv = None
    for j in range(tiles):
        s = tl.act("tensor cores", f"S{j}", 2 * Br * Bc * d, "tensor", deps=[q, copies[j]])
        p = tl.act("SFU", f"P{j}", Br * Bc, "sfu", deps=[s])
        pv = tl.act("tensor cores", f"PV{j}", 2 * Br * Bc * d, "tensor", deps=[p])
        if j + stages < tiles:
            copies.append(tl.act("copies", f"K{j + stages},V{j + stages}", 2 * Bc * d * ITEMSIZE, "hbm", deps=[pv]))
    tl.act("copies", "O,L", Br * d * ITEMSIZE + Br * 4, "hbm", deps=[pv])
    return tl


def per_tile(Br, Bc, d, tiles, stages, gpu):
    """{"tile_us": the block's time over its tiles, "block_us", "tensor_busy": the percent of it the tensor cores
    work} on `gpu` (a key of gpus.json or an index of figlib.rates.GPUS)."""
    tl = block(Br, Bc, d, tiles, stages, unit_rates(gpu)[0])
    span = tl.makespan
    return {"tile_us": span / tiles * 1e6, "block_us": span * 1e6, "tensor_busy": 100 * tl.busy("tensor cores") / span}


def numbers(Br, Bc, d, tiles, stages):
    """{gpu: per_tile(...)} for every GPU of the picker."""
    return {gpu: per_tile(Br, Bc, d, tiles, stages, gpu) for gpu in GPUS}
