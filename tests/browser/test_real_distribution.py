"""The real-distribution demo on the real-models page: lazy-loaded prompts, the controls' survivor
counts against the same maths in Python over the committed data, keyboard readout, over http and
from file://, with no console errors."""
from __future__ import annotations

import numpy as np
import pytest

from scripts.core.io import SITE_DATA, read_json
from tests.helpers.distributions import bucket_probs

pytestmark = pytest.mark.browser

PAGE = "real-models.html"


def pct(p: float, digits: int = 1) -> str:
    """ui.pct (docs/js/ui.js)."""
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
def test_controls_match_python(open_page, mode):
    """Each case, its prompt picked and all three controls set, in one load of the page (what the survivors line
    says is a function of those four alone)."""
    page = open_page(PAGE, mode)
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]', timeout=10_000)
    for key, t, k, top_p in [("story", 0.7, 50, 0.9), ("cat", 1.5, 0, 0.8), ("capital", 1.0, 0, 1.0)]:
        rec = read_json(SITE_DATA / "smollm2" / "distributions" / f"{key}.json")
        pick(page, key)
        set_slider(page, "Temperature", t)
        set_slider(page, "Top-k", k)
        set_slider(page, "Top-p", top_p)
        text = page.text_content('[data-role="survivors"]')
        kept, mass = expected(rec, t, k, top_p)
        assert text.startswith(f"{kept:,} of {rec['vocab_size']:,} tokens survive, holding {pct(mass)}"), (key, text, kept, mass)
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
    assert page.locator('[data-role="heads"] .nt-head-grid-row').count() == rec["attention"]["n_layer"]
    # the canvas fits a phone's width
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    assert not page.nt_problems, page.nt_problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_tallest_bar_is_drawn_inside_labelled_axes(open_page, scheme):
    """Rank 1's column is the tallest bar and must show (not hidden under an axis or a marker); the
    axes say what they measure; the bar is drawn in a colour that is not the background. The chart opens
    on the landing page's scale: rank on a log scale, probability from zero. Each scale in turn, in one load
    of the page per scheme (the chart is redrawn whole for each)."""
    rec = read_json(SITE_DATA / "smollm2" / "distributions" / "cat.json")
    page = open_page(PAGE, "http", width=360, height=800, scheme=scheme)  # no stored palette: Material follows the media query
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]', timeout=10_000)
    page.wait_for_function("w => document.body.getAttribute('data-md-color-scheme') === w",
                           arg="slate" if scheme == "dark" else "default", timeout=5000)
    pick(page, "cat")
    labels = {"rank": "log rank (as on the first page)", "log": "log rank and probability", "lin": "linear"}
    assert page.get_by_label(labels["rank"]).is_checked()  # the landing page's view first
    for scale in ("rank", "lin", "log"):
        if scale != "rank":
            page.get_by_label(labels[scale]).check()
        axes = page.text_content('[data-role="axes"]')
        assert axes.startswith("Across: rank, most likely first") and ("log scale" in axes) == (scale != "lin"), (scale, axes)
        assert ("from zero" in axes) == (scale != "log"), (scale, axes)
        px = page.evaluate("""() => {
            const c = document.querySelector(".nt-dist-canvas"), g = c.getContext("2d");
            const [x0, y0, x1, y1] = c.getAttribute("data-plot").split(" ").map(Number);
            const mid = Math.round((y0 + y1) / 2), at = (x, y) => Array.from(g.getImageData(x, y, 1, 1).data);
            return {bar: at(x0, mid), bg: at(x1 - 1, y0 + 1)};
        }""")
        page_bg = page.evaluate("""() => { const c = document.createElement("canvas").getContext("2d");
            c.fillStyle = getComputedStyle(document.querySelector(".nt-dist-canvas")).getPropertyValue("--md-default-bg-color").trim();
            c.fillRect(0, 0, 1, 1); return Array.from(c.getImageData(0, 0, 1, 1).data); }""")
        assert px["bg"] == page_bg, (scale, px, page_bg)  # the canvas is painted in the page's own scheme
        # the top bar reaches the top of the plot (it is the scale's top); halfway up it is painted
        assert px["bar"] != px["bg"], (scale, px, rec["head"]["pieces"][0])
    assert not page.nt_problems, page.nt_problems


def test_the_canvas_follows_the_palette_toggle(open_page):
    page = open_page(PAGE, "http")
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]', timeout=10_000)
    corner = """() => { const c = document.querySelector(".nt-dist-canvas");
        return Array.from(c.getContext("2d").getImageData(c.width - 2, 2, 1, 1).data); }"""
    before, scheme = page.evaluate(corner), page.get_attribute("body", "data-md-color-scheme")
    page.locator("form[data-nt-palette] label:visible").first.click()
    page.wait_for_function("w => document.body.getAttribute('data-md-color-scheme') !== w", arg=scheme, timeout=5000)
    assert page.evaluate(corner) != before
    assert not page.nt_problems, page.nt_problems


@pytest.mark.parametrize("width", [360, 1280])
def test_the_draws_label_sits_inside_the_plot_and_the_bars_are_the_values_orange(open_page, width):
    """In the linear view the "u → rank" label sat on the axis, over the 0% tick; it belongs inside the plot,
    clear of the axes. The kept bars are the palette's orange (--nt-pos), not the theme's coral accent."""
    page = open_page(PAGE, "http", width=width, height=800)
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]', timeout=10_000)
    pick(page, "cat")
    page.get_by_label("linear").check()
    colours = page.evaluate("""() => {
        const c = document.querySelector(".nt-dist-canvas"), g = c.getContext("2d");
        const [x0, y0, x1, y1] = c.getAttribute("data-plot").split(" ").map(Number);
        const probe = document.createElement("canvas").getContext("2d");
        probe.fillStyle = getComputedStyle(c).getPropertyValue("--nt-pos").trim();
        probe.fillRect(0, 0, 1, 1);
        return {bar: Array.from(g.getImageData(Math.ceil(x0), Math.round((y0 + y1) / 2), 1, 1).data),
                orange: Array.from(probe.getImageData(0, 0, 1, 1).data)};
    }""")
    assert colours["bar"] == colours["orange"], colours  # rank 1's bar, the scale's top
    page.locator('.nt-demo[data-demo="real-distribution"] [data-role="draw-button"]').click()
    page.wait_for_function('document.querySelector(".nt-dist-canvas").hasAttribute("data-u-label")', timeout=5000)
    plot, label = page.evaluate("""() => { const c = document.querySelector(".nt-dist-canvas");
        return [c.getAttribute("data-plot"), c.getAttribute("data-u-label")].map(s => s.split(" ").map(Number)); }""")
    (x0, y0, x1, y1), (lx0, ly0, lx1, ly1) = plot, label
    assert x0 <= lx0 and lx1 <= x1 + 1 and y0 <= ly0 and ly1 < y1 - 2, (plot, label)  # inside the plot, off the axis
    assert not page.nt_problems, page.nt_problems
