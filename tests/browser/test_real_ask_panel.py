"""The "Ask the real model" panel before anything loads, over http and from file://: the button
says how much it will load (the files this build holds), the controls that need the model say why
they wait, the bars are the stored prompt's and say so (log view first), the seeded draw lands where
the same draw in Python lands and is reproducible, the controls are published as "real.sampling", a
copy without the model says so on the button, and the sampling page's one-click stored prompts."""
from __future__ import annotations

import json

import numpy as np
import pytest

from scripts.core.io import SITE_DATA, read_json
from scripts.tiny.sizing import Mulberry32
from tests.helpers.distributions import bucket_probs

pytestmark = pytest.mark.browser

PAGE = "real-models.html"


def copy_bytes(site) -> int:
    """What the browser loads: the manifest and the chunks it lists, as the build wrote them."""
    folder = site / "js" / "data" / "real" / "smollm2"
    text = (folder / "manifest.js").read_text()
    manifest = json.loads(text[text.rfind("] = {") + 4:].strip().rstrip(";"))
    return (folder / "manifest.js").stat().st_size + sum((folder / c["file"]).stat().st_size for c in manifest["chunks"])


def weight_bytes(site) -> int:
    text = (site / "js" / "data" / "real" / "smollm2" / "manifest.js").read_text()
    return json.loads(text[text.rfind("] = {") + 4:].strip().rstrip(";"))["total_bytes"]


def drawn_rank(probs: np.ndarray, u: float) -> int:
    """The demo's rule with no cut: u of the whole mass laid end to end, most likely first."""
    return int(min(np.searchsorted(np.cumsum(probs), u, side="right"), len(probs) - 1))


@pytest.mark.parametrize("mode", ["http", "file"])
def test_before_loading(open_page, site, mode):
    page = open_page(PAGE, mode)
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-source="stored"]', timeout=10_000)
    # the button names the weights; the line beside it what loading reads, in the same unit
    assert page.text_content('[data-role="ask-load"]') == f"Load SmolLM2-135M-Instruct ({weight_bytes(site) / 1e6:.1f} MB of weights)"
    assert f"reads {copy_bytes(site) / 1e6:.1f} MB of files" in page.text_content('[data-role="ask-status"]')
    assert page.text_content('[data-role="ask-status"] [data-role="real-badge"]') == "Stored by the build"
    assert page.is_enabled('[data-role="ask-load"]')
    assert page.is_hidden('[data-role="ask-progress"]')
    for role in ("ask-prompt", "ask-chat", "ask-run"):
        assert page.is_disabled(f'[data-role="{role}"]'), role
    why = page.evaluate("""() => { const b = document.querySelector('[data-role=ask-run]');
        return document.getElementById(b.getAttribute('aria-describedby')).textContent; }""")
    assert why.startswith("Load the model first"), why
    assert page.get_attribute('[data-role="ask-prompt"]', "aria-describedby") == page.get_attribute('[data-role="ask-run"]', "aria-describedby")
    assert page.text_content('[data-role="source"]').startswith("Stored by the build “The cat sat on the”")
    assert "log scale" in page.text_content('[data-role="axes"]')  # the log view first
    assert page.evaluate("() => nexttoken.store.get('real.model')") is None
    assert not page.nt_problems, page.nt_problems


def test_seeded_draw_lands_as_in_python_and_repeats(open_page):
    rec = read_json(SITE_DATA / "smollm2" / "distributions" / "cat.json")
    page = open_page(PAGE, "http")
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-source="stored"]', timeout=10_000)

    def draws(seed: int, n: int) -> list[str]:
        page.fill('[data-role="seed"]', str(seed))
        page.dispatch_event('[data-role="seed"]', "change")
        out = []
        for _ in range(n):
            page.click('[data-role="draw-button"]')
            out.append(page.text_content('[data-role="draw"]'))
        return out

    first = draws(7, 4)
    rng, probs = Mulberry32(7), bucket_probs(rec, 1.0)
    for i, line in enumerate(first):
        u = rng.next_u32() / 4294967296
        rank = drawn_rank(probs, u)
        assert line.startswith(f"Draw {i + 1} with seed 7: u = {u:.4f} fell on rank {rank + 1:,}, "), (line, u, rank)
    assert draws(7, 4) == first  # the same seed, the same draws
    # the same u under another temperature lands where Python says
    page.evaluate("""() => { const lab = [...document.querySelectorAll('.nt-demo[data-demo=real-distribution] label')]
        .find(l => l.textContent.startsWith('Temperature')); const i = document.getElementById(lab.htmlFor);
        i.value = '0.3'; i.dispatchEvent(new Event('input', {bubbles: true})); }""")
    rank = drawn_rank(bucket_probs(rec, 0.3), float(first[-1].split("u = ")[1].split(" ")[0]))
    line = page.text_content('[data-role="draw"]')
    assert f"fell on rank {rank + 1:,}," in line, (line, rank)
    assert page.evaluate("() => nexttoken.store.get('real.sampling')") == {"T": 0.3, "k": 0, "p": 1, "seed": 7}
    assert page.locator('[data-role="top"] li').count() == 10
    assert page.locator('[data-role="top"] li').first.get_attribute("data-id") == str(rec["head"]["ids"][0])
    assert not page.nt_problems, page.nt_problems


def test_a_copy_without_the_model_says_so(open_page, server, site):
    """As `make site MODEL=none` writes the page: the build found no copy, so data-models is {}."""
    html = (site / PAGE).read_text()
    start = html.index('data-demo="real-ask" data-models="') + len('data-demo="real-ask" data-models="')
    stripped = html[:start] + "{}" + html[html.index('"', start):]
    page = open_page(PAGE, "http", route=(server + PAGE, lambda r: r.fulfill(status=200, content_type="text/html", body=stripped)))
    page.wait_for_selector('.nt-demo[data-demo="real-ask"][data-ready]', timeout=10_000)
    assert page.text_content('[data-role="ask-load"]') == "The model is not in this copy of the site"
    assert page.is_disabled('[data-role="ask-load"]')
    assert "MODEL=none" in page.text_content(".nt-ask-load .nt-why")
    assert page.text_content('[data-role="source"]').startswith("Stored by the build")
    assert not page.nt_problems, page.nt_problems


@pytest.mark.parametrize("mode", ["http", "file"])
def test_sampling_page_has_the_real_bars_and_one_click_prompts(open_page, mode):
    page = open_page("sampling.html", mode)
    root = '.nt-demo[data-demo="real-distribution"]'
    page.wait_for_selector(f'{root}[data-loaded="cat"]', timeout=10_000)
    assert page.locator(f'{root} [data-role="lens"]').count() == 0  # the bars only, here
    for key in ("capital", "city"):
        rec = read_json(SITE_DATA / "smollm2" / "distributions" / f"{key}.json")
        page.click(f'{root} .nt-choices button[data-key="{key}"]')
        page.wait_for_selector(f'{root}[data-loaded="{key}"]', timeout=10_000)
        assert page.get_attribute(f'{root} .nt-choices button[data-key="{key}"]', "aria-pressed") == "true"
        assert page.locator('[data-role="top"] li').first.get_attribute("data-id") == str(rec["head"]["ids"][0])
        assert page.evaluate("() => nexttoken.store.get('real.stored').key") == key
        assert page.input_value('[data-role="ask-prompt"]') == rec["text"]  # ready to run live once loaded
    assert page.is_enabled('[data-role="ask-load"]')
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    assert not page.nt_problems, page.nt_problems
