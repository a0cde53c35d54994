"""The regions the pages cite exist in every .cu file (and mma_sm80.h), read on their own, and the extractor
reports bad markers."""

import pytest

from kernelviz.cuda import regions as regions_module
from kernelviz.cuda.regions import RegionError, region, regions

CONTRACT = {
    "online_softmax.cu": ["setup", "init", "load", "new_max", "update", "write"],
    "fa2.cu": ["setup", "no_key", "load_q", "load_kv", "scores", "update", "write_back"],
    "fa1.cu": ["setup", "load_kv", "load_q_carries", "scores", "update", "write_back"],
    "mma_sm80.h": ["mma", "ldmatrix", "cvt", "cp_async"],
    "fa2_mma.cu": [
        "copy", "setup", "no_key", "load_q", "ldmatrix_q", "load_kv", "scores", "softmax", "pv", "write_back",
    ],
    "fa2_bwd.cu": ["preprocess", "setup", "load_kv", "load_q", "recompute", "dv", "ds", "dq", "dk", "write_back"],
    "flash_decoding.cu": [
        "split_setup", "split_load_q", "split_load_kv", "split_scores", "split_update", "split_write",
        "combine_setup", "combine_m", "combine_l", "combine_acc", "combine_write",
    ],
}  # fmt: skip


@pytest.mark.parametrize("filename", CONTRACT)
def test_the_cited_regions_exist_in_order(filename):
    found = regions(filename)
    assert list(found) == CONTRACT[filename]


@pytest.mark.parametrize("filename", CONTRACT)
def test_each_region_reads_on_its_own(filename):
    for name, (_, _, text) in regions(filename).items():
        lines = text.splitlines()
        assert 2 <= len(lines) <= 30, f"{filename}#{name} has {len(lines)} lines"
        assert not lines[0].startswith(" "), f"{filename}#{name} is not dedented"
        assert text.count("{") == text.count("}") or name.endswith("setup"), f"{filename}#{name} braces"
        assert "region" not in text


@pytest.mark.parametrize("filename", CONTRACT)
def test_every_syncthreads_says_what_it_waits_for(filename):
    source = (regions_module.FOLDER / filename).read_text()
    for n, line in enumerate(source.splitlines(), 1):
        if "__syncthreads()" in line and not line.lstrip().startswith("//"):
            assert "// waits for: " in line, f"{filename}:{n}"


def test_region_text_and_errors(tmp_path, monkeypatch):
    assert region("fa2.cu#load_kv").lstrip().startswith("// HBM -> SRAM")
    with pytest.raises(RegionError, match="fa2.cu has no region 'nope'; it has setup"):
        region("fa2.cu#nope")
    with pytest.raises(RegionError, match="no CUDA file"):
        region("missing.cu#setup")
    monkeypatch.setattr(regions_module, "FOLDER", tmp_path)
    (tmp_path / "a.cu").write_text("// region: x\nint a;\n// region: x\n// endregion\n// endregion\n")
    with pytest.raises(RegionError, match="a.cu:3: region 'x' is defined twice"):
        regions("a.cu")
    (tmp_path / "b.cu").write_text("// region: x\nint a;\n")
    with pytest.raises(RegionError, match="b.cu:1: region 'x' has no endregion"):
        regions("b.cu")
    (tmp_path / "c.cu").write_text("    // region: outer\n    int a;\n    // region: inner\n    int b;\n"
                                   "    // endregion\n    // endregion\n")  # fmt: skip
    found = regions("c.cu")
    assert found["inner"] == (4, 4, "int b;") and found["outer"] == (2, 5, "int a;\nint b;")


def test_a_citation_reaches_only_files_of_the_kernels_folder(tmp_path, monkeypatch):
    secret = tmp_path / "secret.cu"
    secret.write_text("// region: key\nhunter2\n// endregion\n")
    folder = tmp_path / "kernels"
    folder.mkdir()
    (folder / "link.cu").symlink_to(secret)
    monkeypatch.setattr(regions_module, "FOLDER", folder)
    for citation in ("../secret.cu#key", f"{secret}#key", "link.cu#key", "a\0b.cu#key"):
        with pytest.raises(RegionError, match="is not a file of the kernels folder"):
            region(citation)
