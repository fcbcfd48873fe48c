"""The tiny model as committed in site_data/tiny: its contract, its size and its trained behaviour.

Everything here reads the real trained weights or reruns the real stages; nothing compares
against numbers typed into the test. What needs PyTorch (the model run, training, the stages that import
it) is marked slow and imports torch inside, so the quick loop runs without it.
"""
from __future__ import annotations

import collections
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from scripts.core import stage
from scripts.core.registry import Stage
from scripts.core.io import ROOT, StageError, dumps, write_text_atomic
from scripts.tiny.tokenizer import build_tokenizer, chunks, load_tokenizer, read_corpus

TINY = ROOT / "site_data" / "tiny"
SCHEMAS = ROOT / "site_data" / "schema"
FILES = ["config", "tokenizer", "weights", "training", "traces", "summary"]


def load(name: str) -> dict:
    return json.loads((TINY / f"{name}.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer(TINY / "tokenizer.json")


@pytest.fixture(scope="module")
def model():
    """The shipped weights loaded back into the PyTorch model."""
    pytest.importorskip("torch")
    from scripts.tiny.model import from_site_data
    return from_site_data(load("config"), load("weights"))


def run(model, tok, text: str) -> dict:
    import torch
    trace: dict = {}
    with torch.no_grad():
        model(torch.tensor([tok.encode(text)]), trace)
    return trace


@pytest.mark.parametrize("name", FILES)
def test_every_file_matches_its_schema(name):
    schema = json.loads((SCHEMAS / f"tiny_{name}.schema.json").read_text())
    data = load(name)
    jsonschema.validate(data, schema)
    assert data["schema_version"] == schema["properties"]["schema_version"]["const"]


def test_manifest_matches_its_schema():
    jsonschema.validate(json.loads((ROOT / "site_data" / "manifest.json").read_text()),
                        json.loads((SCHEMAS / "manifest.schema.json").read_text()))


def test_no_nan_or_infinity_in_any_file():
    for name in FILES:
        text = (TINY / f"{name}.json").read_text()
        json.loads(text, parse_constant=lambda c: pytest.fail(f"{name}.json holds {c}"))


def test_committed_data_is_up_to_date_with_the_code():
    """The hashes in the manifest match the code, config and corpus: `make site` would not retrain."""
    stage.check("tiny")


@pytest.mark.slow  # PyTorch
def test_size_1416_weights_and_58_tokens(model, tok):
    cfg = load("config")["model"]
    print(f"\nparameters: {model.n_params()}, vocabulary: {len(tok.vocab)}")
    assert model.n_params() == cfg["n_params"] == 1416
    assert len(tok.vocab) == cfg["vocab_size"] == 58 == model.wte.weight.shape[0]
    assert len(tok.vocab) == 1 + len(tok.chars) + len(tok.merges)


def test_weights_file_shapes_follow_the_config():
    cfg = load("config")["model"]
    w = load("weights")["weights"]
    assert (len(w["wte"]), len(w["wte"][0])) == (cfg["vocab_size"], cfg["n_embd"])
    assert (len(w["wpe"]), len(w["wpe"][0])) == (cfg["n_ctx"], cfg["n_embd"])
    assert len(w["h"]) == cfg["n_layer"]
    c_attn = w["h"][0]["attn"]["c_attn"]["weight"]
    assert (len(c_attn), len(c_attn[0])) == (3 * cfg["n_embd"], cfg["n_embd"])


def test_every_training_sentence_fits_the_window(tok):
    n_ctx = load("config")["model"]["n_ctx"]
    for line in read_corpus():
        assert len(tok.encode(line)) + 1 <= n_ctx, line


def test_words_are_fully_merged_and_cats_is_unseen(tok):
    corpus = read_corpus()
    for line in corpus:
        for chunk in chunks(line):
            assert tok.encode_chunk(chunk) == [chunk], f"{chunk!r} is not one token"
    assert not any("cats" in line for line in corpus)
    assert [tok.show(i) for i in tok.encode(" cats")] == ["·cat", "s"]
    assert [tok.show(i) for i in tok.encode("the cats")] == ["the", "·cat", "s"]
    assert tok.decode(tok.encode("the cats sat.")) == "the cats sat."


def test_unknown_characters_are_an_error(tok):
    with pytest.raises(ValueError, match="'T' at position 0"):
        tok.encode("The cat")


@pytest.mark.slow  # PyTorch
@pytest.mark.parametrize("subject, place", [("cat", "·mat"), ("dog", "·rug")])
def test_the_subject_decides_the_place(model, tok, subject, place):
    import torch
    trace = run(model, tok, f"the {subject} sat on the")
    probs = trace["probs"][0, -1]
    top = tok.show(int(torch.argmax(probs)))
    print(f"\n'the {subject} sat on the' -> {top} ({probs.max().item():.3f})")
    assert top == place


@pytest.mark.slow  # PyTorch
def test_one_head_finds_the_subject_the_other_looks_just_before(model, tok):
    import torch
    trace = run(model, tok, "the cat sat on the")
    tokens = [tok.show(i) for i in tok.encode("the cat sat on the")]
    weights = trace["h"][0]["attn_weights"][0, :, -1]  # (n_head, T): the last position's rows
    cat = tokens.index("·cat")
    subject = int(torch.argmax(weights[:, cat]))
    print(f"\nhead {subject} puts {weights[subject, cat]:.3f} on ·cat")
    assert weights[subject, cat] >= 0.9
    T = len(tokens)
    for h in range(weights.shape[0]):
        if h != subject:
            top = int(torch.argmax(weights[h]))
            print(f"head {h}: top weight {weights[h, top]:.3f} on {tokens[top]}")
            assert top in (T - 3, T - 2), f"head {h} looks at {tokens[top]}"


@pytest.mark.slow  # PyTorch
def test_verbs_after_the_cat_follow_the_corpus(model, tok):
    corpus = read_corpus()
    counts = collections.Counter(line.split()[2] for line in corpus if line.split()[:2] == ["the", "cat"])
    probs = run(model, tok, "the cat")["probs"][0, -1]
    verb_p = {v: probs[tok.encode(" " + v)[0]].item() for v in counts}
    print(f"\nafter 'the cat': {verb_p} (corpus counts {dict(counts)})")
    by_count = sorted(counts, key=counts.get, reverse=True)
    by_prob = sorted(verb_p, key=verb_p.get, reverse=True)
    assert by_prob == by_count
    ps = [verb_p[v] for v in by_prob]
    assert all(a - b >= 0.05 for a, b in zip(ps, ps[1:])), "verb probabilities should be clearly unequal"
    assert sum(ps) > 0.95


def test_training_loss_ends_well_below_its_start():
    curve = load("training")["loss_curve"]
    print(f"\ntraining loss {curve[0]:.3f} -> {curve[-1]:.3f} over {len(curve) - 1} steps")
    assert curve[-1] < 0.25 * curve[0]
    snaps = load("training")["snapshots"]
    assert snaps[0]["step"] == 0 and snaps[-1]["step"] == len(curve) - 1
    assert snaps[-1]["corpus_loss"] < snaps[0]["corpus_loss"]


def test_unseen_sentences_cost_more_than_training_ones():
    t = load("training")
    n = t["n_train_sentences"]
    seen = [p["mean"] for p in t["final_positions"][:n]]
    unseen = [p["mean"] for p in t["final_positions"][n:]]
    print(f"\nmean loss: training sentences {sum(seen) / n:.3f}, unseen {sum(unseen) / len(unseen):.3f}")
    assert sum(unseen) / len(unseen) > sum(seen) / n


@pytest.mark.slow
def test_two_trainings_with_one_seed_give_identical_files():
    """Retrain twice from the corpus: same seed, same machine, same bytes. On the machine that made
    the committed site_data/tiny (the manifest records it) those are the committed bytes. On another
    CPU the float rounding differs and 3,000 Adam steps amplify it (ARCHITECTURE.md, "Reproducible
    on one machine"), so there the fresh model must still tell the pages' story."""
    from scripts.tiny.checkpoint import train
    from scripts.tiny.export import export
    from scripts.tiny.model import TinyConfig
    config = json.loads((ROOT / "scripts/config/tiny.json").read_text())
    cfg = TinyConfig(**config["model"])
    lines = read_corpus()
    outputs = []
    for _ in range(2):
        tok = build_tokenizer(lines, cfg.vocab_size)
        result = train(cfg, config["training"], lines, tok)
        result["config"] = config
        files = {n: dumps(d) for n, d in export(result, tok, lines).items()} | {"tokenizer.json": dumps(tok.to_json())}
        outputs.append(files)
    assert outputs[0] == outputs[1]
    made_on = json.loads((ROOT / "site_data/manifest.json").read_text())["stages"]["tiny"]["machine"]
    if made_on == stage.machine():
        for name, text in outputs[0].items():
            assert (TINY / name).read_text(encoding="utf-8") == text, f"site_data/tiny/{name} differs from a fresh run"
        return
    for name in ("tokenizer.json", "config.json"):  # no float arithmetic: the same bytes anywhere
        assert (TINY / name).read_text(encoding="utf-8") == outputs[0][name], name
    fresh, kept = json.loads(outputs[0]["summary.json"]), load("summary")
    weights = [json.loads(outputs[0]["weights.json"])["weights"], load("weights")["weights"]]
    print(f"\ncommitted data made on {made_on!r}, this is {stage.machine()!r}: largest weight difference "
          f"{max_abs_diff(*weights):.3g}, final loss {kept['loss']['last']:.4f} there, {fresh['loss']['last']:.4f} here")
    assert {p: v["token"] for p, v in fresh["picks"].items()} == {p: v["token"] for p, v in kept["picks"].items()}
    assert fresh["subject_head"]["head"] == kept["subject_head"]["head"]
    assert [v["token"] for v in fresh["verbs_after_the_cat"]] == [v["token"] for v in kept["verbs_after_the_cat"]]
    assert abs(fresh["loss"]["last"] - kept["loss"]["last"]) < 0.01


def max_abs_diff(a, b) -> float:
    if isinstance(a, dict):
        return max(max_abs_diff(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return max((max_abs_diff(x, y) for x, y in zip(a, b, strict=True)), default=0.0)
    return abs(a - b)


def _stage_env(tmp_path: Path) -> dict:
    data, build = tmp_path / "site_data", tmp_path / "build"
    shutil.copytree(TINY, data / "tiny")
    return os.environ | {"NEXTTOKEN_SITE_DATA": str(data), "NEXTTOKEN_BUILD": str(build), "PYTHONPATH": str(ROOT)}


@pytest.mark.slow  # the checkpoint stage imports PyTorch
@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_a_stage_with_a_bad_input_names_the_file(tmp_path, damage):
    env = _stage_env(tmp_path)
    target = Path(env["NEXTTOKEN_SITE_DATA"]) / "tiny" / "tokenizer.json"
    if damage == "missing":
        target.unlink()
    else:
        target.write_text('{"chars": [', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "scripts.tiny.checkpoint"], cwd=ROOT, env=env, capture_output=True, text=True)
    print(proc.stderr)
    assert proc.returncode != 0
    assert "tokenizer.json" in proc.stderr and "Traceback" not in proc.stderr
    assert ("not found" if damage == "missing" else "corrupt JSON") in proc.stderr


@pytest.mark.slow  # the export stage imports PyTorch
def test_export_without_a_checkpoint_names_it(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "scripts.tiny.export"], cwd=ROOT, env=_stage_env(tmp_path),
                          capture_output=True, text=True)
    assert proc.returncode != 0 and "train.pt" in proc.stderr and "Traceback" not in proc.stderr


def test_an_interrupted_write_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "weights.json"
    target.write_text("old\n")

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_text_atomic(target, "new\n")
    assert target.read_text() == "old\n"
    assert list(tmp_path.iterdir()) == [target], "the temporary file must be cleaned up"


def test_non_finite_numbers_are_refused():
    from scripts.core.io import round_floats
    with pytest.raises(StageError):
        round_floats({"x": [1.0, float("nan")]})


def test_stage_staleness_follows_content_not_times(tmp_path, monkeypatch):
    (tmp_path / "in.txt").write_text("a")
    (tmp_path / "site_data").mkdir()
    demo = Stage(name="demo", kind="data", does="", steps=(), config=("in.txt",), outputs={"site_data/x.json": None})
    monkeypatch.setattr(stage, "ROOT", tmp_path)
    monkeypatch.setattr(stage, "MANIFEST", tmp_path / "site_data" / "manifest.json")
    monkeypatch.setattr(stage, "STAGING", tmp_path / "build" / "staging")
    monkeypatch.setattr(stage, "JOURNAL", tmp_path / "build" / "staging" / "commit.json")
    monkeypatch.setitem(stage.BY_NAME, "demo", demo)
    with pytest.raises(stage.Stale, match="never built"):
        stage.check("demo")
    (tmp_path / "site_data" / "x.json").write_text("{}")
    stage.run("demo")
    stage.check("demo")
    os.utime(tmp_path / "in.txt", (1, 1))  # a new time alone is not a change
    stage.check("demo")
    (tmp_path / "in.txt").write_text("b")
    with pytest.raises(stage.Stale, match="inputs changed: in.txt"):
        stage.check("demo")
    (tmp_path / "in.txt").write_text("a")
    (tmp_path / "site_data" / "x.json").write_text('{"edited": true}')
    with pytest.raises(stage.Stale, match="output differs"):
        stage.check("demo")
    (tmp_path / "site_data" / "x.json").unlink()
    with pytest.raises(stage.Stale, match="output missing"):
        stage.check("demo")
