"""One look (STYLE.md) in a real browser: the header carries our mark and a long title whole on a phone; the
pictures that were broken stay whole: every cell of the pass's strips inside its card at 360 px (none behind a
sideways scroll), the context window's starting text in its strip at 1280 px without a scroll of a few px."""
from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

SITE = Path(__file__).resolve().parents[2] / "build" / "site"
PAGES = sorted(p.name for p in SITE.glob("*.html") if p.name != "404.html")

# Each cell of a strip in a table of strips, against its card (a lane, else the demo) and against the box that
# would scroll it: [demo, label of the strip, px past the card's right edge, px the box needs to scroll].
CELLS_OUTSIDE = """() => {
  const out = [];
  for (const cell of document.querySelectorAll('.nt-vecgrid .nt-cell')) {
    const r = cell.getBoundingClientRect(), card = cell.closest('.nt-lane, .nt-demo').getBoundingClientRect();
    const box = cell.closest('.nt-scroll, .nt-vecgrid');
    const hidden = box.scrollWidth - box.clientWidth;
    if (r.right > card.right + 0.5 || hidden > 1)
      out.push([cell.closest('[data-demo]').dataset.demo, cell.parentElement.getAttribute('aria-label'),
                Math.round(r.right - card.right), hidden]);
  }
  return out;
}"""


@pytest.mark.parametrize("name,demo", [("index.html", "one-token"), ("block.html", "two-heads")])
def test_every_cell_of_a_table_of_strips_lies_in_its_card_at_360(open_page, name, demo):
    """The block page's "c_proj(joined)" and "= after attention" strips lost their last cell, and the loop
    page's embeddings table hid its "= input" column off to the right."""
    page = open_page(name, width=360, height=800)
    root = page.locator(f'.nt-demo[data-demo="{demo}"]')
    root.scroll_into_view_if_needed()
    page.wait_for_function("d => document.querySelectorAll(`.nt-demo[data-demo='${d}'] .nt-vecgrid .nt-cell`).length > 0",
                           arg=demo, timeout=10_000)
    assert page.evaluate(CELLS_OUTSIDE) == []
    assert page.evaluate("() => document.documentElement.scrollWidth - innerWidth") <= 1
    assert not page.nt_problems, page.nt_problems


def test_the_context_windows_starting_text_fits_its_strip_at_1280(open_page):
    """The strip overflowed its box by 5 px at 1280, so it scrolled a few px and cut the frame's edge."""
    page = open_page("context.html", width=1280, height=900)
    strip = page.locator('.nt-demo[data-demo="context-window"] .nt-window-strip')
    strip.scroll_into_view_if_needed()
    page.wait_for_function("s => !s.querySelector('.nt-window-frame').hidden", arg=strip.element_handle(), timeout=10_000)
    sizes = strip.evaluate("s => [s.scrollWidth, s.clientWidth]")
    assert sizes[0] <= sizes[1], f"the strip scrolls by {sizes[0] - sizes[1]} px"
    frame = strip.evaluate("s => { const a = s.getBoundingClientRect(), f = s.querySelector('.nt-window-frame').getBoundingClientRect();"
                           " return [f.left - a.left, a.right - f.right]; }")
    assert min(frame) >= 0, f"the frame is cut: {frame}"
    assert not page.nt_problems, page.nt_problems


@pytest.mark.parametrize("name", PAGES)
def test_the_header_has_our_mark_and_a_long_title_whole_on_a_phone(open_page, name):
    page = open_page(name, width=360, height=740, lazy=True)
    assert page.locator(".md-header svg.nt-logo").count() == 1  # our mark, not the theme's glyph
    assert page.locator('link[rel="icon"]').get_attribute("href").endswith("assets/nexttoken-mark.svg")
    page.evaluate("() => window.scrollTo(0, 600)")  # the header swaps the site's name for the page's title
    page.wait_for_timeout(500)
    cut = page.evaluate("""() => [...document.querySelectorAll('.md-header__topic .md-ellipsis')].map(e => {
        const r = e.getBoundingClientRect(), bar = document.querySelector('.md-header').getBoundingClientRect();
        return [e.textContent.trim(), e.scrollWidth - e.clientWidth, e.scrollHeight - e.clientHeight,
                r.top >= bar.top - 0.5 && r.bottom <= bar.bottom + 0.5];
    })""")
    assert len(cut) == 2
    for text, wide, tall, inside in cut:
        assert wide <= 1 and tall <= 1 and inside, f"{name}: the header cuts “{text}” ({wide} px, {tall} px, inside: {inside})"


def test_a_real_model_demo_lights_smollm2s_map_by_event_or_by_its_own_words(open_page):
    """The contract for the real-model page's demos: an nt:pass-light event lights the parts it names until
    the same owner clears it; a container's changed data-pass-parts is followed at once."""
    page = open_page("real-models.html", width=1280, height=900)
    lit = "() => [...document.querySelectorAll('.nt-map-side a.nt-map-on .nt-map-name')].filter(t => t.getClientRects().length).map(t => t.textContent)"
    demo = page.locator('.nt-demo[data-demo="real-distribution"]')
    demo.evaluate("d => d.scrollIntoView({block: 'center'})")
    page.wait_for_function(f"() => ({lit})().join() === 'logits,softmax,pick'.replace('logits', document.querySelector("
                           "'.nt-map-side a[data-pass-part^=\"logits\"] .nt-map-name').textContent)", timeout=3000)
    page.evaluate("() => document.dispatchEvent(new CustomEvent('nt:pass-light', {detail: {owner: 'run', parts: 'block'}}))")
    block = page.evaluate("() => [...document.querySelectorAll('.nt-map-side a[data-pass-part~=\"block\"] .nt-map-name')]"
                          ".filter(t => t.getClientRects().length).map(t => t.textContent)")
    assert "gated MLP" in block and page.evaluate(lit) == block
    page.evaluate("() => document.dispatchEvent(new CustomEvent('nt:pass-light', {detail: {owner: 'other', parts: ''}}))")
    assert page.evaluate(lit) == block  # only its owner gives the map back
    page.evaluate("() => document.dispatchEvent(new CustomEvent('nt:pass-light', {detail: {owner: 'run', parts: ''}}))")
    demo.evaluate("d => d.setAttribute('data-pass-parts', 'rope')")
    page.wait_for_function(f"() => ({lit})().join() === 'rotary positions'", timeout=3000)
    assert not page.nt_problems, page.nt_problems
