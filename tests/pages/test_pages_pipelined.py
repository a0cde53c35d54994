"""The pipelined page's figure against the algorithm: its SRAM counter ends on `kernelviz trace fa2-pipe`'s shared
traffic, and its timeline (the kernel editor's own loops) lasts what attention.pipe_time schedules for the same
block at the kernel's tile on the same GPU, with 1, 2 and 3 stages; the bars' x follow the schedule's starts."""

import json
import re

import pytest

from kernelviz.attention import pipe_time
from kernelviz.figlib import timeline
from kernelviz.figlib.rates import unit_rates
from tests.pages.kernel_pages import Page, trace_args

SLUG = "flash-attention-2-pipelined"
TITLE = re.compile(r"^(\S+), (\d) stages?: (.+)$")


@pytest.mark.parametrize(("stages", "gpu"), [(1, 0), (2, 1), (3, 2)])
def test_the_figures_timeline_is_pipe_times_schedule(stages, gpu):
    sizes = {"N": 4, "N_kv": 8, "Br": 4, "Bc": 2, "causal": 0, "stages": stages, "gpu": gpu}
    page = Page(SLUG, sizes)
    assert page.result.ok, page.result.error
    titles = [m for n in page.scene["nodes"] if n["kind"] == "text" and (m := TITLE.match(n.get("label", "")))]
    (title,) = titles
    rates, name = unit_rates(gpu)
    tl = pipe_time.block(128, 64, 128, 4, stages, rates)  # the drawn block visits 4 tiles, timed at the kernel's tile
    assert title.groups() == (name.split()[0], str(stages), timeline.seconds(tl.makespan))
    bars = [i for i in page.figure["items"] if i.get("kv", "").startswith("timeline ")]
    assert [b["kv"][9:] for b in bars] == [a.lane for a in tl.actions]
    x0, span = bars[0]["x"], max(b["x"] + b["w"] for b in bars) - bars[0]["x"]
    for bar, action in zip(bars, tl.actions, strict=True):
        assert bar["x"] == pytest.approx(x0 + span * action.start / tl.makespan, abs=1e-3)


def test_the_sram_counter_ends_on_the_ledgers_shared_traffic(capsys):
    from kernelviz import cli

    sizes = {"N": 7, "N_kv": 11, "Br": 3, "Bc": 3, "causal": 0, "stages": 2, "gpu": 0}
    page = Page(SLUG, sizes)
    assert cli.main(["trace", *trace_args(SLUG, sizes)]) == 0
    shared = json.loads(capsys.readouterr().out)["shared"]["total"]
    assert page.counter(len(page.steps) - 1, kv="smem-bytes") == shared
