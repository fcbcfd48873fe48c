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


def test_record_is_the_copying_head_that_costs_most():
    validate(REC, "real_knockout", "knockout.json")
    cfg = ke.settings()
    assert REC["searched"]["prompts"] == cfg["prompts"]
    part, why = REC["part"], REC["why"]
    assert part["kind"] == "head" and REC["knockout"] == {"heads": [[part["layer"], part["head"]]], "mlp": []}
    chosen = min(REC["searched"]["copying"], key=lambda c: c["prob_after"])
    assert (chosen["key"], chosen["layer"], chosen["head"]) == (REC["key"], part["layer"], part["head"])
    # it copies: its strongest attention from the last position is on an earlier copy of the answer
    assert why["looks_at"]["piece"] == REC["before"][0]["piece"] and REC["ids"][why["looks_at"]["position"]] == REC["before"][0]["id"]
    assert why["looks_at"]["position"] < len(REC["ids"]) - 1
    assert REC["old_top_after"]["id"] == REC["before"][0]["id"] and REC["old_top_after"]["prob"] < REC["before"][0]["prob"]
    assert len(why["above"]) == why["rank"] - 1 and all(a["prob"] <= REC["old_top_after"]["prob"] for a in why["above"])
    assert why["kind"] in why["kinds"] and len(why["shares"]) == len(why["kinds"])


@pytest.mark.slow
def test_transformers_agrees():
    pytest.importorskip("torch", reason="the check needs the pipeline dependencies")
    from scripts.real import ablation as A
    from scripts.real.loading import load
    cfg = ke.settings()
    model, tok, _, _ = load("smollm2", read_json(ke.MODELS_FILE)["models"]["smollm2"])
    prompt = next(p for p in cfg["prompt_specs"] if p["key"] == REC["key"])
    assert ke.prompt_ids(tok, prompt) == REC["ids"]
    part = ("head", REC["part"]["layer"], REC["part"]["head"])
    for ab, want in ((None, REC["before"]), (A.Ablation([part]), REC["after"])):
        got = ke.top(tok, A.last_logits(model, REC["ids"], ab), len(want))
        assert [t["id"] for t in got] == [t["id"] for t in want]
        for g, w in zip(got, want):
            assert g["prob"] == pytest.approx(w["prob"], rel=1e-5)
