"""Reader-reported rough edges (issue 29, item 7), each driven as a reader meets it: the tokenizer demo
names an unknown character's place as the reader counts it; a seed that is not a whole number from 0 is
refused in one line and the seed in use stays; the tiny Draw counts draws on one seed, as SmolLM2's Draw
does, and says so; Train it yourself disables Train over a corpus with a problem and shows the last run's
curve only beside the corpus it ran on; the embeddings neighbours are words first (fragments on request)
with no line to a cosine of 0.00; spaces around a prompt are said. (·cou: tests/browser/test_landing_roll.py.)"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scripts.tiny.sizing import Mulberry32
from scripts.tiny.tokenizer import load_tokenizer
from tests.helpers.tiny_page import clean, demo, forget

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "site_data" / "tiny"
TOK = load_tokenizer(TINY / "tokenizer.json")
CONFIG = json.loads((TINY / "config.json").read_text())


def enter(root, role: str, text: str) -> None:
    box = root.locator(f"input[data-role={role}]")
    box.fill(text)
    box.press("Enter")


def test_the_tokenizer_demo_names_an_unknown_characters_place_as_the_reader_counts(open_page):
    page = open_page("tokens.html")
    root = demo(page, "tokenize")
    word = next(w for w in ("hello", "help", "lamp") if any(c not in TOK.chars for c in w))
    where = next(i for i, c in enumerate(word) if c not in TOK.chars) + 1
    for start_of_text in (False, True):
        root.locator("input[type=checkbox]").set_checked(start_of_text)
        for typed in (word, "  " + word):  # spaces the reader typed count too
            enter(root, "text", typed)
            page.wait_for_timeout(100)
            line = root.locator(".nt-msg").first.inner_text()
            n = where + (len(typed) - len(word))
            assert f"(character {n})" in line, (typed, start_of_text, line)
    clean(page)


def test_a_seed_that_is_not_a_whole_number_from_0_is_refused_and_the_seed_stays(open_page):
    page = open_page("sampling.html")
    root = demo(page, "temperature")
    seed = root.locator("input[data-role=seed]")
    for bad in ("-3", "2.5", "-0.5"):
        seed.fill(bad)
        seed.dispatch_event("change")
        line = root.locator(".nt-msg.nt-warn").first.inner_text()
        assert line.startswith("A seed is a whole number from 0 to 1,000,000;") and line.endswith("so the seed stays 1."), line
        assert seed.input_value() == "1"
    seed.fill("0")  # 0 is a seed like any other
    seed.dispatch_event("change")
    root.get_by_role("button", name="Draw", exact=True).click()
    assert root.locator(".nt-pick").inner_text().startswith(f"Draw 1 with seed 0: u = {Mulberry32(0).next_u32() / 2**32:.3f}")
    clean(page)


def test_the_tiny_draw_counts_draws_on_one_seed_as_smollm2s_draw_does(open_page):
    page = open_page("sampling.html")
    root = demo(page, "temperature")
    assert "Draw n takes the n-th random number of the seed (as SmolLM2's Draw does)" in root.locator("[data-role=draw-rule]").inner_text()
    seed = root.locator("input[data-role=seed]")
    seed.fill("7")
    seed.dispatch_event("change")
    rng = Mulberry32(7)
    for n in range(1, 4):
        root.get_by_role("button", name="Draw", exact=True).click()
        u = rng.next_u32() / 2**32
        assert root.locator(".nt-pick").inner_text().startswith(f"Draw {n} with seed 7: u = {u:.3f} → pick "), n
        assert seed.input_value() == "7"
    seed.fill("7")  # setting the seed again starts its stream again
    seed.dispatch_event("change")
    root.get_by_role("button", name="Draw", exact=True).click()
    assert root.locator(".nt-pick").inner_text().startswith(f"Draw 1 with seed 7: u = {Mulberry32(7).next_u32() / 2**32:.3f}")
    # SmolLM2's Draw on the real-model page states the same rule in its own line
    page.goto(page.url.replace("sampling.html", "real-models.html"), wait_until="load")
    page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-source="stored"]', timeout=10_000)
    page.click('[data-role="draw-button"]')
    page.click('[data-role="draw-button"]')
    assert page.text_content('[data-role="draw"]').startswith("Draw 2 with seed 1: ")
    clean(page)


def test_train_is_disabled_over_a_bad_corpus_and_the_last_curve_shows_only_beside_its_corpus(open_page):
    page = open_page("training.html", "file", fresh=True)
    sel = '.nt-demo[data-demo="train-yours"]'
    root = demo(page, "train-yours")
    good = "a fox ran.\nthe fox ate a hen.\na hen ran to the den.\nthe fox saw the hen."
    root.locator("textarea").fill(good)
    root.locator('button[data-role="train"]').click()
    page.wait_for_function(f"document.querySelector('{sel}').getAttribute('data-trained') === 'yes'", timeout=120_000)
    page.wait_for_timeout(400)
    trained = root.locator(".nt-train-status").inner_text()
    assert trained.startswith("Trained:") and root.locator(".nt-chart svg").count() == 1
    for bad in ("", "fox", "the cat 😀 sat."):
        root.locator("textarea").fill(bad)
        page.wait_for_function(f"document.querySelector('{sel} button[data-role=train]').disabled", timeout=10_000)
        why = page.evaluate(f"""() => {{ const b = document.querySelector('{sel} button[data-role=train]');
            return document.getElementById(b.getAttribute('aria-describedby')).textContent.trim(); }}""")
        assert why.startswith("Nothing to train on until the corpus is fixed: ") and "\n" not in why, (bad, why)
        assert root.locator(".nt-chart svg").count() == 0, bad
        status = root.locator(".nt-train-status").inner_text()
        assert status.startswith("Not trained on this corpus yet.") and "still saved" in status, (bad, status)
        assert root.locator("progress").get_attribute("value") in ("0", None)
    root.locator("textarea").fill(good)  # back to the corpus it ran on: its curve and status return
    page.wait_for_function(f"!document.querySelector('{sel} button[data-role=train]').disabled", timeout=10_000)
    page.wait_for_function(f"document.querySelectorAll('{sel} .nt-chart svg').length === 1", timeout=10_000)
    assert root.locator(".nt-train-status").inner_text() == trained
    forget(page)
    clean(page)


def test_embedding_neighbours_are_words_first_fragments_on_request_and_no_line_to_zero(open_page):
    wte = np.array(json.loads((TINY / "weights.json").read_text())["weights"]["wte"])
    unit = wte / np.linalg.norm(wte, axis=1, keepdims=True)
    cos = unit @ unit.T
    np.fill_diagonal(cos, -np.inf)
    used = {i for line in CONFIG["corpus"] for i in TOK.encode(line)} | {TOK.eot_id}
    word = np.array([j in used and len(TOK.show(j).lstrip("·")) > 1 for j in range(len(wte))])
    page = open_page("embeddings.html")
    root = demo(page, "embeddings")
    listed = lambda: root.locator("li[data-token]").evaluate_all("ls => ls.map(l => l.dataset.token)")
    lines = lambda: root.locator("line.nt-embed-link").evaluate_all("ls => ls.map(l => l.dataset.token)")
    names = [TOK.show(j) for j in range(len(wte))]
    for name in ("·mat", "·cat"):
        i = names.index(name)
        root.locator("select").select_option(str(i))
        ranked = np.where(word, cos[i], -np.inf)
        want = [names[j] for j in np.argsort(-ranked, kind="stable")[:5]]
        assert listed() == want, name
        assert all(word[names.index(t)] for t in listed()), name
        assert lines() == [t for t in want if cos[i, names.index(t)] >= 0.005], name  # none to a cosine shown as 0.00 or less
        assert f"words to {name}" in root.locator("[data-role=near-of]").inner_text()
    # fragments on request: the whole vocabulary, as before
    i = names.index("·mat")
    root.locator("select").select_option(str(i))
    root.locator("input[data-role=fragments]").check()
    assert listed() == [names[j] for j in np.argsort(-cos[i], kind="stable")[:5]]
    assert "tokens to ·mat" in root.locator("[data-role=near-of]").inner_text()
    clean(page)


def test_spaces_around_a_prompt_are_said(open_page):
    page = open_page("index.html")
    root = demo(page, "one-token")
    enter(root, "prompt", "the cat ")
    page.wait_for_timeout(200)
    note = root.locator(".nt-msg").first.inner_text()
    assert "Your prompt ends in a space, which is a token of its own here (·)" in note, note
    seen = any(TOK.vocab.index(" ") in TOK.encode(line) for line in CONFIG["corpus"])
    assert ("the training sentences never contain it" in note) == (not seen), note
    enter(root, "prompt", " the cat")
    page.wait_for_timeout(200)
    note = root.locator(".nt-msg").first.inner_text()
    assert note == "Your prompt starts with a space, so its first token is ·the, not the.", note
    enter(root, "prompt", "the cat")
    page.wait_for_timeout(200)
    assert not root.locator(".nt-msg").first.inner_text().strip()
    clean(page)
