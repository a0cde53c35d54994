"""One name per size (kernelviz.glossary): the pages, the command line, the kernels' sizes() and the host's
formulas use the glossary's names, and an old name is mapped with a message that names the new one."""

import re
from pathlib import Path

import pytest
import yaml

from kernelviz import glossary
from kernelviz.commands import trace as cli
from kernelviz.cuda import kernels

ROOT = Path(__file__).resolve().parents[1]
# a trace run's besides its sizes
NOT_SIZES = {"algo", "dtype", "causal", "closed_form", "schedule", "p_in_shared", "partials"}


def test_canonical_renames_old_names_in_order_and_says_so():
    sizes, messages = glossary.canonical({"N": 1, "n_splits": 2, "heads": 3, "Bc": 4}, "here")
    assert list(sizes.items()) == [("N", 1), ("splits", 2), ("batch_heads", 3), ("Bc", 4)]
    assert messages == ["here: n_splits is now called splits", "here: heads is now called batch_heads"]
    assert glossary.canonical({"b": 4}, "x") == ({"Bc": 4}, ["x: b is now called Bc"])
    with pytest.raises(ValueError, match="x: Bc is given twice \\(as b and Bc\\); give it once, as Bc"):
        glossary.canonical({"Bc": 4, "b": 4}, "x")
    assert set(glossary.OLD.values()) <= set(glossary.SIZES) and not set(glossary.OLD) & set(glossary.SIZES)
    assert set(glossary.KEYWORDS) <= set(glossary.SIZES)


def front_matter(path):
    return yaml.safe_load(path.read_text(encoding="utf-8").split("---\n")[1])


@pytest.mark.parametrize("path", sorted((ROOT / "pages").glob("*.md")), ids=lambda p: p.stem)
def test_every_page_names_its_sizes_as_the_glossary_does(path):
    front = front_matter(path)
    named = [*front.get("sizes", {}), *front.get("prerender", {})]
    trace = front.get("trace") or {}
    for run in [trace] if "algo" in trace else trace.values():
        named += [k for k in run if k not in NOT_SIZES]
    text = path.read_text(encoding="utf-8")
    named += re.findall(r"(\w+)\s*=\s*\d+", " ".join(re.findall(r"sizes\(([^)]*)\)", text)))  # the kernel's sizes()
    named += [m for m in re.findall(r"\{\{\s*trace\.(?:\w+\.)?(\w+)\s*\}\}", text) if m in glossary.OLD]
    assert set(named) <= set(glossary.SIZES), path.name


def test_the_command_lines_sizes_are_the_glossarys():
    import argparse

    parser = argparse.ArgumentParser()
    cli.add_arguments(parser)
    dests = {a.dest for a in parser._actions if a.option_strings and a.type is not None and a.dest != "seed"}
    dests -= {"sram_budget", "save", "gpu", "partials"}  # a byte budget, a file, a GPU's name, a form: not sizes
    paged = {"seq_lens", "page_size", "H_q", "H_kv"}
    assert (
        dests
        == {"N", "N_kv", "d", "Br", "Bc", "splits", "batch_heads", "warps", "warpgroups", "stages", *paged}
        <= set(glossary.SIZES)
    )
    flags = {s for a in parser._actions if a.dest in dests for s in a.option_strings}
    assert flags == {"--" + name.replace("_", "-") for name in dests}


def test_the_hosts_formulas_speak_of_the_glossarys_sizes():
    for kernel in kernels.KERNELS:
        for expression in kernels.host_formulas(kernel).values():
            assert set(re.findall(r"[A-Za-z_]\w*", expression)) <= set(glossary.SIZES), (kernel, expression)
