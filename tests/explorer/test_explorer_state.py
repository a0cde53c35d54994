"""The explorer's URL state (web/src/explorer/state.js) round-trips: serialize then parse gives the state back for
any valid setting, and a value that is not allowed falls back to its default."""

from explorer_node import run_js
from hypothesis import given, settings
from hypothesis import strategies as st

from kernelviz.attention import formulas

HEAD_DIMS = [32, 64, 96, 128, 256]
BLOCKS = [16, 32, 64, 128, 256]

ROUND_TRIP = """
const { parse, serialize } = await load('state');
console.log(JSON.stringify(input.map((s) => {
  const text = serialize(s);
  return { back: parse(text), again: serialize(parse(text)) === text, text };
})));
"""


@st.composite
def states(draw):
    N = draw(st.integers(64, 131072))
    Br, Bc = draw(st.sampled_from(BLOCKS)), draw(st.sampled_from(BLOCKS))
    causal = draw(st.booleans())
    i = draw(st.integers(0, formulas.cdiv(N, Br) - 1))
    visited = formulas.tiles_visited(i, N, Br, Bc, causal=causal)
    return dict(
        N=N,
        d=draw(st.sampled_from(HEAD_DIMS)),
        Br=Br,
        Bc=Bc,
        dtype=draw(st.sampled_from(["float32", "float16", "bfloat16"])),
        sram=draw(st.one_of(st.sampled_from(["a100", "h100"]), st.integers(1, 1024))),
        causal=causal,
        i=i,
        phase=draw(st.integers(0, 3)),
        j=draw(st.integers(0, visited - 1)),
    )


@settings(max_examples=20, deadline=None)
@given(st.lists(states(), min_size=1, max_size=40))
def test_serialize_then_parse_gives_the_state_back(batch):
    for state, got in zip(batch, run_js(ROUND_TRIP, batch), strict=True):
        assert got["back"] == state, got["text"]
        assert got["again"]


def test_values_not_allowed_take_their_defaults():
    body = """
    const { parse, DEFAULTS } = await load('state');
    console.log(JSON.stringify({ defaults: DEFAULTS, got: input.map((q) => parse(q)) }));
    """
    queries = ["", "?N=63&d=65&Br=0&Bc=17&dtype=int8&sram=1025&causal=yes", "?N=131073&sram=custom&phase=-1&i=x"]
    out = run_js(body, queries)
    for got in out["got"]:
        assert got == out["defaults"]
    assert out["defaults"]["N"] == 4096 and out["defaults"]["sram"] == "a100"


def test_tile_indices_are_clamped_to_the_sizes():
    body = "const { parse } = await load('state'); console.log(JSON.stringify(input.map((q) => parse(q))));"
    # N = 256, Br = 64: tiles 0..3; causal block 1 sees K/V tiles 0 and 1 only.
    got = run_js(body, ["?N=256&Br=64&Bc=64&i=9&causal=1&j=9&phase=7"])[0]
    last = formulas.cdiv(256, 64) - 1
    assert (got["i"], got["j"], got["phase"]) == (last, formulas.tiles_visited(last, 256, 64, 64, causal=True) - 1, 3)


def test_the_n_slider_is_a_log_scale_of_whole_numbers():
    body = """
    const { N_STOPS, nFromStop, stopFromN } = await load('state');
    const stops = Array.from({ length: N_STOPS + 1 }, (_, p) => nFromStop(p));
    console.log(JSON.stringify({ stops, back: stops.map(stopFromN), near: input.map(stopFromN) }));
    """
    out = run_js(body, [64, 100, 3000, 131072])
    stops = out["stops"]
    assert stops[0] == 64 and stops[-1] == 131072
    assert all(isinstance(n, int) for n in stops)
    assert all(a < b <= 2 * a for a, b in zip(stops, stops[1:], strict=False))  # increasing, no octave skipped
    assert out["back"] == list(range(len(stops)))
    assert [stops[p] for p in out["near"]] == [64, 96, 3072, 131072]
