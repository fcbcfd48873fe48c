"""scripts/real/pretokenizer_classes.py: asking tokenizers' ByteLevel pre-tokenizer which code points
are letters, digits and spaces, and the committed ranges it wrote."""
from __future__ import annotations

import pytest

from scripts.core.io import ROOT, read_json
from scripts.real import pretokenizer_classes as mod

COMMITTED = read_json(ROOT / "site_data" / "smollm2" / "pretokenizer_classes.json")


def members(ranges):
    return {cp for lo, hi in ranges for cp in range(lo, hi + 1)}


def test_the_probe_tells_letters_digits_spaces_and_symbols_apart():
    pytest.importorskip("tokenizers")
    pre = mod.pre_tokenizer()
    split = pre.pre_tokenize_str
    kinds = {c: mod.classify(split, c) for c in ["a", "é", "東", "5", "٣", "Ⅻ", " ", "\t", "\u0085", "\u00a0",
                                                 "\u3000", "\ufeff", "\u200b", "!", "'", "\u0301", "😀"]}
    assert kinds == {"a": "letter", "é": "letter", "東": "letter", "5": "number", "٣": "number", "Ⅻ": "number",
                     " ": "space", "\t": "space", "\u0085": "space", "\u00a0": "space", "\u3000": "space",
                     "\ufeff": None, "\u200b": None, "!": None, "'": None, "\u0301": None, "😀": None}
    assert repr(pre) == COMMITTED["pre_tokenizer"]


def test_ranges_are_sorted_disjoint_and_merge_neighbours():
    assert mod.ranges([5, 1, 2, 3, 9, 10]) == [[1, 3], [5, 5], [9, 10]]
    for kind in ("letter", "number", "space"):
        r = COMMITTED[kind]
        assert all(a <= b for a, b in r) and all(r[i][1] + 1 < r[i + 1][0] for i in range(len(r) - 1))
    letters, numbers, spaces = (members(COMMITTED[k]) for k in ("letter", "number", "space"))
    assert not (letters & numbers or letters & spaces or numbers & spaces)
    assert len(spaces) == 25 and 0x85 in spaces and 0xFEFF not in spaces  # Unicode White_Space, not JS's \s
    assert not any(0xD800 <= cp <= 0xDFFF for cp in letters | numbers | spaces)
