"""`kernelviz trace`'s table is for people: every byte count carries its unit, and each ratio says which way it goes,
with the factor computed here from --json's byte counts (the closed forms test those)."""

import json
import re

import pytest

from kernelviz.cli import main
from kernelviz.commands.trace import ratio, size


def trace(capsys, *argv):
    assert main(["trace", *argv]) == 0
    return capsys.readouterr().out


def test_every_number_below_the_sizes_has_a_unit(capsys):
    table = trace(capsys, "fa2", "--N", "256", "--d", "16", "--Br", "32", "--Bc", "32", "--gpu", "h100")
    body = table.splitlines()[2:]  # below the parameters and their words
    assert len(body) >= 8
    for line in body:
        for number in re.finditer(r"(?<!\w)\d[\d,.]*", line):  # not the digits of a name (h100)
            after = line[number.end() :]
            unit = r"\s?(B|KiB|MiB|GiB|FLOP|FLOP/B|TFLOP/s|TB/s|exp|Texp/s|ns|µs|ms|s|tiles|blocks|SMs)\b|×"
            assert re.match(unit, after), f"{number.group()} has no unit in {line!r}"


@pytest.mark.parametrize("algo", ["fa1", "fa2", "flash-decoding"])
def test_the_ratio_to_standard_says_fewer_and_by_how_much(capsys, algo):
    args = [algo, "--N", "1024", "--d", "64"]
    report = json.loads(trace(capsys, *args, "--json"))
    factor = report["standard_bytes"] / report["total_bytes"]
    assert factor > 1
    table = trace(capsys, *args)
    assert f"{factor:.1f}× fewer bytes than standard attention" in table
    more = report["total_bytes"] / report["compulsory_bytes"]
    assert f"{more:.1f}× more bytes than the compulsory minimum" in table


def test_standard_against_itself_is_the_same():
    assert ratio(10, 10, "standard attention") == "the same bytes as standard attention (1.0×)"
    assert ratio(10, 30, "x") == "3.0× fewer bytes than x" and ratio(30, 10, "x") == "3.0× more bytes than x"


def test_sizes_in_binary_units():
    assert [size(n) for n in (0, 1023, 1024, 1536, 3 * 2**20, 5 * 2**30, 7 * 2**40, 2**50, 3 * 2**60, 2**70)] == [
        "0 B",
        "1023 B",
        "1.0 KiB",
        "1.5 KiB",
        "3.0 MiB",
        "5.0 GiB",
        "7.0 TiB",
        "1.0 PiB",
        "3.0 EiB",
        "1024.0 EiB",
    ]
