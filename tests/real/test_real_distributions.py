"""SmolLM2's whole-distribution data (site_data/smollm2/distributions/): schema, mass, a recomputed
sample from the model itself, and the demo's tail reconstruction against the same maths in Python."""
from __future__ import annotations

import math

import jsonschema
import numpy as np
import pytest

from scripts.core.io import ROOT, SITE_DATA, read_json
from scripts.core.registry import BY_NAME, DIST_KEYS
from scripts.real import measurements as rm
from tests.helpers.distributions import bucket_probs

FILES = [SITE_DATA / "smollm2" / "distributions" / f"{k}.json" for k in DIST_KEYS]
SCHEMA = read_json(SITE_DATA / "schema" / "real_distribution.schema.json")


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    return {p.stem: read_json(p) for p in FILES}


def test_every_prompt_has_a_registered_schema_valid_file(records):
    assert [p["key"] for p in rm.settings()["prompts"]] == list(DIST_KEYS)
    assert set(BY_NAME["measurements"].outputs) == {str(p.relative_to(ROOT)) for p in FILES} | {"site_data/smollm2/measurements.json"}
    for key, rec in records.items():
        jsonschema.validate(rec, SCHEMA)
        assert rec["key"] == key


def test_head_and_tail_hold_all_the_mass_and_every_rank(records):
    for key, rec in records.items():
        head, tail = rec["head"], rec["tail"]
        assert math.isclose(head["mass"] + tail["mass"], 1.0, abs_tol=1e-6), key
        assert math.isclose(sum(head["probs"]) + sum(b["mass"] for b in tail["buckets"]), 1.0, abs_tol=1e-6), key
        # the buckets tile the ranks after the head, in order, and the logits fall from bucket to bucket
        start = len(head["probs"])
        for b in tail["buckets"]:
            assert b["start"] == start and b["max_logit"] >= b["min_logit"], key
            start += b["count"]
        assert start == rec["vocab_size"], key
        assert head["logits"] == sorted(head["logits"], reverse=True), key
        assert tail["buckets"][0]["max_logit"] <= head["logits"][-1] + 1e-6, key
        # the stored denominator reproduces the head's probabilities
        for logit, p in zip(head["logits"][:10], head["probs"][:10]):
            assert math.isclose(math.exp(logit - rec["max_logit"]) / rec["sum_exp"], p, rel_tol=1e-5), key


def test_one_pass_per_prompt_serves_both_files(records):
    """measurements.json's entry and the distribution file of a prompt come from the same pass:
    the same labels and tokens, the top bars are the head's first rows, the sink count is the heads'."""
    m = read_json(SITE_DATA / "smollm2" / "measurements.json")
    assert [p["key"] for p in m["prompts"]] == list(DIST_KEYS)
    for p in m["prompts"]:
        rec = records[p["key"]]
        assert {k: p[k] for k in rm.LABELS} == {k: rec[k] for k in rm.LABELS}
        bars = p["top_bars"]
        assert [b["id"] for b in bars] == rec["head"]["ids"][:len(bars)]
        assert [b["prob"] for b in bars] == rec["head"]["probs"][:len(bars)]
        assert [b["logit"] for b in bars] == rec["head"]["logits"][:len(bars)]
        assert (p["logits"]["max"], p["logits"]["min"], p["logits"]["n"]) == (rec["max_logit"], rec["min_logit"], rec["vocab_size"])
        first = [w for layer in rec["attention"]["layers"] for w in layer["first"]]
        assert p["sink_heads"]["count"] == sum(w > p["sink_heads"]["threshold"] for w in first)
        assert p["sink_heads"]["of"] == len(first) == rec["attention"]["n_layer"] * rec["attention"]["n_head"]
        assert p["top_mass"]["mass"] == pytest.approx(sum(rec["head"]["probs"][:p["top_mass"]["n"]]), abs=1e-6)
        assert p["cumulative"][len(rec["head"]["probs"]) - 1] == pytest.approx(rec["head"]["mass"], abs=1e-6)
    assert m["provenance"]["weights_sha256"] == records[DIST_KEYS[0]]["provenance"]["weights_sha256"]


def test_quantisation_is_read_from_the_gguf(records):
    q = records[DIST_KEYS[0]]["provenance"]["quantisation"]
    assert q["bits"] == int("".join(c for c in q["file_type"].split("_")[0] if c.isdigit()))
    assert math.isclose(sum(t["share"] for t in q["tensor_types"]), 1.0, abs_tol=1e-6)


def test_chat_prompt_is_templated(records):
    chats = [r for r in records.values() if r["chat"]]
    assert chats, "no chat-templated prompt"
    for rec in chats:
        raw = next((r for r in records.values() if not r["chat"] and r["text"] == rec["text"]), None)
        assert raw is not None, f"{rec['key']}: no raw prompt with the same text"
        assert len(rec["ids"]) > len(raw["ids"])


def test_tail_reconstruction_keeps_the_mass(records):
    for key, rec in records.items():
        p = bucket_probs(rec, 1.0)
        n = len(rec["head"]["probs"])
        assert math.isclose(p[n:].sum(), rec["tail"]["mass"], rel_tol=1e-4, abs_tol=1e-7), key
        assert np.allclose(p[:10], rec["head"]["probs"][:10], rtol=1e-4), key


@pytest.fixture(scope="module")
def smollm2():
    pytest.importorskip("torch", reason="recomputing needs the pipeline dependencies")
    pytest.importorskip("transformers")
    from scripts.real.loading import load

    spec = read_json(rm.CONFIG_FILE)["models"]["smollm2"]
    model, tok, _, _ = load("smollm2", spec)
    return model, tok


@pytest.mark.slow
@pytest.mark.parametrize("key", ["cat", "question_chat"])
def test_recomputed_from_the_model(smollm2, records, key):
    """Top-10 probabilities and the tail's mass from a fresh forward pass over the full softmax."""
    import torch

    model, tok = smollm2
    rec = records[key]
    prompt = next(p for p in rm.settings()["prompts"] if p["key"] == key)
    ids = rm.prompt_ids(tok, prompt)
    assert ids == rec["ids"]
    with torch.no_grad():
        logits = model(torch.tensor([ids]), use_cache=False).logits[0, -1].double()
    probs = torch.softmax(logits, 0)
    top = torch.sort(probs, descending=True, stable=True)
    assert top.indices[:10].tolist() == rec["head"]["ids"][:10]
    assert np.allclose(top.values[:10].numpy(), rec["head"]["probs"][:10], atol=1e-5)
    n = len(rec["head"]["ids"])
    assert abs(top.values[n:].sum().item() - rec["tail"]["mass"]) <= 1e-5
    assert abs(sum(b["mass"] for b in rec["tail"]["buckets"]) - top.values[n:].sum().item()) <= 1e-5
