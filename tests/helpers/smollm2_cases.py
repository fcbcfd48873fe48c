"""The seeded held-out strings SmolLM2's JS tokenizer is checked on (against transformers in
tests/real/test_smollm2_tokenizer.py, in Chromium in tests/browser/test_smollm2_tokenizer_page.py):
English, code, digits, whitespace runs, emoji, CJK, RTL, combining marks, control characters, long runs,
special tokens, lone surrogates and code points from anywhere in Unicode, some through the chat
template."""
from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA_JS = ROOT / "docs" / "js" / "data" / "smollm2-tokenizer.js"
SEED = 20261203
N_CASES = 360

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
    kinds = [*POOLS, "special", "surrogate", "unicode", "long", "mixed"]
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
        elif kind == "long":  # one long piece: many merges inside one word
            lo, hi = rng.choice([(0x4E00, 0x9FFF), (0x61, 0x7A), (0x30, 0x39), (0xAC00, 0xD7A3), (0x20, 0x20)])
            parts = ["".join(chr(rng.randint(lo, hi)) for _ in range(rng.randint(50, 300)))]
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
    return json.loads(text.split("function () { return ", 1)[1].rstrip().removesuffix("; });"))




def run_node(payload: dict) -> dict:
    """tests/helpers/smollm2_tokenize.js on {cases, decode}: node's {encoded, decoded}."""
    node = shutil.which("node")
    assert node, "node is needed for the JS tokenizer tests"
    proc = subprocess.run([node, str(ROOT / "tests/helpers/smollm2_tokenize.js")],
                          input=json.dumps(payload, ensure_ascii=True), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
