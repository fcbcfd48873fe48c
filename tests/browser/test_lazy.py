"""Demos start when they near the screen (docs/js/ui.js `start`): on a long page, a demo far below the
fold has not built after load and shows its fallback; it builds when scrolled to, when the keyboard's
focus comes next to it, or when focus lands in its fallback; once built it works."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = json.loads((ROOT / "site_data" / "tiny" / "summary.json").read_text())
PROMPT = "the dog sat on the"
ONE = '.nt-demo[data-demo="one-token"]'
# the page's demos: where each sits and whether it has built
STATE = """() => [...document.querySelectorAll('.nt-demo')].map(d => ({
  demo: d.dataset.demo, top: d.getBoundingClientRect().top + scrollY, ready: d.hasAttribute('data-ready'),
  live: !!d.querySelector('.nt-live'), fallback: !!d.querySelector('.nt-fallback:not([hidden])')}))"""


def waiting_far_below(page, sel):
    """The demo is far below the fold, has not built, and shows its static fallback."""
    page.wait_for_timeout(600)  # the observer's first report and any build it starts have run
    one = next(d for d in page.evaluate(STATE) if d["demo"] == page.locator(sel).get_attribute("data-demo"))
    height = page.evaluate("innerHeight")
    assert one["top"] > 2 * height, f"the test needs a demo more than two screens down: {one}"
    assert not one["ready"] and not one["live"] and one["fallback"], one


def focus_fallback(page, sel):
    """Focus in the demo's fallback without scrolling, as a screen reader or a link can put it there."""
    page.evaluate(f"""() => {{
      const fb = document.querySelector('{sel} .nt-fallback');
      fb.setAttribute('tabindex', '-1');
      fb.focus({{preventScroll: true}});
    }}""")


def works(page):
    """The one-token demo computes: a new prompt gives the build's pick for it."""
    root = page.locator(ONE)
    inp = root.locator("input[data-role=prompt]")
    inp.fill(PROMPT)
    inp.press("Enter")
    assert root.locator(".nt-pick-token").inner_text() == SUMMARY["picks"][PROMPT]["token"]


def test_far_demo_waits_then_builds_when_scrolled_to(open_page):
    page = open_page("index.html", lazy=True)
    waiting_far_below(page, ONE)
    page.evaluate(f"() => document.querySelector('{ONE}').scrollIntoView()")
    page.wait_for_selector(f"{ONE}[data-ready]", timeout=5000)
    assert page.locator(f"{ONE} .nt-fallback").is_hidden()
    assert page.locator(f"{ONE} .nt-live").count() == 1
    works(page)
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def test_far_demo_builds_before_the_tab_reaches_it(open_page):
    page = open_page("index.html", lazy=True)
    waiting_far_below(page, ONE)
    # the last focusable element before the demo, focused as Tab would (no scrolling by the test)
    page.evaluate(f"""() => {{
      const demo = document.querySelector('{ONE}');
      const all = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex="0"]')]
        .filter(e => e.offsetParent !== null && (e.compareDocumentPosition(demo) & Node.DOCUMENT_POSITION_FOLLOWING));
      all[all.length - 1].focus();
    }}""")
    page.keyboard.press("Tab")  # at once: no time for the observer
    inside = page.evaluate(f"() => !!document.activeElement.closest('{ONE} .nt-live')")
    assert inside, page.evaluate("() => document.activeElement.outerHTML.slice(0, 200)")
    assert page.locator(f"{ONE}[data-ready]").count() == 1
    works(page)


def test_focus_in_a_fallback_builds_the_demo_and_keeps_focus(open_page):
    page = open_page("index.html", lazy=True)
    waiting_far_below(page, ONE)
    focus_fallback(page, ONE)
    assert page.locator(f"{ONE}[data-ready]").count() == 1
    assert page.evaluate(f"() => !!document.activeElement.closest('{ONE} .nt-live')"), "focus was lost with the fallback"
    works(page)


def test_demos_on_screen_at_load_build_at_once_in_page_order(open_page):
    # real-models at 1280 x 900: the panel and the distribution are on screen, the block and the writers far below
    page = open_page("real-models.html", lazy=True)
    page.wait_for_timeout(600)
    got = {d["demo"]: d for d in page.evaluate(STATE)}
    height = page.evaluate("innerHeight")
    for name, d in got.items():
        if d["top"] < height:
            assert d["ready"], f"{name} is on screen at load but did not build: {d}"
        elif d["top"] > 2 * height:
            assert not d["ready"], f"{name} is far below the fold but built at load: {d}"
    assert any(not d["ready"] for d in got.values()), got


def test_late_demo_reads_what_an_earlier_one_published(open_page):
    # The block view follows the distribution's prompt; reached first by a jump, it builds the distribution first.
    page = open_page("real-models.html", width=360, height=400, lazy=True)
    page.wait_for_timeout(600)
    inside = '.nt-demo[data-demo="real-inside"]'
    dist = page.locator('.nt-demo[data-demo="real-distribution"]')
    assert dist.get_attribute("data-ready") is None, "the distribution should not have built at load on a short screen"
    page.evaluate(f"() => document.querySelector('{inside}').scrollIntoView()")
    page.wait_for_selector(f"{inside}[data-view]", timeout=10_000)
    assert dist.get_attribute("data-ready") is not None
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]', timeout=10_000)
    assert page.locator(inside).get_attribute("data-view") == "stored:" + dist.get_attribute("data-loaded")


def test_in_page_link_to_a_demo_builds_it_and_keeps_the_heading_in_place(open_page):
    page = open_page("index.html", lazy=True)
    waiting_far_below(page, ONE)
    page.locator('.md-sidebar--secondary a[href="#demo-one-token"]').first.click()
    page.wait_for_selector(f"{ONE}[data-ready]", timeout=5000)
    page.wait_for_timeout(300)
    # the heading the link names is still at the top of the screen (under the theme's header) once built
    top = page.evaluate("() => document.getElementById('demo-one-token').getBoundingClientRect().top")
    assert 0 <= top < 200, top
    works(page)


INSIDE = '.nt-demo[data-demo="real-inside"]'
WRITERS = '.nt-demo[data-demo="real-writers"]'


def scripts_seen(page):
    """The paths under js/ of every script the page has requested so far."""
    return page.evaluate("""() => performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)
      .filter(p => p.endsWith('.js')).map(p => p.slice(p.indexOf('/js/') + 1))""")


def test_a_later_demo_loads_its_scripts_only_when_it_nears(open_page):
    # real-models lists `later:real-inside` and `later:real-writers`; the writers, the last section, are
    # more than three screens down (beyond the two screens ahead that scripts are fetched for)
    page = open_page("real-models.html", lazy=True)
    waiting_far_below(page, WRITERS)
    assert page.locator(INSIDE).get_attribute("data-later").split() == [
        "explain.lines", "data.snippets", "explain.real", "data.smollm2-knockout", "data.smollm2-lab-index", "real.sweep", "real.lab", "demos.real-inside"]
    assert page.locator(WRITERS).get_attribute("data-later").split() == ["runtime.decoding", "real.sweep", "demos.real-writers"]
    first = scripts_seen(page)
    assert "js/demos/real-writers.js" not in first and "js/runtime/decoding.js" not in first, first
    assert page.evaluate("() => !(nexttoken.demos && nexttoken.demos['real-writers'])")
    page.evaluate(f"() => document.querySelector('{WRITERS}').scrollIntoView()")
    page.wait_for_selector(f"{WRITERS}[data-ready]", timeout=10_000)
    # the inside view, within two screens above, fetches its eight scripts one after another: the writers'
    # three may be in and built before its last is asked for
    wanted = ["js/runtime/decoding.js", "js/demos/real-writers.js", "js/explain/real.js", "js/demos/real-inside.js"]
    for _ in range(100):  # up to 10 s
        if all(path in scripts_seen(page) for path in wanted):
            break
        page.wait_for_timeout(100)
    now = scripts_seen(page)
    for path in wanted:
        assert path in now, (path, now)
    assert page.locator(f"{WRITERS} .nt-fallback").is_hidden()
    assert page.locator(f"{WRITERS} .nt-live").count() == 1
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def test_focus_in_a_later_demo_s_fallback_loads_builds_and_keeps_focus(open_page):
    page = open_page("real-models.html", lazy=True)
    waiting_far_below(page, WRITERS)
    focus_fallback(page, WRITERS)
    page.wait_for_selector(f"{WRITERS}[data-ready]", timeout=10_000)
    assert page.evaluate(f"() => !!document.activeElement.closest('{WRITERS} .nt-live')"), \
        page.evaluate("() => document.activeElement.outerHTML.slice(0, 200)")
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def test_a_later_demo_whose_script_cannot_load_keeps_its_fallback_and_says_why(open_page):
    page = open_page("real-models.html", lazy=True)
    page.route("**/js/demos/real-writers.js", lambda r: r.abort())
    waiting_far_below(page, WRITERS)
    page.evaluate(f"() => document.querySelector('{WRITERS}').scrollIntoView()")
    msg = page.locator(f"{WRITERS} .nt-msg.nt-error")
    msg.wait_for(timeout=10_000)
    assert "could not load js/demos/real-writers.js" in msg.inner_text()
    assert page.locator(f"{WRITERS} .nt-fallback").is_visible()
    assert page.locator(f"{WRITERS}[data-ready]").count() == 0


def test_a_later_demo_near_the_top_waits_for_the_pages_own_scripts(open_page):
    """The experiments page's later demos need real.experiments, one of the page's own scripts. Their container
    can come within two screens before the parser has run that script (a slow line, a busy machine): their
    scripts then wait until the page is parsed, rather than run first and fail."""
    def slow(route):
        import time
        time.sleep(1.5)  # the page's own script arrives late; the parser waits on it
        route.continue_()
    page = open_page("real-experiments.html", width=360, height=800, lazy=True, route=("**/js/real/experiments.js", slow))
    page.wait_for_function("() => document.readyState === 'complete'")
    root = page.locator('.nt-demo[data-demo="real-steps"]')
    root.scroll_into_view_if_needed()
    page.wait_for_selector('.nt-demo[data-demo="real-steps"][data-ready]', timeout=10_000)
    assert page.nt_problems == [], "\n".join(page.nt_problems)
