"""The experiments page without the model, over http and from file://: each of its five demos opens on
the build's numbers (site_data/smollm2/experiments.json), says so, and shows them as stored; the
page fits 360 px in both schemes (test_pages_in_both_schemes.py, in its load of the page), every control is reached by
keyboard, typed text is only text, the tokenizer-only parts answer without the model, and a link to a stored state
restores it."""
from __future__ import annotations

import pytest

from scripts.core.io import SITE_DATA, read_json

pytestmark = pytest.mark.browser

PAGE = "real-experiments.html"
DEMOS = ["real-copying", "real-steps", "real-surprise", "real-tokens-hide", "real-fact"]
X = read_json(SITE_DATA / "smollm2" / "experiments.json")
HOSTILE = ["<img src=x onerror=window.__pwned=1>", "😀🐈 emoji", "a" * 500]


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def fix(x: float, d: int = 2) -> str:
    t = f"{x:.{d}f}"
    return t.lstrip("-") if float(t) == 0 else t.replace("-", "\u2212")


@pytest.mark.parametrize("mode", ["http", "file"])
def test_every_experiment_opens_on_the_stored_numbers(open_page, mode):
    page = open_page(PAGE, mode)
    for d in DEMOS:
        root = page.locator(f'.nt-demo[data-demo="{d}"]')
        assert root.get_attribute("data-view") == "stored", d
        assert root.locator("[data-role=real-badge]").first.inner_text() == "Stored by the build", d
    c = X["copying"]
    readout = page.inner_text("[data-role=copy-readout]")
    assert fix(c["first"]) in readout and fix(c["second"]) in readout
    tops = page.locator("[data-role=copy-top] li")
    assert tops.count() == len(c["induction"]["top"])
    for i, t in enumerate(c["induction"]["top"]):
        li = tops.nth(i)
        assert (int(li.get_attribute("data-layer")), int(li.get_attribute("data-head"))) == (t["layer"], t["head"])
        assert float(li.get_attribute("data-score")) == t["score"]
    seconds = [float(x) for x in page.locator("[data-role=copy-off] li[data-second]").evaluate_all("els => els.map(e => e.dataset.second)")]
    assert seconds[:2] == [c["second"], c["knockout"]["second"]] and seconds[-1] == c["control_mean"]
    grid = page.locator("[data-role=copy-grid] rect.nt-lab-cell")
    assert grid.count() == X["config"]["n_layer"] * X["config"]["n_head"]
    sw = X["same_work"]
    pk = next(q for q in sw["candidates"] if q["key"] == sw["picked"])
    probs = page.locator("[data-role=steps-picture] li[data-prob]").evaluate_all("els => els.map(e => Number(e.dataset.prob))")
    assert probs == [pk["direct"]["prob"], pk["steps"]["prob"]]
    su = X["surprise"]["texts"][0]
    assert fix(su["perplexity"], 1) in page.inner_text("[data-role=surprise-summary]")
    assert page.locator("[data-role=surprise-tokens] .nt-lab-tok").count() == len(su["ids"])
    assert page.locator("[data-role=surprise-worst] tr[data-loss]").count() == X["surprise"]["top"]
    lt = X["tokens"]["letters"]
    assert lt["answer"]["text"].strip() in page.inner_text("[data-role=hide-answer]")
    assert page.locator("[data-role=hide-number-tokens] .nt-chip").count() == len(X["tokens"]["number"]["ids"])
    tokens = page.locator("[data-role=hide-languages] li[data-tokens]").evaluate_all("els => els.map(e => Number(e.dataset.tokens))")
    assert tokens == [len(l["ids"]) for l in X["tokens"]["languages"]]
    f0 = X["facts"]["prompts"][0]
    assert page.locator("[data-role=fact-picture] rect.nt-lab-cell").count() == 3 * X["config"]["n_layer"]
    assert f"block {f0['leads']}" in page.inner_text("[data-role=fact-readout]")
    clean(page)


def test_stored_choices_switch_without_the_model(open_page):
    page = open_page(PAGE)
    for t in X["surprise"]["texts"]:
        page.click(f'.nt-demo[data-demo="real-surprise"] button[data-key="{t["key"]}"]')
        assert fix(t["perplexity"], 1) in page.inner_text("[data-role=surprise-summary]")
    for p in X["facts"]["prompts"]:
        page.click(f'.nt-demo[data-demo="real-fact"] button[data-key="{p["key"]}"]')
        assert p["text"] in page.inner_text("[data-role=fact-readout]")
    for q in X["same_work"]["candidates"]:
        page.select_option("[data-role=steps-pick]", q["key"])
        probs = page.locator("[data-role=steps-picture] li[data-prob]").evaluate_all("els => els.map(e => Number(e.dataset.prob))")
        assert probs == [q["direct"]["prob"], q["steps"]["prob"]]
    # the stored knock-outs draw their losses over the bars
    page.click("[data-role=copy-off-top]")
    assert page.locator("[data-role=copy-chart] circle.nt-lab-dot").count() == len(X["copying"]["losses"])
    clean(page)


def test_the_tokenizer_parts_run_without_the_model(open_page):
    page = open_page(PAGE)
    page.fill("[data-role=hide-number]", "2025")
    page.press("[data-role=hide-number]", "Enter")
    page.wait_for_function("() => document.querySelectorAll('[data-role=hide-number-tokens] .nt-chip').length === 4")
    assert page.locator('.nt-demo[data-demo="real-tokens-hide"]').get_attribute("data-view") == "live"
    page.fill("[data-role=hide-sentence]", "Le petit chat dort.")
    page.press("[data-role=hide-sentence]", "Enter")
    page.wait_for_selector("[data-role=hide-languages] li.nt-lab-yours")
    clean(page)


def test_the_live_controls_wait_for_the_model_and_typed_text_stays_text(open_page):
    page = open_page(PAGE)
    for role in ("copy-reroll", "steps-run", "surprise-run", "hide-ask", "fact-run"):
        assert page.locator(f"[data-role={role}]").is_disabled(), role
    for text in HOSTILE:
        page.fill("[data-role=hide-sentence]", text)
        page.press("[data-role=hide-sentence]", "Enter")
        page.wait_for_timeout(300)
        assert page.evaluate("() => window.__pwned") is None
        assert page.evaluate("() => document.querySelectorAll('img[src=\"x\"], img[onerror]').length") == 0
    clean(page)


def test_keyboard_reaches_every_control(open_page):
    page = open_page(PAGE)
    for d in DEMOS:
        page.evaluate("""(d) => {
            document.querySelectorAll('[data-ktest]').forEach(e => e.removeAttribute('data-ktest'));
            const r = document.querySelector(`.nt-demo[data-demo="${d}"] .nt-live`);
            r.querySelectorAll('input, button, select, textarea, summary, [tabindex="0"]').forEach((e, i) => e.setAttribute('data-ktest', i));
        }""", d)
        root = page.locator(f'.nt-demo[data-demo="{d}"]')
        wanted = set(root.locator(".nt-live [data-ktest]").evaluate_all(
            "els => els.filter(e => !e.disabled && e.checkVisibility() && !(e.type === 'radio' && !e.checked)).map(e => e.dataset.ktest)"))
        root.locator(".nt-live").evaluate("el => { el.setAttribute('tabindex', '-1'); el.focus(); }")
        seen = set()
        for _ in range(len(wanted) * 3 + 10):
            page.keyboard.press("Tab")
            k = page.evaluate("() => document.activeElement && document.activeElement.dataset.ktest")
            if k is not None:
                seen.add(k)
            if wanted <= seen:
                break
        assert wanted <= seen, f"{d}: not reachable by Tab: {sorted(wanted - seen)}"
    clean(page)


def test_a_link_restores_a_stored_state(open_page):
    key = X["surprise"]["texts"][2]["key"]
    page = open_page(PAGE + f"#nt=1&d=real-surprise&key={key}")
    page.wait_for_function(f"() => document.querySelector('.nt-demo[data-demo=real-surprise] button[data-key={key}]').getAttribute('aria-pressed') === 'true'")
    clean(page)
