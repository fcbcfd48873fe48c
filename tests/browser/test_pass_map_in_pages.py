"""The map of the whole pass in a real browser: a map of each model the page's demos run (the tiny model's,
SmolLM2's, GPT-2 small's; none on a page with no pass), the one shown always the model of the demo on
screen, a part for each stage, each a link, the page's own parts marked; on wide screens under the page's
contents, which stay whole and visible at every width from 1024 to 1920 px; on phones a folded strip above
the text that opens by keyboard and never covers a demo; its sizes are the active model's (a reader's model
of other sizes redraws them, the built one brings them back). (That no page scrolls sideways at 360 px with the
strip open, and axe finds nothing in either colour scheme: test_pages_in_both_schemes.py, which also checks the
folded strip opening by keyboard, check_folded_map_opens_by_keyboard. Each page's maps, the map shown beside each
demo and the block page's figure, on the page's served load: check_pages_maps,
check_the_map_shown_is_the_model_of_the_demo_on_screen and check_the_block_page_draws_the_block_large, called by
test_site.py, which loads every page so anyway.)"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from scripts.core.io import SITE_DATA
from scripts.real.page_variables import load_real_models
from scripts.site.pass_map import FLOW, fill, gpt2_parts, smollm2_parts
from tests.helpers.tiny_page import KEY, use_yours

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"
MODEL = json.loads((ROOT / "site_data" / "tiny" / "config.json").read_text())["model"]
REAL = {k: v["value"] for k, v in load_real_models(SITE_DATA)["smollm2"]["config"].items()}
GPT2 = {k: v["value"] for k, v in load_real_models(SITE_DATA)["gpt2"]["config"].items()}
PAGES = sorted(p.name for p in SITE.glob("*.html") if p.name != "404.html")


def _front(name: str) -> str:
    source = ROOT / "docs" / name.replace(".html", ".md")
    return source.read_text(encoding="utf-8").split("---")[1] if source.is_file() else ""


# The maps of each page, in its demos' order: one per model they run (the landing page opens on SmolLM2's bars,
# then plays the tiny model's pass); none where the page says `map: none` or has no demo.
NO_MAP = {n for n in PAGES if re.search(r"^map: none$", _front(n), re.M) or not re.search(r"^demos:", _front(n), re.M)}
MAPS_OF = {"index.html": ["smollm2", "tiny"], "sampling.html": ["tiny", "smollm2"], "tokens.html": ["tiny", "gpt2"],
           "real-models.html": ["smollm2"], "real-experiments.html": ["smollm2"]}
MAP_OF = {n: (None if n in NO_MAP else MAPS_OF.get(n, ["tiny"])[0]) for n in PAGES}  # the map shown first
TINY = [n for n in PAGES if MAP_OF[n] == "tiny"]
WITH_MAP = [n for n in PAGES if MAP_OF[n]]
TITLE = {"tiny": "of the tiny model", "smollm2": "of SmolLM2-135M", "gpt2": "of GPT-2 small"}
SHOWN = ".nt-map-side:not([hidden])"
STRIP = "details.nt-map-phone:not([hidden])"
# The widths the contents must be whole at, each with a common screen height.
SCREENS = [(1024, 768), (1280, 800), (1366, 768), (1440, 900), (1920, 1080)]
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
    nav = nav.locator("svg:visible")  # the side map's drawing for this screen's height (whole or short)
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
    assert nav.locator("xpath=ancestor::nav[1]").locator(".nt-sr").text_content().startswith("The pass: text")


def shown(model: str) -> list[str]:
    return {"tiny": STAGES, "smollm2": [p["name"] for p in smollm2_parts(
        {k: (f"{v:,}" if isinstance(v, int) else v) for k, v in REAL.items()})],
        "gpt2": [p["name"] for p in gpt2_parts({k: (f"{v:,}" if isinstance(v, int) else v) for k, v in GPT2.items()})]}[model]


def check_pages_maps(page, name):
    """A map of each model the page's demos run, the first shown, none on a page with no pass; a page with a
    tiny-model demo lights the parts it is about. On the page as open_page(name) leaves it (1280x900, served,
    read through): test_site.py's served load of every page checks it, in the load it makes anyway."""
    want = [] if MAP_OF[name] is None else MAPS_OF.get(name, ["tiny"])
    maps = page.locator(".nt-map-side, details.nt-map-phone")
    if not want:
        assert maps.count() == 0 and page.get_by_role("navigation", name=NAV).count() == 0, f"{name}: a map on a page with no pass"
        return
    assert page.locator(".nt-map-side").evaluate_all("ms => ms.map(m => m.dataset.model)") == want
    assert page.locator("details.nt-map-phone").evaluate_all("ms => ms.map(m => m.dataset.model)") == want
    for model in want:
        side = page.locator(f".nt-map-side[data-model={model}]")
        assert side.locator(".nt-map-title").text_content() == "The whole pass " + TITLE[model]
        for svg in side.locator("svg").all():  # drawn whole and short: the same parts
            assert texts(svg.locator("a .nt-map-name")) == shown(model), (name, model)
    if (SITE / "js" / "runtime" / "active.js").exists() and 'js/runtime/active.js' in (SITE / name).read_text(encoding="utf-8"):
        assert page.locator(".nt-map-side[data-model=tiny] a[aria-current]").count() > 0, f"{name}: a tiny-model demo, no part lit"
    if want[0] == "tiny":  # beside the text on a wide screen, every part a link to its page, the page's own marked
        nav = page.get_by_role("navigation", name=NAV)
        assert nav.count() == 1 and page.locator(f".md-sidebar--secondary {SHOWN}").is_visible()
        assert not page.locator(STRIP).is_visible()
        check_map(page, name, nav)


def check_the_map_shown_is_the_model_of_the_demo_on_screen(page, name):
    """On a page of more than one map: beside SmolLM2's bars the map is SmolLM2's and says nothing of the tiny model;
    beside a tiny-model demo, the tiny model's; beside GPT-2's tokenizer, GPT-2 small's. Only the shown map lights
    parts. On the page as open_page(name) leaves it: test_site.py's served load of every page checks it, after
    check_pages_maps."""
    if len(MAPS_OF.get(name, [])) < 2:
        return
    demos = page.locator("[data-pass-model]")
    models = set()
    for i in range(demos.count()):
        demo = demos.nth(i)
        model = demo.get_attribute("data-pass-model")
        demo.evaluate("d => d.scrollIntoView({block: 'center'})")
        page.wait_for_function("m => { const s = document.querySelectorAll('.nt-map-side:not([hidden])'); "
                               "return s.length === 1 && s[0].dataset.model === m; }", arg=model, timeout=3000)
        side = page.locator(SHOWN)
        assert side.locator(".nt-map-title").text_content() == "The whole pass " + TITLE[model]
        assert side.is_visible() and "tiny" not in side.text_content() or model == "tiny"
        assert page.locator(f".nt-map-side[hidden] .nt-map-on, {STRIP}[data-model]:not([data-model={model}]) .nt-map-on").count() == 0
        models.add(model)
    assert models == set(MAPS_OF[name])
    page.evaluate("() => window.scrollTo(0, 0)")


@pytest.mark.parametrize("name", [n for n in ("index.html", "block.html", "sampling.html", "real-models.html") if n in WITH_MAP])
def test_the_contents_are_whole_and_visible_beside_the_map_from_1024_to_1920(open_page, name):
    """Every link of the page's contents is on screen and nothing covers it, at the top of the page and half
    way down, at each common width from 1024 to 1920 px; the map sits under the contents, overlapping nothing.
    (The sizes come from the layout, not from a font: the checks read positions, never text widths.)"""
    page = open_page(name, width=1024, height=768, lazy=True)
    for width, height in SCREENS:
        page.set_viewport_size({"width": width, "height": height})
        for where in ("0", "document.documentElement.scrollHeight / 2"):
            page.evaluate(f"window.scrollTo(0, {where})")
            page.wait_for_timeout(250)
            found = page.evaluate("""() => {
                const header = document.querySelector('.md-header').getBoundingClientRect().bottom;
                const toc = document.querySelector('.md-sidebar--secondary .md-nav--secondary');
                const links = [...toc.querySelectorAll('a.md-nav__link')];
                const bad = links.filter(a => {
                    const r = a.getBoundingClientRect(), x = r.left + Math.min(r.width, 40) / 2, y = r.top + r.height / 2;
                    const at = document.elementFromPoint(x, y);
                    return r.height === 0 || r.top < header - 1 || r.bottom > innerHeight + 1 || !(at && a.contains(at));
                }).map(a => a.textContent.trim());
                const map = document.querySelector('.nt-map-side:not([hidden])').getBoundingClientRect();
                return {links: links.length, bad, tocBottom: toc.getBoundingClientRect().bottom, mapTop: map.top};
            }""")
            assert found["links"] >= 2 and found["bad"] == [], f"{name} at {width}x{height}: contents not whole: {found}"
            assert found["mapTop"] >= found["tocBottom"] - 1, f"{name} at {width}x{height}: the map overlaps the contents"
    clean(page)


def check_folded_map_opens_by_keyboard(page, name):
    """On a phone, a tiny-model page's map is a folded strip a line or two high that opens by keyboard, its parts
    then reached by Tab; the page no wider than the phone with it open. On a page of TINY as open_page(name,
    width=360, height=800) leaves it: test_pages_in_both_schemes.py checks it, in its light-scheme load."""
    strip = page.locator(STRIP)
    assert strip.is_visible() and not strip.evaluate("d => d.open")
    assert strip.bounding_box()["height"] < 90, f"{name}: the folded map is more than a line or two"
    assert not page.locator(SHOWN).is_visible()
    page.locator(f"{STRIP} > summary").focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.querySelector('details.nt-map-phone:not([hidden])').open")
    nav = page.get_by_role("navigation", name=NAV)
    assert nav.count() == 1
    check_map(page, name, nav)
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.closest('.nt-map-phone') !== null "
                         "&& document.activeElement.getAttribute('href') !== null"), "Tab does not reach the first part"
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{name}: {overflow}px wider than a 360-px phone with the map open"
    clean(page)


def check_the_block_page_draws_the_block_large(page, name):
    """The block page's figure, on the page as open_page(name) leaves it (test_site.py's served load of every page
    checks it); its 360-px width is that load's too: the figure scrolls in its own box, never the page."""
    if name != "block.html":
        return
    fig = page.locator(".nt-block-figure")
    assert fig.is_visible()
    widths = fig.locator(".nt-pw").evaluate_all("ps => ps.map(p => parseFloat(p.getAttribute('stroke-width')))")
    assert sorted(set(widths))[1] / sorted(set(widths))[0] == MODEL["n_embd"] / MODEL["d_head"]
    drawn = texts(fig.locator(".nt-psize"))
    assert {str(MODEL["n_embd"]), str(MODEL["d_head"]), f"{MODEL['d_mlp']}, through GELU"} <= set(drawn)
    assert fig.get_by_role("link").count() == 2 + MODEL["n_head"] + 2 + 1 + 2  # LNs, heads, join, proj, MLP, adds
    assert "residual stream" in fig.locator("svg").text_content()


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


FOLDED_BOXES = """() => [...document.querySelectorAll('.md-content details .md-typeset__scrollwrap')].map(t => [
  t.closest('details').open, t.scrollWidth > t.clientWidth + 1, t.getAttribute('role'), t.getAttribute('aria-label') || ''])"""


def test_a_wide_table_in_a_closed_fold_takes_the_focus_once_the_fold_opens(open_page):
    """js/site.js leaves the boxes of a closed fold alone (measuring them lays the fold out each time) and marks
    them when the fold opens: each wide one a named region, reachable by keyboard, its name unlike any other's."""
    page = open_page("real-models.html", width=360, height=800)
    boxes = page.evaluate(FOLDED_BOXES)
    assert boxes and all(not b[0] and b[2] is None for b in boxes), boxes  # closed, and not measured
    page.locator(".md-content details:has(.md-typeset__scrollwrap) > summary").first.click()
    page.wait_for_function("() => document.querySelector('.md-content details[open] .md-typeset__scrollwrap[role=region]')",
                           timeout=3000)
    opened = [b for b in page.evaluate(FOLDED_BOXES) if b[0]]
    assert any(b[1] for b in opened), "the fold holds no table wider than a phone: pick another"
    assert all((b[2] == "region") == b[1] for b in opened), opened
    names = page.evaluate("() => [...document.querySelectorAll('[data-nt-scroll]')].map(t => t.getAttribute('aria-label'))")
    assert len(names) == len(set(names)), names
    table = page.locator(".md-content details[open] .md-typeset__scrollwrap[role=region]").first
    table.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("t => t.scrollLeft > 0", arg=table.element_handle(), timeout=2000)
    clean(page)


@pytest.mark.parametrize("name", [n for n in ("index.html", "attention.html", "real-models.html") if n in WITH_MAP])
def test_on_a_phone_the_strip_never_covers_the_demo_being_read(open_page, name):
    """The folded map stays at the top of the text: with any demo's top just under the header, what is drawn
    there is the demo (at 360 px the strip used to stick under the header, over the landing chart)."""
    page = open_page(name, width=360, height=740)
    strip = page.locator(STRIP)
    assert strip.evaluate("d => getComputedStyle(d).position") == "static"
    covered = page.evaluate("""async () => {
        const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
        const out = [];
        for (const d of document.querySelectorAll('.nt-demo')) {
            const header = document.querySelector('.md-header').getBoundingClientRect().bottom;
            scrollBy(0, d.getBoundingClientRect().top - header - 4);
            await frame();
            const r = d.getBoundingClientRect();
            for (const x of [r.left + 12, (r.left + r.right) / 2, r.right - 12]) {
                const at = document.elementFromPoint(x, header + 12);
                if (!(at && d.contains(at))) out.push(d.dataset.demo + ' at x ' + Math.round(x) + ': ' + (at ? at.className || at.tagName : 'nothing'));
            }
        }
        return out;
    }""")
    assert covered == [], f"{name}: {covered}"
    # opened where it is, the map is there in full, and closes again by keyboard
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(300)  # the strip of the first demo's model
    strip.locator("summary").focus()
    page.keyboard.press("Enter")
    nav = page.get_by_role("navigation", name=NAV)
    assert nav.is_visible() and nav.get_by_role("link").count() >= 16
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    page.keyboard.press("Enter")
    assert not strip.evaluate("d => d.open")
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
    for name in page.locator(".nt-map-side[data-model=tiny] a", has=page.locator(".nt-map-name", has_text="logits")).all():
        assert name.get_attribute("aria-label").startswith(f"{model['vocab_size']} logits"), where


def test_a_readers_model_of_other_sizes_redraws_the_map_and_the_built_one_brings_it_back(open_page):
    page = open_page("training.html", width=1280, height=900, fresh=True)
    check_sizes(page, MODEL, "training, built")
    root = page.locator('.nt-demo[data-demo="train-yours"]')
    root.locator("textarea").fill("\n".join(FOX))
    root.locator('button[data-role="train"]').click()
    page.wait_for_function('document.querySelector(\'.nt-demo[data-demo="train-yours"]\').getAttribute("data-trained") === "yes"',
                           timeout=120000)
    yours = json.loads(page.evaluate(f"localStorage.getItem('{KEY}')"))["config"]["model"]
    assert (yours["vocab_size"], yours["n_ctx"]) != (MODEL["vocab_size"], MODEL["n_ctx"])
    check_sizes(page, MODEL, "training, just saved")  # the page keeps the built model until the reader switches
    use_yours(page)
    check_sizes(page, yours, "training, switched on")
    base = page.url.rsplit("/", 1)[0]
    for name in ("block.html", "sampling.html", "index.html"):
        page.goto(f"{base}/{name}", wait_until="load")
        use_yours(page)
        check_sizes(page, yours, name)
    assert page.locator(".nt-map-side[data-model=tiny] .nt-sr").text_content() == fill(FLOW, yours)  # the text alternative too
    # back to the built model with the switch under the title: the build's numbers return
    use_yours(page, on=False)
    page.wait_for_function("() => nexttoken.runtime.active.which === 'built'")
    check_sizes(page, MODEL, "index, built again")
    clean(page)
