"""GPT-2's tokenizer facts, computed from the committed files in site_data/gpt2/tokenizer/."""
from __future__ import annotations

import json

import pytest

from scripts.real import gpt2_tokenizer_facts as facts_mod
from scripts.core.io import ROOT, StageError, read_json
from scripts.site.gpt2_vocab_js import vocab_js

SITE = ROOT / "site_data" / "gpt2"
VOCAB = read_json(SITE / "tokenizer" / "vocab.json")
MERGES = facts_mod.read_merges(SITE / "tokenizer" / "merges.txt")


def test_vocabulary_is_bytes_plus_merges_plus_one_special_token():
    v = facts_mod.vocabulary_make_up(VOCAB, MERGES)
    assert (v["vocab_size"], v["byte_tokens"], v["merges"], v["special_tokens"]) == (50257, 256, 50000, ["<|endoftext|>"])
    assert v["special_ids"] == [50256]


def test_vocabulary_check_fails_when_an_entry_is_missing():
    broken = dict(VOCAB)
    del broken["Ġcat"]
    with pytest.raises(StageError):
        facts_mod.vocabulary_make_up({t: i for i, t in enumerate(broken)}, MERGES)


@pytest.mark.slow  # transformers (which imports torch)
def test_committed_facts_match_the_brief_and_a_fresh_computation():
    pytest.importorskip("transformers", reason="the tokenizer facts stage needs transformers")
    tok = facts_mod.load_tokenizer(SITE / "tokenizer")
    fresh = facts_mod.facts(tok, read_json(facts_mod.CONFIG_FILE), VOCAB, MERGES)
    assert fresh == read_json(SITE / "tokenizer_facts.json")
    assert fresh["ids_of"]["ids"] == [464, 3797, 3332, 319, 262]
    assert fresh["pieces_of"]["pieces"] == ["Token", "ization", " isn", "'t", " magic", "."]
    # the ids of the pieces (tokens.html's table shows them): the parity corpus holds the same sentence
    same = [c["ids"] for c in read_json(SITE / "tokenizer_parity.json")["cases"] if c["text"] == fresh["pieces_of"]["text"]]
    assert same == [fresh["pieces_of"]["ids"]] and len(fresh["pieces_of"]["ids"]) == fresh["pieces_of"]["n_pieces"]


@pytest.mark.slow  # transformers (which imports torch)
def test_parity_reference_is_what_transformers_gives_now():
    pytest.importorskip("transformers", reason="the tokenizer facts stage needs transformers")
    tok = facts_mod.load_tokenizer(SITE / "tokenizer")
    committed = read_json(SITE / "tokenizer_parity.json")
    assert committed == facts_mod.parity(tok, read_json(facts_mod.CONFIG_FILE)["parity_corpus"])
    assert len(committed["cases"]) >= 20


def test_browser_data_lists_every_token_at_its_id():
    text = vocab_js(VOCAB, MERGES)
    data = json.loads(text.split('nexttoken.define("data.gpt2-vocab", [], function () { return ', 1)[1].rsplit("; });", 1)[0])
    assert len(data["tokens"]) == 50257 and all(data["tokens"][i] == t for t, i in VOCAB.items())
    assert data["merges"][0] == " ".join(MERGES[0]) and len(data["merges"]) == 50000
    assert data["special"] == {"<|endoftext|>": 50256}
