"""The theme's bundle waits for the reader's first move (overrides/partials/javascripts/bundle.html).

Run as the page loaded, it was the longest task after the first paint on every page. Held back, it starts on
the first pointer, touch, key, wheel, scroll or focus, or at once when the address has a #target or a search's
?h=; started late, everything it does works as before.
"""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

STARTED = "() => typeof window.component$ !== 'undefined'"
FETCHED = "() => performance.getEntriesByType('resource').some(e => /assets\\/javascripts\\/bundle\\./.test(e.name))"
SEARCH = """() => ({open: document.getElementById('__search').checked,
  focused: document.activeElement && document.activeElement.getAttribute('data-md-component')})"""
# every DOMContentLoaded listener the page's scripts add to document, and whether it runs once
LISTENERS = """window.__ntDcl = [];
(function (add) {
  EventTarget.prototype.addEventListener = function (type, fn, options) {
    if (type === 'DOMContentLoaded' && this === document)
      window.__ntDcl.push({once: !!(options && options.once), by: (new Error().stack || '').split('\\n')[2] || ''});
    return add.call(this, type, fn, options);
  };
})(EventTarget.prototype.addEventListener);"""


def started(page) -> None:
    page.wait_for_function(STARTED, timeout=10_000)
    page.wait_for_timeout(200)  # its components mount on the DOMContentLoaded it is sent


@pytest.mark.parametrize("width", [1280, 360])
def test_the_bundle_waits_for_the_readers_first_move_and_the_page_looks_the_same(open_page, width):
    """Until the reader moves, the bundle is neither fetched nor run, yet the page is styled as the bundle
    styles it (the search field in the header at 1280 px, its button at 360 px). A pointer's move starts it."""
    page = open_page("sources.html", width=width, lazy=True)
    page.wait_for_timeout(500)
    assert not page.evaluate(STARTED) and not page.evaluate(FETCHED)
    assert page.evaluate("document.documentElement.className.split(' ')") == ["js"]
    shown = ".md-search__form" if width == 1280 else "label.md-header__button[for=__search]"
    assert page.locator(shown).first.is_visible()
    # a code block that scrolls sideways takes the focus already (js/site.js; the theme's bundle did it)
    code = page.evaluate("""() => [...document.querySelectorAll('.md-typeset pre > code')]
      .map(c => [c.scrollWidth > c.clientWidth + 1, c.tabIndex === 0 && c.getAttribute('role') === 'region'])""")
    assert code and all(scrolls == focusable for scrolls, focusable in code), code
    assert any(scrolls for scrolls, _ in code), "no code block on the page scrolls: pick another"
    page.mouse.move(300, 400)
    started(page)
    assert page.evaluate(FETCHED)
    assert not page.nt_problems, page.nt_problems


def test_a_box_a_demo_scrolls_itself_is_no_move_of_the_readers(open_page):
    """The context window's demo scrolls its strip as it builds: that scroll does not start the bundle."""
    page = open_page("context.html", width=412, lazy=True)
    page.wait_for_function("() => document.querySelector('.nt-window-strip') !== null", timeout=10_000)
    page.wait_for_timeout(1500)
    assert not page.evaluate(STARTED) and not page.evaluate(FETCHED)
    page.evaluate("window.scrollBy(0, 400)")  # the page's own scroll does
    started(page)


def test_started_late_the_theme_follows_the_scroll(open_page):
    """A wheel starts it; the header then shows the page's title, and the contents mark the section in view."""
    page = open_page("sources.html", lazy=True)
    page.mouse.move(640, 500)
    started(page)
    page.mouse.wheel(0, 1600)
    page.wait_for_function("() => document.querySelector('.md-header__title--active') !== null", timeout=5000)
    page.wait_for_function("() => document.querySelector('.md-sidebar--secondary .md-nav__link--active') !== null",
                           timeout=5000)
    assert not page.nt_problems, page.nt_problems


def test_a_first_key_the_theme_answers_is_passed_on_to_it(open_page):
    """The reader's first move is "/": the bundle starts, and the key it missed opens the search, focused."""
    page = open_page("sources.html", lazy=True)
    page.keyboard.press("/")
    started(page)
    page.wait_for_function("() => document.getElementById('__search').checked", timeout=5000)
    assert page.evaluate(SEARCH) == {"open": True, "focused": "search-query"}
    assert not page.nt_problems, page.nt_problems


@pytest.mark.parametrize("mode", ["http", "file"])
def test_a_first_tap_on_search_focuses_its_field_and_finds(open_page, mode):
    """On a phone the first move is a tap on the search button: its field takes the focus in the tap itself
    (a phone's keyboard comes up only then), what the reader types at once is searched once the theme runs,
    served and from disk."""
    page = open_page("sources.html", mode=mode, width=360, lazy=True)
    page.locator("label.md-header__button[for=__search]").click()
    assert page.evaluate(SEARCH) == {"open": True, "focused": "search-query"}
    page.keyboard.type("attention")
    page.locator(".md-search-result__item").first.wait_for(timeout=10_000)
    assert page.locator(".md-search-result__item").count() > 0
    assert not page.nt_problems, page.nt_problems


def test_an_address_with_a_target_starts_the_theme_at_once(open_page):
    """A #target is the theme's to open and mark: with one, the bundle starts without waiting for a move."""
    page = open_page("sources.html#papers", lazy=True)
    started(page)
    active = page.evaluate("[...document.querySelectorAll('.md-sidebar--secondary .md-nav__link--active')]"
                           ".map(a => a.getAttribute('href'))")
    assert "#papers" in active, active
    assert not page.nt_problems, page.nt_problems


@pytest.mark.parametrize("name", ["index.html", "block.html", "real-experiments.html"])
def test_the_second_domcontentloaded_reaches_only_the_theme(open_page, name):
    """The bundle, started late, is sent a second DOMContentLoaded to mount on. Every listener the page's own
    scripts add for it runs once, so none runs again (a demo built twice)."""
    page = open_page(name, lazy=True, init=LISTENERS)
    ours = page.evaluate("window.__ntDcl")
    page.mouse.move(300, 400)
    started(page)
    after = page.evaluate("window.__ntDcl")
    assert len(after) > len(ours), after  # the theme's own listener, added as it started
    assert all(entry["once"] for entry in after), after
    assert not page.nt_problems, page.nt_problems
