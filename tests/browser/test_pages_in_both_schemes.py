"""Every page in both colour schemes, in one load each: it does not scroll sideways on a 360-px phone (the map's
strip opened), axe finds nothing at 360 and at 1280 px, and once its demos have drawn, with numbers opened and the
first demo run, axe's contrast rule finds nothing at 1280 px. In the light scheme's load of a tiny-model page, the
folded map first opens by keyboard (test_pass_map_in_pages.check_folded_map_opens_by_keyboard).

The page is loaded once per scheme, already in it, and looked at in turn: these were two tests with a load (and a
reload into the scheme) each, test_pass_map_in_pages.py's sideways-scroll-and-axe pass and test_computation.py's
contrast pass. The shelf's pages (test_around_demos.py) and the experiments page (test_real_experiments.py) had a load
per scheme of their own for the width and axe at 360 px: that is this load's, with their bound of 0 px. A marked page
whose demos all build when it is loaded (test_provenance_marks.UNBUILT lists the others) had a load per scheme in
test_provenance_marks.py for axe with its sources open and the auditor's view on: that check is this load's, at 1280 px
after step 1, both put back before step 2."""
from __future__ import annotations

import pytest
from tests.browser.test_pass_map_in_pages import PAGES, STRIP, TINY, WITH_MAP, check_folded_map_opens_by_keyboard
from tests.browser.test_provenance_marks import MARKED, UNBUILT, check_sources_and_auditors_view
from tests.helpers.axe import violations

pytestmark = pytest.mark.browser

EXACT = {"around.html", "fast.html", "weights.html", "making.html", "real-experiments.html"}


# Frames: the page's own reaction to a toggle or a resize happens in the next rendering frames (the resize and
# media-query handlers, then site.js's pass over scroll boxes in an animation frame); one more frame after them.
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))))"


def contrast(page) -> list:
    res = page.evaluate("() => axe.run(document, {runOnly: ['color-contrast'], resultTypes: ['violations']})")
    return [n["target"] for v in res["violations"] for n in v["nodes"]]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_no_sideways_scroll_at_360_axe_finds_nothing_and_drawn_demos_pass_contrast(open_page, name, scheme):
    page = open_page(name, width=360, height=800, scheme=scheme)
    # the training demo's preview and timing end after the read-through (its scripts load on demand, then about
    # 50 ms of timed steps): the state the 600 ms slept here before the 360-px checks let it reach
    if page.locator('.nt-demo[data-demo="train-yours"]').count():
        page.wait_for_selector('.nt-demo[data-demo="train-yours"][data-estimate-seconds]', timeout=15_000)
    # the shelf's pages and the experiments page, as loaded: not one pixel wider than the phone (the bound of the tests
    # that loaded them for it, test_around_demos.py's and test_real_experiments.py's; their axe check is step 1's)
    if name in EXACT:
        wide = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        assert wide <= 0, f"{name} ({scheme}): {wide}px wider than a 360-px phone"
    # 0. a tiny-model page's folded map opens by keyboard (test_pass_map_in_pages.py's check, in this load), then is
    # folded again by keyboard, to be opened by a click as on every other page
    if name in TINY and scheme == "light":
        check_folded_map_opens_by_keyboard(page, name)
        page.locator(f"{STRIP} > summary").focus()
        page.keyboard.press("Enter")
        page.wait_for_function("s => !document.querySelector(s).open", arg=STRIP)
    # 1. the phone, the map's strip open (a page with no pass has none): no sideways scroll; axe at 360 and 1280 px
    if name in WITH_MAP:
        page.locator(f"{STRIP} > summary").click()
    page.evaluate(FRAMES)  # the strip's toggle handled
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{name} ({scheme}): {overflow}px wider than a 360-px phone"
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate(FRAMES)  # the resize handled; violations() lets the transitions it started end
        found = violations(page)
        assert found == [], f"{name} ({scheme}, {width} px): " + "; ".join(found)
    assert page.nt_problems == [], "\n".join(page.nt_problems)
    # 1b. at 1280 px, a marked page with its sources open and the auditor's view on: axe (test_provenance_marks.py's
    # check, in this load), then both back as they were
    if name in MARKED and name not in UNBUILT:
        check_sources_and_auditors_view(page, name, scheme)
    # 2. at 1280 px, the demos drawn (the one-token demo's every-stage copy unfolded, as a reader opens it), the
    # first three numbers shown opened and the first demo's main button pressed: axe's contrast rule
    page.wait_for_function("() => [...document.querySelectorAll('.nt-demo')].every("
                           "d => d.hasAttribute('data-ready') || d.querySelector('.nt-error'))", timeout=5000)
    page.evaluate("() => document.querySelectorAll('details.nt-pass-all').forEach(d => { d.open = true; })")
    for b in page.locator(".nt-x-num").all()[:3]:
        if b.is_visible():
            b.click()
    for b in page.locator(".nt-demo .nt-primary").all()[:1]:
        if b.is_enabled():
            b.click()
    # colours settle: the theme's transitions (up to 250 ms) after the click. Kept as a time: a demo's run goes on
    # in steps after it (the generate demo adds and flashes rows), and this is the state the check has always seen.
    page.wait_for_timeout(400)
    nodes = contrast(page)
    assert nodes == [], (f"{name} ({scheme}, 1280 px, numbers opened and the first demo run): {len(nodes)} elements "
                         f"fail contrast, e.g. {nodes[:5]}")
    assert page.nt_problems == [], "\n".join(page.nt_problems)
