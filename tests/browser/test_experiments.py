"""The experiments, driven like a reader: knock-outs, the logit lens, and training the model in the page.

Expected answers come from site_data (the build's summary and scripts/tiny/references.py's PyTorch
knock-outs and lens), never typed here.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers.tiny_page import KEY, clean, demo, forget, use_yours

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = json.loads((ROOT / "site_data" / "tiny" / "summary.json").read_text())
CONFIG = json.loads((ROOT / "site_data" / "tiny" / "config.json").read_text())
EXPERIMENTS = {e["prompt"]: e for e in json.loads((ROOT / "site_data" / "parity" / "experiments.json").read_text())["prompts"]}

pytestmark = pytest.mark.browser


def test_one_knockout_demo_and_the_attention_page_links_to_it(site):
    """Issue 42: one knock-out demo, on the block page where it teaches most; the attention page, where the
    subject head is met, links to it."""
    holders = sorted(p.stem for p in (ROOT / "docs").glob("*.md") if 'data-demo="knockout"' in p.read_text(encoding="utf-8"))
    assert holders == ["block"], f"the knock-out demo is on {holders}"
    assert 'href="block.html#demo-knockout"' in (site / "attention.html").read_text(encoding="utf-8")
    block = (site / "block.html").read_text(encoding="utf-8")
    after = block[block.index('id="demo-knockout"'):]
    assert re.search(r'data-demo="([^"]+)"', after).group(1) == "knockout", "the link's anchor is not the knock-out demo"


def test_knockout_of_the_subject_head_loses_the_answer(open_page):
    page = open_page("block.html", fresh=True)
    sh = SUMMARY["subject_head"]["head"]
    # The page's example: the first prompt whose answer PyTorch says the subject head decides.
    flips = [p for p in CONFIG["prompts"] if EXPERIMENTS[p]["knockouts"][sh + 1]["top"]["token"] != SUMMARY["picks"][p]["token"]]
    assert flips, "knocking out the subject head changes no answer: the page's example has nothing to show"
    prompt = flips[0]
    root = demo(page, "knockout")
    assert root.locator('input[data-role="prompt"]').input_value() == prompt
    verdict = root.locator(".nt-ko-verdict")
    answer = SUMMARY["picks"][prompt]["token"]
    assert verdict.get_attribute("data-full") == answer
    root.locator(f'input[data-knockout="head{sh}"]').check()
    ref = {k["name"]: k for k in EXPERIMENTS[prompt]["knockouts"]}
    assert verdict.get_attribute("data-knocked") == ref[f"head{sh}"]["top"]["token"] != answer
    root.locator(f'input[data-knockout="head{sh}"]').uncheck()
    root.locator('input[data-knockout="mlp"]').check()
    assert verdict.get_attribute("data-knocked") == ref["mlp"]["top"]["token"]
    for h in range(CONFIG["model"]["n_head"]):
        root.locator(f'input[data-knockout="head{h}"]').check()
    root.locator('input[data-knockout="mlp"]').uncheck()
    assert verdict.get_attribute("data-knocked") == ref["heads"]["top"]["token"]
    clean(page)


def test_lens_shows_every_stage_beside_the_answer(open_page):
    page = open_page("block.html", fresh=True)
    root = demo(page, "lens")
    prompt = root.locator('input[data-role="prompt"]').input_value()
    rows = root.locator(".nt-live tbody tr")
    stages = [rows.nth(i).get_attribute("data-stage") for i in range(rows.count())]
    assert stages == ["embeddings", "attention", "mlp"]  # the last stage is the answer, named once
    names = root.locator(".nt-live tbody th").all_inner_texts()
    assert sum("the model's answer" in n for n in names) == 1 and "the model's answer" in names[-1]
    tokens = EXPERIMENTS[prompt]["tokens"]
    own = sum(c["token"] == tok for c, tok in zip(EXPERIMENTS[prompt]["lens"][0]["top"], tokens))
    assert root.locator("[data-own]").get_attribute("data-own") == str(own) and own > len(tokens) // 2
    ref = EXPERIMENTS[prompt]["lens"]
    for i, st in enumerate(ref):
        cells = rows.nth(i).locator("td")
        assert cells.count() == len(EXPERIMENTS[prompt]["tokens"])
        assert [cells.nth(j).get_attribute("data-token") for j in range(cells.count())] == [c["token"] for c in st["top"]]
    answer = rows.nth(2).locator("td")
    assert answer.last.get_attribute("data-token") == SUMMARY["picks"][prompt]["token"]
    # The lens follows the knock-outs on the same page.
    sh = SUMMARY["subject_head"]["head"]
    page.locator(f'.nt-demo[data-demo="knockout"] input[data-knockout="head{sh}"]').check()
    knocked = {k["name"]: k for k in EXPERIMENTS[prompt]["knockouts"]}[f"head{sh}"]["top"]["token"]
    assert rows.nth(2).locator("td").last.get_attribute("data-token") == knocked
    clean(page)


def train(page, text):
    root = demo(page, "train-yours")
    before = int(root.get_attribute("data-refused") or 0)
    root.locator("textarea").fill(text)
    root.locator('button[data-role="train"]').click()
    return root, before


BAD = {
    "empty": "",
    "over the longest context": "\n".join(CONFIG["corpus"] + [" ".join(["the cat sat on the mat"] * 3) + "."]),
    "emoji": "\n".join(CONFIG["corpus"] + ["the cat 😀 sat."]),
    "other script": "\n".join(CONFIG["corpus"] + ["der kater saß."]),
    "500 sentences": "\n".join(["the cat sat on the mat."] * 500),
    "markup": "\n".join(CONFIG["corpus"] + ["the <b>cat</b> sat."]),
}


def test_bad_corpora_leave_the_built_model(open_page):
    page = open_page("training.html", "file", fresh=True)
    for name, text in BAD.items():  # issue 29: a bad corpus disables Train, saying why in one line
        root = demo(page, "train-yours")
        root.locator("textarea").fill(text)
        page.wait_for_function("document.querySelector('.nt-demo[data-demo=\"train-yours\"] button[data-role=train]').disabled", timeout=10000)
        why = page.evaluate("""() => { const b = document.querySelector('.nt-demo[data-demo="train-yours"] button[data-role=train]');
            return document.getElementById(b.getAttribute('aria-describedby')).textContent.trim(); }""")
        assert why.startswith("Nothing to train on until the corpus is fixed: ") and "\n" not in why, (name, why)
        assert page.evaluate(f"localStorage.getItem('{KEY}')") is None, name
    page.reload(wait_until="load")
    assert page.locator(".nt-model-switch").count() == 0
    assert page.evaluate("!nexttoken.store.get('model').yours")
    # with no bar to show, the title sits close above the text: no band kept for it
    gap = page.evaluate("""() => { const h = document.querySelector('.md-content__inner h1');
        return h.nextElementSibling.getBoundingClientRect().top - h.getBoundingClientRect().bottom; }""")
    assert gap <= 24, gap
    clean(page)


def test_training_a_new_sentence_moves_the_prediction_and_survives_reload(open_page):
    page = open_page("training.html", "file", fresh=True)
    root, _ = train(page, "\n".join(CONFIG["corpus"] + ["the cow sat on the rug."]))
    page.wait_for_function('document.querySelector(\'.nt-demo[data-demo="train-yours"]\').getAttribute("data-trained") === "yes"',
                           timeout=120000)
    probe = root.locator('input[data-role="probe"]')
    probe.fill("the cow sat on the")
    probe.press("Enter")
    row = root.locator('.nt-train-compare tr[data-token="·rug"]')
    assert row.count() == 1, "·rug is not among your model's top tokens after “the cow sat on the”"
    yours = float(row.get_attribute("data-yours"))
    built = float(row.get_attribute("data-built") or 0)
    assert yours > built + 0.2, (yours, built)
    # The model survives a reload and a move to another page, from file://; each page opens on the built model,
    # with the switch under its title, and the reader's model runs where it is switched on.
    page.reload(wait_until="load")
    assert page.locator('.nt-model-switch[data-active-model="built"]').count() == 1
    # the bar sits under the title, not above it
    assert page.evaluate("document.querySelector('.md-content__inner h1').nextElementSibling.classList.contains('nt-model-switch')")
    page.goto(page.url.replace("training.html", "attention.html"), wait_until="load")
    assert page.locator('.nt-model-switch[data-active-model="built"]').count() == 1
    use_yours(page)
    assert page.evaluate("nexttoken.store.get('model').yours === true && nexttoken.store.get('model').config.corpus.includes('the cow sat on the rug.')")
    demo(page, "attention")
    # Back to the built model with the switch.
    use_yours(page, on=False)
    assert page.evaluate("!nexttoken.store.get('model').yours")
    forget(page)
    clean(page)


def test_snapshots_load_only_when_asked(open_page):
    page = open_page("training.html", "file")
    assert page.evaluate("!(nexttoken.data && nexttoken.data['tiny-snapshots'])")
    root = demo(page, "snapshots")
    root.locator('button[data-role="load-snapshots"]').click()
    page.wait_for_function('document.querySelector(\'.nt-demo[data-demo="snapshots"]\').getAttribute("data-snapshots") === "loaded"')
    assert root.locator(".nt-loss-col").count() > 0
    clean(page)


def test_the_block_demo_and_its_arithmetic_follow_a_knock_out(open_page):
    """Switching off the subject head reruns the two-heads demo: its note says so, and an opened number's
    "reproduce it" snippet replays the same knock-out (tests/site/test_explain_snippets.py runs such snippets)."""
    page = open_page("block.html", "http")
    sh = SUMMARY["subject_head"]["head"]
    two = demo(page, "two-heads")
    page.locator(f'.nt-demo[data-demo="knockout"] input[data-knockout="head{sh}"]').check()
    assert f"switched off by the knock-out below: head {sh + 1}" in two.inner_text().lower()
    two.locator("button[aria-expanded]").first.click()
    code = two.locator(".nt-x-code code").first.text_content()
    assert f"off_heads, off_mlp = [{sh}], False" in code
    clean(page)


def _cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (sum(x * x for x in a) * sum(y * y for y in b)) ** 0.5


def test_the_embeddings_page_follows_your_model(open_page):
    """Train on another corpus, then open the embeddings page: its ids, rows and switch are your model's."""
    page = open_page("training.html", "file", fresh=True)
    train(page, "\n".join(CONFIG["corpus"] + ["the cow sat on the rug."]))
    page.wait_for_function('document.querySelector(\'.nt-demo[data-demo="train-yours"]\').getAttribute("data-trained") === "yes"',
                           timeout=120000)
    yours = json.loads(page.evaluate(f"localStorage.getItem('{KEY}')"))
    built_vocab = json.loads((ROOT / "site_data" / "tiny" / "tokenizer.json").read_text())["vocab"]
    marker = yours["tokenizer"]["space_marker"]
    vocab = [t.replace(" ", marker) for t in yours["tokenizer"]["vocab"]]  # as the page shows them
    built_vocab = [t.replace(" ", marker) for t in built_vocab]
    wte = yours["weights"]["wte"]
    moved = [t for i, t in enumerate(vocab) if t in built_vocab and built_vocab.index(t) != i]
    assert moved, "the edited corpus gives every shared token the built id: the test could not tell the models apart"
    page.goto(page.url.replace("training.html", "embeddings.html"), wait_until="load")
    use_yours(page)
    root = demo(page, "embeddings")
    options = dict(o.rsplit(" (id ", 1) for o in root.locator("select option").all_inner_texts())
    assert all(int(options[t].rstrip(")")) == vocab.index(t) for t in moved), [(t, options[t], vocab.index(t)) for t in moved]
    # The nearest tokens to the page's token are computed from your model's rows.
    pick = vocab.index(page.locator('.nt-demo[data-demo="embeddings"]').get_attribute("data-token"))
    # words first (issue 29): rows your corpus uses whole, over one character
    from scripts.tiny.tokenizer import Tokenizer
    ytok = Tokenizer.from_json(yours["tokenizer"])
    used = {i for line in yours["config"]["corpus"] for i in ytok.encode(line)} | {ytok.eot_id}
    sims = {vocab[j]: _cosine(wte[pick], row) for j, row in enumerate(wte)
            if j != pick and j in used and len(vocab[j].lstrip(marker)) > 1}
    expected = sorted(sims, key=lambda t: -sims[t])[:5]
    bars = root.locator(".nt-bar[data-token]")
    assert [bars.nth(k).get_attribute("data-token") for k in range(bars.count())] == expected
    for k in range(bars.count()):
        assert abs(float(bars.nth(k).get_attribute("data-cos")) - sims[expected[k]]) < 1e-9
    forget(page)
    clean(page)
