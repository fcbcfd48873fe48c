"""The map of the whole pass in a real browser: the map of the model on show (the tiny model's, SmolLM2's on
the real-model page, none on a page with no pass), a part for each stage, each a link, the page's own parts
marked; beside the text on wide screens, a folded bar on phones, by keyboard, which stays in
sight and names the parts of the demo on screen; its sizes are the active model's (a reader's model of
other sizes redraws them, the built one brings them back); no page scrolls sideways at 360 px; axe finds
nothing in either colour scheme."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from scripts.core.io import SITE_DATA
from scripts.real.page_variables import load_real_models
from scripts.site.pass_map import FLOW, fill, parts, smollm2_parts
from tests.helpers.axe import violations
from tests.helpers.schemes import in_scheme
from tests.helpers.tiny_page import KEY, forget

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"
MODEL = json.loads((ROOT / "site_data" / "tiny" / "config.json").read_text())["model"]
REAL = {k: v["value"] for k, v in load_real_models(SITE_DATA)["smollm2"]["config"].items()}
PAGES = sorted(p.name for p in SITE.glob("*.html") if p.name != "404.html")
WITH_DEMOS = [n for n in PAGES if 'data-pass-parts="' in (SITE / n).read_text(encoding="utf-8")]
# The model each page's map draws: the one its demos run; none where no pass is on show.
MAP_OF = {"real-models.html": "smollm2", "around.html": None, "fast.html": None, "weights.html": None, "making.html": None,
          "left-out.html": None, "numbers.html": None, "sources.html": None}
TINY = [n for n in PAGES if MAP_OF.get(n, "tiny") == "tiny"]
WITH_MAP = [n for n in PAGES if MAP_OF.get(n, "tiny")]
FOX = ["a fox ran.", "the fox ate a hen.", "a hen ran to the den.", "the fox saw the hen.", "a hen saw a fox."]
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
       "generation.html": {"append and repeat"}, "index.html": set(STAGES), "training.html": set(STAGES),
       "context.html": {"embedding + position", "append and repeat"}}


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def texts(locator) -> list[str]:
    return locator.evaluate_all("es => es.map(e => e.textContent)")  # SVG text has no innerText


def check_map(page, name, nav):
    links = nav.get_by_role("link")
    assert links.count() == len(STAGES), f"{name}: {links.count()} parts, want one per stage"
    names = texts(nav.locator("a .nt-map-name"))
    assert names == STAGES
    for href in links.evaluate_all("as => as.map(a => a.getAttribute('href'))"):
        assert (SITE / href).is_file(), f"{name}: the map links to a missing page {href}"
    current = nav.locator("a[aria-current]")
    assert set(texts(current.locator(".nt-map-name"))) == LIT.get(name, set()), name
    for a in current.all():
        want = "page" if a.get_attribute("href") == name else "true"
        assert a.get_attribute("aria-current") == want
    # each part says what it does, to a screen reader too
    for label in links.evaluate_all("as => as.map(a => a.getAttribute('aria-label'))"):
        assert re.fullmatch(r".+ .+: .+", label), label
    assert nav.locator(".nt-sr").text_content().startswith("The pass: text")


@pytest.mark.parametrize("name", PAGES)
def test_each_pages_map_names_the_model_on_show_or_is_absent(open_page, name):
    """The tiny model's map where its pass is on show, SmolLM2's own on the real-model page, none on a page
    with no pass; a page with a tiny-model demo lights the parts it is about."""
    page = open_page(name, width=1280, height=900)
    want = MAP_OF.get(name, "tiny")
    maps = page.locator(".nt-map-side, details.nt-map-phone")
    if want is None:
        assert maps.count() == 0 and page.get_by_role("navigation", name=NAV).count() == 0, f"{name}: a map on a page with no pass"
        return
    assert maps.count() == 2 and set(maps.evaluate_all("ms => ms.map(m => m.dataset.model)")) == {want}
    title = page.locator(".nt-map-side .nt-map-title").text_content()
    assert title == "The whole pass " + ("of the tiny model" if want == "tiny" else "of SmolLM2-135M"), title
    names = texts(page.locator(".nt-map-side a .nt-map-name"))
    if want == "smollm2":
        model = {k: (f"{v:,}" if isinstance(v, int) else v) for k, v in REAL.items()}
        assert names == [p["name"] for p in smollm2_parts(model)]
        assert f"{model['vocab_size']} logits" in names and f"{MODEL['vocab_size']} logits" not in names
    else:
        assert names == STAGES
    if (SITE / "js" / "runtime" / "active.js").exists() and 'js/runtime/active.js' in (SITE / name).read_text(encoding="utf-8"):
        assert page.locator(".nt-map-side a[aria-current]").count() > 0, f"{name}: a tiny-model demo, no part lit"
    clean(page)


@pytest.mark.parametrize("name", TINY)
def test_the_map_beside_the_text_on_a_wide_screen(open_page, name):
    page = open_page(name, width=1280, height=900)
    nav = page.get_by_role("navigation", name=NAV)
    assert nav.count() == 1, f"{name}: one visible map"
    assert page.locator(".md-sidebar--secondary .nt-map-side").is_visible()
    assert not page.locator("details.nt-map-phone").is_visible()
    check_map(page, name, nav)
    # it stays beside the text, whole, as the reader scrolls (the theme's sticky sidebar, which also scrolls
    # itself to follow the contents: the map stays at its top)
    for where in ("document.documentElement.scrollHeight / 2", "document.documentElement.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {where})")
        page.wait_for_timeout(400)
        box = page.locator(".nt-map-side").bounding_box()
        header = page.locator(".md-header").bounding_box()
        assert box["y"] >= header["y"] + header["height"] - 1 and box["y"] + box["height"] <= 900, \
            f"{name}: the map is not whole on screen ({box})"
    clean(page)


@pytest.mark.parametrize("name", TINY)
def test_the_map_folded_on_a_phone_opens_by_keyboard(open_page, name):
    page = open_page(name, width=360, height=800)
    strip = page.locator("details.nt-map-phone")
    assert strip.is_visible() and not strip.evaluate("d => d.open")
    assert strip.bounding_box()["height"] < 90, f"{name}: the folded map is more than a line or two"
    assert not page.locator(".nt-map-side").is_visible()
    page.locator("details.nt-map-phone > summary").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('details.nt-map-phone').open")
    nav = page.get_by_role("navigation", name=NAV)
    assert nav.count() == 1
    check_map(page, name, nav)
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('.nt-map-phone') !== null "
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
    if name in WITH_MAP:
        page.locator("details.nt-map-phone > summary").click()
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
    # the page's first table that is wider than a phone (the tables above it sit in a built demo's hidden fallback)
    page.wait_for_function("() => [...document.querySelectorAll('.md-typeset__scrollwrap')].some(t => t.scrollWidth > t.clientWidth "
                           "&& t.getAttribute('tabindex') === '0' && t.getAttribute('role') === 'region' "
                           "&& /^Table \\d+: /.test(t.getAttribute('aria-label') || ''))", timeout=5000)
    at = page.evaluate("() => [...document.querySelectorAll('.md-typeset__scrollwrap')].findIndex(t => t.getAttribute('role') === 'region')")
    table = page.locator(".md-typeset__scrollwrap").nth(at)
    # the scroll shadows: shadows fixed to the box, covers that move with the content
    assert table.evaluate("t => getComputedStyle(t).backgroundAttachment") == "local, local, scroll, scroll"
    table.scroll_into_view_if_needed()
    table.focus()
    assert page.evaluate("() => document.activeElement.classList.contains('md-typeset__scrollwrap')")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("t => t.scrollLeft > 0", arg=table.element_handle(), timeout=2000)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.wait_for_function("t => t.scrollWidth <= t.clientWidth + 1 && !t.hasAttribute('tabindex')",
                           arg=table.element_handle(), timeout=3000)
    clean(page)


def bar_says(words: list[str], ps: list[dict]) -> str:
    """What the phone bar should name for a demo showing `words`: each lit part once, the heads as one run,
    "the block" when all of it is lit, "every part" when everything is."""
    on = [p for p in ps if set(p["words"].split()) & set(words)]
    if len(on) == len(ps):
        return "here: every part"
    block = [p for p in ps if p.get("group") == "block"]
    whole = all(p in on for p in block)
    numbered = lambda p: re.fullmatch(r"head \d+", p["name"])  # the tiny model's heads, named as one run
    names, heads = [], [p["name"].split()[1] for p in on if numbered(p) and not whole]
    for p in on:
        name = ("the block" if whole and p.get("group") == "block" else
                (f"heads {heads[0]}–{heads[-1]}" if len(heads) > 1 else f"head {heads[0]}") if numbered(p)
                else p["name"])
        if name not in names:
            names.append(name)
    return "here: " + ", ".join(names)


@pytest.mark.parametrize("name", WITH_DEMOS)
def test_on_a_phone_the_bar_stays_in_sight_and_names_the_demo_on_screen(open_page, name):
    page = open_page(name, width=360, height=780)
    drawn = (smollm2_parts({k: (f"{v:,}" if isinstance(v, int) else v) for k, v in REAL.items()})
             if MAP_OF.get(name) == "smollm2" else parts(MODEL))
    bar = page.locator("details.nt-map-phone")
    assert bar.evaluate("d => getComputedStyle(d).position") == "sticky"
    assert bar.get_attribute("aria-live") is None and bar.locator("[aria-live]").count() == 0  # no chatter on scroll
    demos = page.locator("[data-pass-parts]")
    checked = 0
    for i in range(demos.count()):
        demos.nth(i).evaluate("d => d.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(250)
        # the demo most on screen is the one the bar should name (a short demo may share the screen)
        most = page.evaluate("""() => {
            let best = null, px = 0;
            for (const d of document.querySelectorAll('[data-pass-parts]')) {
                const r = d.getBoundingClientRect(), seen = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
                if (seen > px) { px = seen; best = d; }
            }
            return best.getAttribute('data-pass-parts');
        }""")
        now = bar.locator(".nt-map-phone-now")
        page.wait_for_function("w => document.querySelector('.nt-map-phone-now').textContent === w",
                               arg=bar_says(most.split(), drawn), timeout=3000)
        box = now.bounding_box()
        assert now.is_visible() and box["y"] >= 0 and box["y"] + box["height"] <= 780, f"{name}: demo {i}: {box}"
        header = page.locator(".md-header").bounding_box()
        assert bar.bounding_box()["y"] >= header["y"] + header["height"] - 1, f"{name}: the bar is under the header"
        assert not bar.locator(".nt-map-phone-here").is_visible()
        checked += most == demos.nth(i).get_attribute("data-pass-parts")
    assert checked >= 1
    # opened where the reader is, the map is right there, scrolls inside the bar and closes again
    bar.locator("summary").focus()
    page.keyboard.press("Enter")
    nav = page.get_by_role("navigation", name=NAV)
    box = nav.bounding_box()
    assert nav.is_visible() and 0 <= box["y"] < 780
    assert page.locator(".nt-map-phone a.nt-map-on").count() > 0
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    page.keyboard.press("Enter")
    assert not bar.evaluate("d => d.open")
    clean(page)


def sizes_drawn(page) -> dict[str, set[str]]:
    return page.evaluate("""() => {
        const out = {};
        for (const e of document.querySelectorAll('[data-size-of]')) (out[e.dataset.sizeOf] ||= []).push(e.textContent);
        return out;
    }""")


def check_sizes(page, model, where):
    drawn = sizes_drawn(page)
    assert {"vocab_size", "n_ctx", "n_embd", "d_head", "d_mlp", "n_head"} <= set(drawn), where
    for field, shown in drawn.items():
        assert set(shown) == {str(model[field])}, (where, field, shown)
    labels = page.evaluate("() => [...document.querySelectorAll('[data-size-label]')].map(e => [e.dataset.sizeLabel, e.getAttribute('aria-label')])")
    assert labels, where
    for template, label in labels:
        assert template.format_map(model) == label, where
    name = page.locator(".nt-map-side a", has=page.locator(".nt-map-name", has_text="logits"))
    assert name.get_attribute("aria-label").startswith(f"{model['vocab_size']} logits"), where


def test_a_readers_model_of_other_sizes_redraws_the_map_and_the_built_one_brings_it_back(open_page):
    page = open_page("training.html", width=1280, height=900)
    forget(page)
    check_sizes(page, MODEL, "training, built")
    root = page.locator('.nt-demo[data-demo="train-yours"]')
    root.locator("textarea").fill("\n".join(FOX))
    root.locator('button[data-role="train"]').click()
    page.wait_for_function('document.querySelector(\'.nt-demo[data-demo="train-yours"]\').getAttribute("data-trained") === "yes"',
                           timeout=120000)
    yours = json.loads(page.evaluate(f"localStorage.getItem('{KEY}')"))["config"]["model"]
    assert (yours["vocab_size"], yours["n_ctx"]) != (MODEL["vocab_size"], MODEL["n_ctx"])
    check_sizes(page, yours, "training, just saved")  # at once, on the page it was trained on
    base = page.url.rsplit("/", 1)[0]
    for name in ("block.html", "sampling.html", "index.html"):
        page.goto(f"{base}/{name}", wait_until="load")
        check_sizes(page, yours, name)
    assert page.locator(".nt-map-side .nt-sr").text_content() == fill(FLOW, yours)  # the text alternative too
    # back to the built model with the switch at the top of the page: the build's numbers return
    page.goto(f"{base}/block.html", wait_until="load")
    with page.expect_navigation(wait_until="load"):
        page.locator(".nt-model-switch input[value=built]").check()
    page.wait_for_function("() => nexttoken.runtime.active.which === 'built'")
    check_sizes(page, MODEL, "block, built again")
    clean(page)


@pytest.mark.parametrize("name", ["attention.html", "real-models.html"])
def test_on_a_phone_the_opened_map_is_a_glance_that_folds_as_the_reader_moves_on(open_page, name):
    """Opened, the bar covers at most part of the screen (it stayed open over about 660 of 740 px), and it
    folds when the page scrolls on, on a tap outside it, and on Escape (focus back on its summary)."""
    page = open_page(name, width=360, height=740)
    page.evaluate("() => window.scrollTo(0, document.documentElement.scrollHeight / 3)")
    page.wait_for_timeout(300)
    bar = page.locator("details.nt-map-phone")
    is_open = "d => d.open"
    bar.locator("summary").click()
    page.wait_for_timeout(300)
    assert bar.evaluate(is_open)
    assert bar.bounding_box()["height"] <= 0.75 * 740, f"{name}: the open map covers {bar.bounding_box()['height']} px"
    page.mouse.wheel(0, 400)
    page.wait_for_function("() => !document.querySelector('details.nt-map-phone').open", timeout=3000)
    bar.locator("summary").click()
    page.wait_for_timeout(300)
    page.mouse.click(180, 700)  # the text below the bar
    page.wait_for_function("() => !document.querySelector('details.nt-map-phone').open", timeout=3000)
    bar.locator("summary").focus()
    page.keyboard.press("Enter")
    page.wait_for_timeout(200)
    page.keyboard.press("Tab")  # into the map
    page.keyboard.press("Escape")
    assert not bar.evaluate(is_open)
    assert page.evaluate("() => document.activeElement.matches('details.nt-map-phone > summary')")
    clean(page)
