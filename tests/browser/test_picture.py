"""The map of the whole pass in a real browser: on every page a part for each stage, each a link, the page's
own parts marked; beside the text on wide screens, a folded strip on phones, by keyboard; no page scrolls
sideways at 360 px; axe finds nothing in either colour scheme."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.helpers.axe import violations

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"
MODEL = json.loads((ROOT / "site_data" / "tiny" / "config.json").read_text())["model"]
PAGES = sorted(p.name for p in SITE.glob("*.html") if p.name != "404.html")
NAV = re.compile(r"^The whole pass, part by part$")

pytestmark = pytest.mark.browser

# The stages, in order, as the reader sees them (sizes from the model's config).
STAGES = (["text", "tokens", "embedding + position", "LayerNorm"] + [f"head {i + 1}" for i in range(MODEL["n_head"])]
          + ["join heads", "output projection", "add", "LayerNorm", "MLP", "add", "final LayerNorm",
             f"{MODEL['vocab_size']} logits", "softmax", "pick", "append and repeat"])
# What each page explains (the landing page walks the whole pass).
LIT = {"tokens.html": {"text", "tokens"}, "embeddings.html": {"embedding + position"},
       "attention.html": {f"head {i + 1}" for i in range(MODEL["n_head"])} | {"join heads", "output projection"},
       "block.html": {"LayerNorm", "add", "MLP", "final LayerNorm"},
       "sampling.html": {f"{MODEL['vocab_size']} logits", "softmax", "pick"},
       "generation.html": {"append and repeat"}, "index.html": set(STAGES)}


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def in_scheme(page, scheme: str):
    page.add_init_script("localStorage.clear()")
    page.emulate_media(color_scheme=scheme)
    page.reload(wait_until="load")
    want = "slate" if scheme == "dark" else "default"
    page.wait_for_function("w => document.body.getAttribute('data-md-color-scheme') === w", arg=want, timeout=5000)


def texts(locator) -> list[str]:
    return locator.evaluate_all("es => es.map(e => e.textContent)")  # SVG text has no innerText


def check_map(page, name, nav):
    links = nav.get_by_role("link")
    assert links.count() == len(STAGES), f"{name}: {links.count()} parts, want one per stage"
    names = texts(nav.locator("a .nt-pp-name"))
    assert names == STAGES
    for href in links.evaluate_all("as => as.map(a => a.getAttribute('href'))"):
        assert (SITE / href).is_file(), f"{name}: the map links to a missing page {href}"
    current = nav.locator("a[aria-current]")
    assert set(texts(current.locator(".nt-pp-name"))) == LIT.get(name, set()), name
    for a in current.all():
        want = "page" if a.get_attribute("href") == name else "true"
        assert a.get_attribute("aria-current") == want
    # each part says what it does, to a screen reader too
    for label in links.evaluate_all("as => as.map(a => a.getAttribute('aria-label'))"):
        assert re.fullmatch(r".+ .+: .+", label), label
    assert nav.locator(".nt-sr").text_content().startswith("The pass: text")


@pytest.mark.parametrize("name", PAGES)
def test_the_map_beside_the_text_on_a_wide_screen(open_page, name):
    page = open_page(name, width=1280, height=900)
    nav = page.get_by_role("navigation", name=NAV)
    assert nav.count() == 1, f"{name}: one visible map"
    assert page.locator(".md-sidebar--secondary .nt-pass-side").is_visible()
    assert not page.locator("details.nt-pass-phone").is_visible()
    check_map(page, name, nav)
    # it stays beside the text as the reader scrolls (the theme's sticky sidebar)
    page.mouse.wheel(0, 2500)
    page.wait_for_timeout(300)
    box = page.locator(".nt-pass-side").bounding_box()
    assert box and box["y"] < 900 and box["y"] + box["height"] > 0, f"{name}: the map scrolled away"
    clean(page)


@pytest.mark.parametrize("name", PAGES)
def test_the_map_folded_on_a_phone_opens_by_keyboard(open_page, name):
    page = open_page(name, width=360, height=800)
    strip = page.locator("details.nt-pass-phone")
    assert strip.is_visible() and not strip.evaluate("d => d.open")
    assert strip.bounding_box()["height"] < 90, f"{name}: the folded map is more than a line or two"
    assert not page.locator(".nt-pass-side").is_visible()
    page.locator("details.nt-pass-phone > summary").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('details.nt-pass-phone').open")
    nav = page.get_by_role("navigation", name=NAV)
    assert nav.count() == 1
    check_map(page, name, nav)
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('.nt-pass-phone') !== null "
                         "&& document.activeElement.getAttribute('href') !== null"), "Tab does not reach the first part"
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{name}: {overflow}px wider than a 360-px phone with the map open"
    clean(page)


def test_the_block_page_draws_the_block_large(open_page):
    page = open_page("block.html")
    fig = page.locator(".nt-block-figure")
    assert fig.is_visible()
    widths = fig.locator(".nt-pw").evaluate_all("ps => ps.map(p => parseFloat(p.getAttribute('stroke-width')))")
    assert sorted(set(widths))[1] / sorted(set(widths))[0] == MODEL["n_embd"] / MODEL["d_head"]
    drawn = texts(fig.locator(".nt-psize"))
    assert {str(MODEL["n_embd"]), str(MODEL["d_head"]), f"{MODEL['d_mlp']}, through GELU"} <= set(drawn)
    assert fig.get_by_role("link").count() == 2 + MODEL["n_head"] + 2 + 1 + 2  # LNs, heads, join, proj, MLP, adds
    assert "residual stream" in fig.locator("svg").text_content()
    # at 360 px it scrolls in its own box, never the page
    page.set_viewport_size({"width": 360, "height": 800})
    page.wait_for_timeout(200)
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    clean(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_no_sideways_scroll_at_360_and_axe_finds_nothing(open_page, name, scheme):
    page = open_page(name, width=360, height=800)
    in_scheme(page, scheme)
    page.locator("details.nt-pass-phone > summary").click()
    page.wait_for_timeout(300)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{name} ({scheme}): {overflow}px wider than a 360-px phone"
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.wait_for_timeout(300)
        found = violations(page)
        assert found == [], f"{name} ({scheme}, {width} px): " + "; ".join(found)
    clean(page)


def test_a_table_that_scrolls_sideways_takes_the_focus_and_shows_its_edge(open_page):
    page = open_page("attention.html", width=360, height=800)
    table = page.locator(".md-typeset__scrollwrap").first
    page.wait_for_function("t => t.scrollWidth > t.clientWidth && t.getAttribute('tabindex') === '0' "
                           "&& t.getAttribute('role') === 'region' && t.getAttribute('aria-label').startsWith('Table 1: ')",
                           arg=table.element_handle(), timeout=3000)
    # the scroll shadows: shadows fixed to the box, covers that move with the content
    assert table.evaluate("t => getComputedStyle(t).backgroundAttachment") == "local, local, scroll, scroll"
    table.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("t => t.scrollLeft > 0", arg=table.element_handle(), timeout=2000)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_function("t => t.scrollWidth <= t.clientWidth + 1 && !t.hasAttribute('tabindex')",
                           arg=table.element_handle(), timeout=3000)
    clean(page)
