"""Words for a screen reader only are hidden by one rule (web/src/page/unseen.css, in main.css, which every page and
the figure's harness link): no second copy of it drifts apart, and every class the markup hides by is named in it."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STYLESHEETS = sorted([*(ROOT / "web" / "src").rglob("*.css"), *(ROOT / "kernelviz" / "site" / "static").glob("*.css")])
RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
HIDDEN = "clip-path: inset(50%)"  # the declaration that hides a box yet keeps it in the accessibility tree


def hiding_rules():
    """(file, selectors, body) of each rule, in every stylesheet of ours, that hides its box by HIDDEN."""
    found = []
    for path in STYLESHEETS:
        text = re.sub(r"/\*.*?\*/", "", path.read_text("utf-8"), flags=re.S)
        for selectors, body in RULE.findall(text):
            if HIDDEN in body:
                found.append((path.relative_to(ROOT).as_posix(), {s.strip() for s in selectors.split(",")}, body))
    return found


def test_one_rule_hides_words_for_a_screen_reader():
    rules = hiding_rules()
    assert [file for file, _, _ in rules] == ["web/src/page/unseen.css"], rules
    _, selectors, body = rules[0]
    assert selectors == {".kv-unseen", ".kv-live", ".kv-fold-live"}
    declarations = {d.strip() for d in body.split(";") if d.strip()}
    assert declarations == {
        "position: absolute",
        "width: 1px",
        "height: 1px",
        "overflow: hidden",
        HIDDEN,
        "white-space: nowrap",
    }


def test_each_class_the_markup_hides_by_is_in_the_rule():
    """The classes are those the sources put on words meant only to be read out (a class renamed there and not in
    the rule would show its words)."""
    uses = {
        "kernelviz/site/render.py": "kv-unseen",
        "web/src/roofline/section.js": "kv-unseen",
        "web/src/figure/ui/step-list.js": "kv-live",
        "web/src/figure/ui/fold.js": "kv-fold-live",
    }
    (_, selectors, _), *_ = hiding_rules()
    for file, name in uses.items():
        assert re.search(rf"\b{name}\b", (ROOT / file).read_text("utf-8")), (file, name)
        assert f".{name}" in selectors
    assert "import '../page/unseen.css';" in (ROOT / "web/src/entries/main.js").read_text("utf-8")
