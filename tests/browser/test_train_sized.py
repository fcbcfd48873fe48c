"""Training a model sized by the reader's corpus, driven like a reader on the training page.

The corpora the issue found refused now train; the preview shows each line's tokens before Train;
bad corpora are refused in one line and leave the previous model as it was; Stop saves nothing; after
training on the fox-and-hen corpus, the tiny-model demos on every page use its vocabulary and context.
Sizes expected here are the ones the trained model saved, checked against the page, never typed.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.helpers.tiny_page import KEY, clean, demo, forget

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
    page = open_page("training.html", "file")
    forget(page)
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
    page = open_page("training.html", "file")
    forget(page)
    root = fill(page, "\n".join(FOX + [" ".join(["a fox ran to the den"] * 3) + ".", "a hen ate 😀."]))
    page.wait_for_function(f"document.querySelectorAll('{ROOT_SEL} [data-role=preview] li[data-fits=no]').length === 2", timeout=10000)
    bad = root.locator('[data-role="preview"] li[data-fits="no"]')
    assert re.search(r"This line has \d+ pieces with its end marker; the longest a line may have is 16\.", bad.nth(0).inner_text())
    assert "U+1F600" in bad.nth(1).inner_text()
    clean(page)


def test_bad_corpora_are_refused_in_one_line_and_the_previous_model_stays(open_page):
    page = open_page("training.html", "file")
    forget(page)
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
    assert page.evaluate("nexttoken.store.get('model').config.corpus") == saved["config"]["corpus"]
    clean(page)


def test_every_tiny_model_page_uses_the_fox_and_hen_model(open_page):
    page = open_page("training.html", "file")
    forget(page)
    _, saved = train(page, FOX)
    marker = saved["tokenizer"]["space_marker"]
    vocab = [t.replace(" ", marker) for t in saved["tokenizer"]["vocab"]]
    n_ctx = saved["config"]["model"]["n_ctx"]
    page.goto(page.url.replace("training.html", "tokens.html"), wait_until="load")
    root = demo(page, "tokenize")
    shown = root.locator('[data-role="vocab"] .nt-chip code').all_inner_texts()
    assert shown == [t.replace("\n", "\\n") for t in vocab]
    assert root.locator("input[type=range]").input_value() == "0"  # it opens at merge 0
    root.get_by_role("button", name="All merges").click()
    assert root.locator(".nt-final-token").count() >= 1  # the starting word is one the fox model reads
    assert root.locator(".nt-merge-list li").count() == len(saved["tokenizer"]["merges"])  # the fox model's own merges
    page.goto(page.url.replace("tokens.html", "embeddings.html"), wait_until="load")
    root = demo(page, "embeddings")
    options = sorted(o.rsplit(" (id ", 1)[0] for o in root.locator("select option").all_inner_texts())
    assert options == sorted(vocab)
    page.goto(page.url.replace("embeddings.html", "context.html"), wait_until="load")
    root = demo(page, "context-window")
    assert f" of {n_ctx})" in root.locator(".nt-window-info").inner_text()
    for name, demos in {"index.html": ["one-token"], "attention.html": ["attention"],
                        "block.html": ["two-heads", "knockout", "lens"], "sampling.html": ["temperature"],
                        "generation.html": ["generate"]}.items():
        page.goto(re.sub(r"[^/]+\.html(#.*)?$", name, page.url), wait_until="load")  # a demo may have put its state in the link
        assert page.locator('.nt-model-switch[data-active-model="yours"]').count() == 1, name
        for d in demos:
            root = demo(page, d)
            assert root.locator(".nt-msg.nt-error:visible").count() == 0, (name, d, root.locator(".nt-msg.nt-error").all_inner_texts())
    clean(page)
