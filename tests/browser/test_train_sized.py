"""Training a model sized by the reader's corpus, driven like a reader on the training page.

The corpora the issue found refused now train; the preview shows each line's tokens before Train;
bad corpora are refused in one line and leave the previous model as it was; Stop saves nothing; after
training on the fox-and-hen corpus, every tiny-model page opens on the built model, and where the reader switches
it on its demos use the fox model's vocabulary and context, and name its heads from its own passes.
Sizes expected here are the ones the trained model saved, checked against the page, never typed.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers.axe import violations
from tests.helpers.tiny_page import KEY, clean, demo, use_yours

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
CONFIG = json.loads((ROOT / "site_data" / "tiny" / "config.json").read_text())
ROOT_SEL = '.nt-demo[data-demo="train-yours"]'
FOX = ["a fox ran.", "the fox ate a hen.", "a hen ran to the den.", "the fox saw the hen.", "a hen saw a fox."]
NEW_WORDS = ["the owl flew over the barn.", "a frog jumped in the pond.", "the fox ran to the den.",
             "the owl saw the frog.", "a frog sat in the barn.", "the fox hid in the den.", "an owl flew to the pond.",
             "the frog ran over the hill.", "a fox saw the owl.", "the owl sat on the barn.", "a frog hid in the pond.",
             "the fox jumped over the frog."]
REFUSED_BEFORE = {
    "fox and hen": FOX,
    "twelve new sentences": NEW_WORDS,
    "the build's twelve and one more": CONFIG["corpus"] + ["the fox ate the hen."],
    "hello": ["Hello World!"],
    "to be": ["to be or not to be."],
}
BAD = {
    "empty": "",
    "one word": "fox",
    "500 lines": "\n".join(f"the cat sat {i}." for i in range(500)),
    "a 2,000-character line": "the cat " * 250,
    "emoji": "\n".join(CONFIG["corpus"] + ["the cat 😀 sat."]),
    "other scripts": "\n".join(CONFIG["corpus"] + ["кошка сидит."]),
    "markup": "\n".join(CONFIG["corpus"] + ["the <b>cat</b> sat."]),
    "control characters": "\n".join(CONFIG["corpus"] + ["the cat\u0007 sat."]),
    "a line of spaces": "      ",
    "the same line 48 times": "\n".join(["the cat sat on the mat."] * 48),
    "a line over the window": "\n".join(CONFIG["corpus"] + [" ".join(["the cat sat on the mat"] * 3) + "."]),
}


def fill(page, text):
    root = demo(page, "train-yours")
    root.locator("textarea").fill(text)
    page.wait_for_function(
        f"(() => {{ const s = document.querySelector('{ROOT_SEL} [data-role=sizes]'); return s && s.textContent.length > 0; }})()",
        timeout=10000)
    return root


def refused_why(page) -> str:
    """Waits for Train to turn disabled over the corpus in the box; the one line that says why."""
    page.wait_for_function(f"document.querySelector('{ROOT_SEL} button[data-role=train]').disabled", timeout=10000)
    return page.evaluate(f"""() => {{ const b = document.querySelector('{ROOT_SEL} button[data-role=train]');
        return document.getElementById(b.getAttribute('aria-describedby')).textContent.trim(); }}""")


def train(page, lines):
    root = fill(page, "\n".join(lines))
    page.evaluate(f"document.querySelector('{ROOT_SEL}').removeAttribute('data-trained')")
    root.locator('button[data-role="train"]').click()
    page.wait_for_function(f"document.querySelector('{ROOT_SEL}').getAttribute('data-trained') === 'yes'", timeout=120000)
    return root, json.loads(page.evaluate(f"localStorage.getItem('{KEY}')"))


def test_the_corpora_refused_before_now_train_sized_by_themselves(open_page):
    page = open_page("training.html", "file", fresh=True)
    for name, lines in REFUSED_BEFORE.items():
        root, saved = train(page, lines)
        mc = saved["config"]["model"]
        vocab = saved["tokenizer"]["vocab"]
        assert saved["config"]["corpus"] == lines, name
        assert mc["vocab_size"] == len(vocab) == len(saved["weights"]["wte"]), name
        assert mc["n_ctx"] == len(saved["weights"]["wpe"]) <= 16, name
        # The preview said these sizes before Train, with every line's chips.
        sizes = root.locator('[data-role="sizes"]').inner_text()
        assert f"vocabulary {mc['vocab_size']} " in sizes and f"context {mc['n_ctx']} " in sizes, (name, sizes)
        assert f"{mc['n_params']:,} weights" in sizes, (name, sizes)
        items = root.locator('[data-role="preview"] li')
        assert items.count() == len(lines)
        assert root.locator('[data-role="preview"] li[data-fits="no"]').count() == 0
        first = [c for c in items.nth(0).locator(".nt-chip code").all_inner_texts()]
        assert "".join(first).replace("·", " ") == lines[0], (name, first)
        assert saved["trained"]["loss_last"] < saved["trained"]["loss_first"] / 2, name
    clean(page)


def test_the_preview_marks_lines_that_will_not_fit_in_the_readers_words(open_page):
    page = open_page("training.html", "file", fresh=True)
    root = fill(page, "\n".join(FOX + [" ".join(["a fox ran to the den"] * 3) + ".", "a hen ate 😀."]))
    page.wait_for_function(f"document.querySelectorAll('{ROOT_SEL} [data-role=preview] li[data-fits=no]').length === 2", timeout=10000)
    bad = root.locator('[data-role="preview"] li[data-fits="no"]')
    assert re.search(r"This line has \d+ pieces with its end marker; the longest a line may have is 16\.", bad.nth(0).inner_text())
    assert "U+1F600" in bad.nth(1).inner_text()
    clean(page)


def test_bad_corpora_are_refused_in_one_line_and_the_previous_model_stays(open_page):
    page = open_page("training.html", "file", fresh=True)
    _, saved = train(page, FOX)
    before = page.evaluate(f"localStorage.getItem('{KEY}')")
    for name, text in BAD.items():  # issue 29: Train turns disabled, saying why in one line; the last run's curve goes
        root = demo(page, "train-yours")
        root.locator("textarea").fill(text)
        assert refused_why(page).startswith("Nothing to train on until the corpus is fixed"), name
        line = root.locator("[data-role=sizes]").inner_text().strip()  # what is wrong, in one line
        assert line and "\n" not in line, name
        assert root.locator(".nt-chart svg").count() == 0, name
        assert not root.locator(".nt-train-status").inner_text().startswith("Trained:"), name
        assert page.evaluate(f"localStorage.getItem('{KEY}')") == before, name
    # Stop: a run stopped half way saves nothing.
    root = fill(page, "\n".join(NEW_WORDS * 4))
    root.locator('button[data-role="train"]').click()
    page.wait_for_function(f"Number(document.querySelector('{ROOT_SEL} progress').value) > 0", timeout=20000)
    root.locator('button[data-role="stop"]').click()
    assert root.get_attribute("data-stopped") == "yes"
    page.wait_for_timeout(500)
    assert page.evaluate(f"localStorage.getItem('{KEY}')") == before
    assert "nothing was saved" in root.locator(".nt-train-status").inner_text()
    page.reload(wait_until="load")
    assert page.evaluate("nexttoken.runtime.active.yours.config.corpus") == saved["config"]["corpus"]
    clean(page)


SUMMARY = json.loads((ROOT / "site_data" / "tiny" / "summary.json").read_text())
# the head whose last position attends most to position 1 in the knock-out's pass, from the page's own model
SUBJECT_HEAD = """() => {
  const root = document.querySelector('.nt-demo[data-demo="knockout"]'), a = nexttoken.runtime.active;
  const t = a.tiny(nexttoken.runtime.model), r = t.tk.encode(root.querySelector('input[data-role=prompt]').value);
  const w = t.model.forward(r.ids).h[0].attn_weights, last = r.ids.length - 1;
  let best = 0; for (let h = 1; h < w.length; h++) if (w[h][last][1] > w[best][last][1]) best = h;
  return {head: best, token: t.tk.show(r.ids[1]), which: a.which};
}"""


def knockout_labels(page):
    return demo(page, "knockout").locator("fieldset label").all_inner_texts()


def test_the_fox_and_hen_model_runs_only_where_the_reader_switches_it_on(open_page):
    page = open_page("training.html", "file", fresh=True)
    _, saved = train(page, FOX)
    # the page it was trained on keeps the built model, and now shows the switch, off
    assert page.locator('.nt-model-switch[data-active-model="built"] input[data-role=use-yours]').is_checked() is False
    assert page.evaluate("nexttoken.store.get('model').yours") is None
    marker = saved["tokenizer"]["space_marker"]
    vocab = [t.replace(" ", marker) for t in saved["tokenizer"]["vocab"]]
    n_ctx = saved["config"]["model"]["n_ctx"]
    page.goto(page.url.replace("training.html", "tokens.html"), wait_until="load")
    assert page.locator('.nt-model-switch[data-active-model="built"]').count() == 1  # another page: the built model first
    use_yours(page)
    root = demo(page, "tokenize")
    assert root.locator("[data-role=yours-note]").is_visible()  # said where the reader looks: the text is the built model's
    shown = root.locator('[data-role="vocab"] .nt-chip code').all_inner_texts()
    assert shown == [t.replace("\n", "\\n") for t in vocab]
    assert root.locator("input[type=range]").input_value() == "0"  # it opens at merge 0
    root.get_by_role("button", name="All merges").click()
    assert root.locator(".nt-final-token").count() >= 1  # the starting word is one the fox model reads
    assert root.locator(".nt-merge-list li").count() == len(saved["tokenizer"]["merges"])  # the fox model's own merges
    page.goto(page.url.replace("tokens.html", "embeddings.html"), wait_until="load")
    use_yours(page)
    root = demo(page, "embeddings")
    options = sorted(o.rsplit(" (id ", 1)[0] for o in root.locator("select option").all_inner_texts())
    assert options == sorted(vocab)
    page.goto(page.url.replace("embeddings.html", "context.html"), wait_until="load")
    use_yours(page)
    root = demo(page, "context-window")
    assert f" of {n_ctx})" in root.locator(".nt-window-info").inner_text()
    # the knock-out names the head that looks at the subject from the pass of the model in use (issue 43: it said
    # the built model's "head 2 (the head that looks at ·cat)" while the reader's head 1 did)
    page.goto(re.sub(r"[^/]+\.html(#.*)?$", "block.html", page.url), wait_until="load")
    demo(page, "knockout")  # built once near the view
    built = page.evaluate(SUBJECT_HEAD)
    assert built["which"] == "built" and built["head"] == SUMMARY["subject_head"]["head"]
    assert f"head {built['head'] + 1} (the head that looks most at {built['token']})" in knockout_labels(page)
    use_yours(page)
    demo(page, "knockout")
    own = page.evaluate(SUBJECT_HEAD)
    assert own["which"] == "yours" and own["token"] in vocab
    labels = knockout_labels(page)
    assert f"head {own['head'] + 1} (the head that looks most at {own['token']})" in labels, labels
    assert sum("looks most at" in x for x in labels) == 1
    page.reload(wait_until="load")  # the page's choice holds on reload and on going back to it; another page starts built
    assert page.locator('.nt-model-switch[data-active-model="yours"]').count() == 1
    page.goto(re.sub(r"[^/]+\.html(#.*)?$", "sampling.html", page.url), wait_until="load")
    assert page.locator('.nt-model-switch[data-active-model="built"]').count() == 1
    page.go_back(wait_until="load")
    assert page.locator('.nt-model-switch[data-active-model="yours"]').count() == 1
    for name, demos in {"index.html": ["one-token"], "attention.html": ["attention"],
                        "block.html": ["two-heads", "knockout", "lens"], "sampling.html": ["temperature"],
                        "generation.html": ["generate"]}.items():
        page.goto(re.sub(r"[^/]+\.html(#.*)?$", name, page.url), wait_until="load")  # a demo may have put its state in the link
        use_yours(page)
        for d in demos:
            root = demo(page, d)
            assert root.locator(".nt-msg.nt-error:visible").count() == 0, (name, d, root.locator(".nt-msg.nt-error").all_inner_texts())
            assert root.locator("[data-role=yours-note]").count() == 1, (name, d)
    clean(page)
    # axe, served (its stylesheet reads fail from disk), on the switch and the demos' notes in both schemes
    web = open_page("block.html", lazy=True)  # the page with the knock-out
    try:
        web.evaluate("([k, v]) => localStorage.setItem(k, v)", [KEY, json.dumps(saved)])
        web.reload(wait_until="load")
        use_yours(web)
        demo(web, "knockout")
        for scheme in ("default", "slate"):  # set in place: a load in a scheme (open_page's scheme=) clears the storage, and the model
            web.evaluate("s => document.body.setAttribute('data-md-color-scheme', s)", scheme)
            found = violations(web)
            assert found == [], f"{scheme}: " + "; ".join(found)
    finally:
        web.evaluate("localStorage.clear()")
    clean(web)
