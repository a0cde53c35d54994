"""The figure drawn at build time (kernelviz.site.figure_svg): the browser's renderer in the builder's V8 draws a
Scene's SVG at the step asked, and its controls (settings panel, step list), marked for the runtime to take over,
and the build puts them in the figure's box in the order the runtime lays them out."""

import re
from html.parser import HTMLParser

import pytest

from kernelviz.site import figure_svg
from kernelviz.site.build import WEB_DIST
from kernelviz.site.diagnostics import BuildError


def scene(items, steps=None):
    nodes = [{"id": "d", "kind": "diagram", "items": items}]
    if steps is not None:
        nodes.append({"id": "s", "kind": "step_list", "figure": {"ref": "d"}, "steps": steps})
    return {
        "version": 1,
        "canvas": {"side": "right"},
        "settings": {"unit": 40, "gridOpacity": 0.2, "canvasColor": "#ffffff", "originX": 0, "originY": 0},
        "nodes": nodes,
    }


def box(x, label, fill="#eeeeee"):
    return dict(
        x=x, y=0, w=3, h=1, fill=fill, stroke="#333333", font=12, wrap=0, line=False, color="#000000", label=label
    )


def step(label, diff):
    return {"label": label, "start": [], "move": diff, "end": [], "stagger": 0}


VOID = {"input", "br", "img", "hr", "meta", "link", "wbr"}  # HTML elements without an end tag


class Elements(HTMLParser):
    """The start tags of some markup, as (tag, attributes), and whether every element it opened was closed."""

    def __init__(self, text):
        super().__init__()
        self.tags, self.open = [], []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open.pop() == tag


def test_the_svg_is_the_runtimes_canvas_with_a_group_per_item_marked_for_the_runtime():
    items = [box(0, "A"), box(4, "B <&> C"), box(8, "")]
    markup = figure_svg.svg(scene(items), WEB_DIST)
    parsed = Elements(markup)
    assert parsed.open == []
    svg = parsed.tags[0]
    assert svg[0] == "svg" and "data-prerendered" in svg[1] and "kv-svg" in svg[1]["class"]
    assert len(svg[1]["viewbox"].split()) == 4
    assert [t for t, a in parsed.tags if t == "g" and "data-item" in a] == ["g"] * len(items)
    assert "B &lt;&amp;&gt; C" in markup  # labels are text, escaped
    assert 'id="kv-grid-1"' in markup  # the grid pattern the page's first Figure names


def test_the_svg_shows_the_step_asked():
    items = [box(0, "A"), box(2, "B")]
    steps = [step("start", []), step("one", [[0, {"fill": "#ff0000"}]]), step("two", [[1, {"fill": "#00ff00"}]])]
    fills = lambda k: re.findall(r'fill="(#[0-9a-f]{6})"', figure_svg.svg(scene(items, steps), WEB_DIST, step=k))  # noqa: E731
    assert "#ff0000" not in fills(0) and "#00ff00" not in fills(0)
    assert "#ff0000" in fills(1) and "#00ff00" not in fills(1)
    assert "#ff0000" in fills(2) and "#00ff00" in fills(2)


def test_the_controls_are_the_runtimes_at_the_step_asked_and_the_drawing_is_named():
    items = [box(0, "A"), box(2, "B")]
    steps = [step("start", []), step("one", [[0, {"fill": "#ff0000"}]]), step("two", [[1, {"fill": "#00ff00"}]])]
    drawn = figure_svg.figure(scene(items, steps), WEB_DIST, step=1, title="My <page>")
    settings = Elements(drawn.settings)
    assert settings.open == [] and settings.tags[0][0] == "details"
    assert "data-prerendered" in settings.tags[0][1] and "kv-settings" in settings.tags[0][1]["class"]
    assert "open" not in settings.tags[0][1]  # folded, as a reader first sees it
    values = {a["name"]: a.get("value") for t, a in settings.tags if t == "input"}
    assert values == {"unit": "40", "gridOpacity": "0.2", "canvasColor": "#ffffff", "originX": "0", "originY": "0"}
    dock = Elements(drawn.dock)
    assert dock.open == [] and dock.tags[0] == ("div", {"class": "kv-dock", "data-prerendered": ""})
    goto = [a for t, a in dock.tags if t == "button" and "data-goto" in a]
    assert [a["data-goto"] for a in goto] == ["0", "1", "2"]
    assert [a["data-goto"] for a in goto if "aria-current" in a] == ["1"]
    assert "1 / 2" in drawn.dock
    name = Elements(drawn.svg).tags[0][1]["aria-label"]
    assert name == "Figure of My <page>, step 1 of 2: one"
    assert Elements(figure_svg.figure(scene(items), WEB_DIST).dock).tags == [("div", dock.tags[0][1])]  # no steps


def test_a_renderer_missing_from_the_runtime_is_a_build_error(tmp_path):
    with pytest.raises(BuildError, match="render-figure.js"):
        figure_svg.svg(scene([box(0, "A")]), tmp_path)


def test_a_built_page_opens_with_its_figure_in_the_canvas_box_and_a_failed_one_without(build_site, figure_md):
    page = "---\ntitle: A page\n---\nIntro.\n"
    _, out = build_site(
        {"fig.md": page + figure_md, "bad.md": page + '```pie title="T"\nraise ValueError("no")\n```\n'}
    )
    text = (out / "fig.html").read_text()
    aside = re.search(r'<aside class="kv-figure".*?</aside>', text, re.S).group(0)
    assert re.search(r'<div class="kv-canvas"><svg class="kv-svg"[^>]* data-prerendered="">', aside)
    order = [m.group(1) for m in re.finditer(r'<(?:details|div) class="(kv-settings|kv-canvas|kv-dock)"', aside)]
    assert order == ["kv-settings", "kv-canvas", "kv-dock"]  # as the runtime lays them out
    assert '</svg></div><div class="kv-dock" data-prerendered="">' in aside and aside.endswith("</div></aside>")
    assert "<svg" not in (out / "bad.html").read_text()
