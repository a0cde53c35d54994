"""Precompressed siblings (site/precompress.py): `kernelviz build` writes NAME.gz beside each text asset a static host
can serve in its place, equal to the file once decompressed, the same bytes on every build, and none where gzip would
not help (an incompressible file) or is not for (a font, an archive)."""

import gzip
import os

from kernelviz import cli
from kernelviz.site import precompress


def test_each_text_asset_gets_a_gzip_sibling_equal_to_it_once_decompressed(tmp_path):
    site = tmp_path / "site"
    (site / "assets" / "deep").mkdir(parents=True)
    files = {
        "a.html": "<p>kernelviz</p>\n" * 500,
        "assets/main.js": "export const x = 1;\n" * 300,
        "assets/deep/s.json": '{"nodes": []}\n' * 200,
        "assets/page.css": ".kv{color:red}\n" * 100,
    }
    for name, text in files.items():
        (site / name).write_text(text)
    (site / "assets" / "font.woff2").write_bytes(b"\0" * 4000)  # compressible, but not a text asset
    (site / "assets" / "noise.js").write_bytes(os.urandom(4000))  # a text suffix gzip cannot shrink
    written = precompress.siblings(site)
    assert sorted(str(f.relative_to(site)) for f, _, _ in written) == sorted(files)
    for name, text in files.items():
        packed = (site / f"{name}.gz").read_bytes()
        assert gzip.decompress(packed).decode() == text
        assert len(packed) < len(text) / 5
    assert not (site / "assets" / "font.woff2.gz").exists() and not (site / "assets" / "noise.js.gz").exists()
    first = {name: (site / f"{name}.gz").read_bytes() for name in files}
    (site / "a.html.gz").unlink()
    precompress.siblings(site)
    assert {name: (site / f"{name}.gz").read_bytes() for name in files} == first  # no timestamp: the same bytes
    assert not (site / "a.html.gz.gz").exists()  # a sibling is not compressed again


def test_the_build_command_writes_them_and_the_builder_alone_does_not(tmp_path, fake_dist):
    from kernelviz.site.build import build

    pages = tmp_path / "pages"
    pages.mkdir()
    (pages / "a.md").write_text("---\ntitle: A\n---\nSome *text*, " + "and more of it, " * 200 + "\n")
    out = tmp_path / "site"
    assert cli.main(["build", "--pages", str(pages), "--out", str(out), "--web-dist", str(fake_dist)]) == 0
    html = (out / "a.html").read_bytes()
    assert gzip.decompress((out / "a.html.gz").read_bytes()) == html
    assert (out / "assets" / "page.css.gz").is_file()
    build(pages, out, web_dist=fake_dist, log=None)  # as `kernelviz serve` builds: it compresses as it serves
    assert not list(out.rglob("*.gz"))
