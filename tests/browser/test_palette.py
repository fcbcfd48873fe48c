"""The palette switch (overrides/partials/javascripts/palette.html): ours, set while the page is parsed.

The theme's bundle mounted its palette component as it started: it added <meta name="color-scheme"> and set
it, and each made the browser restyle the whole page after its first paint; a first visit in dark mode
painted light, then switched. The switch itself (no transition while it runs) is in test_look.py.
"""
from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.browser

BUNDLE = "**/assets/javascripts/bundle.*.min.js"
STATE = """() => ({
  scheme: document.body.getAttribute('data-md-color-scheme'),
  toggles: [...document.querySelectorAll('form[data-nt-palette] label')].filter(l => !l.hidden).map(l => l.title),
  metas: [...document.querySelectorAll('meta[name=color-scheme], meta[name=theme-color]')].map(m => m.name + '=' + m.content),
  component: document.querySelectorAll('[data-md-component=palette]').length,
  stored: localStorage.getItem(__md_scope.pathname + '.__palette'),
})"""


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_readers_scheme_is_set_before_the_theme_starts(open_page, scheme):
    """Without the theme's bundle at all, a first visit takes the scheme the reader's system asks for, one
    toggle shows (to the other scheme), and the page says its scheme and its header's colour to the browser."""
    page = open_page("numbers.html", lazy=True, scheme=scheme, route=(BUNDLE, lambda route: route.abort()))
    state = page.evaluate(STATE)
    assert state["scheme"] == ("slate" if scheme == "dark" else "default")
    assert state["toggles"] == ["Switch to light mode" if scheme == "dark" else "Switch to dark mode"]
    assert sorted(m.split("=")[0] for m in state["metas"]) == ["color-scheme", "theme-color"], state["metas"]
    assert f"color-scheme={scheme}" in state["metas"] and any(m.startswith("theme-color=#") for m in state["metas"])
    assert state["component"] == 0
    assert json.loads(state["stored"])["color"]["scheme"] == state["scheme"]
    # the aborted bundle is the only problem (its failed request, and the console's line for it)
    assert all("bundle." in p or "Failed to load resource" in p for p in page.nt_problems), page.nt_problems


def test_the_theme_mounts_no_palette_of_its_own(open_page):
    """With the bundle, still one color-scheme meta and one theme-color meta: the theme's component never ran."""
    page = open_page("numbers.html", lazy=True, scheme="light")
    page.mouse.move(300, 400)  # the bundle starts on the reader's first move
    page.wait_for_function("() => typeof window.component$ !== 'undefined'", timeout=10_000)
    page.wait_for_timeout(200)
    state = page.evaluate(STATE)
    assert len(state["metas"]) == 2 and state["component"] == 0, state
    assert not page.nt_problems, page.nt_problems


def test_a_choice_is_kept_across_pages_and_by_keyboard(open_page):
    """A click on the toggle switches and is stored in the theme's key and format ({index, color}); the next
    page opens in it. Enter on the form's focused option switches as the theme's did."""
    page = open_page("numbers.html", lazy=True, fresh=True)
    page.locator("form[data-nt-palette] label:visible").click()
    assert page.evaluate(STATE)["scheme"] == "slate"
    stored = json.loads(page.evaluate(STATE)["stored"])
    assert stored["index"] == 1 and stored["color"]["scheme"] == "slate", stored
    page.goto(page.url.replace("numbers.html", "sources.html"), wait_until="load")
    assert page.evaluate(STATE)["scheme"] == "slate"
    page.locator("form[data-nt-palette] input").nth(1).focus()
    page.keyboard.press("Enter")
    assert page.evaluate(STATE)["scheme"] == "default"
    assert not page.nt_problems, page.nt_problems


@pytest.mark.parametrize("stored", ['{"index": 7, "color": {}}', "not json", '{"color": {"scheme": "slate"}}'])
def test_a_broken_stored_choice_falls_back_to_the_systems(open_page, stored):
    """A stored value the page cannot use (an index past the options, not JSON, no index) costs nothing: the
    page opens in a valid scheme, with no error."""
    init = f"localStorage.setItem(new URL('.', location).pathname + '.__palette', {json.dumps(stored)})"
    page = open_page("numbers.html", lazy=True, init=init)
    state = page.evaluate(STATE)
    assert state["scheme"] in ("default", "slate") and len(state["toggles"]) == 1, state
    assert not page.nt_problems, page.nt_problems
