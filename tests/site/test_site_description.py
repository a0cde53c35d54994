"""Each page describes itself for link previews: <meta name="description"> and Open Graph's og:title and
og:description, from its front matter's `description`, else from its first paragraph (as text: no tags, no
citation numbers, entities decoded, cut at a word near 200 characters). The real pages and the .cu.html pages are
checked in tests/browser/test_screens.py."""

import html
import re

from tests.site.test_site_build import page


def head_meta(text):
    """{name or property: content} of the <meta> elements of a page's head, content unescaped."""
    head = text[: text.index("</head>")]
    found = re.findall(r'<meta (?:name|property)="([^"]+)" content="([^"]*)">', head)
    return {key: html.unescape(content) for key, content in found}


def test_the_first_paragraph_describes_a_page_without_a_description(build_site):
    body = "Tiles of *K* & V, [cited](https://example.org).\n\nThe second paragraph.\n"
    _, out = build_site({"p.md": page(body, "title: Tiles <and> more")})
    meta = head_meta((out / "p.html").read_text())
    assert meta["description"] == "Tiles of K & V, cited."
    assert meta["og:description"] == meta["description"]
    assert meta["og:title"] == "Tiles <and> more"
    assert meta["og:type"] == "article"


def test_the_front_matter_description_wins_and_a_long_paragraph_is_cut_at_a_word(build_site):
    long = " ".join(f"word{k}" for k in range(80)) + "\n"  # 80 words, ~550 characters
    given = page("First paragraph.\n", 'title: Given\ndescription: "Said in the front matter: \\"quoted\\"."')
    _, out = build_site({"given.md": given, "long.md": page(long)})
    assert head_meta((out / "given.html").read_text())["description"] == 'Said in the front matter: "quoted".'
    cut = head_meta((out / "long.html").read_text())["description"]
    assert cut.endswith("…") and 150 <= len(cut) <= 200, cut
    assert long.startswith(cut[:-1] + " "), "cut between two words"
