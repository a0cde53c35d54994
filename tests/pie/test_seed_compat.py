"""The Python of the seed pages runs unmodified and gives exactly what it handed to pie."""

import copy
import json

import pytest

from kernelviz import pie
from kernelviz.runner import Source, run
from tests.seeds import seed_editors

# Flash Attention 2: a start step, then per block: visualize, load Q, Tc x (load K/V, fill Sij, update), write.
TR = TC = 2
FA2_STEPS = 1 + TR * (2 + 3 * TC + 1)
# Flash decoding: per split the same with its 2 tiles, then the combine block: visualize and four steps.
SPLITS, TILES = 2, 2
FD_STEPS = 1 + SPLITS * (2 + 3 * TILES + 1) + 1 + 4

SEEDS = {"000_cccafdd90e3922fa.txt": ("fa2_figure", FA2_STEPS), "003_713ded16edfff9f4.txt": ("fd_figure", FD_STEPS)}


@pytest.fixture
def captured(monkeypatch):
    """What the seed code hands to pie.diagram and pie.ui.step_list, copied before pie sees it."""
    calls = {"diagram": [], "step_list": []}
    diagram, step_list = pie.diagram, pie.ui.step_list

    def spy_diagram(items_json, out=None):
        calls["diagram"].append((json.loads(items_json), out))
        return diagram(items_json, out=out)

    def spy_step_list(figure, steps, out=None):
        calls["step_list"].append(copy.deepcopy(steps))
        return step_list(figure, steps=steps, out=out)

    monkeypatch.setattr(pie, "diagram", spy_diagram)
    monkeypatch.setattr(pie.ui, "step_list", spy_step_list)
    return calls


def test_step_counts_match_the_pages():
    assert (FA2_STEPS, FD_STEPS) == (19, 24)


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seed_editors_run_unmodified(seed, seeds_dir, captured, validate_scene):
    helpers, kernel = seed_editors((seeds_dir / seed).read_text())
    result = run([Source(helpers, "drawing helpers"), Source(kernel, "the kernel")])
    assert result.ok, result.error and result.error.traceback
    scene = validate_scene(result.scene)

    figure_id, n_steps = SEEDS[seed]
    [(items, out)] = captured["diagram"]
    [steps] = captured["step_list"]
    assert out == figure_id
    diagrams = [n for n in scene["nodes"] if n["kind"] == "diagram"]
    step_lists = [n for n in scene["nodes"] if n["kind"] == "step_list"]
    assert [d["id"] for d in diagrams] == [figure_id]
    assert diagrams[0]["items"] == items
    assert step_lists[0]["steps"] == steps
    assert step_lists[0]["figure"] == {"ref": figure_id}
    assert len(steps) == n_steps
    assert scene["canvas"]["side"] == "right"
    assert scene["settings"]["gridOpacity"] == {"ref": "gridOpacity"}
    settings = {n["id"]: n["value"] for n in scene["nodes"] if n["kind"] == "scalar"}
    assert settings == {"gridOpacity": 0, "unit": 50}


@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seed_scene_round_trips_through_json(seed, seeds_dir):
    helpers, kernel = seed_editors((seeds_dir / seed).read_text())
    result = run([helpers, kernel])
    assert json.loads(json.dumps(result.scene, allow_nan=False)) == result.scene
