"""Defaults that teach and small faults (issue 43 items 4 and 8), each read from the page as a reader meets
it, one load per page: the temperature demo opens where before and after differ; a text box is as wide as
its column; block.html's diagram fits its 1280-px column; an inline formula keeps its comma on its line;
nothing floats over a prompt box (no back-to-top pill); each demo's share row is its last part, and SmolLM2's
panel and its bars share one. (SmolLM2's chart on the landing chart's scale: test_real_distribution.py; the
nearest words to an unknown one: tests/js/prompts.test.js; empty table cells: tests/site/test_built_tables.py.)"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def test_the_temperature_demo_opens_where_temperature_changes_the_bars(open_page):
    page = open_page("sampling.html", width=1280, height=800)
    lanes = page.locator('.nt-demo[data-demo="temperature"] .nt-lane')
    before = lanes.nth(0).locator(".nt-bar-value").all_inner_texts()
    after = lanes.nth(1).locator(".nt-bar-value, .nt-x-num").all_inner_texts()
    assert before and after and before[:3] != after[:3], (before[:3], after[:3])
    assert page.locator('.nt-demo[data-demo="temperature"] input[type=range]').first.input_value() != "1"
    clean(page)


def test_text_boxes_are_as_wide_as_their_column_and_nothing_floats_over_them(open_page):
    page = open_page("tokens.html", width=1280, height=800)
    widths = page.evaluate("""() => [...document.querySelectorAll('.nt-live input[type=text]')].map(i =>
        [i.getBoundingClientRect().width, i.closest('.nt-live, .nt-lane').getBoundingClientRect().width])""")
    assert len(widths) >= 2 and all(w >= 0.95 * col for w, col in widths), widths
    assert page.locator(".md-top").count() == 0, "the theme's back-to-top pill sits over the prompt boxes"
    clean(page)


def test_the_block_diagram_fits_its_column_at_1280(open_page):
    page = open_page("block.html", width=1280, height=800)
    box = page.locator(".nt-block-figure .nt-scroll")
    scroll, client = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
    assert scroll <= client + 1, f"the diagram is {scroll} px in a {client}-px box"
    # every part's box inside it, "output projection" included
    right = box.evaluate("""b => Math.max(...[...b.querySelectorAll('.nt-map-part rect')].map(r => r.getBoundingClientRect().right))""")
    assert right <= box.bounding_box()["x"] + client + 1
    clean(page)


@pytest.mark.parametrize("width", [1280, 1366, 360])
def test_an_inline_formula_keeps_its_comma_on_its_line(open_page, width):
    page = open_page("attention.html", width=width, height=800, lazy=True)
    lines = page.evaluate("""() => [...document.querySelectorAll('.md-content math[display=inline]')].flatMap(m => {
        const next = m.nextSibling;
        if (!next || next.nodeType !== 3 || !/^[,.;:]/.test(next.data)) return [];
        const r = document.createRange(); r.setStart(next, 0); r.setEnd(next, 1);
        const mark = r.getBoundingClientRect(), math = m.getBoundingClientRect();
        return [[m.getAttribute('aria-label'), next.data[0], Math.round(mark.bottom - math.bottom), Math.round(mark.left - math.right)]];
    })""")
    assert lines, "no formula followed by punctuation on the page"
    for tex, mark, down, gap in lines:  # the mark on the formula's line, just after it
        assert abs(down) < 12 and -2 <= gap < 20, f"at {width} px “{mark}” after {tex} is not on its line ({down}, {gap})"
    clean(page)


def test_each_share_row_is_the_last_part_of_its_demo_and_smollm2s_panel_shares_one(open_page):
    page = open_page("real-models.html", width=1280, height=800)
    last = page.evaluate("""() => [...document.querySelectorAll('.nt-demo')].map(d => {
        const shown = [...d.children].filter(c => c.checkVisibility() && !c.matches('.nt-msg'));
        return [d.dataset.demo, !!d.querySelector(':scope > .nt-share:not([hidden])'), shown.length ? shown[shown.length - 1].className : ''];
    })""")
    rows = {name: has for name, has, _ in last}
    assert rows["real-distribution"] and not rows["real-ask"], rows  # the bars' row links the panel's prompt too
    assert all(cls == "nt-share" for name, has, cls in last if has), last
    clean(page)
