"""The ablations as the page runs them (docs/js/real/sweep.js over engine.js, in Node, on both kernels)
against transformers with hooks on the same GGUF (scripts/real/ablation.py): a sweep's parts switched
off, replaced by their means and patched from a shuffled copy; a pair's logit difference; each part's
direct share of the target's logit; what the heads look at and one head's whole pattern. Tolerances
are the engine parity tests': logits 2e-3, attention weights 1e-4."""
from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

pytestmark = pytest.mark.slow
torch = pytest.importorskip("torch", reason="the reference needs the pipeline dependencies")
pytest.importorskip("transformers")

from scripts.core.io import read_json  # noqa: E402
from scripts.real import ablation as A  # noqa: E402
from scripts.real import loading  # noqa: E402
from scripts.site import real_js  # noqa: E402
from tests.helpers.real_reference import ROOT  # noqa: E402

RUNNER = ROOT / "tests" / "helpers" / "real_sweep_node.js"
REPEAT, SHUFFLED = "K P W R J M Q K P W R J", "K P W R J M Q W J R P K"
EIFFEL = "The Eiffel Tower is in the city of"
SEED = 20261205
LOGIT, WEIGHT = 2e-3, 1e-4


@pytest.fixture(scope="module")
def smollm2():
    torch.set_num_threads(1)
    spec = read_json(real_js.CONFIG)["models"]["smollm2"]
    model, tok, _, _ = loading.load("smollm2", spec)
    return model, tok


@pytest.fixture(scope="module")
def browser_copy(tmp_path_factory):
    """The site's own copy when `make site` wrote it, else one written here."""
    built = ROOT / "docs" / "js" / "data" / "real"
    if (built / "smollm2" / "manifest.js").is_file():
        return built
    folder = tmp_path_factory.mktemp("smollm2-browser")
    path, source = real_js.smollm2_gguf()
    real_js.write_folder(folder / "smollm2", real_js.gguf_files(path, "smollm2", source))
    return folder


@pytest.fixture(scope="module")
def case(smollm2):
    """The requests and transformers' answers, computed once for both kernels."""
    model, tok = smollm2
    enc = lambda t: tok.encode(t, add_special_tokens=False)  # noqa: E731
    ids, bad, eiffel = enc(REPEAT), enc(SHUFFLED), enc(EIFFEL)
    m_id, paris, rome = enc(" M")[0], enc(" Paris")[0], enc(" Rome")[0]
    rng = np.random.default_rng(SEED)
    parts = A.all_parts(model, attn=True)
    pick = [tuple(parts[i]) for i in rng.choice(len(parts), 5, replace=False)] + [("head", 18, 6), ("mlp", 0)]
    means = A.means(model, [enc(t) for t in ("The cat sat on the", "1, 2, 3, 4, 5,", "def add(a, b):\n    return")], ["three prompts"])
    src = A.capture(model, bad)
    runs = [
        {"ids": ids, "target": [m_id], "specs": [(p, "zero") for p in pick] + [(p, "mean") for p in pick], "direct": [m_id], "kinds": True, "pattern": [18, 6]},
        {"ids": ids, "target": [m_id], "specs": [(p, "patch") for p in pick], "source": src},
        {"ids": eiffel, "target": [paris, rome], "specs": [(p, "zero") for p in pick[:4]] + [(p, "mean") for p in pick[4:]]},
    ]
    ref = []
    for r in runs:
        target = A.Target(tuple(r["target"]))
        abl = [None] + [A.Ablation([p], mode, means, r.get("source")) for p, mode in r["specs"]]
        got = [A.metric(lg, target) for lg in A.batch_logits(model, r["ids"], abl)]
        out = {"base": got[0], "rows": got[1:]}
        if r.get("direct"):
            out["direct"] = A.direct_logits(model, r["ids"], A.Target((r["direct"][0],)))
        if r.get("kinds"):
            pat = A.attention_patterns(model, r["ids"])
            out["kinds"], _ = A.head_kinds(pat, r["ids"])
            out["pattern"] = pat[18, 6]
        ref.append(out)
    requests = {"means": A.means_record(means), "runs": [
        {"ids": r["ids"], "target": {"ids": r["target"]}, "specs": [{"parts": [list(p)], "mode": mode} for p, mode in r["specs"]],
         "source_ids": bad if r.get("source") else None, "direct_targets": r.get("direct"), "kinds": r.get("kinds", False),
         "pattern": r.get("pattern")} for r in runs]}
    return requests, ref, tok.decode([m_id])


def run_js(requests, folder, kernels, work):
    req, out = work / f"sweep-{kernels}.json", work / f"sweep-{kernels}-out.json"
    req.write_text(json.dumps(requests))
    proc = subprocess.run(["node", str(RUNNER), str(folder), "smollm2", str(req), str(out), kernels],
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode:
        raise AssertionError(f"node runner failed: {proc.stderr.strip()}")
    got = json.loads(out.read_text())
    assert got["kernels"] == kernels
    return got["runs"]


def gap(ref: dict, js: dict) -> float:
    """The largest difference of the target's logit (or the pair's two logits and difference)."""
    if "diff" in ref:
        return max(abs(ref["diff"] - js["diff"]), *(abs(a - b) for a, b in zip(ref["logits"], js["logits"])))
    return abs(ref["logit"] - js["logit"])


@pytest.mark.parametrize("kernels", ["js", "wasm"])
def test_sweep_mean_patch_and_direct_shares_match_transformers(kernels, case, browser_copy, tmp_path):
    requests, ref, piece = case
    js = run_js(requests, browser_copy, kernels, tmp_path)
    worst = {"zero": 0.0, "mean": 0.0, "patch": 0.0, "pair": 0.0, "prob": 0.0}
    for r, (want, got) in enumerate(zip(ref, js)):
        worst["pair" if r == 2 else "zero"] = max(worst["pair" if r == 2 else "zero"], gap(want["base"], got["base"]))
        for spec, a, b in zip(requests["runs"][r]["specs"], want["rows"], got["rows"]):
            key = "pair" if r == 2 else spec["mode"]
            worst[key] = max(worst[key], gap(a, b))
            if "prob" in a:
                worst["prob"] = max(worst["prob"], abs(a["prob"] - b["prob"]))
                assert a["rank"] == b["rank"] or abs(a["prob"] - b["prob"]) < 1e-3, (spec, a, b)
    moved = [abs(a["value"] - ref[0]["base"]["value"]) for a in ref[0]["rows"]]
    assert max(moved) > 0.05, "no part moved the target: the comparison would be vacuous"
    d_ref, d_js = ref[0]["direct"], js[0]["direct"][0]
    direct = max(abs(d_ref["embedding"] - d_js["embedding"]), float(np.abs(d_ref["heads"] - np.array(d_js["heads"])).max()),
                 float(np.abs(d_ref["mlp"] - np.array(d_js["mlp"])).max()))
    total = d_js["embedding"] + float(np.sum(d_js["heads"])) + float(np.sum(d_js["mlp"]))
    kinds = float(np.abs(ref[0]["kinds"] - np.array(js[0]["kinds"]).reshape(ref[0]["kinds"].shape)).max())
    T = len(requests["runs"][0]["ids"])
    pattern = float(np.abs(ref[0]["pattern"] - np.array(js[0]["pattern"]).reshape(T, T)).max())
    print(f"smollm2 ablations ({kernels} kernels), target {piece!r}: largest logit gaps {worst}, direct shares {direct:.2e}, "
          f"their sum {total:.4f} vs the logit {d_js['logit']:.4f}, kinds {kinds:.2e}, pattern of block 19 head 7 {pattern:.2e}")
    assert max(worst["zero"], worst["mean"], worst["patch"], worst["pair"]) <= LOGIT, worst
    assert direct <= LOGIT and abs(total - d_js["logit"]) <= LOGIT, (direct, total, d_js["logit"])
    assert kinds <= WEIGHT and pattern <= WEIGHT, (kinds, pattern)
