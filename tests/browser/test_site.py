"""The built site in a real browser: clean pages (served and from file://), each page's map of the pass
(test_pass_map_in_pages.check_pages_maps, in the served load) and its header on a phone
(test_look.check_header_on_a_phone, in the same load), the eight demos driven like a reader, hostile
input, keyboard-only use, and no sideways scroll at a phone's width."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from scripts.site.hooks.numbers import pct
from scripts.tiny.tokenizer import load_tokenizer
from tests.browser.test_look import check_header_on_a_phone
from tests.browser.test_pass_map_in_pages import (check_pages_maps, check_the_block_page_draws_the_block_large,
                                                  check_the_map_shown_is_the_model_of_the_demo_on_screen)

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"


def site_pages() -> list[str]:
    return sorted(p.name for p in SITE.glob("*.html") if p.name != "404.html")


pytestmark = pytest.mark.browser

PAGES = site_pages()
TINY = ROOT / "site_data" / "tiny"
SUMMARY = json.loads((TINY / "summary.json").read_text())
TRACES = {t["prompt"]: t for t in json.loads((TINY / "traces.json").read_text())["traces"]}
CONFIG = json.loads((TINY / "config.json").read_text())
TOK = load_tokenizer(TINY / "tokenizer.json")

DEMO_PAGES = {
    "one-token": "index.html", "tokenize": "tokens.html", "attention": "attention.html",
    "two-heads": "block.html", "temperature": "sampling.html", "generate": "generation.html",
    "context-window": "context.html", "snapshots": "training.html",
}
HOSTILE = ["<img src=x onerror=window.__pwned=1>", "😀🐈 emoji", "a" * 500, "the quick zebra jumps", ""]


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def demo(page, name):
    root = page.locator(f'.nt-demo[data-demo="{name}"]')
    root.locator(".nt-live").first.wait_for(state="visible", timeout=5000)
    return root


def test_pages_found():
    assert PAGES, "no pages in build/site (run `make site`)"
    assert "index.html" in PAGES


@pytest.mark.parametrize("mode", ["http", "file"])
def test_a_request_to_another_host_is_recorded_and_never_answered(open_page, mode):
    page = open_page("tokens.html", mode)
    answered = page.evaluate("""() => fetch("https://example.com/x.js").then(() => true, () => false)""")
    assert answered is False
    assert "external request: https://example.com/x.js" in page.nt_problems, page.nt_problems


FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))))"


def nothing_loading(page, timeout: float = 30.0) -> None:
    """Until no request of the page is in flight, then two frames (what the last one loaded has run)."""
    end = time.monotonic() + timeout
    while page.nt_loading and time.monotonic() < end:
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => r(true)))")
    assert not page.nt_loading, [r.url for r in page.nt_loading]
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")


@pytest.mark.parametrize("name", PAGES)
def test_page_served_clean_with_its_maps_and_header(open_page, name):
    """Served, the page has no problem with every figure loaded, its maps of the pass are right
    (test_pass_map_in_pages.py's checks: the maps, the one shown beside each demo, the block page's figure), and
    narrowed to a phone it does not scroll sideways and its header is whole. (Screenshots to look at:
    scripts/quality/screens.py, in both schemes; this test wrote two a page that nothing read.)"""
    page = open_page(name, "http")
    check_pages_maps(page, name)  # the map of the pass (test_pass_map_in_pages.py), in this load
    check_the_map_shown_is_the_model_of_the_demo_on_screen(page, name)
    check_the_block_page_draws_the_block_large(page, name)
    # figures load lazily: every image loaded (or failed, which clean() reports) and nothing else of the page's
    # still loading (was: the network idle for 500 ms, twice)
    page.evaluate("() => document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; })")
    page.wait_for_function("() => [...document.images].every(i => i.complete)", timeout=30_000)
    nothing_loading(page)
    page.set_viewport_size({"width": 360, "height": 800})
    page.evaluate(FRAMES)  # the page's resize and media-query handlers, then one more frame (was 200 ms)
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"{name}: the page is {overflow}px wider than a 360-px phone"
    check_header_on_a_phone(page, name)  # test_look.py's header check, in this load
    clean(page)


@pytest.mark.parametrize("name", PAGES)
def test_page_from_file_clean_with_its_math_rendered(open_page, name):
    """Opened from disk, the page has no problem and every demo starts; its formulas arrive as MathML (made at
    build time), laid out by the browser: none left as LaTeX."""
    page = open_page(name, "file")
    nothing_loading(page)  # a demo's scripts loaded after the read-through have run (was 300 ms)
    assert page.locator(".arithmatex").count() == 0, f"{name}: a formula was left unconverted"
    for i in range(page.locator("math").count()):
        formula = page.locator("math").nth(i)
        if not formula.is_visible():  # e.g. inside a no-JavaScript fallback that the demo replaced
            continue
        box = formula.bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, f"{name}: formula {i} has no layout"
    clean(page)
    for d in page.locator(".nt-demo").all():
        kind = d.get_attribute("data-demo")
        if kind == "gpt2-tokenizer":
            continue
        assert d.locator(".nt-live").count() == 1, f"{name}: demo {kind} did not start from file://"


@pytest.mark.parametrize("mode", ["http", "file"])
def test_search_works(open_page, mode):
    page = open_page("sources.html", mode)
    page.wait_for_timeout(300)
    page.keyboard.press("/")  # Material's shortcut opens the search box
    page.wait_for_timeout(100)
    page.keyboard.type("attention", delay=20)
    page.locator(".md-search-result__item").first.wait_for(timeout=8000)
    assert page.locator(".md-search-result__item").count() > 0
    clean(page)


# ---- the demos, driven like a reader ---------------------------------------------------------

def test_one_token_demo_matches_traces(open_page):
    prompt = CONFIG["prompts"][0]
    page = open_page(DEMO_PAGES["one-token"])
    root = demo(page, "one-token")
    inp = root.locator("input[data-role=prompt]")
    inp.fill(prompt)
    inp.press("Enter")
    root.locator("details.nt-pass-all > summary").click()  # every stage at once, folded under the played pass
    rows = root.locator("li[data-token]")
    rows.first.wait_for()
    shown = [(rows.nth(i).locator(".nt-bar-label").inner_text(), rows.nth(i).locator(".nt-bar-value").inner_text())
             for i in range(5)]
    expected = [(e["token"], pct(e["prob"], 1)) for e in TRACES[prompt]["top"][:5]]
    assert shown == expected
    assert root.locator(".nt-pick-token").inner_text() == SUMMARY["picks"][prompt]["token"]
    # append the pick: the prompt grows by one token
    root.get_by_role("button", name="Append the pick and run again").click()
    assert inp.input_value().endswith(SUMMARY["picks"][prompt]["token"].replace("·", " "))
    clean(page)


def test_attention_demo_cat_mat_dog_rug(open_page):
    page = open_page(DEMO_PAGES["attention"])
    root = demo(page, "attention")
    a = root.locator('[data-lane="a"] .nt-pick-token').inner_text()
    b = root.locator('[data-lane="b"] .nt-pick-token').inner_text()
    assert (a, b) == (SUMMARY["picks"][CONFIG["prompts"][0]]["token"], SUMMARY["picks"][CONFIG["prompts"][1]]["token"])
    assert (a, b) == ("·mat", "·rug")
    # the subject head sends most of the last token's weight to the subject
    col = root.locator('[data-lane="a"] .nt-attn-col[data-token="·cat"]')
    assert float(col.get_attribute("data-weight")) == pytest.approx(SUMMARY["subject_head"]["weight_cat"], abs=1e-6)
    inp = root.locator('[data-lane="b"] input')
    inp.fill("my dog sat on the")
    inp.press("Enter")
    page.wait_for_timeout(100)
    assert root.locator('[data-lane="b"] .nt-pick-token').inner_text() == "·rug"
    clean(page)


def test_generate_demo_cache_lanes(open_page):
    page = open_page(DEMO_PAGES["generate"])
    root = demo(page, "generate")
    root.locator("select").select_option("300")
    root.get_by_role("button", name="Play").click()
    page.wait_for_function("() => !document.querySelector('.nt-demo[data-demo=generate]').hasAttribute('data-playing')", timeout=15000)
    nc = root.locator('[data-lane="nocache"]')
    c = root.locator('[data-lane="cache"]')
    assert nc.locator(".nt-new-tok").all_inner_texts() == c.locator(".nt-new-tok").all_inner_texts()
    greedy = next(g for g in json.loads((TINY / "traces.json").read_text())["greedy"] if g["prompt"] == "the cat")
    assert nc.locator(".nt-new-tok").all_inner_texts() == [s["token"] for s in greedy["steps"]]
    rows_nc = int(nc.locator(".nt-totals").get_attribute("data-rows"))
    rows_c = int(c.locator(".nt-totals").get_attribute("data-rows"))
    assert rows_nc > rows_c
    clean(page)


def test_tokenize_demo_unseen_word(open_page):
    page = open_page(DEMO_PAGES["tokenize"])
    root = demo(page, "tokenize")
    inp = root.locator("input[data-role=text]")
    # it opens at merge 0 (single characters) with Next enabled, and steps through every merge the
    # word uses in rank order (ranked from 0, as the page ranks them), marking each in the ranked list
    steps = TOK.merge_steps(" " + root.locator("input[data-role=text]").input_value())
    assert root.locator("input[type=range]").input_value() == "0"
    assert root.get_by_role("button", name="Next merge").is_enabled()
    assert root.locator(".nt-merge-list li").count() == len(TOK.to_json()["merges"])
    assert root.locator(".nt-merge-list").get_attribute("start") == "0"
    want_ranks = [rank for _, rank, _ in steps[1:]]
    assert want_ranks == sorted(want_ranks)
    for k, (pair, rank, symbols) in enumerate(steps[1:], start=1):
        assert root.locator('.nt-merge-list li[aria-current="step"]').get_attribute("data-rank") == str(rank)
        root.get_by_role("button", name="Next merge").click()
        assert root.locator(".nt-merge-last").get_attribute("data-rank") == str(rank)
        assert root.locator(".nt-merge-row code").all_inner_texts() == [TOK.show(TOK.vocab.index(x)) for x in symbols]
        assert root.locator(".nt-merge-list li.nt-merge-done").count() == len(set(want_ranks[:k]))
    assert root.get_by_role("button", name="Next merge").is_disabled()
    inp.fill("cats")
    inp.press("Enter")
    page.wait_for_timeout(100)
    assert root.locator("input[type=range]").input_value() == "0" and root.locator(".nt-final-token").count() == 0
    root.get_by_role("button", name="All merges").click()
    assert root.locator(".nt-final-token").all_inner_texts() == SUMMARY["cats"] == ["·cat", "s"]
    # step back through the merges and forward again
    root.get_by_role("button", name="Previous merge").click()
    assert root.locator(".nt-final-token").count() == 0
    root.get_by_role("button", name="All merges").click()
    assert root.locator(".nt-final-token").all_inner_texts() == ["·cat", "s"]
    # start of text: no leading space, so the merges that built ·cat do not apply (as in Python)
    root.locator("input[type=checkbox]").check()
    page.wait_for_timeout(100)
    root.get_by_role("button", name="All merges").click()
    expected = [TOK.show(i) for i in TOK.encode("cats")]
    assert root.locator(".nt-final-token").all_inner_texts() == expected != ["·cat", "s"]
    clean(page)


def test_gpt2_chips_keep_the_space_and_show_bytes(open_page):
    """GPT-2's live chips draw a leading space as ·, as the tiny model's do, and a token holding only
    part of a character as its bytes in hex (never U+FFFD), with the character its run of bytes makes."""
    page = open_page(DEMO_PAGES["tokenize"])
    root = demo(page, "gpt2-tokenizer")
    root.get_by_role("button", name=re.compile("Load GPT-2's tokenizer")).click()
    inp = root.locator("input[data-role=text]")
    expect_enabled = page.wait_for_function("e => !e.disabled", arg=inp.element_handle(), timeout=20000)
    assert expect_enabled
    inp.fill(" and tea \U0001F375 now")
    inp.press("Enter")
    chips = root.locator(".nt-chip code").all_inner_texts()
    assert chips[0] == "·and" and "·tea" in chips and "·now" in chips
    assert not any("\ufffd" in c for c in chips)
    parts = root.locator(".nt-chip-bytes code").all_inner_texts()
    assert parts and all(re.fullmatch(r"·*0x[0-9A-F]{2}( 0x[0-9A-F]{2})*", c) for c in parts)
    assert " ".join(parts).replace("·", "").split() == [f"0x{b:02X}" for b in "\U0001F375".encode()]
    assert root.locator(".nt-byte-runs li code").last.inner_text() == "·\U0001F375"
    clean(page)


def test_temperature_demo_t0_always_top(open_page):
    page = open_page(DEMO_PAGES["temperature"])
    root = demo(page, "temperature")
    slider = root.locator("input[type=range]").first
    slider.focus()
    slider.press("Home")
    page.wait_for_timeout(50)
    top = root.locator("li[data-token]").first.get_attribute("data-token")
    assert top == SUMMARY["verbs_after_the_cat"][0]["token"]
    for _ in range(6):
        root.get_by_role("button", name="Draw").click()
        assert root.locator(".nt-pick-token").inner_text() == top
    # at T = 1 the bars equal the traced probabilities
    slider.fill("1")
    page.wait_for_timeout(50)
    first = root.locator("li[data-token]").first
    assert first.locator(".nt-bar-value").inner_text() == pct(TRACES["the cat"]["top"][0]["prob"], 1)
    clean(page)


def test_temperature_demo_at_t0_keeps_the_t1_ranking_and_says_which_draw_of_which_seed(open_page):
    page = open_page(DEMO_PAGES["temperature"])
    root = demo(page, "temperature")
    slider = root.locator("input[type=range]").first
    slider.focus()
    slider.press("Home")
    page.wait_for_timeout(50)
    # the "before temperature" column keeps the T = 1 ranking, not the T = 0 one (all ties after the top)
    before = root.locator(".nt-lane").first.locator("li[data-token], li").all_inner_texts()
    expected = [e["token"] for e in TRACES["the cat"]["top"]][:3]
    assert [t.split()[0] for t in before[:3]] == expected
    assert "greedy decoding" in root.locator(".nt-output .nt-small").first.inner_text()
    seed = root.locator("input[data-role=seed]")
    for n in range(1, 4):  # the draw rule (issue 29): Draw n takes the n-th number of one seed
        root.get_by_role("button", name="Draw").click()
        shown = re.search(r"Draw (\d+) with seed (\d+):", root.locator(".nt-pick").inner_text()).groups()
        assert shown == (str(n), seed.input_value()), "the pick says which draw of which seed, the seed box that seed"
    assert shown == ("3", "1")
    clean(page)


def test_two_heads_demo_keyboard(open_page):
    page = open_page(DEMO_PAGES["two-heads"])
    root = demo(page, "two-heads")
    grids = root.locator(".nt-heat")
    assert grids.count() == CONFIG["model"]["n_head"]
    g = grids.nth(SUMMARY["subject_head"]["head"])
    g.focus()
    readout = root.locator(".nt-readout").nth(SUMMARY["subject_head"]["head"])
    assert "·cat" in readout.inner_text()
    g.press("Home")
    assert "position 0" in readout.inner_text().split("attention to")[1]
    clean(page)


def test_window_demo_slides_past_the_window(open_page):
    page = open_page(DEMO_PAGES["context-window"])
    root = demo(page, "context-window")
    inp = root.locator("input[data-role=prompt]")
    inp.fill("the cat sat on the mat. the dog")
    inp.press("Enter")
    page.wait_for_timeout(100)
    add = root.get_by_role("button", name="Add a token")
    add.click()
    add.click()
    info = root.locator(".nt-window-info")
    assert int(info.get_attribute("data-window-start")) > 0
    assert root.locator(".nt-chip.nt-gone").count() > 0
    assert info.get_attribute("data-rebuilt") == "1"
    assert root.locator(".nt-chip.nt-in-window").count() == CONFIG["model"]["n_ctx"]
    clean(page)


def test_training_demo_loss_falls(open_page):
    page = open_page(DEMO_PAGES["snapshots"])
    root = demo(page, "snapshots")
    root.locator('button[data-role="load-snapshots"]').click()  # the snapshots load when asked (issue 11)
    slider = root.locator("input[type=range]").first
    slider.focus()
    slider.press("Home")
    first = float(root.locator(".nt-train-mean").get_attribute("data-mean"))
    means = [first]
    for _ in range(5):
        slider.press("PageUp")
        means.append(float(root.locator(".nt-train-mean").get_attribute("data-mean")))
    slider.press("End")
    last = float(root.locator(".nt-train-mean").get_attribute("data-mean"))
    assert last < first / 3, (first, last)
    # the demo replays the last snapshot (float16 weights); PyTorch computed the same sentence's
    # per-position losses from those weights into training.json
    snap = json.loads((TINY / "training.json").read_text())["snapshots"][-1]
    sentence = root.locator("select").first.input_value()
    ref = next(p for p in snap["positions"] if p["sentence"] == sentence)
    assert last == pytest.approx(ref["mean"], abs=1e-6)
    # each column names the token read as well as the one to predict
    inputs = root.locator(".nt-loss-col").evaluate_all("cs => cs.map(c => c.dataset.input)")
    assert inputs == [TOK.show(i) for i in TOK.encode(sentence)]
    assert root.locator(".nt-loss-col .nt-loss-input").all_inner_texts() == inputs
    # the curve's step axis is logarithmic: the snapshots, taken at roughly geometric steps, spread
    # across it instead of crowding its first sliver; both axes are labelled
    svg = root.locator("svg.nt-loss-svg")
    assert svg.get_attribute("data-scale") == "log"
    labels = svg.locator("text").all_text_contents()
    assert "loss (nats)" in labels and "training step (log scale)" in labels
    box = svg.locator("line").evaluate_all("ls => [ls[0].x1.baseVal.value, ls[0].x2.baseVal.value]")
    xs = svg.locator("circle").evaluate_all("cs => cs.map(c => c.cx.baseVal.value)")
    assert len(xs) == len(json.loads((TINY / "training.json").read_text())["snapshots"])
    first_tenth = sum(x < box[0] + 0.1 * (box[1] - box[0]) for x in xs)
    assert first_tenth <= len(xs) // 6, (first_tenth, len(xs))
    assert xs == sorted(xs)
    clean(page)


# ---- hostile input ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(DEMO_PAGES))
def test_hostile_input(open_page, kind):
    page = open_page(DEMO_PAGES[kind])
    root = demo(page, kind)
    inputs = root.locator("input[type=text]")
    if inputs.count() == 0:
        pytest.skip(f"demo {kind} has no text box")
    for i in range(inputs.count()):
        box = inputs.nth(i)
        for text in HOSTILE:
            box.fill(text)
            box.press("Enter")
            page.wait_for_timeout(60)
            assert page.evaluate("() => window.__pwned") is None
            assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"], img[onerror]').length") == 0
            err = root.locator(".nt-msg.nt-error:visible")
            assert err.count() >= 1, f"{kind}: no message for {text[:30]!r}"
            assert err.first.inner_text().strip()
        box.fill("the cat")
        box.press("Enter")
        page.wait_for_timeout(80)
        assert root.locator(".nt-msg.nt-error:visible").count() == 0, f"{kind}: did not recover"
    clean(page)


# ---- keyboard only ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", sorted(DEMO_PAGES))
def test_keyboard_reaches_every_control(open_page, kind):
    page = open_page(DEMO_PAGES[kind])
    root = demo(page, kind)
    page.evaluate("""(kind) => {
        const r = document.querySelector(`.nt-demo[data-demo="${kind}"] .nt-live`);
        r.querySelectorAll('details').forEach(d => { d.open = true; });  // a fold's controls count once it is opened
        r.querySelectorAll('input, button, select, [tabindex="0"]').forEach((e, i) => e.setAttribute('data-ktest', i));
    }""", kind)
    wanted = set(root.locator(".nt-live [data-ktest]").evaluate_all(
        "els => els.filter(e => !e.disabled && e.offsetParent !== null && !(e.type === 'radio' && !e.checked)"
        # a radio group made of buttons (the attention lines' tokens) is one tab stop too: its checked one
        " && !(e.getAttribute('role') === 'radio' && e.getAttribute('aria-checked') !== 'true')).map(e => e.dataset.ktest)"))
    page.locator("body").focus()
    page.evaluate("() => document.querySelector('.nt-demo').scrollIntoView()")
    root.locator(".nt-live").evaluate("el => { el.setAttribute('tabindex', '-1'); el.focus(); }")
    seen = set()
    for _ in range(len(wanted) * 3 + 10):
        page.keyboard.press("Tab")
        k = page.evaluate("() => document.activeElement && document.activeElement.dataset.ktest")
        if k is not None:
            seen.add(k)
        if wanted <= seen:
            break
    assert wanted <= seen, f"{kind}: not reachable by Tab: {sorted(wanted - seen)}"
    clean(page)


def test_keyboard_slider_and_enter(open_page):
    page = open_page(DEMO_PAGES["temperature"])
    root = demo(page, "temperature")
    slider = root.locator("input[type=range]").first
    slider.focus()
    before = slider.input_value()
    page.keyboard.press("ArrowLeft")
    assert slider.input_value() != before
    btn = root.get_by_role("button", name="Draw")
    btn.focus()
    page.keyboard.press("Enter")
    assert root.locator(".nt-pick-token").count() == 1
    clean(page)
