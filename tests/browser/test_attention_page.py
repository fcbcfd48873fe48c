"""The attention page in a real browser: every arithmetic panel of the attention demo lays out without
overlap in its 260-px lane on a wide screen and on a phone (a term never runs under its line's result or
label); and the played step of attention (js/demos/attention-steps.js) steps through the tiny model's
real trace, by button and keyboard, with still frames under reduced motion."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

# Pairs of a panel line's parts (label, each term, the result) whose boxes overlap, as text.
OVERLAPS = """(sel) => {
  const out = [];
  const hit = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  for (const panel of document.querySelectorAll(sel + ' .nt-x-panel:not([hidden])')) {
    for (const li of panel.querySelectorAll('.nt-x-lines li')) {
      const parts = [...li.querySelectorAll('.nt-x-label, .nt-x-term, .nt-x-res')];
      for (let a = 0; a < parts.length; a++) for (let b = a + 1; b < parts.length; b++) {
        if (parts[a].contains(parts[b]) || parts[b].contains(parts[a])) continue;
        for (const ra of parts[a].getClientRects()) for (const rb of parts[b].getClientRects())
          if (hit(ra, rb)) out.push(`"${parts[a].textContent}" overlaps "${parts[b].textContent}"`);
      }
    }
  }
  return out;
}"""


def demo(page, name):
    root = page.locator(f'.nt-demo[data-demo="{name}"]').first
    root.scroll_into_view_if_needed()
    root.locator(".nt-live").first.wait_for(state="visible", timeout=10_000)
    return root


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


@pytest.mark.parametrize("width", [1280, 360])
def test_no_arithmetic_panel_of_a_lane_overlaps_its_own_numbers(open_page, width):
    page = open_page("attention.html", width=width)
    root = demo(page, "attention")
    lane = '.nt-demo[data-demo="attention"] [data-lane="a"]'
    buttons = root.locator('[data-lane="a"] .nt-x-num')
    assert buttons.count() > 10
    for i in range(buttons.count()):
        b = buttons.nth(i)
        b.click()
        assert b.get_attribute("aria-expanded") == "true"
        assert page.evaluate(OVERLAPS, lane) == [], b.get_attribute("aria-label")
        b.click()
    clean(page)


# ---- attention, played (js/demos/attention-steps.js) -------------------------------------------------

import json  # noqa: E402
import math  # noqa: E402
from pathlib import Path  # noqa: E402

TINY = Path(__file__).resolve().parents[2] / "site_data" / "tiny"
CONFIG = json.loads((TINY / "config.json").read_text())
SUMMARY = json.loads((TINY / "summary.json").read_text())
TRACES = {t["prompt"]: t for t in json.loads((TINY / "traces.json").read_text())["traces"]}
PROMPT = CONFIG["prompts"][0]


# Animations running inside the played attention.
MOVING = "() => document.getAnimations().filter(a => a.effect && a.effect.target && a.effect.target.closest('.nt-as')).length"


def stage(root):
    return root.locator(".nt-as").get_attribute("data-stage")


@pytest.mark.parametrize("width, mode", [(1280, "http"), (360, "file")])
def test_steps_go_query_each_key_softmax_mix_with_the_traces_numbers(open_page, width, mode):
    page = open_page("attention.html", mode=mode, width=width)
    root = demo(page, "attention-steps")
    tr, head = TRACES[PROMPT], SUMMARY["subject_head"]["head"]
    n, last = len(tr["tokens"]), len(tr["tokens"]) - 1
    step = root.locator("[data-role=step]")
    step.focus()
    expected = ["query"] + [f"key {j}" for j in range(n)] + ["softmax", "mix"]
    for k, name in enumerate(expected):
        page.keyboard.press("Enter")  # Step, by keyboard
        assert stage(root) == name
        said = root.locator(".nt-as-now .nt-as-on-text")
        assert said.count() == 1 and said.is_visible() and said.text_content().startswith(f"Step {k + 1} of {len(expected)}")
        assert root.locator(".nt-as-said").text_content() == said.text_content()  # what a screen reader hears
        met = root.locator(".nt-as-row.nt-as-met").count()
        assert met == (0 if name == "query" else min(n, k))
        if name.startswith("key "):
            j = int(name.split()[1])
            assert root.locator(".nt-as-row.nt-as-on").get_attribute("data-j") == str(j)
            score = root.locator(f'.nt-as-row[data-j="{j}"] .nt-as-score')
            assert score.is_visible()
            assert float(score.get_attribute("data-score")) == pytest.approx(tr["h"][0]["scores"][head][last][j], abs=1e-5)
            if j + 1 < n:  # the next key's score is not shown yet
                assert not root.locator(f'.nt-as-row[data-j="{j + 1}"] .nt-as-score').is_visible()
    weights = [float(w) for w in root.locator(".nt-as-weight").evaluate_all("ws => ws.map(w => w.dataset.weight)")]
    assert weights == pytest.approx(tr["h"][0]["attn_weights"][head][last], abs=1e-5)
    assert math.fsum(weights) == pytest.approx(1)
    out = json.loads(root.locator("[data-out]").get_attribute("data-out"))
    assert out == pytest.approx(tr["h"][0]["head_out"][head][last], abs=1e-5)
    assert root.locator(".nt-as-mixed").first.is_visible()
    page.keyboard.press("Enter")  # after the last step, Step starts again
    assert stage(root) == "query"
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 0
    clean(page)


def test_play_moves_through_the_steps_and_pause_holds_one(open_page):
    page = open_page("attention.html")
    root = demo(page, "attention-steps")
    play = root.locator("[data-role=play]")
    play.click()
    assert play.text_content() == "Pause"
    page.wait_for_function("() => document.querySelector('.nt-as').getAttribute('data-stage') === 'key 1'", timeout=15_000)
    play.click()  # Pause
    held = stage(root)
    page.wait_for_timeout(2500)
    assert stage(root) == held and play.text_content() == "Play"
    root.locator("[data-role=step]").click()  # the next key met, with motion: its products and score move in
    assert page.evaluate(MOVING) > 0
    clean(page)


def test_reduced_motion_plays_still_frames(open_page):
    page = open_page("attention.html")
    page.emulate_media(reduced_motion="reduce")
    root = demo(page, "attention-steps")
    root.locator("[data-role=play]").click()
    page.wait_for_function("() => document.querySelector('.nt-as').getAttribute('data-stage') === 'key 0'", timeout=10_000)
    assert page.evaluate(MOVING) == 0
    root.locator("[data-role=step]").click()  # Step pauses Play
    assert root.locator("[data-role=play]").text_content() == "Play"
    assert stage(root) == "key 1" and page.evaluate(MOVING) == 0
    clean(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_played_attention_is_axe_clean_at_its_last_step(open_page, scheme):
    from tests.helpers.axe import violations
    page = open_page("attention.html", width=360)
    page.emulate_media(color_scheme=scheme)
    root = demo(page, "attention-steps")
    while stage(root) != "mix":
        root.locator("[data-role=step]").click()
    assert violations(page, '.nt-demo[data-demo="attention-steps"]') == []
    clean(page)
