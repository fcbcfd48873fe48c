"""The shelf's demos (Making it fast, Storing the weights) in a real browser: the KV cache's slider, the router's top k and
speculative decoding's accept/reject build from the page's data attributes and show the build's own
numbers (scripts/site/costs.py, recomputed here from site_data), work by keyboard, served and from
file://. (That no page of the shelf scrolls sideways at 360 px and axe finds nothing in either scheme:
test_pages_in_both_schemes.py, in its load of each page.)"""
from __future__ import annotations

import math

import pytest

from scripts.site.hooks import numbers

pytestmark = pytest.mark.browser
MB = 1e6


@pytest.fixture(scope="module")
def around():
    return numbers.build_context()["around"]


def demo(page, name):
    root = page.locator(f'.nt-demo[data-demo="{name}"]').first
    root.scroll_into_view_if_needed()
    root.locator(".nt-live").first.wait_for(state="visible", timeout=10_000)
    return root


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


@pytest.mark.parametrize("mode", ["http", "file"])
def test_kv_cache_slider_runs_to_each_models_window_and_reads_the_builds_bytes(open_page, around, mode):
    page = open_page("fast.html", mode=mode)
    root = demo(page, "kv-cache")
    slider = root.locator("input[type=range]")
    readout = root.locator(".nt-kv-readout")
    s, g = around["kv"]["smollm2"], around["kv"]["gpt2"]
    assert int(slider.get_attribute("max")) == s["n_ctx"]
    assert float(readout.get_attribute("data-mb")) == pytest.approx(s["full_mb"])
    slider.focus()
    page.keyboard.press("Home")  # the slider by keyboard: one token
    assert float(readout.get_attribute("data-mb")) == pytest.approx(s["bytes"] / MB)
    assert f"{s['bytes']:,} bytes a token" in readout.text_content()
    root.get_by_label("GPT-2 small").check()
    assert int(slider.get_attribute("max")) == g["n_ctx"]
    slider.focus()
    page.keyboard.press("End")
    assert float(readout.get_attribute("data-mb")) == pytest.approx(g["full_mb"])
    assert " × ".join(map(str, g["factors"])) in readout.text_content()
    clean(page)


def test_router_lights_the_top_k_with_the_builds_gates(open_page, around):
    page = open_page("weights.html")
    root = demo(page, "moe-router")
    ro = around["router"]
    radios = root.locator("input[type=radio]")
    assert radios.count() == len(ro["rows"])
    radios.nth(len(ro["rows"]) - 1).focus()
    for at in range(len(ro["rows"]) - 1, -1, -1):
        if at < len(ro["rows"]) - 1:
            page.keyboard.press("ArrowLeft")  # the radios by keyboard: one token back
        r = ro["rows"][at]
        bars = root.locator(".nt-bar[data-expert]").evaluate_all(
            "ls => ls.map(l => ({e: +l.dataset.expert, s: +l.dataset.score, kept: +l.dataset.kept, g: +l.dataset.gate}))")
        assert [b["s"] for b in bars] == pytest.approx(r["scores"], abs=1e-12)
        kept = [b for b in bars if b["kept"]]
        assert sorted(b["e"] for b in kept) == sorted(r["keep"])
        for e, gate in zip(r["keep"], r["gates"]):
            assert next(b["g"] for b in kept if b["e"] == e) == pytest.approx(gate, abs=1e-12)
    clean(page)


def test_speculative_decoding_shows_p_and_q_and_keeps_drafts_at_the_rules_rate(open_page, around):
    page = open_page("fast.html")
    root = demo(page, "spec-decode")
    sp = around["spec"]
    for r in sp["rows"]:
        i = sp["tokens"].index(r["token"])
        assert float(root.locator(f'.nt-bar[data-token="{i}"][data-kind="p"]').get_attribute("data-value")) == pytest.approx(r["p"], abs=1e-12)
        assert float(root.locator(f'.nt-bar[data-token="{i}"][data-kind="q"]').get_attribute("data-value")) == pytest.approx(r["q"], abs=1e-12)
    one = root.get_by_role("button", name="Draft one token")
    one.focus()
    page.keyboard.press("Enter")
    summary = root.locator(".nt-spec-sum")
    assert summary.get_attribute("data-total") == "1"
    assert root.locator(".nt-spec-last").get_attribute("data-kept") in ("0", "1")
    root.get_by_role("button", name="Draft 1,000").click()
    total, kept = int(summary.get_attribute("data-total")), int(summary.get_attribute("data-kept"))
    assert total == 1001
    sd = math.sqrt(sp["accept"] * (1 - sp["accept"]) / total)
    assert abs(kept / total - sp["accept"]) < 5 * sd  # seeded: the same run every load; the rule's rate within 5 sd
    top = sp["tokens"].index(sp["rows"][0]["token"])
    out = float(root.locator(f'.nt-bar[data-token="{top}"][data-kind="out"]').get_attribute("data-value"))
    p0 = sp["rows"][0]["p"]
    assert abs(out - p0) < 5 * math.sqrt(p0 * (1 - p0) / total)  # what comes out follows p
    clean(page)
