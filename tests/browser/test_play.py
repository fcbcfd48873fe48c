"""The pass, played (index page): Play reaches the pick, Step walks every stage and each stage lights its
part of the map; with reduced motion nothing animates and the content is the same; the map follows the
reader to each demo; keyboard and screen reader; axe finds nothing with the player open, in both schemes."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.helpers.axe import violations
from tests.helpers.tiny_page import use_yours

ROOT = Path(__file__).resolve().parents[2]
MODEL = json.loads((ROOT / "site_data" / "tiny" / "config.json").read_text())["model"]
HEADS = {f"head {i + 1}" for i in range(MODEL["n_head"])}

pytestmark = pytest.mark.browser

# Each stage and the parts of the map it lights, by their plain names (the map's LayerNorms and adds share names).
STAGES = [("tokens", {"text", "tokens"}), ("lookup", {"embedding + position"}), ("attention", {"LayerNorm"} | HEADS),
          ("values mixed", HEADS | {"join heads", "output projection", "add"}), ("MLP", {"LayerNorm", "MLP", "add"}),
          ("compare", {"final LayerNorm", f"{MODEL['vocab_size']} logits"}), ("softmax", {"softmax"}), ("pick", {"pick"})]
LIT = "() => [...document.querySelectorAll('.nt-map-side:not([hidden]) .nt-map-part.nt-map-on .nt-map-name')].map(t => t.textContent)"
# Every animation or transition running on the player or the map, gathered on each frame.
WATCH = """() => { window.ntSeen = []; const look = () => {
  for (const a of document.getAnimations()) { const t = a.effect && a.effect.target;
    if (t && t.closest && t.closest('.nt-play, .nt-map')) window.ntSeen.push(a.constructor.name + ' ' + (t.getAttribute('class') || t.tagName)); }
  window.ntLook = requestAnimationFrame(look); }; look(); }"""


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def player(page):
    box = page.locator(".nt-play")
    box.scroll_into_view_if_needed()
    return box


def lit(page) -> set[str]:
    return set(page.evaluate(LIT))


def check_stage(page, i: int):
    name, parts = STAGES[i]
    box = page.locator(".nt-play")
    assert box.get_attribute("data-stage") == name
    assert box.locator(".nt-play-jump[aria-current=step]").get_attribute("data-stage") == name
    assert box.locator(".nt-play-live").text_content().startswith(f"Stage {i + 1} of {len(STAGES)}, {name}: ")
    assert lit(page) == parts, name
    stage = box.locator(".nt-play-box")
    n = box.locator(".nt-play-box .nt-chip").count() if name == "tokens" else None
    if name == "tokens":
        assert n == len(page.locator(".nt-output .nt-tokens").first.locator(".nt-chip").all())
    if name == "lookup":  # a row from each table per token, and their sum
        tokens = page.locator(".nt-output .nt-tokens").first.locator(".nt-chip").count()
        assert stage.locator(".nt-play-sums .nt-strip").count() == 3 * tokens
        assert stage.locator(".nt-play-heat").count() == 2
    if name == "attention":  # one line per earlier token and head, as wide as its weight, the weights summing to 1
        for lane in stage.locator(".nt-lane").all():
            pcts = [float(re.sub(r"[^\d.]", "", t)) if not t.startswith("under") else 0.0
                    for t in lane.locator(".nt-play-pct").all_text_contents()]
            widths = [float(w) for w in lane.locator(".nt-play-line").evaluate_all("ls => ls.map(l => l.getAttribute('stroke-width'))")]
            assert abs(sum(pcts) - 100) < 0.6 and len(widths) == len(pcts)
            big = max(range(len(pcts)), key=pcts.__getitem__)
            assert widths[big] == max(widths) and abs(widths[big] - max(0.75, pcts[big] / 100 * 14)) < 0.02
        assert stage.locator(".nt-lane").count() == MODEL["n_head"]
    if name == "MLP":
        assert stage.locator(".nt-play-mlp .nt-strip").nth(2).locator(".nt-cell").count() == MODEL["d_mlp"]
    if name in ("compare", "softmax"):  # a bar per row of wte
        bars = stage.locator(".nt-play-prob" if name == "softmax" else ".nt-play-bar").count()
        assert bars == MODEL["vocab_size"]
    if name == "pick":
        want = page.locator(".nt-output .nt-pick-token").text_content()
        assert stage.locator(".nt-pick-token").text_content() == want
        assert stage.locator(".nt-new-tok code").text_content() == want


def test_step_walks_every_stage_and_each_lights_its_part(open_page):
    page = open_page("index.html", width=1280, height=900)
    box = player(page)
    assert box.get_attribute("data-stage") is None
    # the landing page opens on SmolLM2's bars: the map beside the player is the tiny model's once it is on screen
    page.wait_for_function("() => { const m = document.querySelector('.nt-map-side:not([hidden])'); "
                           "return m.dataset.model === 'tiny' && m.querySelector('.nt-map-part.nt-map-on'); }", timeout=3000)
    assert len(lit(page)) > len(STAGES)  # before: the demo on screen lights the whole pass
    step = box.get_by_role("button", name="Step", exact=True)
    seen = set()
    for i in range(len(STAGES)):
        step.focus()
        page.keyboard.press("Enter")
        check_stage(page, i)
        assert page.evaluate("() => document.activeElement.getAttribute('data-role')") == "step"  # focus stays
        seen |= lit(page)
        assert box.locator(".nt-play-live").get_attribute("aria-live") == "polite"
    names = set(page.evaluate("() => [...document.querySelectorAll('.nt-map-side:not([hidden]) .nt-map-name')].map(t => t.textContent)"))
    assert names - seen == {"append and repeat"}  # every part of one pass is played; the loop is Append's
    # a stage can be reached directly, and Back to start puts the map back under the reader's scrolling
    box.get_by_role("list", name="Stages of the pass").get_by_role("button", name="3 attention").click()
    check_stage(page, 2)
    box.get_by_role("button", name="Back to start").click()
    assert box.get_attribute("data-stage") is None and box.locator(".nt-play-box").count() == 0
    page.wait_for_timeout(300)
    assert len(lit(page)) > len(STAGES)
    clean(page)


def test_a_prompt_with_a_problem_hides_the_player_and_its_stage_goes_dark(open_page):
    page = open_page("index.html", width=1280, height=900)
    box = player(page)
    box.locator(".nt-play-jump[data-stage='MLP']").click()
    assert lit(page) == dict(STAGES)["MLP"]
    prompt = page.locator(".nt-demo[data-demo=one-token] input[data-role=prompt]")
    prompt.fill("the cat #")
    prompt.press("Enter")
    assert box.is_hidden() and page.locator(".nt-demo[data-demo=one-token] .nt-msg.nt-error").is_visible()
    page.wait_for_timeout(300)
    assert len(lit(page)) > len(STAGES)  # the demo on screen lights the whole pass again, not the old stage
    prompt.fill("the dog")
    prompt.press("Enter")
    assert box.is_visible() and box.get_attribute("data-stage") is None
    assert "“the dog”" in box.locator(".nt-play-live").text_content()
    box.locator("[data-role=step]").click()
    assert box.locator(".nt-play-box .nt-chip").count() == page.locator(".nt-output .nt-tokens").first.locator(".nt-chip").count()
    clean(page)


def test_play_reaches_the_pick_with_motion_and_pause_holds_it(open_page):
    page = open_page("index.html", width=1280, height=900)
    page.emulate_media(reduced_motion="no-preference")
    box = player(page)
    page.evaluate(WATCH)
    play = box.locator("[data-role=play]")
    play.click()
    page.wait_for_function("() => document.querySelector('.nt-play').getAttribute('data-stage') === 'lookup'", timeout=15000)
    play.click()  # pause
    assert play.text_content() == "Play"
    held = box.get_attribute("data-stage")
    page.wait_for_timeout(2500)
    assert box.get_attribute("data-stage") == held and lit(page) == dict(STAGES)[held]
    play.click()
    assert play.text_content() == "Pause"
    page.wait_for_function("() => document.querySelector('.nt-play').getAttribute('data-stage') === 'pick' "
                           "&& document.querySelector('.nt-play [data-role=play]').textContent === 'Play again'", timeout=60000)
    check_stage(page, len(STAGES) - 1)
    seen = page.evaluate("() => { cancelAnimationFrame(window.ntLook); return window.ntSeen; }")
    assert any("nt-play-line" in s for s in seen) and any("nt-cell" in s for s in seen), sorted(set(seen))[:10]
    clean(page)


def test_with_reduced_motion_nothing_animates_and_the_content_is_the_same(open_page):
    page = open_page("index.html", width=1280, height=900)
    page.emulate_media(reduced_motion="reduce")
    box = player(page)
    page.evaluate(WATCH)
    box.locator("[data-role=play]").click()
    for i in range(len(STAGES)):
        page.wait_for_function(f"() => document.querySelector('.nt-play').getAttribute('data-stage') === {json.dumps(STAGES[i][0])}",
                               timeout=15000)
        check_stage(page, i)
        assert page.evaluate("() => document.querySelector('.nt-play').getAnimations({subtree: true}).length") == 0
    page.wait_for_function("() => document.querySelector('.nt-play [data-role=play]').textContent === 'Play again'", timeout=15000)
    seen = page.evaluate("() => { cancelAnimationFrame(window.ntLook); return window.ntSeen; }")
    assert seen == [], sorted(set(seen))[:10]
    clean(page)


def test_the_map_follows_the_reader_to_each_demo(open_page):
    page = open_page("attention.html", width=1280, height=900)
    demos = page.locator("[data-demo][data-pass-parts]")
    assert demos.count() >= 2
    for d in demos.all():
        d.evaluate("e => e.scrollIntoView({block: 'center'})")
        words = set(d.get_attribute("data-pass-parts").split())
        page.wait_for_timeout(250)
        want = set(page.evaluate("""w => [...document.querySelectorAll('.nt-map-side:not([hidden]) .nt-map-part[data-pass-part]')]
            .filter(a => a.getAttribute('data-pass-part').split(' ').some(x => w.includes(x)))
            .map(a => a.querySelector('.nt-map-name').textContent)""", sorted(words)))
        assert want and lit(page) == want, (d.get_attribute("data-demo"), lit(page), want)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(250)
    first = page.locator("[data-demo]").first.bounding_box()
    if first["y"] > 900:  # no demo on the first screen: nothing lit by the demos
        assert lit(page) == set()
    clean(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_finds_nothing_with_the_player_open(open_page, scheme):
    page = open_page("index.html", width=1280, height=900, scheme=scheme, motion="reduce")
    box = player(page)
    for width in (1280, 360):
        page.set_viewport_size({"width": width, "height": 900})
        for stage in ("lookup", "attention", "softmax", "pick"):
            box.locator(f".nt-play-jump[data-stage='{stage}']").click()
            found = violations(page, ".nt-play")
            assert found == [], f"{scheme}, {width} px, {stage}: " + "; ".join(found)
            overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, f"{stage} at {width} px: the page scrolls sideways by {overflow}px"
    assert violations(page) == []
    clean(page)


def test_the_played_pass_takes_its_sizes_from_the_readers_model(open_page):
    page = open_page("training.html", width=1280, height=900, fresh=True)
    root = page.locator('.nt-demo[data-demo="train-yours"]').first
    root.locator(".nt-live").first.wait_for(state="visible", timeout=5000)
    root.locator("textarea").fill("\n".join(["a fox ran.", "the fox ate a hen.", "a hen ran to the den.",
                                             "the fox saw the hen.", "a hen saw a fox."]))
    page.wait_for_function("() => (document.querySelector('.nt-demo[data-demo=train-yours] [data-role=sizes]') || {}).textContent",
                           timeout=10000)
    root.locator('button[data-role="train"]').click()
    page.wait_for_function("document.querySelector('.nt-demo[data-demo=train-yours]').getAttribute('data-trained') === 'yes'",
                           timeout=180000)
    sizes = json.loads(page.evaluate("localStorage.getItem('nexttoken.yourModel.v1')"))["config"]["model"]
    assert (sizes["vocab_size"], sizes["n_ctx"]) != (MODEL["vocab_size"], MODEL["n_ctx"])
    page.goto(page.url.replace("training.html", "index.html"), wait_until="load")
    use_yours(page)
    box = player(page)
    box.locator(".nt-play-jump[data-stage='tokens']").click()
    assert box.locator(".nt-play-live").text_content().endswith(f"the vocabulary of {sizes['vocab_size']}.")
    box.locator(".nt-play-jump[data-stage='lookup']").click()
    heats = box.locator(".nt-play-heat")
    assert heats.nth(0).locator(".nt-hc").count() == sizes["vocab_size"] * sizes["n_embd"]
    assert heats.nth(1).locator(".nt-hc").count() == sizes["n_ctx"] * sizes["n_embd"]
    box.locator(".nt-play-jump[data-stage='compare']").click()
    assert box.locator(".nt-play-bar").count() == sizes["vocab_size"]
    box.locator(".nt-play-jump[data-stage='pick']").click()
    assert box.locator(".nt-pick-token").first.text_content() == page.locator(".nt-output .nt-pick-token").text_content()
    page.evaluate("localStorage.clear()")
    clean(page)
