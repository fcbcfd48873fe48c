"""The attention page in a real browser: every arithmetic panel of the attention demo lays out without
overlap in its 260-px lane on a wide screen and on a phone (a term never runs under its line's result or
label); and the played step of attention (js/demos/attention-steps.js) steps through the tiny model's
real trace, by button and keyboard, with still frames under reduced motion."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# Pairs of a panel line's parts (label, each term, the result) whose boxes overlap, as text.
OVERLAPS = """(sel) => {
  const out = [];
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  for (const panel of document.querySelectorAll(sel + ' .nt-x-panel:not([hidden])')) {
    for (const li of panel.querySelectorAll('.nt-x-lines li')) {
      const parts = [...li.querySelectorAll('.nt-x-label, .nt-x-term, .nt-x-res')];
      for (let a = 0; a < parts.length; a++) for (let b = a + 1; b < parts.length; b++) {
        if (parts[a].contains(parts[b]) || parts[b].contains(parts[a])) continue;
        for (const ra of parts[a].getClientRects()) for (const rb of parts[b].getClientRects())
          if (hit(ra, rb)) out.push(`"${parts[a].textContent}" overlaps "${parts[b].textContent}"`);
      }
    }
  }
  return out;
}"""


def demo(page, name):
    root = page.locator(f'.nt-demo[data-demo="{name}"]').first
    root.scroll_into_view_if_needed()
    root.locator(".nt-live").first.wait_for(state="visible", timeout=10_000)
    return root


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


@pytest.mark.parametrize("width", [1280, 360])
def test_no_arithmetic_panel_of_a_lane_overlaps_its_own_numbers(open_page, width):
    page = open_page("attention.html", width=width)
    root = demo(page, "attention")
    lane = '.nt-demo[data-demo="attention"] [data-lane="a"]'
    buttons = root.locator('[data-lane="a"] .nt-x-num')
    assert buttons.count() > 10
    for i in range(buttons.count()):
        b = buttons.nth(i)
        b.click()
        assert b.get_attribute("aria-expanded") == "true"
        assert page.evaluate(OVERLAPS, lane) == [], b.get_attribute("aria-label")
        b.click()
    clean(page)
