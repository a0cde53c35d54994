"""Run the explorer's JavaScript modules (web/src/explorer/*.js, plain ES modules) under node, from the tests."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

EXPLORER = Path(__file__).resolve().parents[2] / "web" / "src" / "explorer"
NODE = shutil.which("node")

PRELUDE = """
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
const load = (name) => import(pathToFileURL(process.argv[1] + '/' + name + '.js'));
const input = JSON.parse(readFileSync(0, 'utf8'));
"""


def run_js(body, data):
    """Run `body` (ES module code that may `await load('formulas')`, reads `input` and prints JSON with
    console.log) with `data` as `input`; return the printed JSON."""
    if NODE is None:
        pytest.skip("node is not installed")
    out = subprocess.run(
        [NODE, "--input-type=module", "-e", PRELUDE + body, str(EXPLORER)],
        input=json.dumps(data),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(out.stdout)
