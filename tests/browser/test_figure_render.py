"""The figure in Chromium: the seed FA2 Scene drawn from the page alone, diagram geometry, every path to a step
ending on the same figure, scenes that cannot be drawn, labels as text, the settings panel and draggable points."""

import json
import re

import pytest
from test_figure_harness import harness_dir, open_page

UNIT = 50  # the seed's show_steps(..., unit=50)

# Every element of the figure's SVG that is displayed: tag, sorted attributes, text. Hidden ones are skipped, so
# two figures compare equal when they show the same thing.
SERIALIZE = """() => [...document.querySelectorAll('#kv-figure svg *')]
  .filter((el) => !el.closest('[display="none"]'))
  .map((el) => el.tagName + ' ' + [...el.attributes].map((a) => a.name + '=' + a.value).sort().join(' ')
       + (/^(text|tspan)$/.test(el.tagName) && !el.children.length ? ' ' + el.textContent : '')).join('\\n')"""

# Centre and size, in canvas units, of each displayed rect whose item is labelled `label`: client rects taken back
# through the SVG's screen transform (the figure is zoomed to fit its box) into user px, then divided by the unit.
RECTS_LABELLED = """([label, unit]) => {
  const m = document.querySelector('#kv-figure svg').getScreenCTM().inverse();
  const user = (x, y) => new DOMPoint(x, y).matrixTransform(m);
  return [...document.querySelectorAll('#kv-figure g[data-item]')]
    .filter((g) => g.querySelector('text:not([display="none"])')?.textContent === label)
    .map((g) => g.querySelector('rect')).filter((r) => r && !r.matches('[display="none"]'))
    .map((r) => { const b = r.getBoundingClientRect();
      const c = user(b.left + b.width / 2, b.top + b.height / 2);
      const size = user(b.right, b.bottom), o = user(b.left, b.top);
      return [c.x / unit, -c.y / unit, (size.x - o.x) / unit, (size.y - o.y) / unit]; });
}"""


@pytest.fixture
def url(serve_dir):
    return serve_dir(harness_dir()) + "/index.html"


def seed_slot(name):
    """(x, y, w, h) of SRAM slot `name` read from the seed page's drawing helpers: Slot(name, 'sram', x, y, w, h)."""
    from tests.conftest import SEEDS

    text = next(SEEDS.glob("000_*.txt")).read_text()
    m = re.search(rf"{name} = Slot\('{name}', 'sram', ([-\d.]+), ([-\d.]+), ([-\d.]+), ([-\d.]+)\)", text)
    return tuple(float(v) for v in m.groups())


def play(page, k):
    page.evaluate("(k) => window.kernelviz.goTo(k)", k)


def test_the_figure_is_drawn_from_the_page_alone_and_nothing_leaves_the_machine(browser, url, outside_requests):
    page = open_page(browser, url)
    scene = json.loads((harness_dir() / "scene.json").read_text())
    items = next(n["items"] for n in scene["nodes"] if n["kind"] == "diagram")
    assert page.locator("#kv-figure svg g[data-item]").count() == len(items)
    assert page.locator("#kv-figure svg text", has_text="HBM").count() == 1
    assert page.locator(".kv-step-items button").count() == 19
    ready = page.evaluate("performance.getEntriesByName('kv:figure-ready')[0].startTime")
    page.wait_for_timeout(500)
    assert page.evaluate("window.__editorsLoadedAt === undefined")  # a read-only visit loads no editors
    page.locator(".kv-editor pre").first.focus()  # a reach for one does
    page.wait_for_function("window.__editorsLoadedAt !== undefined")
    assert page.evaluate("window.__editorsLoadedAt") > ready  # the editors come after the figure
    assert not [u for u in page.requested if "pyodide" in u or u.endswith(".py")]
    assert outside_requests(page) == []
    assert page.errors == []
    page.context.close()


def test_k0_and_v0_land_on_the_kj_and_vj_slots(browser, url):
    page = open_page(browser, url + "#step=2")
    kj, vj = seed_slot("Kj"), seed_slot("Vj")
    assert kj == (-1.95, -3.0, 1.6, 1.2) and vj == (1.15, -3.0, 1.6, 1.2)

    def at(slot, rects):
        return [r for r in rects if all(abs(a - b) < 0.02 for a, b in zip(r, slot, strict=True))]

    assert at(kj, page.evaluate(RECTS_LABELLED, ["K0", UNIT])) == []  # before the step: K0 only in HBM
    page.evaluate("window.kernelviz.goTo(3)")
    page.wait_for_function("document.getElementById('kv-figure').dataset.animating === 'false'")
    assert page.evaluate("window.kernelviz.step()") == 3
    assert len(at(kj, page.evaluate(RECTS_LABELLED, ["K0", UNIT]))) == 1
    assert len(at(vj, page.evaluate(RECTS_LABELLED, ["V0", UNIT]))) == 1
    hbm_k0 = (-1.125, 3.625, 1.6, 1.2)  # hbm_tiles('K', -1.125, 1.6): tile 0 at y = 3.625
    assert len(at(hbm_k0, page.evaluate(RECTS_LABELLED, ["K0", UNIT]))) == 1
    page.context.close()


def test_every_path_to_a_step_ends_on_the_same_figure(browser, url):
    page = open_page(browser, url)
    page.evaluate("document.getElementById('kv-figure').dataset.duration = '30'")
    last = page.evaluate("document.querySelectorAll('.kv-step-items button').length") - 1
    page.evaluate("async (last) => { for (let k = 1; k <= last; k++) await window.kernelviz.goTo(k); }", last)
    in_order = page.evaluate(SERIALIZE)
    page.evaluate("async (last) => { await window.kernelviz.goTo(3); await window.kernelviz.goTo(last); }", last)
    jumped = page.evaluate(SERIALIZE)
    page.evaluate("() => window.kernelviz.goTo(3)")
    page.wait_for_function("document.getElementById('kv-figure').dataset.animating === 'false'")
    at_three = page.evaluate(SERIALIZE)
    page.context.close()
    deep = open_page(browser, f"{url}#step={last}")
    linked = deep.evaluate(SERIALIZE)
    deep.context.close()
    assert in_order.count("<") == 0 and len(in_order.splitlines()) > 100
    assert jumped == in_order
    assert linked == in_order
    assert at_three != in_order


def broken_scenes():
    scene = json.loads((harness_dir() / "scene.json").read_text())
    wrong_version = dict(scene, version=2)
    missing_item = json.loads(json.dumps(scene))
    steps = next(n for n in missing_item["nodes"] if n["kind"] == "step_list")["steps"]
    steps[4]["start"].append([99999, {"x": 1}])
    return [(wrong_version, "version"), (missing_item, "99999")]


@pytest.mark.parametrize("case", [0, 1], ids=["schema", "missing-item"])
def test_a_scene_that_cannot_be_drawn_shows_why_and_no_figure(browser, url, case):
    scene, named = broken_scenes()[case]
    page = open_page(browser, url)
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", scene) is False
    error = page.locator("#kv-figure .kv-canvas .kv-error")
    assert error.is_visible() and named in error.inner_text()
    assert page.locator("#kv-figure svg").count() == 0 and page.locator(".kv-steps").count() == 0
    good = json.loads((harness_dir() / "scene.json").read_text())
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", good) is True  # and it recovers
    assert page.locator("#kv-figure .kv-error").count() == 0 and page.locator("#kv-figure svg").count() == 1
    assert page.errors == []
    page.context.close()


def test_an_embedded_scene_that_fails_the_schema_shows_the_error_on_load(browser, serve_dir):
    page = open_page(browser, serve_dir(harness_dir()) + "/broken.html")
    assert "version" in page.locator("#kv-figure .kv-error").inner_text()
    assert page.locator("#kv-figure svg").count() == 0
    assert page.errors == []
    page.context.close()


def test_labels_are_text_never_markup(browser, url):
    evil = "<img src=x onerror=alert(1)>"
    scene = {
        "version": 1,
        "canvas": {"side": "right"},
        "settings": {"unit": 40, "gridOpacity": 0.25, "canvasColor": "#ffffff", "originX": 0, "originY": 0},
        "nodes": [
            {"id": "t", "kind": "text", "label": evil, "x": 0, "y": 2, "size": 12, "stroke": "red", "fill": "red"},
            {
                "id": "d",
                "kind": "diagram",
                "items": [
                    dict(
                        x=0,
                        y=0,
                        w=2,
                        h=1,
                        fill="none",
                        stroke="#000",
                        label=evil,
                        font=12,
                        wrap=1,
                        line=False,
                        color="#000",
                    )
                ],
            },
            {"id": "s", "kind": "step_list", "figure": {"ref": "d"}, "steps": [{"label": evil}, {"label": "two"}]},
        ],
    }
    page = open_page(browser, url)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", scene) is True
    page.wait_for_timeout(200)
    assert page.locator("img").count() == 0 and dialogs == []
    assert page.locator("#kv-figure svg text", has_text=evil).count() == 1
    assert evil.replace(" ", "") in page.locator("#kv-figure g[data-item='0'] text").text_content().replace(" ", "")
    assert page.locator(".kv-step-items button").first.text_content() == evil
    page.context.close()


def test_the_settings_panel_edits_the_canvas_live(browser, url):
    page = open_page(browser, url)
    q0 = page.locator("#kv-figure g[data-item] rect").first  # the first rect drawn: a slot of HBM

    def box():
        return q0.evaluate("(r) => r.getBoundingClientRect().toJSON()")

    page.locator("#kv-figure .kv-settings summary").click()  # folded at first; open, the canvas is shorter
    page.wait_for_timeout(100)  # the figure fits its new canvas
    before = box()
    page.locator("input[name=unit]").fill("25")
    after = box()
    assert after["width"] == pytest.approx(before["width"] / 2, abs=0.5)
    page.locator("input[name=originX]").fill("100")
    shifted = box()
    assert shifted["x"] - after["x"] == pytest.approx(100, abs=0.5)
    page.locator("input[name=gridOpacity]").fill("0.5")
    assert page.locator("#kv-figure rect.kv-grid").get_attribute("opacity") == "0.5"
    page.locator("input[name=canvasColor]").fill("#ffeedd")
    assert page.locator("#kv-figure rect.kv-background").get_attribute("fill") == "#ffeedd"
    scene = page.evaluate("window.kernelviz.scene()")
    assert next(n["value"] for n in scene["nodes"] if n["id"] == "unit") == 25  # the scalar the setting refers to
    page.context.close()


def test_a_visible_point_drags_and_what_refers_to_it_follows(browser, url):
    scene = {
        "version": 1,
        "canvas": {"side": "right"},
        "settings": {"unit": 40, "gridOpacity": 0.25, "canvasColor": "#ffffff", "originX": 0, "originY": 0},
        "nodes": [
            {"id": "p", "kind": "point", "x": 0, "y": 0, "hidden": False},
            {"id": "r", "kind": "rectangle", "corner": {"ref": "p"}, "w": 1, "h": 1, "fill": "teal", "stroke": "none"},
        ],
    }
    page = open_page(browser, url)
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", scene) is True
    client_box = "(e) => e.getBoundingClientRect().toJSON()"
    dot = page.locator("#kv-figure circle.kv-point").evaluate(client_box)
    rect = page.locator("#kv-figure rect.kv-rectangle").evaluate(client_box)
    x, y = dot["x"] + dot["width"] / 2, dot["y"] + dot["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 50, y - 30, steps=5)
    page.mouse.move(x + 100, y - 60, steps=5)
    page.mouse.up()
    moved = page.locator("#kv-figure rect.kv-rectangle").evaluate(client_box)
    assert moved["x"] - rect["x"] == pytest.approx(100, abs=1) and moved["y"] - rect["y"] == pytest.approx(-60, abs=1)
    point = next(n for n in page.evaluate("window.kernelviz.scene()")["nodes"] if n["id"] == "p")
    zoom = page.evaluate("document.querySelector('#kv-figure svg').getScreenCTM().a")  # screen px per user px
    assert zoom == pytest.approx(4, abs=0.01)  # a drawing this small is magnified, at most 4 times
    units = 100 / zoom / 40, 60 / zoom / 40  # the pointer's move in canvas units: unit 40
    assert (point["x"], point["y"]) == (pytest.approx(units[0], abs=0.03), pytest.approx(units[1], abs=0.03))
    page.context.close()


def test_the_canvas_docks_beside_the_prose_in_view_and_above_it_on_a_narrow_screen(browser, url):
    page = open_page(browser, url)
    prose, canvas = page.locator(".kv-prose"), page.locator("#kv-figure .kv-canvas")
    assert canvas.bounding_box()["x"] >= prose.bounding_box()["x"] + prose.bounding_box()["width"]  # the scene: 'right'
    page.mouse.wheel(0, 3000)
    page.wait_for_function("scrollY > 2000")
    box = canvas.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 960  # sticky: still in view
    page.set_viewport_size({"width": 700, "height": 900})
    page.evaluate("scrollTo(0, 0)")
    assert canvas.bounding_box()["y"] + canvas.bounding_box()["height"] <= prose.bounding_box()["y"]
    page.context.close()


def test_a_new_scene_keeps_the_current_step(browser, url):
    page = open_page(browser, url + "#step=5")
    scene = page.evaluate("window.kernelviz.scene()")
    figure = page.evaluate(SERIALIZE)
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", scene) is True
    assert page.evaluate("window.kernelviz.step()") == 5
    assert page.evaluate(SERIALIZE) == figure
    steps = next(n for n in scene["nodes"] if n["kind"] == "step_list")["steps"]
    del steps[3:]  # a scene without step 5: the figure shows its last step
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", scene) is True
    assert page.evaluate("window.kernelviz.step()") == 2
    page.context.close()


def test_the_contract_fields_are_accepted(browser, url):
    """A step's key, at and caption, an item's kv and palette colours ("@q") pass the browser's checks (issue 12)."""
    scene = json.loads((harness_dir() / "scene.json").read_text())
    items = next(n for n in scene["nodes"] if n["kind"] == "diagram")["items"]
    items[0].update(kv="hbm-bytes", fill="@q-fill", stroke="@q")
    steps = next(n for n in scene["nodes"] if n["kind"] == "step_list")["steps"]
    steps[1].update(key="load Q i=0", at={"i": 0}, caption="block 0 loads its query rows")
    steps[2]["start"].append([0, {"kv": "hbm-bytes", "color": "@ink"}])
    page = open_page(browser, url)
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", scene) is True
    assert page.locator("#kv-figure .kv-error").count() == 0
    steps[1]["key"] = "write O[0]"  # square brackets: refused, as pie refuses them
    assert page.evaluate("(s) => window.kernelviz.setScene(s)", scene) is False
    assert "Scene schema" in page.locator("#kv-figure .kv-error").inner_text()
    page.context.close()
