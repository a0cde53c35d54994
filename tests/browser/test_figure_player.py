"""The step player in Chromium: deep links, keys, play / pause, the step list dragged onto the canvas, reduced
motion, and the page's bullets and CUDA blocks moving with the figure."""

import pytest
from test_figure_harness import harness_dir, open_page, seed_scene, step_labels

SETTLED = "document.getElementById('kv-figure').dataset.animating === 'false'"


@pytest.fixture
def url(serve_dir):
    return serve_dir(harness_dir()) + "/index.html"


@pytest.fixture(scope="module")
def labels():
    return step_labels(seed_scene()[1])


def fast(page, ms=30):
    page.evaluate(f"document.getElementById('kv-figure').dataset.duration = '{ms}'")


def current(page):
    return page.evaluate("window.kernelviz.step()")


def test_a_deep_link_opens_the_figure_at_its_step(browser, url, labels):
    page = open_page(browser, url + "#step=5")
    assert current(page) == 5
    assert page.locator(".kv-step-items button[aria-current=step]").text_content() == labels[5]
    assert page.locator("#kv-figure svg text", has_text="[KV loop: 0] update mi, li and Oi").count() == 1
    assert page.locator("li[data-step='5'].kv-current").count() == 2  # the two bullets bound to step 5
    assert page.locator("li.kv-current:not([data-step='5'])").count() == 0
    page.context.close()


def test_keys_move_through_the_steps_and_the_url_follows(browser, url, labels):
    page = open_page(browser, url)
    fast(page)
    last = len(labels) - 1
    page.locator("h1").click()  # focus on the prose
    page.keyboard.press("ArrowRight")
    assert current(page) == 1 and page.url.endswith("#step=1")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    assert current(page) == 1
    page.keyboard.press("End")  # on the prose, End, Home and Space keep their meaning: they scroll the page
    page.keyboard.press(" ")
    assert current(page) == 1
    page.locator(".kv-next").focus()  # on the player they move through the steps and play
    page.keyboard.press("End")
    assert current(page) == last and page.url.endswith(f"#step={last}")
    page.keyboard.press("Home")
    assert current(page) == 0
    page.keyboard.press(" ")  # play
    page.wait_for_function("window.kernelviz.step() >= 2")
    assert page.locator(".kv-play").get_attribute("aria-label") == "Pause"
    page.keyboard.press(" ")  # pause
    assert page.locator(".kv-play").get_attribute("aria-label") == "Play"
    stopped = current(page)
    page.wait_for_timeout(300)
    assert current(page) == stopped
    assert page.locator(".kv-live").text_content() == labels[stopped]
    box = page.locator(".kv-live").bounding_box()  # read out, not seen (web/src/page/unseen.css)
    assert box["width"] <= 1 and box["height"] <= 1
    page.locator("#kv-figure .kv-settings summary").click()  # folded at first
    page.locator("input[name=unit]").focus()  # keys typed into a field stay there
    page.keyboard.press("ArrowRight")
    assert current(page) == stopped
    page.context.close()


def test_the_buttons_and_the_list_play_steps(browser, url, labels):
    page = open_page(browser, url)
    fast(page)
    page.locator(".kv-next").click()
    page.locator(".kv-next").click()
    assert current(page) == 2
    page.locator(".kv-prev").click()
    assert current(page) == 1
    page.locator(".kv-step-items button", has_text=labels[7]).click()
    assert current(page) == 7
    page.locator(".kv-play").click()
    page.wait_for_function("window.kernelviz.step() >= 9")
    page.locator(".kv-play").click()
    page.context.close()


def test_the_grip_drags_the_list_onto_the_canvas_and_the_keyboard_moves_it(browser, url, labels):
    page = open_page(browser, url)
    fast(page)
    steps, canvas = page.locator(".kv-steps"), page.locator("#kv-figure .kv-canvas")
    grip = page.locator(".kv-grip").bounding_box()
    box = canvas.bounding_box()
    start = steps.bounding_box()
    grab = (grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2)
    drop = (box["x"] + 60, box["y"] + 100)
    page.mouse.move(*grab)
    page.mouse.down()
    page.mouse.move(box["x"] + 90, box["y"] + 200, steps=8)
    page.mouse.move(*drop, steps=4)
    page.mouse.up()
    placed, box = steps.bounding_box(), canvas.bounding_box()  # the canvas grows into the dock's room
    assert "kv-floating" in steps.get_attribute("class")
    assert box["x"] <= placed["x"] and placed["x"] + placed["width"] <= box["x"] + box["width"] + 1
    assert box["y"] <= placed["y"] and placed["y"] + placed["height"] <= box["y"] + box["height"] + 1
    # the grip is under the pointer where it was let go
    assert placed["x"] - start["x"] == pytest.approx(drop[0] - grab[0], abs=2)
    assert placed["y"] - start["y"] == pytest.approx(drop[1] - grab[1], abs=2)
    steps.locator(".kv-step-items button", has_text=labels[2]).click()  # still works where it floats
    assert current(page) == 2
    top = steps.evaluate("(s) => s.offsetTop")  # within the canvas (the page scrolls to step 2's bullet)
    page.locator(".kv-grip").focus()
    page.keyboard.press("ArrowDown")
    assert steps.evaluate("(s) => s.offsetTop") == top + 16
    assert current(page) == 2  # the arrow moved the list, not the figure
    page.keyboard.press("Enter")  # docks it again
    assert "kv-floating" not in steps.get_attribute("class")
    docked, box = steps.bounding_box(), canvas.bounding_box()
    assert docked["y"] >= box["y"] + box["height"]
    page.context.close()


# Counts, per SVG attribute, how many times it changed while a step played: a MutationObserver sees every change.
WATCH = """() => { window.__changes = new Map();
  window.__observer = new MutationObserver((records) => { for (const r of records) {
    const key = r.target.closest('[data-item]')?.dataset.item + ' ' + r.target.tagName + ' ' + r.attributeName;
    window.__changes.set(key, (window.__changes.get(key) || 0) + 1); } });
  window.__observer.observe(document.querySelector('#kv-figure svg'), {attributes: true, subtree: true}); }"""
MOST_CHANGES = "() => { window.__observer.disconnect(); return Math.max(0, ...window.__changes.values()); }"


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_reduced_motion_settles_a_step_without_frames_between(browser, url, motion):
    page = open_page(browser, url + "#step=2", reduced_motion=motion)
    page.evaluate(WATCH)
    page.evaluate("window.kernelviz.goTo(3)")  # K0, V0 fly from HBM to SRAM
    page.wait_for_function(SETTLED)
    page.wait_for_timeout(50)
    most = page.evaluate(MOST_CHANGES)
    if motion == "reduce":
        assert most == 1  # each attribute went straight from before to after
    else:
        assert most > 5  # the control: animated, the copies pass through frames between
    assert current(page) == 3
    page.context.close()


def test_bound_bullets_play_their_step_and_the_page_follows_the_figure(browser, url, labels):
    page = open_page(browser, url)
    fast(page)
    k = labels.index("block 0 · j = 0 · load K0, V0")
    page.locator(f"li[data-step='{k}']").click()
    assert current(page) == k
    assert "kv-current" in page.locator(f"li[data-step='{k}']").get_attribute("class")
    assert "kv-current" in page.locator(f"details[data-step='{k}']").get_attribute("class")
    far = labels.index("block 1 · write O1, L1")
    page.evaluate("(k) => window.kernelviz.goTo(k)", far)
    bullet = page.locator(f"li[data-step='{far}']")
    page.wait_for_function(
        "(k) => { const r = document.querySelector(`li[data-step='${k}']`).getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight + 1; }",  # + 1: scrolling is by whole pixels
        arg=far,
    )
    assert "kv-current" in bullet.get_attribute("class")
    assert "kv-current" not in page.locator(f"li[data-step='{k}']").get_attribute("class")
    page.evaluate("() => { window.__seen = []; window.kernelviz.onStepChange((k) => window.__seen.push(k)); }")
    page.evaluate("window.kernelviz.goTo(4)")
    assert page.evaluate("window.__seen") == [4]
    page.context.close()


# Plays step k with its bullet placed `offset` px below the bottom of the window first: the window's scroll positions,
# each new one, over the next 40 frames, and whether the bullet is in view then.
FOLLOW = """async ([k, offset]) => {
  const bullet = document.querySelector(`.kv-prose li[data-step='${k}']`);
  scrollTo(0, scrollY + bullet.getBoundingClientRect().top - innerHeight - offset);
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const seen = [scrollY];
  window.kernelviz.goTo(k);
  for (let n = 0; n < 40; n++) {
    await new Promise((r) => requestAnimationFrame(r));
    if (seen.at(-1) !== scrollY) seen.push(scrollY);
  }
  const r = bullet.getBoundingClientRect();
  return [seen, r.top >= 0 && r.bottom <= innerHeight + 1];
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_text_follows_a_step_at_once_to_its_bullet_near_or_far(browser, url, labels, motion):
    page = open_page(browser, url, reduced_motion=motion)
    far = labels.index("block 1 · write O1, L1")
    near = labels.index("block 0 · j = 0 · load K0, V0")
    page.locator("#kv-figure .kv-follow").click()  # the reader follows the steps
    height = page.evaluate("innerHeight")
    for k, below in ((far, 3 * height), (near, 100)):  # three screens below the window; just below it
        seen, shown = page.evaluate(FOLLOW, [k, below])
        assert shown and len(seen) == 2, seen  # one jump, in the step's first frame: no scrolling while it animates
    page.context.close()


def test_a_step_asked_for_while_steps_are_held_moves_only_once_released(browser, url, labels):
    page = open_page(browser, url + "#step=2")
    page.evaluate("() => { window.__hold = new Promise((r) => (window.__release = r)); kernelviz.holdSteps(__hold); }")
    page.evaluate(WATCH)
    page.evaluate("() => { window.kernelviz.goTo(3); }")  # K0, V0 would fly from HBM to SRAM
    assert current(page) == 3  # shown at once, in the list and the bullets
    assert page.locator(".kv-step-items button[aria-current=step]").text_content() == labels[3]
    page.wait_for_timeout(400)  # more than a step's animation would take
    held = page.evaluate("Math.max(0, ...window.__changes.values())")
    assert held <= 1, f"the step moved while held: {held} changes to one attribute"
    assert not page.evaluate(SETTLED)  # it waits to move, as an animation
    page.evaluate("window.__release()")
    page.wait_for_function(SETTLED)
    assert page.evaluate(MOST_CHANGES) > 2  # then it played, frame by frame
    page.context.close()


def test_stepping_keeps_the_reader_in_their_paragraph_unless_they_follow_the_steps(browser, url, labels):
    """→ from a paragraph steps the figure and leaves the text where it is; a step begun from a bullet turns the
    visible Follow toggle on, and then the text follows each step to its bullet; the toggle turns it off again."""
    page = open_page(browser, url)
    fast(page)
    follow = page.locator("#kv-figure .kv-follow")
    assert follow.is_visible() and follow.inner_text() == "Follow" and follow.get_attribute("aria-pressed") == "false"
    page.evaluate("scrollTo(0, 0)")
    page.locator("h1").click()  # the reader is at the top, reading
    far = labels.index("block 1 · write O1, L1")
    page.evaluate("(k) => window.kernelviz.goTo(k - 1)", far)
    page.wait_for_function(SETTLED)
    page.keyboard.press("ArrowRight")
    page.wait_for_function(f"window.kernelviz.step() === {far}")
    assert page.evaluate("scrollY") == 0  # the bullet of the step is far below: the text stayed
    near = labels.index("block 0 · j = 0 · load K0, V0")
    page.locator(f".kv-prose li[data-step='{near}']").click()  # a step from a bullet: reading along
    assert follow.get_attribute("aria-pressed") == "true"
    page.keyboard.press("ArrowRight")
    page.wait_for_function(SETTLED)
    page.evaluate("(k) => window.kernelviz.goTo(k)", far)
    page.wait_for_function(
        "(k) => { const r = document.querySelector(`.kv-prose li[data-step='${k}']`).getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight + 1; }",
        arg=far,
    )
    follow.click()  # the reader stops following: the text stays again, bullets or not
    assert follow.get_attribute("aria-pressed") == "false"
    page.evaluate("scrollTo(0, 0)")
    page.locator(f".kv-prose li[data-step='{near}']").evaluate("(li) => li.click()")  # (clicked where it is)
    page.evaluate("(k) => window.kernelviz.goTo(k)", far)
    page.wait_for_function(SETTLED)
    assert page.evaluate("scrollY") == 0 and follow.get_attribute("aria-pressed") == "false"
    page.context.close()
