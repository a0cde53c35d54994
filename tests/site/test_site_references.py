"""Sources: `[text](ref:KEY)` cites a known source, numbered in order of first citation, linked to the page's
References section (listed in its table of sections); an unknown key is a warning at its line. External links are
checked for form only (no network): a malformed one is a warning at its line."""

import re
from pathlib import Path

import pytest

from kernelviz.site import linkcheck
from kernelviz.site.extensions.references import SOURCES

PAGES = Path(__file__).resolve().parents[2] / "pages"

CITING = """
---
title: Citing
---

## Intro

The first paper ([Dao, 2023](ref:fa2)) and the
second ([Milakov](ref:online-softmax)), then [the first again](ref:fa2) and [a typo](ref:fa9).
"""


def test_citations_link_to_numbered_entries_and_the_section_is_listed(build_site):
    result, out = build_site({"citing.md": CITING})
    html = (out / "citing.html").read_text()
    cites = re.findall(r'<a href="#ref-([\w-]+)" class="kv-cite">[^<]*<sup>\[(\d)\]</sup></a>', html)
    assert cites == [("fa2", "1"), ("online-softmax", "2"), ("fa2", "1")]
    entries = re.findall(r'<li id="ref-([\w-]+)">(.*?)</li>', html)
    assert [key for key, _ in entries] == ["fa2", "online-softmax"]
    assert f'<a href="{SOURCES["fa2"].url}">{SOURCES["fa2"].title}</a>' in entries[0][1]
    assert '<h2 id="references">References</h2>' in html
    assert '<a href="#references">References</a>' in html  # the table of sections
    assert '<span class="kv-cite-unknown">a typo</span>' in html


def test_an_unknown_source_is_a_warning_at_its_line(build_site, line):
    result, _ = build_site({"citing.md": CITING})
    [warning] = [w for w in result.warnings if "ref:fa9" in w.message]
    assert warning.line == line(CITING, "ref:fa9") and "cite one of" in warning.message and "fa2" in warning.message


def test_a_malformed_external_link_is_a_warning_at_its_line_and_a_good_one_is_not(build_site, line):
    text = """
    ---
    title: Links
    ---

    A [good one](https://arxiv.org/abs/2307.08691) and
    a [typo'd one](htps://arxiv.org/abs/2205.14135) and [no domain](https://arxiv/abs/1).
    """
    result, _ = build_site({"links.md": text})
    found = {w.message.split("'")[1]: w.line for w in result.warnings if "malformed external link" in w.message}
    assert found == {"htps://arxiv.org/abs/2205.14135": line(text, "htps:"), "https://arxiv/abs/1": line(text, "htps:")}


@pytest.mark.parametrize("key", sorted(SOURCES))
def test_every_known_source_is_a_well_formed_https_link(key):
    assert SOURCES[key].url.startswith("https://") and linkcheck.external_problem(SOURCES[key].url) is None


@pytest.mark.parametrize(
    "slug, cited",
    [
        ("index", {"fa1", "fa2"}),
        ("overview", {"attention", "fa1", "fa2", "online-softmax"}),
        ("online-softmax", {"online-softmax", "memory-efficient", "fa1"}),
        ("flash-attention-1", {"fa1", "online-softmax"}),
        ("flash-attention-2", {"fa1", "fa2", "online-softmax"}),
        ("flash-decoding", {"flash-decoding", "fa2"}),
        ("flash-attention-2-backward", {"fa1", "fa2", "triton-attention", "flash-attn", "fermi"}),
        ("paged-decoding", {"paged-attention", "gqa", "mqa", "flashinfer", "llama3"}),
    ],
)
def test_every_page_cites_what_it_rests_on(slug, cited):
    found = set(re.findall(r"\]\(ref:([\w-]+)\)", (PAGES / f"{slug}.md").read_text(encoding="utf-8")))
    assert cited <= found <= set(SOURCES)


@pytest.mark.parametrize("page", sorted(PAGES.glob("*.md")), ids=lambda p: p.stem)
def test_every_page_cites_at_least_one_source(page):
    assert re.search(r"\]\(ref:[\w-]+\)", page.read_text(encoding="utf-8")), f"{page.name} cites no source"
