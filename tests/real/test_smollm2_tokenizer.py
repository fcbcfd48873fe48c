"""docs/js/real/tokenizer.js against the tokenizer transformers builds from SmolLM2's GGUF.

Held-out strings are drawn from a seed (English, code, digits, whitespace runs, emoji, CJK, RTL,
combining marks, control characters, special tokens, lone surrogates, code points from anywhere in
Unicode), some of them through the chat template; node encodes them and the ids must be
transformers' own. Lone surrogates, which transformers refuses, are compared with transformers on
the text with U+FFFD in their place (what the JS does, as TextEncoder does).
"""
from __future__ import annotations

import random
import re

import pytest

from scripts.core.io import ROOT, read_json
from scripts.site import smollm2_tokenizer_js as gen
from tests.helpers.smollm2_cases import DATA_JS, POOLS, SEED, held_out_cases, read_data, run_node

pytestmark = pytest.mark.slow
LONE = re.compile(r"[\ud800-\udfff]")


def reference_ids(tok, case: dict) -> list[int]:
    text = LONE.sub("\ufffd", case["text"])
    if not case.get("chat"):
        return tok(text, add_special_tokens=True)["input_ids"]
    messages = [{"role": "user", "content": text}]
    if "system" in case:
        messages.insert(0, {"role": "system", "content": case["system"]})
    out = tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    return list(out["input_ids"] if hasattr(out, "keys") else out)


@pytest.fixture(scope="module")
def tok():
    pytest.importorskip("transformers")
    if not DATA_JS.is_file():
        pytest.fail(f"{DATA_JS} is missing: run .venv/bin/python -m scripts.site.smollm2_tokenizer_js (make site does)")
    from transformers import AutoTokenizer

    path = gen.gguf_path()
    return AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)


def test_the_held_out_strings_cover_every_kind_and_are_not_the_examples():
    cases = held_out_cases()
    kinds = {c["kind"] for c in cases}
    assert len(cases) >= 300 and kinds >= {*POOLS, "special", "surrogate", "unicode", "long"}
    assert sum(1 for c in cases if c.get("chat")) >= 40
    assert held_out_cases(SEED + 1) != cases  # the seed decides the set


def test_js_ids_equal_transformers_on_held_out_strings(tok):
    cases = held_out_cases()
    got = run_node({"cases": cases})["encoded"]
    failures = []
    for case, js in zip(cases, got):
        want = reference_ids(tok, case)
        ids = js.get("ids") if js["ok"] else None
        if ids != want and not (not js["ok"] and js["error"]["kind"] == "empty" and want == []):
            failures.append({"case": case, "transformers": want, "js": js})
    print(f"smollm2 tokenizer parity: {len(cases) - len(failures)} of {len(cases)} held-out strings "
          f"({sum(1 for c in cases if c.get('chat'))} through the chat template; "
          f"{sum(1 for j in got if j.get('replaced'))} with lone surrogates, "
          f"{sum(1 for j in got if j.get('dropped'))} with bytes the vocabulary lacks) equal transformers")
    assert failures == []


def test_js_decode_equals_transformers_on_random_ids(tok):
    """Random id runs, many cutting characters in half, decode to transformers' text (U+FFFD and all)."""
    rng = random.Random(SEED)
    vocab = len(tok)
    runs = [[rng.randrange(vocab) for _ in range(rng.randint(1, 12))] for _ in range(200)]
    runs += [reference_ids(tok, c) for c in held_out_cases()[:100]]
    got = run_node({"cases": [], "decode": runs})["decoded"]
    want = [tok.decode(ids, skip_special_tokens=False) for ids in runs]
    assert [i for i, (a, b) in enumerate(zip(got, want)) if a != b] == []


def test_the_chat_template_parts_render_as_transformers(tok):
    data = gen.tokenizer_data(gen.read_metadata(gen.gguf_path()), read_json(gen.CLASSES), "test")
    parts = data["chat"]
    assert tok.apply_chat_template([{"role": "system", "content": "S"}, {"role": "user", "content": "U"}],
                                   add_generation_prompt=True, tokenize=False) == "S".join(parts["system_user"][:2]) + "U" + parts["system_user"][2]
    assert tok.apply_chat_template([{"role": "user", "content": "U"}], add_generation_prompt=True,
                                   tokenize=False) == "U".join(parts["user"])


def test_the_classes_were_read_from_the_pre_tokenizer_transformers_builds(tok):
    committed = read_json(ROOT / "site_data/smollm2/pretokenizer_classes.json")
    assert repr(tok.backend_tokenizer.pre_tokenizer) == committed["pre_tokenizer"]
    assert tok.backend_tokenizer.normalizer is None  # nothing changes the text before the split
    data = read_data()
    whole = {t.content: i for i, t in tok.added_tokens_decoder.items()}
    assert whole == {**data["special"], **data["added"]}
    assert {t.content for t in tok.added_tokens_decoder.values() if t.special} == set(data["special"])
