"""One look (STYLE.md) in a real browser: the header carries our mark and a long title whole on a phone
(check_header_on_a_phone, called by test_site.py on every page's served load); the pictures that were broken stay
whole: every cell of the pass's strips inside its card at 360 px (none behind a sideways scroll), the context
window's starting text in its strip at 1280 px without a scroll of a few px; the palette switches at once, and the
theme's start sets nothing that restyles the whole page."""
from __future__ import annotations

import re

import pytest

from tests.helpers.faces import faces_loaded

pytestmark = pytest.mark.browser


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
    page.evaluate("() => document.querySelectorAll('details.nt-pass-all').forEach(d => { d.open = true; })")  # folded copy
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


def check_header_on_a_phone(page, name):
    """The header has our mark and a long title whole on a phone. Run on every page by test_site.py's served load,
    narrowed to 360 px (it loads every page so anyway; the header is the theme's, laid out by the width alone)."""
    assert page.viewport_size["width"] == 360
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


# ---- type (STYLE.md, Type): our own faces, under the tests' DejaVu-only fontconfig (conftest.py) ---------

def _faces(page, selector: str) -> dict[str, dict[str, int]]:
    """{text of each element matching selector: {face: glyphs drawn with it, "*" marking a web font}},
    as Chromium reports the fonts it really used (CSS.getPlatformFontsForNode, the element's own text)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
    out = {}
    for node in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]:
        text = cdp.send("DOM.resolveNode", {"nodeId": node})["object"]["objectId"]
        text = cdp.send("Runtime.callFunctionOn", {"objectId": text, "functionDeclaration": "function () { return this.textContent; }",
                                                   "returnByValue": True})["result"]["value"]
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        out[text] = {f["familyName"] + ("*" if f["isCustomFont"] else ""): f["glyphCount"] for f in fonts}
    cdp.detach()
    return out


@pytest.mark.parametrize("mode", ["http", "file"])
def test_text_titles_and_code_are_drawn_in_our_own_faces_served_and_from_disk(open_page, mode):
    """Every page draws with the faces it ships (not the machine's): Inter for text, Source Serif 4 for
    titles, JetBrains Mono for code, and the symbols face for the arrows those lack, from the rules in the
    page's head (no font stylesheet, no preload), and the same holds printed."""
    page = open_page("block.html", mode=mode, lazy=True)
    loaded = page.evaluate("() => [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)")
    assert {"Inter Variable", "Source Serif 4 Variable", "JetBrains Mono Variable"} <= set(loaded), loaded
    assert page.evaluate("() => !document.querySelector('link[rel=preload], link[href*=\"fonts.css\"]')"
                         " && [...document.head.querySelectorAll('style')].some(s => s.textContent.includes('Inter Variable'))")
    for media in ("screen", "print"):
        page.emulate_media(media=media)
        for selector, face in (("h1", "Source Serif 4*"), (".md-typeset > p", "Inter*"), (".md-typeset p code", "JetBrains Mono*")):
            drawn = {t: f for t, f in _faces(page, selector).items() if f}
            # all of it in our faces (a paragraph's code in the code face, an arrow in the symbols face), most in this one
            assert drawn and all(max(f, key=f.get) == face and all(n.endswith("*") for n in f) for f in drawn.values()), \
                (media, selector, drawn)
    page.emulate_media(media="screen")
    arrows = {t: f for t, f in _faces(page, ".nt-map-side text").items() if "→" in t}  # the map's "mlp 8 → 32 → 8"
    assert arrows and all(f.get("DejaVu Sans*") == t.count("→") for t, f in arrows.items()), arrows  # nexttoken symbols
    assert not page.nt_problems, page.nt_problems


def test_an_embedded_demo_draws_in_our_faces(open_page):
    page = open_page("embed/attention.html", lazy=True)
    assert set(_faces(page, "h1")) and all(set(f) == {"Source Serif 4*"} for f in _faces(page, "h1").values())
    assert page.evaluate("() => [...document.fonts].some(f => f.family === 'Inter Variable' && f.status === 'loaded')")
    assert not page.nt_problems, page.nt_problems


def test_scripts_our_faces_leave_out_fall_through_to_the_systems_fonts(open_page):
    """The tokenizer demo's chips: Latin in our code face; Hebrew and Arabic from the system's fonts (here
    DejaVu, the only ones the tests' fontconfig has), never blanks of ours; CJK and emoji are claimed by
    none of our faces, so a system that has such fonts shows them."""
    page = open_page("tokens.html", lazy=True)
    root = page.locator('.nt-demo[data-demo="gpt2-tokenizer"]')
    root.scroll_into_view_if_needed()
    root.get_by_role("button", name=re.compile("Load GPT-2's tokenizer")).click()
    box = root.locator("input[data-role=text]")
    page.wait_for_function("e => !e.disabled", arg=box.element_handle(), timeout=20_000)
    box.fill("Hello שלום مرحبا 你好 😀")
    box.press("Enter")
    page.wait_for_function("r => r.querySelector('.nt-byte-runs')", arg=root.element_handle(), timeout=10_000)
    chips = _faces(page, '.nt-demo[data-demo="gpt2-tokenizer"] .nt-tokens code, .nt-demo[data-demo="gpt2-tokenizer"] .nt-byte-runs li > code')
    assert chips["Hello"] == {"JetBrains Mono*": 5}, chips
    for text in ("ל", "ו", "·ש", "ر", "ب"):  # Hebrew and Arabic: every glyph from a system face
        system = {f: n for f, n in chips[text].items() if not f.endswith("*")}
        assert sum(system.values()) == len(text.strip("·")) and all(f.startswith("DejaVu") for f in system), (text, chips[text])
    assert chips["你好·😀"].get("DejaVu Sans") == 1, chips["你好·😀"]  # the emoji, from the system
    # CJK (which this DejaVu-only machine cannot draw at all) and emoji: no face of ours claims them
    claimed = page.evaluate("""cps => [...document.fonts].filter(f => f.unicodeRange.split(',').some(r => {
        const [a, b] = r.trim().slice(2).split('-').map(h => parseInt(h, 16));
        return cps.some(c => c >= a && c <= (b || a));
    })).map(f => f.family)""", [ord(c) for c in "你好😀שمد"])
    assert claimed == [], claimed
    assert not page.nt_problems, page.nt_problems


BLOCKS = """() => [...document.querySelectorAll('.md-header__title, .md-typeset > h1, .md-typeset > h2, .md-typeset > p, .md-typeset > ul, .md-typeset > ol')]
  .filter(e => e.getBoundingClientRect().top < 2 * innerHeight)
  .map(e => { const r = e.getBoundingClientRect(); return [(e.textContent || '').trim().slice(0, 40), r.top + scrollY, r.height]; })"""


@pytest.mark.parametrize("name", ["index.html", "attention.html", "sampling.html"])
def test_no_line_moves_when_our_faces_arrive(browser_context, server, name):
    """While our faces load, a system face sized as ours stands in (vendor.STAND_INS): every title, paragraph
    and list of the first two screens keeps its place and its lines when ours arrive. Without them the
    landing page's list lost a line at 412 px, a layout shift of 0.26."""
    seen = []
    for fonts in (False, True):
        page = browser_context.new_page()
        page.set_viewport_size({"width": 360, "height": 740})
        if not fonts:
            page.route("**/*.woff2", lambda route: route.abort())  # the stand-ins, as a reader sees them first
        page.goto(server + name, wait_until="load")
        faces_loaded(page)
        drawn = page.evaluate("() => [...document.fonts].filter(f => f.status === 'loaded').map(f => f.family)")
        assert ("Inter Variable" in drawn) == fonts, drawn
        seen.append(page.evaluate(BLOCKS))
        page.close()
    stand_in, ours = seen
    assert len(stand_in) == len(ours) > 3
    for (text, top, height), (_, top2, height2) in zip(stand_in, ours):
        assert abs(top - top2) <= 2 and abs(height - height2) <= 1, \
            f"{name}: “{text}” moves from {top:.0f} px (height {height:.0f}) to {top2:.0f} px (height {height2:.0f})"



@pytest.mark.parametrize("name", ["index.html", "embed/real-distribution.html"])
def test_our_faces_are_asked_for_only_after_the_first_text_is_drawn(open_page, name):
    """A face file that arrived before the page's first contentful paint held that paint up, in Lighthouse's model
    of a phone. The faces switch on after it: on the landing page, and on an embed page whose first frame is blank
    (its demo drawn when its data arrive)."""
    page = open_page(name, lazy=True)
    times = page.evaluate("""() => ({fcp: performance.getEntriesByName('first-contentful-paint')[0].startTime,
      fonts: performance.getEntriesByType('resource').filter(e => e.name.endsWith('.woff2')).map(e => e.startTime)})""")
    assert times["fonts"] and min(times["fonts"]) > times["fcp"], times
    assert not page.nt_problems, page.nt_problems

# Every style rule of the page whose selector names an attribute (any stylesheet of the site's own origin).
RULES_NAMING = """(attr) => {
  const out = [];
  const walk = (rules) => { for (const r of rules) { if (r.cssRules) walk(r.cssRules); if (r.selectorText && r.selectorText.includes(attr)) out.push(r.selectorText); } };
  for (const s of document.styleSheets) walk(s.cssRules);
  return out;
}"""


@pytest.mark.parametrize("mode", ["http", "file"])
def test_the_palette_switches_at_once_and_the_themes_start_restyles_nothing_for_it(open_page, mode):
    page = open_page("numbers.html", mode=mode, lazy=True)
    if mode == "http":  # from disk a page may not read its stylesheets' rules (another origin to the browser)
        # the theme sets data-md-color-switching on <body> as every page starts: no rule may match it (a whole-page restyle)
        assert page.evaluate(RULES_NAMING, "data-md-color-switching") == []
        assert page.evaluate(RULES_NAMING, "data-nt-switching"), "the theme's no-transition rule is gone"
    scheme = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
    page.locator("label.md-header__button[for^=__palette]:visible").click()
    # the click's own task: the colours have changed and not one transition runs
    assert page.evaluate("document.getAnimations().length") == 0
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") != scheme
    page.wait_for_function("() => !document.body.hasAttribute('data-nt-switching')", timeout=5000)
    assert page.nt_problems == [], "\n".join(page.nt_problems)
