"""Fixture sites built end to end: what the builder writes, and the warnings it gives (file:line), strict or not."""

import html
import json
import re

import pytest

from kernelviz.cuda import regions
from kernelviz.site import nav
from kernelviz.site.build import build
from kernelviz.site.diagnostics import BuildError
from tests.pages import opened_blocks
from tests.site.page_scene import page_scene


def page(body, front="title: A page"):
    return f"---\n{front}\n---\n{body}"


def stylesheets(text):
    """The hrefs of the stylesheets a page links, in order."""
    return re.findall(r'<link rel="stylesheet" href="([^"]+)">', text)


def text_of(fragment):
    """The text content of an HTML fragment (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def test_a_page_becomes_html_with_the_contract_structure(build_site):
    result, out = build_site({"first.md": page("Some *prose*.\n")})
    text = (out / "first.html").read_text()
    assert result.pages == ["first"]
    assert '<body data-page="first">' in text
    assert '<main class="kv-page" id="kv-main" data-canvas-side="">' in text
    assert '<a class="kv-skip" href="#kv-main">' in text  # no figure: the skip link goes to the content
    assert '<button class="kv-theme" type="button">' in text
    assert '<article class="kv-prose" id="kv-text">' in text and "<em>prose</em>" in text
    assert '<script type="module" async src="assets/main.js"></script>' in text  # after the figure, before the text
    assert text.index('async src="assets/main.js"') < text.index('<article class="kv-prose"')
    assert stylesheets(text) == ["assets/page.css"]  # one stylesheet: nothing else holds back the first paint
    site_css = ["site.css", "site-code.css", "site-drawn.css"]
    assert parts_of(out / "assets/page.css") == ["palette.css", *site_css, "main.css"]  # the math's: math.css
    assert 'id="kv-scene"' not in text and 'id="kv-figure"' not in text  # no editors, no figure


def parts_of(sheet):
    """The files a built stylesheet is made of, in order, each checked to be there whole (its url()s aside)."""
    text = sheet.read_text()
    names = re.findall(r"^/\* (\S+) \*/$", text, re.M)
    for name in names:
        part = (sheet.parent / name).read_text().strip()
        if "url(" not in part:
            assert part in text, f"{sheet.name} does not hold {name} whole"
    return names


def test_the_stylesheet_finds_the_fonts_of_the_parts_in_folders(build_site, fake_dist):
    (fake_dist / "temml/temml.css").write_text(
        '@font-face{src:url(fonts/A.woff2) format("woff2"),url("fonts/B.woff2")}.x{background:url(data:,)}'
        ".y{background:url(/abs.png)}.z{background:url(https://example.org/c.png)}\n"
    )
    _, out = build_site({"a.md": page("A.\n")})
    text = (out / "assets/math.css").read_text()
    assert 'url(temml/fonts/A.woff2) format("woff2"),url("temml/fonts/B.woff2")' in text
    assert "url(data:,)" in text and "url(/abs.png)" in text and "url(https://example.org/c.png)" in text


def test_a_page_with_math_links_the_maths_css_in_its_text_after_the_title(build_site):
    _, out = build_site({"m.md": page("# Title\n\nFine $x$.\n"), "plain.md": page("No formula.\n")})
    text = (out / "m.html").read_text()
    assert stylesheets(text) == ["assets/page.css", "assets/math.css"]
    head, body = text.split("<body", 1)
    assert "math.css" not in head  # the first paint does not wait for it
    link = body.index('href="assets/math.css"')
    assert body.index("<h1>") < link < body.index("<math")  # the title shows without it; no formula does
    assert parts_of(out / "assets/math.css") == ["temml/temml.css", "site-math.css"]
    assert stylesheets((out / "plain.html").read_text()) == ["assets/page.css"]


def test_editors_run_and_the_scene_is_a_file_the_page_preloads(build_site, figure_md, line, validate_scene):
    source = page("Intro.\n" + figure_md)
    result, out = build_site({"fig.md": source})
    text = (out / "fig.html").read_text()
    head = text.split("<body", 1)[0]
    assert '<link rel="preload" href="scenes/fig.json" as="fetch" crossorigin id="kv-scene">' in head
    assert head.index('href="scenes/fig.json"') < head.index('rel="modulepreload"')  # asked for with the runtime
    assert '"nodes"' not in text  # the Scene is not in the HTML
    scene = page_scene(out / "fig.html")
    validate_scene(scene)
    assert [s["label"] for s in scene["nodes"][-1]["steps"]] == ["start", "load Q0", "load K0"]
    assert '<main class="kv-page" id="kv-main" data-canvas-side="right">' in text
    assert '<aside class="kv-figure" id="kv-figure" tabindex="-1" aria-label="Figure: ' in text
    assert text.index('id="kv-figure"') < text.index('<article class="kv-prose" id="kv-text">')  # parsed first
    skips = '<a class="kv-skip" href="#kv-text">Skip to the text</a><a class="kv-skip" href="#kv-figure">Skip to'
    assert skips in text
    editors = json.loads(re.search(r'id="kv-editors">(.*?)</script>', text).group(1))
    assert [e["title"] for e in editors] == ["Helpers", "Kernel"]
    assert editors[0]["code"].startswith("import json\n")
    # first_line is the line of the page where the code starts
    assert editors[0]["first_line"] == line(source, "import json")
    assert editors[1]["first_line"] == line(source, "pie.show_canvas")
    blocks = re.findall(r'<div class="kv-editor" data-editor="(\d)" data-title="([^"]*)"><pre ([^>]*)>', text)
    assert [(i, title) for i, title, _ in blocks] == [("0", "Helpers"), ("1", "Kernel")]
    # the code is focusable and named, so a keyboard reader can reach it (and load the editors)
    expected = 'class="kv-code" tabindex="0" role="region" aria-label="Python editor: {}"'
    assert [pre for _, _, pre in blocks] == [expected.format("Helpers"), expected.format("Kernel")]
    assert result.warnings == []


def test_an_editor_label_escapes_its_title(build_site):
    _, out = build_site({"t.md": page('```pie title="Q & K <tiles>"\nx = 1\n```\n')})
    assert 'aria-label="Python editor: Q &amp; K &lt;tiles&gt;"' in (out / "t.html").read_text()


def test_an_editor_error_is_a_warning_at_its_line_of_the_page(build_site, line):
    source = page('```pie title="Broken"\nx = 1\ny = undefined_name\n```\n')
    result, out = build_site({"bad.md": source})
    (w,) = result.warnings
    assert (w.file.endswith("bad.md"), w.line) == (True, line(source, "undefined_name"))
    assert "NameError" in w.message and "Broken" in w.message
    assert 'id="kv-scene"' not in (out / "bad.html").read_text()
    with pytest.raises(BuildError, match=rf"bad\.md:{line(source, 'undefined_name')}: editor 1"):
        build_site({"bad.md": source}, strict=True, out=out.parent / "strict")


def test_bullets_bound_to_steps_get_data_step(build_site, figure_md):
    body = figure_md + "\n- [step: load K0] Kj = K[j]\n- [step: load Q0] Qi = **Q**[i]\n- a plain bullet\n"
    result, out = build_site({"fig.md": page(body)})
    text = (out / "fig.html").read_text()
    assert '<li data-step="2">Kj = K[j]</li>' in text
    assert '<li data-step="1">Qi = <strong>Q</strong>[i]</li>' in text
    assert "<li>a plain bullet</li>" in text
    assert "[step:" not in text
    assert result.warnings == []


def test_an_unknown_step_label_is_a_warning_naming_file_and_line(build_site, figure_md, line):
    source = page(figure_md + "\n- [step: load Q0] fine\n- [step: lod K0] a typo\n")
    result, out = build_site({"fig.md": source})
    (w,) = result.warnings
    assert w.file.endswith("fig.md") and w.line == line(source, "lod K0")
    assert "'lod K0'" in w.message and "load K0" in w.message  # suggests the near label
    assert "<li>a typo</li>" in (out / "fig.html").read_text()


def test_strict_turns_a_warning_into_a_failure_and_keeps_the_last_site(build_site, figure_md, line):
    good, out = build_site({"fig.md": page(figure_md + "\n- [step: load Q0] fine\n")}, strict=True)
    before = (out / "fig.html").read_text()
    source = page(figure_md + "\n- [step: nowhere] oops\n")
    with pytest.raises(BuildError) as failure:
        build_site({"fig.md": source}, strict=True)
    assert f"fig.md:{line(source, 'nowhere')}: unknown step label 'nowhere'" in str(failure.value)
    assert (out / "fig.html").read_text() == before  # the failed build did not touch the site


def test_a_cuda_block_is_its_cited_region_collapsed_and_bound_to_a_step(build_site, figure_md, fake_dist):
    body = figure_md + '\n```cuda cite="fixture.cu#load" step="load Q0" title="Load"\n```\n'
    result, out = build_site({"fig.md": page(body)})
    text = (out / "fig.html").read_text()
    ((attrs, inner),) = opened_blocks.blocks(text, fake_dist)
    assert [(k, attrs[k]) for k in attrs if k != "data-code"] == [("data-step", "1"), ("data-cite", "fixture.cu#load")]
    assert inner.startswith("<summary>CUDA implementation</summary>")
    code = re.search(r'<pre class="kv-code kv-cuda-code">(.*)</pre>', inner, re.S).group(1)
    lines = re.findall(
        r'<span class="kv-line kv-(region|context|elided)">(?:<a class="kv-ln"[^>]*>(\d+)</a>)?(.*)', code
    )
    region = [text_of(html) for kind, _, html in lines if kind == "region"]
    assert "\n".join(region) == "    " + regions.region("fixture.cu#load").replace("\n", "\n    ")
    # around it, the function it is in and its closing brace, each with its line number
    assert [(kind, n) for kind, n, _ in lines] == [("context", "2"), ("region", "4"), ("region", "5"), ("elided", ""),
                                                   ("context", "10")]  # fmt: skip
    assert '<span class="kt">int</span>' in code  # highlighted as CUDA, with classes
    assert '<a href="fixture.cu.html#load">fixture.cu, lines 4–5</a>' in inner
    assert result.warnings == []


def test_each_cited_file_gets_a_whole_kernel_page_with_numbered_lines_and_marked_regions(
    build_site, figure_md, cuda_dir
):
    body = figure_md + '\n```cuda cite="fixture.cu#store" step="load K0"\n```\n'
    result, out = build_site({"fig.md": page(body)})
    assert result.warnings == []  # the link checker followed fig.html's links to fixture.cu.html#store and #L8
    whole = (out / "fixture.cu.html").read_text()
    source = re.search(r'<pre class="kv-code kv-cuda-file">(.*)</pre>', whole, re.S).group(1)
    assert text_of(re.sub(r'<a class="kv-ln"[^>]*>\d+</a>', "", source)) == (
        cuda_dir / "fixture.cu"
    ).read_text().rstrip("\n")
    assert [int(n) for n in re.findall(r'id="L(\d+)"', source)] == list(range(1, 11))
    assert '<span class="kv-region-start" id="store"></span><span class="kv-line kv-marker" id="L7">' in source
    assert re.search(r'<span class="kv-line kv-region" id="L8">', source)
    assert '<a href="#store"><code>store</code></a>, lines 8–8: quoted by <a href="fig.html">' in whole
    assert "No compiler report" in whole  # fixture.cu is no kernel of kernels.py: nothing to compile


def test_a_missing_region_or_file_is_a_warning(build_site, line):
    source = page('```cuda cite="fixture.cu#nope"\n```\n\n```cuda cite="other.cu#load"\n```\n')
    result, out = build_site({"c.md": source})
    missing_region, missing_file = result.warnings
    assert missing_region.line == line(source, "fixture.cu#nope") and "no region 'nope'" in missing_region.message
    assert "load, store" in missing_region.message  # the regions it has
    assert missing_file.line == line(source, "other.cu") and "other.cu" in missing_file.message
    assert 'class="kv-code kv-missing"' in (out / "c.html").read_text()


def test_math_is_prerendered_as_mathml_with_textcolor_and_the_palettes_classes(build_site):
    body = (
        r"Carry $\textcolor{#1d4ed8}{m_i}$ and $\kvq{Q_i}$ along."
        + "\n\n$$\n\\frac{a}{b} = \\textcolor{#047857}{d'_i}\n$$\n"
    )
    result, out = build_site({"m.md": page(body)})
    text = (out / "m.html").read_text()
    assert result.warnings == []
    assert text.count("<math") == 3 and text.count('<math display="block"') == 1
    assert 'class="kv-math"><math display="block"' in text  # a display formula is a block of its own
    assert "color:#1d4ed8" in text and "color:#047857" in text
    # the palette's macro: its colour's class (and the figure's slot it stands for: extensions/math_symbols)
    assert '<msub class="kv-c-q" data-kv-slot="Qi"><mi>Q</mi><mi>i</mi></msub>' in text
    assert "<mfrac><mi>a</mi><mi>b</mi></mfrac>" in text  # typeset, not the source
    assert "katex" not in text  # no KaTeX left: no classes, no stylesheet, no fonts
    assert "$" not in text_of(re.search(r"<article.*</article>", text, re.S).group(0))


def test_a_math_error_is_a_warning_naming_file_and_line(build_site, line):
    source = page("Fine $x$.\n\nThen a\nbroken $\\frac{a$ formula.\n")
    result, out = build_site({"k.md": source})
    (w,) = result.warnings
    assert w.file.endswith("k.md") and w.line == line(source, "broken")
    assert "cannot typeset $\\frac{a$: Temml parse error" in w.message
    assert '<code class="kv-math-error">\\frac{a</code>' in (out / "k.html").read_text()


def test_prices_are_not_math(build_site):
    _, out = build_site({"p.md": page("It costs $5 and $10 today.\n")})
    assert "<math" not in (out / "p.html").read_text().split("<article", 1)[1]


def test_links_between_pages_are_rewritten_and_checked(build_site, line):
    a = page("See [b](b.md#part), [top](#top-part), [gone](gone.md) and [web](https://example.org).\n\n## Top part\n")
    b = page("## Part\n")
    result, out = build_site({"a.md": a, "b.md": b})
    text = (out / "a.html").read_text()
    assert 'href="b.html#part"' in text and 'href="#top-part"' in text and 'href="https://example.org"' in text
    (w,) = result.warnings
    assert w.file.endswith("a.md") and w.line == line(a, "gone.md") and "'gone.html'" in w.message


def test_a_link_to_a_missing_fragment_is_broken(build_site):
    result, _ = build_site({"a.md": page("[b](b.md#nowhere)\n"), "b.md": page("## Somewhere\n")})
    (w,) = result.warnings
    assert "b.html has no id 'nowhere'" in w.message


def test_a_link_to_a_planned_page_not_written_yet_shows_as_coming(build_site):
    result, out = build_site({"a.md": page("Next: [Flash decoding](flash-decoding.md).\n")})
    assert result.warnings == []
    assert '<span class="kv-coming" title="coming soon">Flash decoding</span>' in (out / "a.html").read_text()


def test_the_table_of_sections_nests_h3_under_h2(build_site):
    body = "## One\n\n### One a\n\n### One b\n\n## Two\n\ntext\n"
    _, out = build_site({"t.md": page(body)})
    toc = re.search(r'<nav class="kv-toc".*?</nav>', (out / "t.html").read_text()).group(0)
    expected = (
        '<ul><li><a href="#one">One</a><ul><li><a href="#one-a">One a</a></li><li><a href="#one-b">One b</a></li>'
        '</ul></li><li><a href="#two">Two</a></li></ul>'
    )
    assert expected in toc


def test_the_nav_lists_the_planned_pages_with_coming_ones_unlinked(build_site):
    """The nav is nav.PLANNED in its order: the written page (the third planned one, whatever it is) a link, numbered
    by its place; the others coming; a page outside the plan absent."""
    slug, label = nav.PLANNED[3]
    written = page("Text.\n", "title: Some title of its own")
    _, out = build_site({"index.md": page("Home.\n", "title: Home"), f"{slug}.md": written, "extra.md": written})
    found = re.search(r'<nav class="kv-nav".*?</nav>', (out / "index.html").read_text()).group(0)
    expected = [f'<span>{nav.PLANNED[0][1]}</span> <em class="kv-coming-tag">coming</em>']
    expected += [
        f'<span>{n}. {text}</span> <em class="kv-coming-tag">coming</em>' for n, (_, text) in enumerate(nav.PLANNED)
    ][1:]
    expected[3] = f'<a href="{slug}.html">3. {label}</a>'
    assert re.findall(r"<li[^>]*>(.*?)</li>", found) == expected
    assert f'href="{slug}.html" aria-current="page"' in (out / f"{slug}.html").read_text()
    assert "extra.html" not in found


def test_the_contents_list_the_plan_with_each_pages_summary(build_site):
    """The home page's empty contents fence becomes the plan in order, each line its page's summary; a written page
    without one, or a line written into the fence, is a warning at the fence."""
    first, second = nav.SLUGS[1], nav.SLUGS[2]
    home = page("```contents\n```\n", "title: Home")
    sources = {
        "index.md": home,
        f"{first}.md": page("A.\n", "title: A\nsummary: Reads <rows> once."),
        f"{second}.md": page("B.\n", "title: B"),
    }
    result, out = build_site(sources)
    items = re.findall(
        r"<li[^>]*>(.*?)</li>",
        re.search(r'<ol class="kv-contents">.*?</ol>', (out / "index.html").read_text()).group(0),
    )
    assert len(items) == len(nav.PLANNED)
    assert items[1] == f'<a href="{first}.html">1. {nav.PLANNED[1][1]}</a><p>Reads &lt;rows&gt; once.</p>'
    assert items[0].endswith('<em class="kv-coming-tag">coming</em><p></p>')
    assert [w.message for w in result.warnings] == [f"contents: page {second!r} has no 'summary' in its front matter"]
    result, _ = build_site({"index.md": page("```contents\noverview: Old style.\n```\n", "title: Home")})
    (w,) = [w for w in result.warnings if "fence" in w.message]  # (the folder keeps the pages written above)
    assert w.line == 5 and "the fence stays empty" in w.message


def test_prerequisites_link_page_slugs(build_site):
    a = page("Text.\n", "title: A\nprerequisites: [How attention works, b, online-softmax]")
    _, out = build_site({"a.md": a, "b.md": page("B.\n", "title: The B page")})
    section = re.search(r'<section class="kv-prerequisites">.*?</section>', (out / "a.html").read_text()).group(0)
    items = re.findall(r"<li[^>]*>(.*?)</li>", section)
    assert items == [
        "How attention works",
        '<a href="b.html">The B page</a>',
        'Online softmax <em class="kv-coming-tag">coming</em>',
    ]


def test_prerequisites_link_sections_and_the_strict_build_fails_on_one_that_does_not_resolve(build_site):
    """SLUG#SECTION links to the heading of that id, showing the heading; a section the page lacks, a page that is
    not there, or a bare label, is a warning naming it, and fails a strict build."""
    b = page("## A GPU's memory: HBM and on-chip SRAM\n\nText.\n", "title: B")
    a = page("Text.\n", "title: A\nprerequisites: [b#a-gpu-s-memory-hbm-and-on-chip-sram]")
    result, out = build_site({"a.md": a, "b.md": b}, strict=True)
    section = re.search(r'<section class="kv-prerequisites">.*?</section>', (out / "a.html").read_text()).group(0)
    assert re.findall(r"<li[^>]*>(.*?)</li>", section) == [
        '<a href="b.html#a-gpu-s-memory-hbm-and-on-chip-sram">A GPU\'s memory: HBM and on-chip SRAM</a>'
    ]
    assert 'id="a-gpu-s-memory-hbm-and-on-chip-sram"' in (out / "b.html").read_text()
    for wanted, message in [
        ("b#banks", "prerequisite 'b#banks': b.md has no section #banks (its sections: a-gpu-s-memory"),
        ("nosuch#banks", "prerequisite 'nosuch#banks': there is no page 'nosuch'"),
        ("CUDA essentials", "prerequisite 'CUDA essentials' names no page (SLUG) and no section of one"),
    ]:
        bad = page("Text.\n", f"title: A\nprerequisites: [{wanted}]")
        with pytest.raises(BuildError, match=re.escape(message)):
            build_site({"a.md": bad, "b.md": b}, strict=True)


def test_front_matter_scripts_load_entry_bundles_and_unknown_ones_warn(build_site, line):
    source = page("Text.\n", "title: S\nscripts: [explorer, nosuch]")
    result, out = build_site({"s.md": source})
    text = (out / "s.html").read_text()
    assert '<script type="module" src="assets/explorer.js"></script>' in text
    assert stylesheets(text) == ["assets/page-explorer.css"]
    assert parts_of(out / "assets/page-explorer.css")[-2:] == ["main.css", "explorer.css"]  # nosuch has no CSS
    (w,) = result.warnings
    assert w.line == 1 and "assets/nosuch.js" in w.message


def test_a_page_links_only_the_css_of_the_entries_it_loads(build_site, figure_md):
    """explorer.css on the page that loads explorer.js only; editors.css never (editors.js links it itself)."""
    _, out = build_site(
        {"plain.md": page("Text.\n"), "fig.md": page(figure_md), "x.md": page("X.\n", "title: X\nscripts: [explorer]")}
    )
    for name in ("plain.html", "fig.html"):
        assert stylesheets((out / name).read_text()) == ["assets/page.css"]
    assert "explorer.css" not in parts_of(out / "assets/page.css")
    assert stylesheets((out / "x.html").read_text()) == ["assets/page-explorer.css"]
    assert "explorer.css" in parts_of(out / "assets/page-explorer.css")
    assert not any("editors.css" in parts_of(sheet) for sheet in (out / "assets").glob("page*.css"))


def test_front_matter_errors(build_site):
    result, _ = build_site({"f.md": page("x\n", "title: F\nsummary: [three]\ncolour: red\nnav: 3")})
    messages = " | ".join(w.message for w in result.warnings)
    assert "'summary' must be a str" in messages and "unknown front matter field 'colour'" in messages
    assert (
        "unknown front matter field 'nav' (a page's place in the book is its line in kernelviz/site/nav.py" in messages
    )
    with pytest.raises(BuildError, match=r"f\.md:\d+: the front matter is not valid YAML"):
        build_site({"f.md": page("x\n", "title: [unclosed")})


def test_assets_are_copied_with_the_worker_python_and_its_manifest(build_site, fake_dist):
    _, out = build_site({"a.md": page("A.\n")})
    assert (out / "assets/main.js").read_text() == (fake_dist / "main.js").read_text()
    assert (out / "assets/chunks/c-1.js").is_file()
    assert ".kv-code .k" in (out / "assets/site-code.css").read_text()
    manifest = json.loads((out / "assets/py/manifest.json").read_text())
    assert {"kernelviz/__init__.py", "kernelviz/runner.py", "kernelviz/pie/__init__.py"} <= set(manifest)
    assert "kernelviz/pie/scene.schema.json" in manifest and "kernelviz/pie/palette.json" in manifest
    assert "kernelviz/figlib/sizing.py" in manifest
    for relative in manifest:
        assert (out / "assets/py" / relative).is_file()
    assert not any(p.startswith("kernelviz/site") or p.startswith("kernelviz/attention") for p in manifest)


def test_the_site_needs_nothing_from_outside_its_folder(build_site, figure_md):
    _, out = build_site({"index.md": page("[a](a.md)\n"), "a.md": page(figure_md)})
    for file in out.glob("*.html"):
        for ref in re.findall(r'(?:href|src)="([^"]+)"', file.read_text()):
            assert not re.match(r"^(/|(?!data:)[a-z]+:)", ref), f"{file.name} links outside the site: {ref}"


def test_a_missing_runtime_says_how_to_build_it(tmp_path):
    (tmp_path / "pages").mkdir()
    with pytest.raises(BuildError, match=r"make setup.*node build\.mjs"):
        build(tmp_path / "pages", tmp_path / "out", web_dist=tmp_path / "no-dist", log=None)


def test_a_folder_not_written_by_the_builder_is_never_replaced(build_site, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(BuildError, match="not written by kernelviz build"):
        build_site({"a.md": page("A.\n")}, out=mine)
    assert (mine / "notes.txt").read_text() == "keep me"


def test_math_strict_mode_complaints_are_warnings(build_site, line):
    source = page("Fine $x$,\nthen $é$.\n")
    result, _ = build_site({"u.md": source})
    (w,) = result.warnings
    assert w.line == line(source, "$é$") and "strict mode" in w.message and 'character "é"' in w.message


def test_a_cuda_block_cannot_cite_a_file_outside_the_kernels_folder(build_site, cuda_dir, line):
    (cuda_dir.parent / "private.cu").write_text("// region: key\nsecret\n// endregion\n")
    source = page('```cuda cite="../private.cu#key"\n```\n')
    result, out = build_site({"c.md": source})
    (w,) = result.warnings
    assert w.line == line(source, "private.cu") and "not a file of the kernels folder" in w.message
    assert "secret" not in (out / "c.html").read_text()


def test_unpaired_dollars_are_warnings_naming_the_line_and_fail_strict(build_site, line):
    source = page("Fine $x$ and $5.\n\nThen $a + b\nnever closes.\n\n$$\n\\frac{a}{b}\n\nEscaped \\$ is text.\n")
    result, _ = build_site({"d.md": source})
    assert [(w.line, w.message.split(":")[0]) for w in result.warnings] == [
        (line(source, "Then"), "unpaired $"),
        (line(source, "$$"), "unpaired $$"),
    ]
    with pytest.raises(BuildError, match=r"d.md:\d+: unpaired \$"):
        build_site({"d.md": source}, strict=True)


def test_a_control_character_in_math_is_a_warning_naming_its_line_and_the_swallowed_escape(build_site):
    # What a non-raw Python string makes of "\times", "\frac", "\vec" and "\beta": TAB, form feed, VT, backspace
    source = page("Fine $x$.\n\nThe $g \times$ scores,\n\n$$\na\n= \frac{1}{2} \vec{v}\n$$\n\nand $\beta$.\n")
    result, _ = build_site({"t.md": source})

    def line(text, needle):  # lines end at "\n" alone, as Markdown counts them (str.splitlines also breaks at \f, \v)
        return next(n for n, at in enumerate(text.split("\n"), 1) if needle in at)

    control = [w for w in result.warnings if "control character" in w.message]
    assert [(w.file.endswith("t.md"), w.line) for w in control] == [
        (True, line(source, "scores")),
        (True, line(source, "= ")),  # the formula's second line, not the $$ line
        (True, line(source, "= ")),
        (True, line(source, "and $")),
    ]
    assert [w.message.split(",")[0] for w in control] == [
        "control character U+0009 (TAB): an escape swallowed by a non-raw string? write \\times",
        "control character U+000C (form feed): an escape swallowed by a non-raw string? write \\frac",
        "control character U+000B (vertical tab): an escape swallowed by a non-raw string? write \\vec",
        "control character U+0008 (backspace): an escape swallowed by a non-raw string? write \\beta",
    ]
    assert "in the formula $g <U+0009>imes$" in control[0].message
    with pytest.raises(BuildError, match=r"t.md:\d+: control character U\+0009"):
        build_site({"t.md": source}, strict=True)


def test_a_c1_control_in_math_is_a_warning_and_a_tab_outside_math_is_not(build_site, line):
    source = page("Code:\n\n```text\na\tb\n```\n\nText\twith a tab, then $a\x85b$.\n")
    result, _ = build_site({"c.md": source})
    (w,) = [w for w in result.warnings if "control character" in w.message]
    assert w.line == line(source, "Text") and w.message.startswith("control character U+0085,")
