"""The experiments page with SmolLM2 loaded in Chromium: each experiment run live on the stored input
gives the stored numbers (site_data/smollm2/experiments.json, measured with transformers) within the
parity tests' tolerances, and says it is live. One model load for the module, over http; a second
load from file:// runs one experiment."""
from __future__ import annotations

import pytest

from scripts.core.io import SITE_DATA, read_json
from scripts.quality.read_through import DONE, READ_THROUGH

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = "real-experiments.html"
X = read_json(SITE_DATA / "smollm2" / "experiments.json")
LOGIT, PROB, SHARE = 2e-3, 2e-3, 1e-4


def load(browser_context, base):
    page = browser_context.new_page()
    page.set_default_timeout(600_000)
    problems = []
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) or r.request.url.split(":")[0] in ("blob", "data")
               else (problems.append(r.request.url), r.abort()))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.add_init_script(READ_THROUGH)
    page.goto(base + PAGE, wait_until="load")
    page.wait_for_function(DONE)
    page.click('.nt-demo[data-demo="real-copying"] [data-role=lab-load]')
    page.wait_for_function("() => nexttoken.store.get('real.loaded')")
    page.nt_problems = problems
    return page


@pytest.fixture(scope="module")
def loaded(browser_context, server, site):
    if not (site / "js" / "data" / "real" / "smollm2" / "manifest.js").is_file():
        pytest.fail("build/site has no js/data/real/smollm2: build the site with the model (`make site`)", pytrace=False)
    page = load(browser_context, server)
    yield page
    page.close()


def finished(page, demo, before=None):
    page.wait_for_function("([d, before]) => { const r = document.querySelector(`.nt-demo[data-demo=${d}]`);"
                           " return r.hasAttribute('data-pass') && r.getAttribute('data-pass') !== before && !r.hasAttribute('data-busy'); }", arg=[demo, before])
    root = page.locator(f'.nt-demo[data-demo="{demo}"]')
    assert root.get_attribute("data-view") == "live"
    assert root.locator("[data-role=real-badge]").first.inner_text().startswith("Live")
    return root


def gap(a, b) -> float:
    return max(abs(x - y) for x, y in zip(a, b))


def test_copying_live_equals_the_stored_run(loaded):
    page, c = loaded, X["copying"]
    page.click("[data-role=copy-run]")
    finished(page, "real-copying")
    losses = page.locator("[data-role=copy-chart] rect[data-loss]").evaluate_all("els => els.map(e => Number(e.dataset.loss))")
    assert len(losses) == len(c["losses"]) and gap(losses, c["losses"]) < LOGIT
    tops = page.locator("[data-role=copy-top] li").evaluate_all("els => els.map(e => [Number(e.dataset.layer), Number(e.dataset.head), Number(e.dataset.score)])")
    assert [t[:2] for t in tops] == [[t["layer"], t["head"]] for t in c["induction"]["top"]]
    assert gap([t[2] for t in tops], [t["score"] for t in c["induction"]["top"]]) < SHARE
    before = page.get_attribute('.nt-demo[data-demo="real-copying"]', "data-pass")
    page.click("[data-role=copy-off-top]")
    finished(page, "real-copying", before)
    off = page.locator("[data-role=copy-chart] rect[data-off]").evaluate_all("els => els.map(e => Number(e.dataset.off))")
    assert gap(off, c["knockout"]["losses"]) < LOGIT
    before = page.get_attribute('.nt-demo[data-demo="real-copying"]', "data-pass")
    page.click("[data-role=copy-off-random]")
    finished(page, "real-copying", before)
    off = page.locator("[data-role=copy-chart] rect[data-off]").evaluate_all("els => els.map(e => Number(e.dataset.off))")
    assert gap(off, c["controls"][0]["losses"]) < LOGIT  # the first random draw is the stored first control's
    assert loaded.nt_problems == []


def test_steps_live_equal_the_stored_answers(loaded):
    page, sw = loaded, X["same_work"]
    pk = next(q for q in sw["candidates"] if q["key"] == sw["picked"])
    page.click(".nt-lab-edit summary")
    page.click("[data-role=steps-run]")
    finished(page, "real-steps")
    probs = page.locator("[data-role=steps-picture] li[data-prob]").evaluate_all("els => els.map(e => Number(e.dataset.prob))")
    assert gap(probs, [pk["direct"]["prob"], pk["steps"]["prob"]]) < PROB
    tokens = page.locator("[data-role=steps-picture] li[data-tokens]").evaluate_all("els => els.map(e => Number(e.dataset.tokens))")
    assert tokens == [pk["direct"]["tokens"], pk["steps"]["tokens"]]


def test_surprise_live_equals_the_stored_text(loaded):
    page, t = loaded, X["surprise"]["texts"][0]
    page.click("[data-role=surprise-run]")
    finished(page, "real-surprise")
    losses = page.locator("[data-role=surprise-tokens] [data-loss]").evaluate_all("els => els.map(e => Number(e.dataset.loss))")
    assert gap(losses, t["losses"]) < LOGIT


def test_letters_live_give_the_stored_answer(loaded):
    page, lt = loaded, X["tokens"]["letters"]
    page.click("[data-role=hide-ask]")
    finished(page, "real-tokens-hide")
    assert lt["answer"]["text"].strip() in page.inner_text("[data-role=hide-answer]")


def test_fact_live_equals_the_stored_sweep(loaded):
    page, f = loaded, X["facts"]["prompts"][0]
    page.click("[data-role=fact-run]")
    finished(page, "real-fact")
    for kind in ("mlp", "attn"):
        got = page.locator(f"[data-role=fact-picture] rect[data-kind={kind}]").evaluate_all("els => els.map(e => Number(e.dataset.prob))")
        assert gap(got, f[kind]) < PROB, kind
    lens = page.locator("[data-role=fact-picture] rect[data-kind=lens]").evaluate_all("els => els.map(e => Number(e.dataset.prob))")
    assert gap(lens, [r["prob"] for r in f["lens"][1:]]) < PROB
    assert loaded.nt_problems == []


def test_from_disk_the_model_runs_too(browser_context, site):
    page = load(browser_context, site.as_uri() + "/")
    t = X["surprise"]["texts"][1]
    page.click(f'.nt-demo[data-demo="real-surprise"] button[data-key="{t["key"]}"]')
    page.fill("[data-role=surprise-text]", t["text"])
    page.click("[data-role=surprise-run]")
    finished(page, "real-surprise")
    losses = page.locator("[data-role=surprise-tokens] [data-loss]").evaluate_all("els => els.map(e => Number(e.dataset.loss))")
    assert gap(losses, t["losses"]) < LOGIT
    assert page.nt_problems == []
    page.close()
