"""Markdown's tables in a real browser: written in the theme's scrolling box (scripts/site/hooks/share.py,
wrapped_tables), so the theme's bundle moves none of them as the page starts, and styled as the theme styles a
table without a class."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# Every table node taken out of the page from its first parse on (the bundle's move is a removal and an insertion).
MOVES = """window.ntMoved = [];
new MutationObserver(records => records.forEach(r => r.removedNodes.forEach(n => {
  if (n.nodeType === 1 && (n.matches('table, .md-typeset__scrollwrap') || n.querySelector('table')))
    window.ntMoved.push(n.nodeName + '.' + n.className);
}))).observe(document, { childList: true, subtree: true });"""

# Each Markdown table's computed look against a copy without a class beside it, which the theme's own rules style.
PROPS = ["display", "fontSize", "fontWeight", "paddingLeft", "paddingTop", "borderTopWidth", "borderTopColor",
         "borderBottomWidth", "borderBottomColor", "backgroundColor", "textAlign", "verticalAlign", "minWidth",
         "color", "fontVariantNumeric", "borderRadius", "overflowX"]
LOOKS = """(props) => [...document.querySelectorAll('article table.nt-md-table')].map(t => {
  const copy = t.cloneNode(true); copy.removeAttribute('class'); t.after(copy);
  const look = (table) => ['table', 'th', 'td', 'tbody tr'].map(s => {
    const e = s === 'table' ? table : table.querySelector(s);
    return e ? props.map(p => getComputedStyle(e)[p]).join('|') : null;
  });
  const out = [look(t), look(copy)];
  copy.remove();
  return out;
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_themes_bundle_moves_no_table_and_ours_look_as_the_theme_draws_a_table(open_page, scheme):
    """The bundle used to move each table into its box once the page had loaded: every cell styled and laid out
    again after the first paint (Lighthouse: 250-380 ms of blocking on real-models.html's five tables)."""
    page = open_page("real-models.html", width=360, height=800, lazy=True, scheme=scheme, init=MOVES)
    page.wait_for_function("() => document.readyState === 'complete'")
    page.evaluate("() => new Promise(r => setTimeout(r, 300))")
    assert page.evaluate("() => window.ntMoved") == []
    looks = page.evaluate(LOOKS, PROPS)
    assert len(looks) >= 5
    for ours, theirs in looks:
        assert ours == theirs
    assert not page.nt_problems, page.nt_problems
