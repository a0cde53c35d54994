"""The roofline section says bytes and times as `kernelviz roofline` prints them: web/src/roofline/words.js's
`bytes` equals kernelviz.attention.words.size (binary units: B, KiB, MiB, GiB) and its `time` equals
kernelviz.commands.roofline._seconds (s, ms, µs, else ns, 3 significant digits), run in node on the same numbers: the
figure's toy sizes (hundreds of bytes, fractions of a nanosecond), the realistic presets' (GiB, ms), the unit
boundaries, ties, and a seeded sample."""

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from kernelviz.attention.words import size
from kernelviz.commands.roofline import _seconds

WORDS = Path(__file__).resolve().parents[2] / "web" / "src" / "roofline" / "words.js"
NODE = shutil.which("node")
NODE_MODULES = WORDS.parents[2] / "node_modules"

SCRIPT = """
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const words = await import(pathToFileURL(process.argv[1]));
const input = JSON.parse(readFileSync(0, 'utf8'));
console.log(JSON.stringify({ bytes: input.bytes.map(words.bytes), times: input.times.map(words.time) }));
"""


def run_words(nbytes, times):
    if NODE is None:
        pytest.skip("node is not installed")
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", SCRIPT, str(WORDS)],
        input=json.dumps({"bytes": nbytes, "times": times}),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=WORDS.parents[2],  # web/: d3-format from its node_modules
    )
    return json.loads(out.stdout)


def test_bytes_and_times_read_as_the_command_line_prints_them():
    rng = random.Random(38)
    nbytes = [0, 1, 800, 1023, 1024, 1280, 1331, 1536, 2**20 - 1, 2**20, 2_341_000_000, 2**30, 5 * 2**40]
    nbytes += [rng.randint(1, 2**36) for _ in range(300)]
    times = [0.0, 1.67e-10, 2.04e-10, 3.92e-10, 9.999e-10, 1e-9, 1e-6, 9.9951e-4, 1e-3, 0.0123, 1.0, 12.5, 1234.0]
    times += [10 ** rng.uniform(-11, 2) for _ in range(300)]
    got = run_words(nbytes, times)
    assert got["bytes"] == [size(n) for n in nbytes]
    assert got["times"] == [_seconds(s) for s in times]


def test_the_issue_s_examples():
    got = run_words([2_341_000_000, 800], [2.04e-10])
    assert got == {"bytes": ["2.2 GiB", "800 B"], "times": ["0.204 ns"]}  # was 2.34 GB and 204 ps
