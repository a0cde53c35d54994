"""The kernel pages as the tests read them: their editors, run at any sizes, and the figure replayed step by
step. Shared by the page tests and the browser tests."""

import json
import re
from pathlib import Path

import yaml

from kernelviz.runner import Source, run

ROOT = Path(__file__).resolve().parents[2]
EDITOR = re.compile(r'^```pie title="([^"]*)"\n(.*?)^```$', re.M | re.S)
CUDA = re.compile(r"^```cuda (.*)$", re.M)
ATTR = re.compile(r'(\w+)="([^"]*)"')
BULLET = re.compile(r"^\s*- \[step: ([^\]]+)\]", re.M)
PHASES = ("start", "move", "end")
COUNTER = re.compile(r"^HBM (\d+) B$")
SHARED_COUNTER = re.compile(r"^SRAM (\d+) B$")

# slug -> (the trace CLI's algorithm, how the form's sizes become its arguments)
KERNEL_PAGES = {
    "online-softmax": "online-softmax",
    "flash-attention-1": "fa1",
    "flash-attention-2": "fa2",
    "flash-attention-2-tensor-cores": "fa2-mma",
    "flash-attention-2-pipelined": "fa2-pipe",
    "flash-attention-2-backward": "fa2-backward",
    "flash-decoding": "flash-decoding",
    "paged-decoding": "paged-decoding",
}

# The kernels' own sizes (their sizes() calls), which the pages open with (test_pages_figures holds them equal)
DEFAULTS = {
    "online-softmax": {"N": 8, "Bc": 2},
    "flash-attention-1": {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4, "causal": 0},
    "flash-attention-2": {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4, "causal": 0},
    "flash-attention-2-tensor-cores": {"N": 8, "N_kv": 8, "Br": 4, "Bc": 4, "causal": 0},
    "flash-attention-2-pipelined": {"N": 4, "N_kv": 8, "Br": 4, "Bc": 2, "causal": 0, "stages": 2, "gpu": 0},
    "flash-attention-2-backward": {"N": 8, "Br": 4, "Bc": 4},
    "flash-decoding": {"N": 16, "Bc": 4, "splits": 2},
    "paged-decoding": {"L0": 5, "L1": 9, "page_size": 4, "H_q": 2, "splits": 2},
}


# Kernel pages the trace covers that test_pages_figures does not go through (their own page tests do)
OWN_TESTS = {"flash-attention-3": "fa3"}


def trace_args(slug, sizes, d=4):
    """The `kernelviz trace` arguments that count what the page's figure draws at `sizes` (None: a page the
    trace command does not cover, online softmax)."""
    algo = KERNEL_PAGES[slug] if slug in KERNEL_PAGES else OWN_TESTS[slug]
    if algo == "fa3":  # the FA3 figure: two consumer warpgroups of 2 rows (Br = 4), Bc = 4, in float16
        causal = ["--causal"] if sizes.get("causal") else []
        return [algo, "--N", str(sizes["N"]), "--N-kv", str(sizes["N_kv"]), "--d", str(d), "--Br", "4", "--Bc", "4",
                *causal, "--dtype", "float16", "--warpgroups", "2", "--json"]  # fmt: skip
    if algo == "flash-decoding":
        return [algo, "--N", "1", "--N-kv", str(sizes["N"]), "--d", str(d), "--Br", "1", "--Bc", str(sizes["Bc"]),
                "--splits", str(sizes["splits"]), "--json"]  # fmt: skip
    if algo == "paged-decoding":  # the figure draws one K/V head, H_q query heads its group
        lens, page = f"{sizes['L0']},{sizes['L1']}", str(sizes["page_size"])
        return [algo, "--seq-lens", lens, "--page-size", page, "--H-q", str(sizes["H_q"]), "--H-kv", "1",
                "--splits", str(sizes["splits"]), "--d", str(d), "--json"]  # fmt: skip
    if algo == "fa2-pipe":  # the pipelined figure: a warp for every 2 rows, its stages; the GPU changes no count
        causal = ["--causal"] if sizes.get("causal") else []
        return [algo, "--N", str(sizes["N"]), "--N-kv", str(sizes["N_kv"]), "--d", str(d), "--Br", str(sizes["Br"]),
                "--Bc", str(sizes["Bc"]), *causal, "--warps", str(-(-sizes["Br"] // 2)), "--stages",
                str(sizes["stages"]), "--dtype", "float16", "--json"]  # fmt: skip
    if algo in ("fa1", "fa2", "fa2-backward", "fa2-mma"):
        n_kv, causal = sizes.get("N_kv", sizes["N"]), ["--causal"] if sizes.get("causal") else []
        # the tensor-core figure: a warp for every 2 rows of Br (its R), in float16
        mma = ["--warps", str(-(-sizes["Br"] // 2)), "--dtype", "float16"] if algo == "fa2-mma" else []
        return [algo, "--N", str(sizes["N"]), "--N-kv", str(n_kv), "--d", str(d), "--Br", str(sizes["Br"]), "--Bc",
                str(sizes["Bc"]), *causal, *mma, "--json"]  # fmt: skip
    return None


class Page:
    """A page's source and the Scene its editors draw at `sizes` (None: the kernel's defaults)."""

    def __init__(self, slug, sizes=None, edit=None):
        self.slug, self.path = slug, ROOT / "pages" / f"{slug}.md"
        self.text = self.path.read_text(encoding="utf-8")
        self.front = yaml.safe_load(self.text.split("---")[1])
        self.editors = EDITOR.findall(self.text)
        codes = [code for _, code in self.editors]
        if edit:
            codes[-1] = edit(codes[-1])
        self.result = run([Source(c, f"{self.path.name} editor {n + 1}") for n, c in enumerate(codes)], sizes)
        self.scene = self.result.scene
        nodes = {n["kind"]: n for n in (self.scene or {}).get("nodes", [])}
        self.figure, self.step_list = nodes.get("diagram"), nodes.get("step_list")

    @property
    def steps(self):
        return self.step_list["steps"]

    @property
    def keys(self):
        return [s.get("key") for s in self.steps]

    def index(self, key):
        return self.keys.index(key)

    def bullets(self):
        return BULLET.findall(self.text)

    def cuda_blocks(self):
        return [dict(ATTR.findall(info)) for info in CUDA.findall(self.text)]

    def items(self, key, phase="end"):
        """Every item of the figure as step `key` (or index) is at `phase`: start, move (where it animates to)
        or end."""
        k = key if isinstance(key, int) else self.index(key)
        items = [dict(i) for i in self.figure["items"]]
        for n in range(1, k + 1):
            for p in PHASES[: PHASES.index(phase) + 1] if n == k else PHASES:
                for i, fields in self.steps[n].get(p, []):
                    items[i].update(fields)
        return items

    def counter(self, key, kv="hbm-bytes"):
        """The HBM counter's integer at step `key` (or index); kv="smem-bytes": the SRAM counter's."""
        (item,) = [i for i in self.items(key) if i.get("kv") == kv]
        return int((COUNTER if kv == "hbm-bytes" else SHARED_COUNTER).match(item["label"]).group(1))


def trace_total(capsys, slug, sizes):
    """`kernelviz trace ... --json`'s total_bytes for the page's figure at `sizes`, run in this process."""
    from kernelviz import cli

    assert cli.main(["trace", *trace_args(slug, sizes)]) == 0
    return json.loads(capsys.readouterr().out)["total_bytes"]
