"""The build-found knock-out (scripts/real/knockout_example.py, site_data/smollm2/knockout.json): its
settings are checked before any model loads, its record is where its stated search order puts it,
and transformers agrees that switching the part off changes the answer as recorded."""
from __future__ import annotations

import json

import pytest

from scripts.core.io import SITE_DATA, StageError, read_json, validate
from scripts.real import knockout_example as ke

REC = read_json(SITE_DATA / "smollm2" / "knockout.json")


@pytest.mark.parametrize("cfg,line", [
    ({"model": "smollm2", "prompts": ["capital", "nowhere"], "top_n": 3}, "prompts ['nowhere'] are not keys of"),
    ({"model": "smollm2", "prompts": ["capital", "capital"], "top_n": 3}, "prompts must be a non-empty list of distinct prompt keys"),
    ({"model": "smollm2", "prompts": [], "top_n": 3}, "prompts must be a non-empty list"),
    ({"model": "smollm2", "prompts": ["capital"], "top_n": 0}, "top_n must be a whole number of at least 1"),
])
def test_bad_settings_are_one_line(tmp_path, monkeypatch, cfg, line):
    path = tmp_path / "knockout.json"
    path.write_text(json.dumps(cfg))
    monkeypatch.setattr(ke, "CONFIG_FILE", path)
    with pytest.raises(StageError, match=line.replace("[", r"\[").replace("]", r"\]")):
        ke.settings()


def test_record_is_where_the_search_order_puts_it():
    validate(REC, "real_knockout", "knockout.json")
    cfg = ke.settings()
    assert REC["searched"]["prompts"] == cfg["prompts"]
    per = REC["searched"]["parts_per_prompt"]
    part, at = REC["part"], cfg["prompts"].index(REC["key"])
    if part["kind"] == "head":
        n_head = per["head"] // per["mlp"]
        expect = at * per["head"] + part["layer"] * n_head + part["head"] + 1
    else:
        expect = len(cfg["prompts"]) * per["head"] + at * per["mlp"] + part["layer"] + 1
    assert REC["searched"]["parts_tried"] == expect
    assert REC["before"][0]["id"] != REC["after"][0]["id"] == max(REC["after"], key=lambda t: t["prob"])["id"]
    assert REC["old_top_after"]["id"] == REC["before"][0]["id"] and REC["old_top_after"]["prob"] < REC["after"][0]["prob"]


@pytest.mark.slow
def test_transformers_agrees():
    pytest.importorskip("torch", reason="the check needs the pipeline dependencies")
    from scripts.real.loading import load
    from scripts.real.measurements import prompt_ids
    cfg = ke.settings()
    model, tok, _, _ = load("smollm2", read_json(ke.MODELS_FILE)["models"]["smollm2"])
    prompt = next(p for p in cfg["prompt_specs"] if p["key"] == REC["key"])
    assert prompt_ids(tok, prompt) == REC["ids"]
    part = (REC["part"]["kind"], REC["part"]["layer"], REC["part"].get("head", 0))
    for logits, want in ((ke.last_logits(model, REC["ids"], None), REC["before"]), (ke.last_logits(model, REC["ids"], part), REC["after"])):
        got = ke.top(tok, logits, len(want))
        assert [t["id"] for t in got] == [t["id"] for t in want]
        for g, w in zip(got, want):
            assert g["prob"] == pytest.approx(w["prob"], rel=1e-5)
