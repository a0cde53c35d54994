"""The references the work per block is checked against (``attention.blocks`` and the numbers the pages print from
it): the tiles each block of rows visits, counted cell by cell from the causal rule, and a grid of blocks on SMs,
simulated tick by tick (one tick is one tile's work of one block)."""


def visited_cell_by_cell(n, n_kv, Br, Bc, causal):
    """Per block of rows: the K/V tiles holding at least one (row, key) that row may see (c <= r + N_kv - N)."""
    return [
        sum(
            not causal or any(c <= r + n_kv - n for r in range(i, min(i + Br, n)) for c in range(j, min(j + Bc, n_kv)))
            for j in range(0, n_kv, Bc)
        )
        for i in range(0, n, Br)
    ]


def per_block(tiles):
    """What a page must print of the tiles per block `tiles` ({{ trace.RUN.tiles_per_block.KEY }})."""
    mean = sum(tiles) / len(tiles)
    values = {"first": tiles[0], "last": tiles[-1], "min": min(tiles), "max": max(tiles), "total": sum(tiles)}
    return values | {"count": len(tiles), "mean": mean, "max_over_mean": max(tiles) / mean}


def simulate(work, sms, order):
    """(the tick the last block ends, the SM-ticks before it that no block ran): at each tick every idle SM, the
    lowest-numbered first, takes the next block of `order`, then every busy SM does one tile."""
    left, queue, t, idle = [0] * sms, list(order), 0, 0
    while True:
        for sm in range(sms):
            while left[sm] == 0 and queue:  # a block of no work ends as it starts
                left[sm] = work[queue.pop(0)]
        if not any(left):
            return t, idle
        idle += left.count(0)
        left = [max(0, x - 1) for x in left]
        t += 1


def launched(algo, tiles, batch_heads):
    """The work of each block of the grid in blockIdx order, written out from how the kernels launch: fa2, a block
    per (batch_head, block of rows), x (the rows) fastest; fa1, a block per batch_head doing every block of rows."""
    if algo == "fa2":
        return [tiles[i] for _ in range(batch_heads) for i in range(len(tiles))]
    return [sum(tiles) for _ in range(batch_heads)]


def expected_schedule(algo, tiles, batch_heads, sms):
    """What ``blocks.schedule`` must say of that grid, from the simulation: the launch order, and the heaviest first
    (ties: the later block first)."""
    work = launched(algo, tiles, batch_heads)
    heaviest = sorted(range(len(work)), key=lambda i: (-work[i], -i))
    (naive, idle_naive), (best, idle_best) = simulate(work, sms, range(len(work))), simulate(work, sms, heaviest)
    return {
        "sms": sms,
        "blocks": len(work),
        "tiles": sum(work),
        "waves": len(work) / sms,
        "launch_order": naive,
        "heaviest_first": best,
        "lower_bound": max(max(work), -(-sum(work) // sms)),
        "slowdown": naive / best,
        "idle": {"launch_order": 100 * idle_naive / (sms * naive), "heaviest_first": 100 * idle_best / (sms * best)},
    }


def flat(numbers, prefix=""):
    """{"idle.launch_order": ..., ...}: nested numbers as one level, for pytest.approx."""
    out = {}
    for key, value in numbers.items():
        if isinstance(value, dict):
            out |= flat(value, f"{prefix}{key}.")
        else:
            out[f"{prefix}{key}"] = value
    return out
