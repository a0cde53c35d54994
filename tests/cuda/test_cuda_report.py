"""The compilers' report the whole-kernel pages show: the copy checked in is what the compilers say now."""

import pytest
from cuda_cases import needs_nvcc, needs_nvrtc

from kernelviz.cuda import compile, kernels, report


def test_the_checked_in_report_describes_the_kernels_as_they_are():
    tables = report.checked_in()
    assert tables, "kernelviz/cuda/report.json is missing: kernelviz verify --compile --write-report"
    for t in tables:
        assert t.stale == (), f"{t.compiler}: re-run kernelviz verify --compile --write-report ({t.stale} changed)"
        assert set(t.rows) == set(kernels.KERNELS)
        for kernel, rows in t.rows.items():
            assert {r.kernel for r in rows} == set(compile.instances(kernel))
            assert {r.arch for r in rows} == set(kernels.archs(kernel))
            dtypes = kernels.compiled_dtypes(kernel)
            options = kernels.kernel(kernel).compiled_options  # fa2_pipe: stages 2 and 1
            plans = [
                kernels.plan(kernel, 1, 1, d, n_splits=2, dtype=t, **o)
                for d in kernels.head_dims(kernel, compile.HEAD_DIMS)  # fa3: 64 and 128 only
                for t in dtypes
                for o in options
            ]
            launches = [x for plan in plans for x in plan]
            expected = {x.name: x.shared_bytes for x in launches}
            for r in rows:  # the host's formula, independent of the compiler's version
                assert r.shared_bytes == expected[r.kernel], r


@needs_nvcc
@needs_nvrtc
def test_the_checked_in_report_is_what_the_compilers_of_the_same_version_say():
    saved = {t.compiler: t.rows for t in report.checked_in()}
    live = report.live()
    same = [t for t in live if t.compiler in saved]
    if not same:
        pytest.skip(f"the report was written by {sorted(saved)}, this machine has {[t.compiler for t in live]}")
    for t in same:
        assert t.rows == saved[t.compiler], t.compiler


def test_stale_tables_are_named(tmp_path):
    path = tmp_path / "report.json"
    path.write_text(report.REPORT.read_text().replace(report.digests()["fa2.cu"], "0" * 64))
    assert {t.stale for t in report.checked_in(path)} == {("fa2.cu",)}
    assert report.checked_in(tmp_path / "none.json") == []
