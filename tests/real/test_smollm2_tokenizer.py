"""docs/js/llm/tokenizer.js against the tokenizer transformers builds from SmolLM2's GGUF.

Held-out strings are drawn from a seed (English, code, digits, whitespace runs, emoji, CJK, RTL,
combining marks, control characters, special tokens, lone surrogates, code points from anywhere in
Unicode), some of them through the chat template; node encodes them and the ids must be
transformers' own. Lone surrogates, which transformers refuses, are compared with transformers on
the text with U+FFFD in their place (what the JS does, as TextEncoder does).
"""
from __future__ import annotations

import json
import random
import re
import shutil
import subprocess

import pytest

from scripts.core.io import ROOT, read_json
from scripts.real.loading import package_folder
from scripts.site import smollm2_tokenizer_js as gen

pytestmark = pytest.mark.slow
SEED = 20261203
N_CASES = 360
DATA_JS = ROOT / "docs" / "js" / "data" / "smollm2-tokenizer.js"

ENGLISH = ["The capital of France is the city of", "Once upon a time", "don't", "I'M", "it's", "they'll",
           "we've", "You're", "Mr. Smith's dog", "HELLO", "tokenization", "Antidisestablishmentarianism",
           "e.g.", "U.S.A.", "cat", "sat on the mat", "Paris", "naïve café", "résumé", "Zoë", "a", "I"]
CODE = ["def f(x):\n    return x ** 2", "for (let i = 0; i < n; i++) {", "}", "#include <stdio.h>",
        "x = {'a': [1, 2]}", "if a != b and c >= d:", "=> ->", "// comment", "/* */", "SELECT * FROM t;",
        "\tindent", "a_b_c", "__init__", "0x1F", "$HOME", "~/.bashrc", "print(\"hi\")", "<div class=\"x\">"]
DIGITS = ["0", "7", "42", "1234567890", "3.14159", "1,000,000", "2026", "-12", "1e-5", "½", "²", "١٢٣",
          "१२३", "Ⅻ", "①", "٣.٥"]
SPACES = [" ", "  ", "   ", "\t", "\n", "\n\n", "\r\n", " \n ", "\u00a0", "\u3000", "\u2028", "\u0085",
          "\ufeff", "\u200b", "\u2003\u2003", "\u000b", "\u000c", "    \n"]
EMOJI = ["😀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "❤️", "🤖", "🦜", "✨", "🧪🧬", "☕"]
CJK = ["東京", "北京市", "こんにちは", "カタカナ", "한국어", "漢字かな交じり文", "中文，标点。", "ｆｕｌｌｗｉｄｔｈ"]
RTL = ["שלום", "مرحبا بالعالم", "العربية", "עברית", "\u202eRTL override\u202c", "فارسی", "اردو"]
COMBINING = ["e\u0301", "a\u0308", "n\u0303o", "\u0915\u094d\u0937", "Z\u0351\u0352\u0353", "o\u0332",
             "\u1100\u1161\u11a8", "ñ", "å"]
CONTROL = ["\x00", "\x01", "\x04", "\x06", "\x13", "\x1b[31m", "\x7f", "\x1d", "\x9f", "a\x08b"]
SURROGATES = ["\ud800", "\udfff", "\udc00\udc00", "x\ud83d", "\ude00y"]
SEPARATORS = ["", " ", "  ", "\n", ", ", "-", "'", ".", "\t"]
POOLS = {"english": ENGLISH, "code": CODE, "digits": DIGITS, "spaces": SPACES, "emoji": EMOJI, "cjk": CJK,
         "rtl": RTL, "combining": COMBINING, "control": CONTROL}
# Planes 0-2 and 14 hold nearly every assigned code point; the rest reach the bytes the vocabulary lacks.
RANDOM_BLOCKS = [(0x20, 0x2FF), (0x370, 0x1FFF), (0x2000, 0x2BFF), (0x3000, 0x9FFF), (0xA000, 0xD7FF),
                 (0xE000, 0xFFFF), (0x10000, 0x1FFFF), (0x20000, 0x3FFFF), (0x40000, 0x10FFFF)]


def random_code_points(rng: random.Random) -> str:
    out = []
    for _ in range(rng.randint(1, 12)):
        lo, hi = rng.choice(RANDOM_BLOCKS)
        cp = rng.randint(lo, hi)
        out.append(chr(cp) if not 0xD800 <= cp <= 0xDFFF else "\ufffd")
    return "".join(out)


def held_out_cases(seed: int = SEED, n: int = N_CASES) -> list[dict]:
    rng = random.Random(seed)
    special = sorted(read_data()["special"])
    kinds = [*POOLS, "special", "surrogate", "unicode", "mixed"]
    cases = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        if kind in POOLS:
            parts = [rng.choice(POOLS[kind]) for _ in range(rng.randint(1, 4))]
        elif kind == "special":
            parts = [rng.choice(special), rng.choice(ENGLISH), rng.choice(special)[: rng.randint(1, 12)], rng.choice(special)]
        elif kind == "surrogate":
            parts = [rng.choice(ENGLISH), rng.choice(SURROGATES), rng.choice(EMOJI)]
        elif kind == "unicode":
            parts = [random_code_points(rng)]
        else:
            parts = [rng.choice(rng.choice(list(POOLS.values()))) for _ in range(rng.randint(2, 6))]
        text = "".join(p + rng.choice(SEPARATORS) for p in parts)
        case = {"text": text, "kind": kind}
        if i % 7 == 3:
            case["chat"] = True
            if rng.random() < 0.5:
                case["system"] = rng.choice(ENGLISH + CJK + EMOJI) + rng.choice(SEPARATORS)
        cases.append(case)
    return cases


def read_data() -> dict:
    text = DATA_JS.read_text(encoding="utf-8")
    return json.loads(text.split("smollm2Tokenizer = ", 1)[1].rstrip().rstrip(";"))


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


def run_node(payload: dict) -> dict:
    node = shutil.which("node")
    assert node, "node is needed for the JS tokenizer tests"
    proc = subprocess.run([node, str(ROOT / "tests/helpers/smollm2_tokenize.js")],
                          input=json.dumps(payload, ensure_ascii=True), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


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
    assert len(cases) >= 300 and kinds >= {*POOLS, "special", "surrogate", "unicode"}
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
