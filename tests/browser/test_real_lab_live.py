"""The inside view as a lab with SmolLM2 loaded in Chromium (docs/js/demos/real-inside.js over
real.sweep and the engine in the page's worker): the live sweep of every head and MLP on the repeated
letters equals the build's (transformers with hooks, site_data/smollm2/lab/repeat.json), and prints its
time; a named pair's logit difference runs through the bars and every lens row as transformers has it;
a written token opens its step, drawn whole: the probability its writer recorded, the pair followed there
and the lens."""
from __future__ import annotations

import os

import pytest

from scripts.core.io import SITE_DATA, read_json
from scripts.quality.read_through import DONE, READ_THROUGH

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PAGE = "real-models.html"
DEMO = '.nt-demo[data-demo="real-inside"]'
# The engine against transformers: logits to 2e-3 (the parity tests'), so a probability to about half that.
PROB = 1e-3


@pytest.fixture(scope="module")
def page(browser_context, server, site):
    if not (site / "js" / "data" / "real" / "smollm2" / "manifest.js").is_file():
        pytest.fail("build/site has no js/data/real/smollm2: build the site with the model (`make site`)", pytrace=False)
    page = browser_context.new_page()
    page.set_default_timeout(900_000)
    problems = []
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.add_init_script(READ_THROUGH)
    page.goto(server + PAGE, wait_until="load")
    page.wait_for_function(DONE)
    page.click('[data-role="ask-load"]')
    page.wait_for_selector('.nt-demo[data-demo="real-ask"][data-real-model="smollm2"][data-pass]:not([data-busy])')
    page.nt_problems = problems
    yield page
    page.close()


def show_stored(page, key: str) -> None:
    before = page.get_attribute('.nt-demo[data-demo="real-ask"]', "data-pass")
    page.select_option('.nt-demo[data-demo="real-distribution"] select', key)
    page.wait_for_function(f"""() => {{ const a = document.querySelector('.nt-demo[data-demo="real-ask"]');
        return a.getAttribute('data-pass') !== '{before}' && !a.hasAttribute('data-busy'); }}""")
    page.wait_for_selector(f'{DEMO}[data-view="live"]')


def test_live_sweep_target_and_writer_step(page):
    lab = read_json(SITE_DATA / "smollm2" / "lab" / "repeat.json")
    show_stored(page, "repeat")
    # the lab's target is followed live too: the same numbers as the build's
    assert page.get_attribute(DEMO, "data-target") == str(lab["target"]["ids"][0])
    page.get_by_label("a sweep: what removing it does to your token").check()
    page.locator(f'{DEMO} [data-role="method"]').get_by_label("switch off (zero)").check()
    page.click(f'{DEMO} [data-role="sweep"]')
    page.wait_for_selector(f'{DEMO}[data-sweep-ms]')
    ms = int(page.get_attribute(DEMO, "data-sweep-ms"))
    n = int(page.get_attribute(DEMO, "data-swept"))
    got = page.evaluate(f"""() => [...document.querySelectorAll('{DEMO} [data-role="heads"] button[data-value]')]
        .map(b => [Number(b.dataset.layer), b.hasAttribute('data-mlp') ? -1 : Number(b.dataset.head), Number(b.dataset.value)])""")
    H = len(lab["kinds"]["kind"][0])
    L = len(lab["kinds"]["kind"])
    worst = 0.0
    for l, h, v in got:
        want = lab["sweeps"]["zero"][L * H + l if h < 0 else l * H + h] - lab["base"]["value"]
        worst = max(worst, abs(v - want))
    load = os.getloadavg()
    print(f"live sweep of {n} parts on {lab['text']!r}: {ms / 1000:.1f} s (load average {load[0]:.1f}, {load[1]:.1f}); "
          f"largest gap to transformers' sweep {worst:.2e} in probability")
    assert n == L * H + L and len(got) == n
    assert worst <= PROB, worst

    # a named pair on the Eiffel prompt: its difference in the bars and each lens row, as transformers has it
    eiffel = read_json(SITE_DATA / "smollm2" / "lab" / "eiffel.json")
    show_stored(page, "eiffel")
    page.fill(f'{DEMO} [data-role="target"]', " Paris")
    page.fill(f'{DEMO} [data-role="target-vs"]', " Rome")
    page.click(f'{DEMO} [data-role="target-follow"]')
    page.wait_for_selector(f'{DEMO}[data-target="{",".join(map(str, eiffel["target"]["ids"]))}"]')
    page.wait_for_selector(f'{DEMO} [data-role="lens-target"][data-value]')
    rows = page.evaluate(f"""() => [...document.querySelectorAll('{DEMO} [data-role="lens-target"]')].map(td => Number(td.dataset.value))""")
    want = [r["value"] for r in eiffel["lens"][1:]]  # the live lens starts after block 1
    assert len(rows) == len(want)
    gap = max(abs(a - b) for a, b in zip(rows, want))
    assert gap <= 2e-3, gap
    assert "Your pair ·Paris − ·Rome: logit difference" in page.text_content('.nt-demo[data-demo="real-distribution"] [data-role="target-line"]')

    # a written token opens its step: the writer's recorded probability, and its top 10
    page.fill('.nt-demo[data-demo="real-writers"] [data-role="length"]', "3")
    for w in ("Sampling", "Beam search"):
        page.locator('.nt-demo[data-demo="real-writers"]').get_by_role("checkbox", name=w, exact=True).uncheck()
    page.click('.nt-demo[data-demo="real-writers"] [data-role="write"]')
    page.wait_for_selector('.nt-demo[data-demo="real-writers"][data-done]')
    col = page.locator('.nt-demo[data-demo="real-writers"] [data-writer="greedy"]')
    probs = [float(x) for x in col.get_attribute("data-probs").strip("[]").split(",")]
    col.locator('[data-role="text"] [data-step="1"]').click()
    step = col.locator('[data-role="step"] [data-role="step-chosen"]')
    step.wait_for(timeout=120_000)
    assert float(step.get_attribute("data-prob")) == pytest.approx(probs[1], abs=1e-6)
    assert step.get_attribute("data-rank") == "1"  # greedy: the most likely token
    # the step is drawn at once, whole: its top 10, the pair followed there and its lens (read, not waited for)
    assert col.locator('[data-role="step"] .nt-bars li').count() == 10
    target = col.locator('[data-role="step"] [data-role="step-target"]')
    assert target.count() == 1, "the step shows no line for the pair followed: " + col.locator('[data-role="step"]').inner_text()
    assert target.inner_text().startswith("Your pair ·Paris − ·Rome here: logit difference "), target.inner_text()
    assert col.locator('[data-role="step"] tbody tr').count() == L  # the lens after every block
    assert not "".join(page.locator('.nt-demo[data-demo="real-writers"] .nt-msg').all_text_contents()), "the writers' message line is not empty"
    assert not page.nt_problems, page.nt_problems
