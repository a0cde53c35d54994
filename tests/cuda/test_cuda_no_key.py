"""A block whose rows all see no key (causal, N > N_kv) returns before loading Q (issue 37), in fa2.cu and
fa2_mma.cu, as flash-attn's forward kernel does: its O is 0 and its L is -inf, written, and load_q never runs for it.

The kernels run unchanged on the CPU shim, with one probe line put in front of their load_q region: a block whose
last row sees no key writes into the guard zone before O, which the harness reports (KernelRunError). The probe fires
on the same kernel with its no_key region taken out, so it would catch a kernel that loads Q first."""

import re

import numpy as np
import pytest
from cuda_cases import TOL, lse_err, needs_gxx, qkv, rel_err

from kernelviz.attention.reference import attention_fp64
from kernelviz.cuda import cpu, kernels

pytestmark = needs_gxx

PROBE = "    if (causal && min(row0 + Br, N) - 1 + N_kv - N < 0) O[-1] = 0;  // probe: a block that sees no key\n"
NO_KEY = re.compile(r"^\s*// region: no_key\n.*?^\s*// endregion\n", re.M | re.S)
# (kernel, N, N_kv, tiles): fa2 at N = 12, N_kv = 4, Br = Bc = 4 (blocks 0 and 1 see no key); fa2_mma's Br is 64,
# so N = 200, N_kv = 40: rows 0..159 see none, blocks 0 and 1 (rows 0..127) wholly
CASES = [("fa2", 12, 4, (4, 4)), ("fa2_mma", 200, 40, None)]


def source(kernel, probe=True, no_key=True):
    text = (kernels.FOLDER / kernels.FILES[kernel]).read_text()
    assert NO_KEY.search(text), f"{kernel}.cu has no no_key region"
    if not no_key:
        text = NO_KEY.sub("", text)
    if probe:
        text = text.replace("    // region: load_q\n", PROBE + "    // region: load_q\n", 1)
        assert PROBE in text
    return text


@pytest.mark.parametrize("kernel, n, n_kv, tiles", CASES, ids=[c[0] for c in CASES])
def test_a_block_that_sees_no_key_writes_zeros_and_does_not_reach_load_q(kernel, n, n_kv, tiles):
    q, k, v = qkv(1, n, 16, seed=3, n_kv=n_kv)
    out = cpu.run(kernel, q, k, v, causal=True, tiles=tiles, source=source(kernel))
    o = out["O"] if kernel == "fa2" else out["O"].astype(np.float32)
    blind = n - n_kv  # rows r + N_kv - N < 0 see no key
    assert (o[:, :blind] == 0).all()
    assert np.isneginf(out["L"][:, :blind]).all()
    o_ref, lse_ref = attention_fp64(q, k, v, causal=True)
    tol = TOL if kernel == "fa2" else 1e-2  # fa2_mma: 16-bit operands
    assert rel_err(o[:, blind:], o_ref[:, blind:]) <= tol
    assert lse_err(out["L"][:, blind:], lse_ref[:, blind:]) <= tol


@pytest.mark.parametrize("kernel, n, n_kv, tiles", CASES, ids=[c[0] for c in CASES])
def test_the_probe_fires_on_a_kernel_that_loads_q_first(kernel, n, n_kv, tiles):
    q, k, v = qkv(1, n, 16, seed=3, n_kv=n_kv)
    with pytest.raises(cpu.KernelRunError):
        cpu.run(kernel, q, k, v, causal=True, tiles=tiles, source=source(kernel, no_key=False))
