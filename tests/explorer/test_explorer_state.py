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


def test_words_not_allowed_take_their_defaults_and_say_so():
    body = """
    const { read, DEFAULTS } = await load('state');
    console.log(JSON.stringify({ defaults: DEFAULTS, got: input.map((q) => read(q)) }));
    """
    queries = ["", "?N=abc&d=x&Br=-1&Bc=1.5&dtype=int8&sram=custom&causal=yes&phase=-1"]
    out = run_js(body, queries)
    for got in out["got"]:
        assert got["state"] == out["defaults"]
    assert out["got"][0]["corrections"] == []  # nothing given, nothing to say
    said = {c["key"]: c for c in out["got"][1]["corrections"]}
    assert set(said) == {"N", "d", "Br", "Bc", "dtype", "sram", "causal", "phase"}
    assert said["dtype"] == dict(key="dtype", given="int8", used="float16", why=said["dtype"]["why"])
    assert "expected float32, float16, bfloat16; this is the default" in said["dtype"]["why"]
    assert said["causal"]["used"] == "0" and "expected 1 or 0" in said["causal"]["why"]


def test_numbers_out_of_range_take_the_nearest_allowed_value_and_say_so():
    """Every number is read the same way: N, the sizes from a list, the budget and the tile indices alike."""
    body = "const { read } = await load('state'); console.log(JSON.stringify(input.map((q) => read(q))));"
    got = run_js(body, ["?N=0&d=7&sram=99999&i=999", "?N=200000&d=100&Br=300&Bc=20&sram=0&phase=9&j=9000"])
    first, second = got
    assert {k: first["state"][k] for k in ("N", "d", "sram", "i")} == dict(N=64, d=32, sram=1024, i=0)
    used = {c["key"]: (c["given"], c["used"]) for c in first["corrections"]}
    assert used == {"N": ("0", "64"), "d": ("7", "32"), "sram": ("99999", "1024"), "i": ("999", "0")}
    why = {c["key"]: c["why"] for c in first["corrections"]}
    assert why["N"] == "the explorer shows 64 to 131072" and why["sram"] == "the explorer shows 1 to 1024 KiB"
    assert why["d"] == "head dimensions are 32, 64, 96, 128, 256; the nearest is 32"
    assert why["i"] == "N=64 with Br=64 has query tiles 0 to 0"
    visited = formulas.tiles_visited(1, 131072, 256, 16)  # query tile 1 (the default) visits all 8192
    expected = dict(N=131072, d=96, Br=256, Bc=16, sram=1, phase=3, i=1, j=visited - 1)
    assert {k: second["state"][k] for k in expected} == expected
    assert [c["key"] for c in second["corrections"]] == ["N", "d", "Br", "Bc", "sram", "phase", "j"]


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
