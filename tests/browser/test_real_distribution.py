"""The real-distribution demo on the real-models page: lazy-loaded prompts, the controls' survivor
counts against the same maths in Python over the committed data, keyboard readout, over http and
from file://, with no console errors."""
from __future__ import annotations

import numpy as np
import pytest

from scripts.core.io import SITE_DATA, read_json
from tests.test_real_distributions import bucket_probs

PAGE = "real-models.html"


def pct(p: float, digits: int = 1) -> str:
    """NTUI.pct (docs/js/demos/ui.js)."""
    v, floor = p * 100, 10 ** -digits
    if 0 < v < floor:
        return f"under {floor:g}%"
    if v < 100 and float(f"{v:.{digits}f}") >= 100:
        return f"over {100 - floor:g}%"
    return f"{v:.{digits}f}%"


def expected(rec: dict, t: float, k: int, top_p: float) -> tuple[int, float]:
    """Survivors and their mass: top-k, then top-p on the renormalised survivors (the demo's rule)."""
    p = bucket_probs(rec, t)
    k_cut = k if 0 < k < len(p) else len(p)
    kept = k_cut
    if top_p < 1:
        cum = np.cumsum(p[:k_cut] / p[:k_cut].sum())
        kept = max(1, int(np.searchsorted(cum, top_p)) + 1)
    return kept, 1.0 if kept == len(p) else float(p[:kept].sum())


def set_slider(page, label: str, value) -> None:
    page.evaluate("""([label, value]) => {
        const lab = [...document.querySelectorAll('.nt-demo[data-demo="real-distribution"] label')]
            .find(l => l.textContent.startsWith(label));
        const input = document.getElementById(lab.htmlFor);
        input.value = String(value);
        input.dispatchEvent(new Event('input', {bubbles: true}));
    }""", [label, value])


def pick(page, key: str) -> None:
    page.select_option('.nt-demo[data-demo="real-distribution"] select', key)
    page.wait_for_selector(f'.nt-demo[data-demo="real-distribution"][data-loaded="{key}"]', timeout=10_000)


@pytest.mark.parametrize("mode", ["http", "file"])
@pytest.mark.parametrize("key,t,k,top_p", [("story", 0.7, 50, 0.9), ("cat", 1.5, 0, 0.8), ("capital", 1.0, 0, 1.0)])
def test_controls_match_python(open_page, mode, key, t, k, top_p):
    rec = read_json(SITE_DATA / "smollm2" / "distributions" / f"{key}.json")
    page = open_page(PAGE, mode)
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]', timeout=10_000)
    pick(page, key)
    set_slider(page, "Temperature", t)
    set_slider(page, "Top-k", k)
    set_slider(page, "Top-p", top_p)
    text = page.text_content('[data-role="survivors"]')
    kept, mass = expected(rec, t, k, top_p)
    assert text.startswith(f"{kept} of {rec['vocab_size']} tokens survive, holding {pct(mass)}"), (text, kept, mass)
    assert not page.nt_problems, page.nt_problems


def test_keyboard_lens_and_heads(open_page):
    rec = read_json(SITE_DATA / "smollm2" / "distributions" / "bank.json")
    page = open_page(PAGE, "http", width=360, height=800)
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]', timeout=10_000)
    pick(page, "bank")
    canvas = page.locator(".nt-dist-canvas")
    canvas.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    readout = page.text_content('[data-role="readout"]')
    assert readout.startswith("Rank 3: “" + rec["head"]["pieces"][2].replace(" ", "·") + "”"), readout
    page.keyboard.press("End")
    assert f"Rank {rec['vocab_size']}:" in page.text_content('[data-role="readout"]')
    assert page.locator('[data-role="lens"] tbody tr').count() == len(rec["lens"])
    first_row = page.locator('[data-role="lens"] tbody tr').nth(len(rec["lens"]) - 1).text_content()
    assert rec["lens"][-1]["pieces"][0].replace(" ", "·") in first_row
    assert page.locator('[data-role="heads"] .nt-strip').count() == rec["attention"]["n_layer"]
    # the canvas fits a phone's width
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    assert not page.nt_problems, page.nt_problems
