"""figlib.timeline: the scheduler (durations count / rate, starts after the lane and every dependency, nothing
earlier), a pipelined loop overlapping copies with products where a single buffer cannot, and its bars in the
figure's diagram; figlib.rates against gpus.json read independently."""

import json

import pytest

from kernelviz import pie
from kernelviz.figlib import Figure, layout, rates, timeline
from kernelviz.figlib.timeline import Timeline

LANES = [("copy", "@k-2"), ("tensor", "@s-2"), ("sfu", "@m-2")]
RATES = {"hbm": 8.0, "tensor": 32.0, "sfu": 4.0}  # exact in binary: durations are exact quotients


def loop(stages, tiles=4, copy_bytes=64, flops=64, exps=8):
    """A pipelined KV loop as fa2_pipe.cu issues it: `stages` copies in flight before the loop; tile j waits for its
    copy, runs S on the tensor cores, the softmax on the SFUs, P V on the tensor cores; the copy of tile j + stages
    reuses tile j's buffer, so it waits for P V of tile j (the release barrier)."""
    tl = Timeline(LANES, RATES)
    copies = [tl.act("copy", f"KV{j}", copy_bytes, "hbm") for j in range(min(stages, tiles))]
    products = []
    for j in range(tiles):
        s = tl.act("tensor", f"S{j}", flops, "tensor", deps=[copies[j]])
        p = tl.act("sfu", f"P{j}", exps, "sfu", deps=[s])
        pv = tl.act("tensor", f"PV{j}", flops, "tensor", deps=[p])
        products.append((s, pv))
        if j + stages < tiles:
            copies.append(tl.act("copy", f"KV{j + stages}", copy_bytes, "hbm", deps=[pv]))
    return tl, copies, products


def test_durations_are_count_over_rate_exactly():
    tl, copies, products = loop(stages=2)
    for a in tl.actions:
        assert a.duration == a.count / RATES[a.rate]
        assert a.end == a.start + a.duration
    assert copies[0].duration == 8.0 and products[0][0].duration == 2.0


def test_starts_obey_lanes_and_dependencies_and_are_no_later_than_they_must_be():
    for stages in (1, 2, 3):
        tl, _, _ = loop(stages)
        before = {}
        for a in tl.actions:
            earliest = max([before.get(a.lane, 0.0), *(d.end for d in a.deps)])
            assert a.start == earliest, a  # as soon as the lane is free and the deps are done, not later
            before[a.lane] = a.end
        for x in tl.actions:  # one action at a time on a lane
            for y in tl.actions:
                if x is not y and x.lane == y.lane:
                    assert x.end <= y.start or y.end <= x.start


def test_two_stages_overlap_the_next_copy_with_the_products_one_stage_does_not():
    one, _, _ = loop(stages=1)
    two, copies, products = loop(stages=2)
    assert one.overlap("copy", "tensor") == 0
    assert two.overlap("copy", "tensor") > 0
    assert copies[1].start < products[0][1].end  # the copy of tile 1 is in flight while tile 0 computes
    assert one.idle("tensor") > two.idle("tensor")
    assert two.makespan < one.makespan
    # one stage: every tile is copy, then compute, in series
    per_tile = 64 / RATES["hbm"] + 2 * 64 / RATES["tensor"] + 8 / RATES["sfu"]
    assert one.makespan == 4 * per_tile


def test_bad_actions_are_refused_naming_what_is_wrong():
    tl = Timeline(LANES, RATES)
    with pytest.raises(ValueError, match="lane 'dma'"):
        tl.act("dma", "x", 1, "hbm")
    with pytest.raises(ValueError, match="rate 'smem'"):
        tl.act("copy", "x", 1, "smem")
    with pytest.raises(ValueError, match="count must be"):
        tl.act("copy", "x", -1, "hbm")
    with pytest.raises(ValueError, match="dependency"):
        tl.act("copy", "x", 1, "hbm", deps=[Timeline(LANES, RATES).act("copy", "y", 1, "hbm")])
    with pytest.raises(ValueError, match="rate 'hbm' must be a number > 0"):
        Timeline(LANES, {"hbm": 0})


def test_seconds_in_words():
    assert timeline.seconds(1.234e-6) == "1.23 µs"
    assert timeline.seconds(4.56e-7) == "456 ns"
    assert timeline.seconds(2.0) == "2 s"


def figure(stages):
    fig = Figure("start")
    K = fig.hbm("K", 8, 4, 4, "k")
    Kj = fig.sram("Kj", 4, 4, "k")
    fig.blocks(1)
    tl = fig.timeline(LANES, RATES)
    fig.zoom(0, [Kj])
    copies = [tl.act("copy", f"K{j}", 16, "hbm") for j in range(stages)]
    fig.step("zoom", "block 0", i=0)
    for j in range(2):
        fig.copy(K[j], Kj)
        fig.step("load K", "load", i=0, j=j)
        s = tl.act("tensor", f"S{j}", 32, "tensor", deps=[copies[j]])
        if j + stages < 2:
            copies.append(tl.act("copy", f"K{j + 1}", 16, "hbm", deps=[s]))
        fig.step("mma S", "S", i=0, j=j)
    pie.clear()
    fig.draw("t")
    return tl, pie.scene()


def bars(scene):
    items = next(n for n in scene["nodes"] if n["kind"] == "diagram")["items"]
    return [(n, it) for n, it in enumerate(items) if it.get("kv", "").startswith("timeline ")]


def test_the_figure_draws_a_bar_per_action_and_highlights_the_current_steps():
    tl, scene = figure(stages=2)
    drawn = bars(scene)
    assert [it["kv"] for _, it in drawn] == [f"timeline {a.lane}" for a in tl.actions]
    assert all(it["fill"] == "none" for _, it in drawn)  # step 0: every action still to come, outlined
    steps = next(n for n in scene["nodes"] if n["kind"] == "step_list")["steps"]
    index = {n: k for k, (n, _) in enumerate(drawn)}
    state = [dict(it) for _, it in drawn]
    for k, step in enumerate(steps[1:], start=1):
        for n, fields in step["start"] + step["move"] + step["end"]:  # the player folds the three diffs
            if n in index:
                state[index[n]].update(fields)
        for a, it in zip(tl.actions, state, strict=True):
            assert (it["stroke"] == "@ink") == (a.step == k), (k, a)
            assert (it["fill"] != "none") == (a.step <= k), (k, a)
    span = tl.makespan
    x0 = min(it["x"] for _, it in drawn)
    width = max(it["x"] + it["w"] for _, it in drawn) - x0
    for a, (_, it) in zip(tl.actions, drawn, strict=True):  # a bar starts where its action starts, to 4 digits
        assert it["x"] == pytest.approx(x0 + width * a.start / span, abs=2e-4)


def test_unit_rates_are_gpus_json_shares_of_an_sm():
    table = json.loads(rates.GPUS_FILE.read_text())["gpus"]
    value = lambda gpu, name: table[gpu][name]["value"]  # noqa: E731
    got, name = rates.unit_rates("a100")
    assert name == table["a100"]["name"]
    assert got["hbm"] == value("a100", "hbm_bytes_per_s") / 108
    assert got["tensor"] == pytest.approx(312e12 / 108)
    assert got["sfu"] == pytest.approx(16 * value("a100", "clock_hz"))  # 16 exp2 a clock an SM
    assert got["smem"] == pytest.approx(128 * value("a100", "clock_hz"))  # 32 banks of 4 bytes a clock
    # the H100 runs mma.sync at 2/3 of its wgmma peak (the table's figure, from the FA3 paper)
    h100, _ = rates.unit_rates("h100")
    assert h100["tensor"] == pytest.approx(989.5e12 * 2 / 3 / 132, rel=1e-3)
    assert rates.unit_rates("h100", instruction="wgmma")[0]["tensor"] == pytest.approx(989.5e12 / 132)
    assert rates.unit_rates(2)[1] == table["h200"]["name"]
    with pytest.raises(ValueError, match="gpu 'v100' is not one of"):
        rates.unit_rates("v100")


def test_beside_a_timeline_the_caption_hangs_from_one_top_edge_under_the_lanes():
    """The step's caption, as wide as the drawing, goes under the timeline too, and is placed by its top edge: each
    step's caption is centred half its own height (layout.caption_height at the growth laid out for) under one top
    edge, which lies under the lanes, so that a caption of many lines grows down, never up into the lanes."""
    from kernelviz.figlib import draw

    fig = Figure("start")
    K = fig.hbm("K", 8, 4, 4, "k")
    Kj = fig.sram("Kj", 4, 4, "k")
    fig.blocks(1)
    tl = fig.timeline(LANES, RATES)
    fig.zoom(0, [Kj])
    fig.step("zoom", "block 0", i=0)
    for j in range(2):
        fig.copy(K[j], Kj)
        tl.act("copy", f"K{j}", 16, "hbm")
        fig.step("load K", "load K" + f"{j} into shared memory, a tile of four rows" * (1 + 6 * j), i=0, j=j)
    _, frame = draw.place(fig)
    x, top, wrap, grow, by_top = frame[1]
    assert by_top and wrap >= layout.CAPTION_WRAP
    assert top < min(frame[5][2].values()) - 0.1, "the top edge is under the lowest lane"
    pie.clear()
    fig.draw("t")
    scene = pie.scene()
    items = next(n for n in scene["nodes"] if n["kind"] == "diagram")["items"]
    steps = next(n for n in scene["nodes"] if n["kind"] == "step_list")["steps"]
    (k,) = [n for n, it in enumerate(items) if it["wrap"]]
    y, heights = items[k]["y"], []
    for step in [{}, *steps[1:]]:
        for n, fields in step.get("start", []) + step.get("move", []) + step.get("end", []):  # as the player folds
            y = fields.get("y", y) if n == k else y
        caption = step.get("caption", "start")
        heights.append(layout.caption_height(caption, wrap, grow))
        assert y == pytest.approx(top - heights[-1] / 2, abs=1e-3), caption
    assert heights[-1] > heights[1], "the long caption takes more lines, and hangs lower"
    assert layout.caption_height("x", wrap, 1.0) == pytest.approx(layout.GLYPHS_EM * layout.CAPTION_FONT / layout.UNIT)
