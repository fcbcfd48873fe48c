"""Inside SmolLM2 on the real-models page (docs/js/demos/real-inside.js): the stored pass's lens and
grid, the grid by keyboard alone, the lab's stored numbers in each colouring (where heads look, a
sweep's effect, a patched pair, direct shares) and a head's whole pattern, and, with the real model
loaded in the page, a head switched off against transformers with that head zeroed, the build-found
example changing the answer as its data says, and the last step's arithmetic equal to the pass's
logit and reproduced by its Python snippet.

Until the panel that loads the model is on the page, the slow tests load it as that panel does
(nexttoken.real.workers.open, the tokenizer) and play its part of the store's contract: run the pass for
"real.prompt" and rerun it for "real.knockout", publishing "real.pass"."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest

from scripts.core.io import ROOT, SITE_DATA, read_json

pytestmark = pytest.mark.browser

PAGE = "real-models.html"
DEMO = '.nt-demo[data-demo="real-inside"]'
EXAMPLE = read_json(SITE_DATA / "smollm2" / "knockout.json")
# A held-out prompt and head (not the example's): the knock-out moves its probabilities.
HELD_OUT = "My neighbour always wanted"
HEAD = [4, 2]
MLP = 9


def stored(page, key: str) -> dict:
    page.select_option('.nt-demo[data-demo="real-distribution"] select', key)
    page.wait_for_selector(f'{DEMO}[data-view="stored:{key}"]', timeout=10_000)
    return read_json(SITE_DATA / "smollm2" / "distributions" / f"{key}.json")


@pytest.mark.parametrize("mode", ["http", "file"])
def test_stored_lens_and_grid(open_page, mode):
    page = open_page(PAGE, mode)
    page.wait_for_selector(f"{DEMO}[data-view]", timeout=10_000)
    rec = stored(page, "bank")
    att = rec["attention"]
    # the stored badge, with the same words on the views above it
    assert page.text_content(f'{DEMO} [data-role="real-badge"]') == "Stored by the build"
    assert page.text_content('.nt-demo[data-demo="real-distribution"] [data-role="real-badge"]') == "Stored by the build"
    assert page.is_hidden('.nt-demo[data-demo="real-writers"] [data-role="real-badge"]')  # nothing written, nothing to label
    assert page.locator(f'{DEMO} [data-role="lens"] tbody tr').count() == len(rec["lens"])
    assert rec["lens"][-1]["pieces"][0].replace(" ", "·") in page.locator(f'{DEMO} [data-role="lens"] tbody tr').last.text_content()
    cells = page.locator(f'{DEMO} [data-role="heads"] button[data-head]')
    assert cells.count() == att["n_layer"] * att["n_head"]
    assert page.locator(f'{DEMO} [data-role="heads"] button[data-mlp]').count() == att["n_layer"]
    # a sink is the attention page's: more than the threshold of the last token's attention on the first token
    rule = read_json(SITE_DATA / "smollm2" / "measurements.json")
    threshold = next(p for p in rule["prompts"] if p["key"] == "cat")["sink_heads"]["threshold"] if isinstance(rule.get("prompts"), list) else 0.5
    sinks = sum(f > threshold for layer in att["layers"] for f in layer["first"])
    assert page.text_content(f'{DEMO} [data-role="sinks"]').startswith(f"{sinks} of {att['n_layer'] * att['n_head']} heads put more than {threshold:.0%} of the last token's attention on the first token")
    # in the strongest-attention colouring the sinks are grey, and every cell's name is its head, its
    # top weight and token (from the stored data), and its state
    page.get_by_label("the last token's strongest attention").check()
    assert page.locator(f'{DEMO} [data-role="heads"] button.nt-sink').count() == sinks
    l, h = 2, 4
    pos, w = att["layers"][l]["top_pos"][h], att["layers"][l]["top_weight"][h]
    name = page.get_attribute(f'{DEMO} button[data-layer="{l}"][data-head="{h}"]', "aria-label")
    assert name == f"block {l + 1}, head {h + 1}: {w:.1%} on {rec['tokens'][pos].replace(' ', '·')} (position {pos}), on", name
    # the example offers itself with the data's numbers and why it teaches, and says why it waits for the model
    text = page.text_content(f'{DEMO} [data-role="example"]')
    why = EXAMPLE["why"]
    assert f"“{EXAMPLE['text']}”" in text and f"{why['looks_at']['weight']:.1%}" in text and f"heads, it ranks {why['rank']}" in text
    assert f"{EXAMPLE['before'][0]['prob']:.1%} to {EXAMPLE['old_top_after']['prob']:.1%}" in text
    assert page.is_disabled(f'{DEMO} [data-role="example-run"]')
    assert "load it" in page.text_content(f'{DEMO} [data-role="example"] .nt-why')
    assert not page.nt_problems, page.nt_problems


def test_grid_by_keyboard(open_page):
    page = open_page(PAGE, "http", width=360, height=800)
    page.wait_for_selector(f"{DEMO}[data-view]", timeout=10_000)
    rec = stored(page, "cat")
    # one tab stop for the whole grid; arrows move, Enter opens the focused head
    assert page.locator(f'{DEMO} [data-role="heads"] button[tabindex="0"]').count() == 1
    page.focus(f'{DEMO} [data-role="heads"] button[tabindex="0"]')
    for key in ("ArrowDown", "ArrowDown", "ArrowRight", "ArrowRight", "ArrowRight"):
        page.keyboard.press(key)
    focused = page.evaluate("() => [document.activeElement.dataset.layer, document.activeElement.dataset.head]")
    assert focused == ["2", "3"], focused
    page.keyboard.press("Enter")
    box = page.locator(f'{DEMO} [data-role="head-weights"]')
    assert box.locator(".nt-x-title").text_content().startswith("block 3, head 4: where the last token")
    first = rec["attention"]["layers"][2]["first"][3]
    assert float(box.locator("li[data-pos='0']").get_attribute("data-weight")) == pytest.approx(first, abs=1e-7)
    assert page.get_attribute(f'{DEMO} button[data-layer="2"][data-head="3"]', "aria-expanded") == "true"
    page.keyboard.press("End")
    assert page.evaluate("() => document.activeElement.hasAttribute('data-mlp')")
    # the grid fits a phone's width
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    assert not page.nt_problems, page.nt_problems


# What the panel does with the store, for the page as it stands: the model, the tokenizer, a pass per
# prompt or knock-out, published as "real.pass".
DRIVE = """async () => {
  const nt = window.nexttoken, store = nt.store;
  const [runtime, tk, vocab] = await Promise.all(["real.workers", "real.tokenizer", "data.smollm2-tokenizer"].map(nt.load));
  const session = await runtime.open({base: "js/data/real/", model: "smollm2"});
  const tokenizer = tk.create(vocab);
  let prompt = {text: "", chat: false}, knockout = {heads: [], mlp: []};
  window.ntRuns = 0;
  async function run() {
    const enc = tokenizer.encode(prompt.text, {chat: prompt.chat});
    const result = await session.prefill(enc.ids, {lens: true, heads: true, final: true, knockout});
    store.set("real.pass", {text: prompt.text, chat: prompt.chat, ids: enc.ids, pieces: enc.pieces, result, knockout});
    window.ntRuns += 1;
  }
  window.ntAsk = (text) => { prompt = {text, chat: false}; return run(); };
  store.subscribe("real.knockout", (k) => { knockout = k; window.ntPending = run(); });
  store.subscribe("real.prompt", (p) => { prompt = p; window.ntPending = run(); });
  store.set("real.model", {session, tokenizer, config: session.config});
}"""


def answer(page) -> list[dict]:
    return page.evaluate(f"""() => [...document.querySelectorAll('{DEMO} [data-role="answer"] li')].map(li => (
        {{id: Number(li.dataset.id), prob: Number(li.dataset.prob), logit: Number(li.dataset.logit)}}))""")


def settle(page, runs: int) -> None:
    page.wait_for_function(f"() => window.ntRuns >= {runs}", timeout=300_000)
    page.evaluate("() => window.ntPending")


@pytest.fixture(scope="module")
def smollm2():
    pytest.importorskip("torch", reason="the reference needs the pipeline dependencies")
    from scripts.real import loading
    model, tok, _, _ = loading.load("smollm2", read_json(ROOT / "scripts" / "config" / "real_models.json")["models"]["smollm2"])
    return model, tok


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


@pytest.mark.slow
def test_live_knockouts_arithmetic_and_example(open_page, smollm2):
    from tests.helpers.real_reference import reference
    model, tok = smollm2
    page = open_page(PAGE, "http")
    page.set_default_timeout(300_000)
    page.wait_for_selector(f"{DEMO}[data-view]", timeout=10_000)
    page.evaluate(DRIVE)
    page.evaluate("(t) => window.ntAsk(t)", HELD_OUT)
    page.wait_for_selector(f'{DEMO}[data-view="live"]')
    ids = tok.encode(HELD_OUT, add_special_tokens=False)

    # switch a head off in the page: top token and three probabilities against transformers
    plain = answer(page)
    page.get_by_label("switches it off or on").check()
    page.click(f'{DEMO} button[data-layer="{HEAD[0]}"][data-head="{HEAD[1]}"]')
    settle(page, 2)
    got = answer(page)
    ref = softmax(reference(model, ids, {"heads": [HEAD], "mlp": []})["logits"])
    assert got[0]["id"] == int(ref.argmax())
    for g in got:
        assert g["prob"] == pytest.approx(ref[g["id"]], rel=5e-3, abs=1e-5), g
    assert max(abs(a["prob"] - b["prob"]) for a, b in zip(plain, got)) > 1e-3  # the knock-out moved them
    figures = {"head_off_prob_rel": max(abs(g["prob"] / ref[g["id"]] - 1) for g in got)}
    name = page.get_attribute(f'{DEMO} button[data-layer="{HEAD[0]}"][data-head="{HEAD[1]}"]', "aria-label")
    assert name.endswith(", off") and page.text_content(f'{DEMO} [data-role="off"]') == f"Switched off: block {HEAD[0] + 1}, head {HEAD[1] + 1}."

    # and a block's MLP as well (its button toggles whatever the click choice)
    page.click(f'{DEMO} button[data-layer="{MLP}"][data-mlp]')
    settle(page, 3)
    got = answer(page)
    ref = softmax(reference(model, ids, {"heads": [HEAD], "mlp": [MLP]})["logits"])
    assert got[0]["id"] == int(ref.argmax())
    for g in got:
        assert g["prob"] == pytest.approx(ref[g["id"]], rel=5e-3, abs=1e-5), g
    assert page.get_attribute(f'{DEMO} button[data-layer="{MLP}"][data-mlp]', "aria-label") == f"block {MLP + 1}'s MLP, off"
    figures["head_and_mlp_off_prob_rel"] = max(abs(g["prob"] / ref[g["id"]] - 1) for g in got)

    # the logit's arithmetic equals the pass's logit, and its snippet reproduces it with transformers
    top = got[0]
    page.wait_for_selector(f'{DEMO} [data-role="answer"] li:first-child button[aria-label^="logit of"]')
    page.click(f'{DEMO} [data-role="answer"] li:first-child button[aria-label^="logit of"]')
    panel = page.locator(f'{DEMO} .nt-x-panel [data-kind="real-logit"]')
    last = panel.locator(".nt-x-line").last.locator(".nt-x-eq").text_content()
    shown = float(last.replace("−", "-"))
    assert abs(shown - top["logit"]) <= 1e-4, (shown, top["logit"])
    terms = [float(t.replace("−", "-")) for t in panel.locator(".nt-x-line").last.locator(".nt-x-t").all_text_contents()]
    assert len(terms) == 7 and abs(sum(terms) - shown) <= 1e-3  # six products and the folded rest, as displayed
    snippet = panel.locator(".nt-x-code").text_content()
    # torch on one thread (tests/helpers/real_reference.py one_thread: two spin beside Chromium), the snippet as shown
    out = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, timeout=600, cwd=ROOT,
                         env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert abs(float(out.stdout.split()[-1]) - shown) <= 2e-3, (out.stdout, shown)  # the engine's parity bound
    figures["panel_vs_pass_logit"] = abs(shown - top["logit"])
    figures["snippet_vs_panel_logit"] = abs(float(out.stdout.split()[-1]) - shown)

    # the probability's arithmetic: the softmax's last line is the pass's probability
    page.click(f'{DEMO} [data-role="answer"] li:first-child button[aria-label^="probability of"]')
    p_last = page.locator(f'{DEMO} .nt-x-panel [data-kind="real-prob"] .nt-x-line').last.locator(".nt-x-eq").text_content()
    assert abs(float(p_last) - top["prob"]) <= 1e-6

    # the build-found example: one click runs it, and the page's answer is the data's
    page.get_by_label("switches it off or on").check()
    page.click(f'{DEMO} [data-role="reset"]')
    settle(page, 4)
    page.click(f'{DEMO} [data-role="example-run"]')
    settle(page, 6)
    page.wait_for_function(f"""() => document.querySelector('{DEMO} [data-role="example-check"]').textContent.length > 0""")
    got = answer(page)
    assert got[0]["id"] == EXAMPLE["after"][0]["id"]
    for g, want in zip(got, EXAMPLE["after"]):
        assert g["id"] == want["id"] and g["prob"] == pytest.approx(want["prob"], rel=5e-3), (g, want)
    assert page.text_content(f'{DEMO} [data-role="example-check"]').endswith("as the build found.")
    figures["example_prob_rel"] = max(abs(g["prob"] / w["prob"] - 1) for g, w in zip(got, EXAMPLE["after"]))
    print(f"real-inside live figures: { {k: f'{v:.2e}' for k, v in figures.items()} }")  # shown with pytest -s
    assert re.search(r"“" + re.escape(EXAMPLE["text"]) + "”", page.text_content(f'{DEMO} [data-role="inside-source"]'))
    assert page.text_content(f'{DEMO} [data-role="real-badge"]') == "Live, parts switched off"  # the example's knock-out
    assert not page.nt_problems, page.nt_problems


def test_one_sink_rule_on_both_pages(open_page):
    """The grid's grey cells on “The cat sat on the” are the heads the attention page counts as sinks."""
    cat = read_json(SITE_DATA / "smollm2" / "measurements.json")
    rule = next(p for p in cat["prompts"] if p["key"] == "cat")["sink_heads"]
    page = open_page(PAGE)
    stored(page, "cat")
    page.get_by_label("the last token's strongest attention").check()
    grey = page.locator(f'{DEMO} [data-role="heads"] button.nt-sink').count()
    assert grey == rule["count"], (grey, rule)
    assert page.text_content(f'{DEMO} [data-role="sinks"]').startswith(f"{rule['count']} of {rule['of']} heads put more than {rule['threshold']:.0%}")
    attention = " ".join(open_page("attention.html").text_content("article").split())
    assert f"SmolLM2 has {rule['count']} sinks among its {rule['of']} heads" in attention
    assert f"more than {rule['threshold']:.0%} of its attention" in attention


def cell(page, l: int, h: int):
    return page.locator(f'{DEMO} button[data-layer="{l}"][data-head="{h}"]')


def test_stored_lab_colourings_and_pattern(open_page):
    """The repeated letters, stored: each colouring shows the lab's numbers (transformers), and head 19.7's
    whole pattern has its induction stripe."""
    lab = read_json(SITE_DATA / "smollm2" / "lab" / "repeat.json")
    index = read_json(SITE_DATA / "smollm2" / "lab.json")
    page = open_page(PAGE)
    stored(page, "repeat")
    page.wait_for_selector(f'{DEMO}[data-target="{lab["target"]["ids"][0]}"]')
    assert page.text_content(f'{DEMO} [data-role="target-line"]').startswith(f"Following ·M {lab['base']['prob']:.1%} (rank 1")
    # where heads look: the stored kinds, with a key that counts them
    kinds = index["kinds"]
    for l, h in ((18, 6), (16, 0), (0, 0)):
        assert f"nt-kind-{kinds[lab['kinds']['kind'][l][h]]}" in cell(page, l, h).get_attribute("class")
    assert kinds[lab["kinds"]["kind"][18][6]] == "induction"
    n_ind = sum(k == kinds.index("induction") for row in lab["kinds"]["kind"] for k in row)
    assert f"induction ({n_ind})" in page.text_content(f'{DEMO} [data-role="grid-key"]')
    # switch off (zero), then mean: each cell's change is the stored sweep's against the base
    page.get_by_label("a sweep: what removing it does to your token").check()
    H = index["parts"]["n_head"]
    for method, label in (("zero", "switch off (zero)"), ("mean", "mean")):
        page.locator(f'{DEMO} [data-role="method"]').get_by_label(label, exact=True).check()
        got = float(cell(page, 18, 6).get_attribute("data-value"))
        assert got == pytest.approx(lab["sweeps"][method][18 * H + 6] - lab["base"]["value"], abs=1e-7), method
        assert "Largest drops:" in page.text_content(f'{DEMO} [data-role="sweep-top"]')
    # patched from the shuffled copy: the pair's noising row
    page.locator(f'{DEMO} [data-role="method"]').get_by_label("patch from another prompt").check()
    page.select_option(f'{DEMO} [data-role="copy-from"]', "shuffled")
    pair = next(p for p in index["pairs"] if p["clean"] == "repeat" and p["corrupt"] == "shuffled")
    got = float(cell(page, 18, 6).get_attribute("data-value"))
    assert got == pytest.approx(pair["noising"][18 * H + 6] - pair["clean_base"]["value"], abs=1e-7)
    # direct shares: the stored ones, and the key says they add up to the logit
    page.get_by_label("its direct share of your token's logit").check()
    assert float(cell(page, 18, 6).get_attribute("data-value")) == pytest.approx(lab["direct"]["heads"][18][6], abs=1e-6)
    assert f"{lab['direct']['logit']:.2f}" in page.text_content(f'{DEMO} [data-role="colour-note"]')
    # the head's whole pattern: every query row up to itself, the last row's top on ·M (position 5)
    page.get_by_label("where each head looks").check()
    cell(page, 18, 6).click()
    T = len(lab["ids"])
    heat = page.locator(f'{DEMO} [data-role="heat-map"]')
    assert heat.locator("rect").count() == T * (T + 1) // 2
    last = [float(heat.locator(f'rect[data-q="{T - 1}"][data-k="{k}"]').get_attribute("data-w")) for k in range(T)]
    assert max(range(T), key=lambda k: last[k]) == lab["tokens"].index(" M")
    assert "induction" in page.text_content(f'{DEMO} [data-role="head-kind"]')
    assert not page.nt_problems, page.nt_problems


def test_alone_on_its_page_it_draws_its_prompt_once_with_the_labs_record(open_page):
    """On its embed page the lab loads its stored prompt and that prompt's lab record side by side and draws the
    view once, with both (drawn again when the record came later, the page styled and laid the lab out twice)."""
    count = """window.__ntViews = [];
new MutationObserver(records => records.forEach(r => r.attributeName === 'data-view' &&
  window.__ntViews.push(r.target.getAttribute('data-view'))))
  .observe(document, {subtree: true, attributes: true, attributeFilter: ['data-view']});"""
    page = open_page("embed/real-inside.html", lazy=True, init=count)
    page.wait_for_selector(f'{DEMO}[data-view^="stored:"]', timeout=10_000)
    page.wait_for_timeout(1000)
    assert page.evaluate("window.__ntViews") == [page.get_attribute(DEMO, "data-view")]
    colours = page.evaluate(f"""() => [...document.querySelectorAll('{DEMO} input[type=radio]')]
      .filter(r => !r.disabled).map(r => r.value)""")
    assert "effect" in colours, colours  # a colouring only the lab's record gives
    assert not page.nt_problems, page.nt_problems
