"""`kernelviz verify`: the compile table and the comparison with attention/."""

import re

import pytest
from cuda_cases import needs_gxx, needs_nvcc, needs_nvrtc

from kernelviz.cli import main


@needs_nvcc
@needs_nvrtc
def test_verify_compile_prints_a_table_per_kernel_and_compiler(capsys):
    assert main(["verify", "--compile", "--no-run"]) == 0
    out = capsys.readouterr().out
    for compiler in ("nvcc", "NVRTC, what the GPU launcher loads"):
        for name in (
            "online_softmax.cu",
            "fa1.cu",
            "fa2.cu",
            "flash_decoding.cu",
            "fa2_bwd.cu",
            "fa2_mma.cu",
            "fa2_pipe.cu",
            "fa3.cu",
        ):
            assert f"{name} ({compiler})" in out
    assert "fa2<16, 16, 128>" in out and "fd_combine<64>" in out
    assert "online_softmax<64, 64>" in out
    assert "fa2_bwd<16, 32, 64>" in out and "fa2_bwd_preprocess<8, 128>" in out
    assert "paged_decode<4, 16, 128>" in out and "paged_combine<128>" in out
    assert "fa2_mma<64, 64, 64, 0>" in out and "fa2_mma<64, 32, 128, 1>" in out
    assert "fa2_pipe<128, 64, 128, 2, 1, 0>" in out and "fa2_pipe<128, 64, 64, 1, 1, 1>" in out
    assert "spills" not in out
    assert "fa3<128, 128, 64, 0>" in out and "fa3<128, 128, 128, 1>" in out
    archs = re.findall(r"\bsm_\d+a?\b", out)
    # (2 + 2 + 2 + 4 + 4 + 4 + 4 + 8 instances) by two compilers for sm_80 and sm_90; fa3's 4 for sm_90a alone
    assert archs.count("sm_80") == archs.count("sm_90") == 2 * 30 and archs.count("sm_90a") == 2 * 4


@needs_gxx
@pytest.mark.slow
def test_verify_runs_every_kernel_on_the_cpu(capsys):
    assert main(["verify", "--backend", "cpu"]) == 0
    out = capsys.readouterr().out
    # 8 shapes x (online softmax once, flash and paged decoding at 3 splits each, FA2's backward full and causal, FA1
    # and FA2: full, causal, causal with N_kv = ceil(N/2) and with N_kv = 2N; fa2_mma: those four, fp16 and bf16 for
    # the first two; fa2_pipe: 6, fp16 and bf16 each full and causal with stages 2 and 1, two of them ragged; fa3 the
    # same six as fa2_mma at the 4 shapes of d = 64, the head dims it takes): 8 x 23 + 8 x 6 + 4 x 6 = 256
    assert "256 passed, 0 failed" in out and "FAIL" not in out
    assert "fp16 causal N_kv=65 stages=2" in out and "bf16 causal N_kv=260 stages=1" in out
    assert "fp16 causal N_kv=65" in out and "bf16 causal N_kv=260" in out
    assert "causal N_kv=65" in out and "causal N_kv=260" in out
    assert out.count("paged_decoding  cpu") == 8 * 3


def test_verify_without_a_gpu_says_why(capsys, monkeypatch):
    from kernelviz.cuda import launch

    monkeypatch.setattr(launch, "problem", lambda: "CuPy does not import (test)")
    assert main(["verify", "--backend", "gpu"]) == 1
    assert "no GPU path: CuPy does not import (test); use --backend cpu" in capsys.readouterr().out
    monkeypatch.setenv("KERNELVIZ_REQUIRE_GPU", "1")
    assert main(["verify"]) == 1
    assert "no GPU path: CuPy does not import (test)" in capsys.readouterr().out


def test_verify_on_auto_says_why_it_runs_on_the_cpu(capsys, monkeypatch):
    from kernelviz.cuda import launch, verify

    monkeypatch.setattr(launch, "problem", lambda: "CuPy sees no NVIDIA GPU")
    backends = []
    monkeypatch.setattr(verify, "checks", lambda backend, *a, **k: backends.append(backend) or [])
    monkeypatch.delenv("KERNELVIZ_REQUIRE_GPU", raising=False)
    assert main(["verify"]) == 0
    assert backends == ["cpu"]
    assert "no GPU path (CuPy sees no NVIDIA GPU): running on the CPU shim" in capsys.readouterr().out
