"""The experiments page's numbers (site_data/smollm2/experiments.json) against a fresh transformers run
on the same GGUF, and the browser's engine (Node, both kernels) against both on the stored inputs:
every position's loss (the engine's opts.every, in the page's copying and surprise experiments), the
copy with heads switched off, the two-step answers, the greedy letter-counting answer, and a fact
prompt's parts switched off. Tolerances are the parity tests': a log-probability (a loss) within
LOGIT of the reference, a probability within PROB, an attention share within SHARE. One model load
for the module; the parts switched off are a sample, the full sweeps being the stage's."""
from __future__ import annotations

import math

import numpy as np
import pytest

pytestmark = pytest.mark.slow
torch = pytest.importorskip("torch", reason="the reference needs the pipeline dependencies")
pytest.importorskip("transformers")

from scripts.core.io import SITE_DATA, read_json  # noqa: E402
from scripts.real import ablation, experiments, loading  # noqa: E402
from scripts.site import real_js  # noqa: E402
from tests.helpers.real_reference import run_node  # noqa: E402

LOGIT, PROB, SHARE = 2e-3, 2e-3, 1e-4
STORED = read_json(SITE_DATA / "smollm2" / "experiments.json")


@pytest.fixture(scope="module")
def smollm2():
    spec = read_json(real_js.CONFIG)["models"]["smollm2"]
    model, tok, _, _ = loading.load("smollm2", spec)
    return model, tok


@pytest.fixture(scope="module")
def browser_copy(tmp_path_factory):
    """The site's own copy of the model when `make site` wrote it, else one written here."""
    built = real_js.OUT
    if (built / "smollm2" / "manifest.js").is_file():
        return built
    folder = tmp_path_factory.mktemp("smollm2-browser")
    path, source = real_js.smollm2_gguf()
    real_js.write_folder(folder / "smollm2", real_js.gguf_files(path, "smollm2", source))
    return folder


def gap(a, b) -> float:
    return float(np.max(np.abs(np.asarray(a, float) - np.asarray(b, float))))


def test_the_stored_sequence_is_the_seeds(smollm2):
    """The pool and mulberry32 give the stored sequence: the page's reroll of that seed gives it too
    (tests/js/real-experiments.test.js replays the same draw in the browser's code)."""
    _, tok = smollm2
    c = STORED["copying"]
    pool = experiments.token_pool(tok, c["pool"]["pattern"])
    assert len(pool) == c["pool"]["size"]
    seq = experiments.random_sequence(pool, c["seed"], c["length"])
    assert c["ids"] == [c["start_id"]] + seq + seq


def test_stored_copying_matches_transformers(smollm2):
    model, tok = smollm2
    c = STORED["copying"]
    plain = experiments.positions(model, tok, c["ids"])
    assert gap(plain["losses"], c["losses"]) < LOGIT
    shares, _ = ablation.head_kinds(ablation.attention_patterns(model, c["ids"]), c["ids"])
    assert gap(shares[:, :, ablation.KINDS.index("induction")], c["induction"]["scores"]) < SHARE
    for off in (c["knockout"], c["controls"][0]):
        got = experiments.positions(model, tok, c["ids"], ablation.Ablation([("head", l, h) for l, h in off["heads"]]))
        assert gap(got["losses"], off["losses"]) < LOGIT
    # what the page says of them: the copy is learnt, and the top heads (not random ones) carry it
    assert c["second"] < c["first"] and c["knockout"]["second"] > c["control_mean"]


def test_stored_answers_match_transformers(smollm2):
    """Each stored answer's prompt (the chat template and the prefill, as the stage builds it) through the model
    in one plain pass: its probability and top token. The stage's own path to the last position (the stream,
    then the blocks again from it: scripts/real/ablation.py's batch_logits, checked against the engine in
    test_ablation_smollm2 and here by test_stored_facts) costs two passes; both give the same bits."""
    model, tok = smollm2
    for q in STORED["same_work"]["candidates"]:
        for way in ("direct", "steps"):
            _, ids = experiments.chat_ids(tok, q["question"], q[way]["prefill"])
            assert ids == q[way]["ids"]
            with torch.no_grad():
                lg = model(torch.tensor([ids]), use_cache=False, logits_to_keep=1).logits[0, -1].double().numpy()
            p = np.exp(lg - lg.max())
            p /= p.sum()
            assert abs(p[q["answer_id"]] - q[way]["prob"]) < PROB and int(p.argmax()) == q[way]["top"]["id"], (q["key"], way)


def test_stored_surprise_and_tokens_match_transformers(smollm2):
    model, tok = smollm2
    for t in STORED["surprise"]["texts"]:
        assert tok.encode(t["text"], add_special_tokens=False) == t["ids"]
        got = experiments.positions(model, tok, t["ids"])
        assert gap(got["losses"], t["losses"]) < LOGIT, t["key"]
        assert [e[0]["id"] for e in got["expected"][:-1]] == [e["id"] for e in t["expected"]]
        assert abs(math.log(t["perplexity"]) - t["mean_loss"]) < 1e-6
    lt = STORED["tokens"]["letters"]
    ans = experiments.greedy(model, tok, lt["ids"], lt["max_new"])
    assert ans["ids"] == lt["answer"]["ids"] and gap(ans["probs"], lt["answer"]["probs"]) < PROB
    for lang in STORED["tokens"]["languages"]:
        assert tok.encode(lang["text"], add_special_tokens=False) == lang["ids"]
    assert tok.encode(STORED["tokens"]["number"]["text"], add_special_tokens=False) == STORED["tokens"]["number"]["ids"]


def sample(p: dict) -> list[tuple]:
    """A fact prompt's parts to check: the MLP and the attention that sink it most, and two others."""
    mlp, attn = np.argsort(p["mlp"]), np.argsort(p["attn"])
    return [("mlp", int(mlp[0])), ("attn", int(attn[0])), ("mlp", int(mlp[-1])), ("attn", int(attn[len(attn) // 2]))]


def test_stored_facts_match_transformers(smollm2):
    model, tok = smollm2
    L = STORED["config"]["n_layer"]
    for p in STORED["facts"]["prompts"]:
        parts = sample(p)
        got = ablation.sweep(model, p["ids"], ablation.Target((p["answer_id"],)), parts=parts, mode="zero")
        assert abs(got["base"]["prob"] - p["prob"]) < PROB
        for part, row in zip(parts, got["rows"]):
            assert abs(row["metric"]["prob"] - p[part[0]][part[1]]) < PROB, (p["key"], part)
        lens = ablation.target_lens(model, p["ids"], ablation.Target((p["answer_id"],)))
        assert len(lens) == L + 1 and gap([r["prob"] for r in lens], [r["prob"] for r in p["lens"]]) < PROB
        assert [r["rank"] for r in lens] == [r["rank"] for r in p["lens"]]


def test_the_engine_replays_the_stored_experiments(smollm2, browser_copy, tmp_path):
    """The page's live runs on the stored inputs, on the page's kernels (WebAssembly; the plain JS
    kernels' rows are the same arithmetic, tests/js/real-every.test.js): every position's loss
    (opts.every, against transformers and the stored numbers), heads switched off, answers after the
    chat template, a fact prompt with a block's MLP and attention off, and the greedy answer's steps."""
    kernels = "wasm"
    model, tok = smollm2
    c, su, sw, fa = STORED["copying"], STORED["surprise"]["texts"], STORED["same_work"], STORED["facts"]["prompts"][0]
    pk = next(q for q in sw["candidates"] if q["key"] == sw["picked"])
    H = STORED["config"]["n_head"]
    parts = sample(fa)[:2]
    ko = lambda part: {"heads": [[part[1], h] for h in range(H)], "mlp": []} if part[0] == "attn" else {"heads": [], "mlp": [part[1]]}  # noqa: E731
    lt = STORED["tokens"]["letters"]
    reqs = ([{"ids": c["ids"], "opts": {"every": 1}}, {"ids": c["ids"], "opts": {"every": 1, "knockout": {"heads": c["knockout"]["heads"], "mlp": []}}}]
            + [{"ids": t["ids"], "opts": {"every": 1}} for t in su[:2]]
            + [{"ids": pk["direct"]["ids"]}, {"ids": pk["steps"]["ids"]}]
            + [{"ids": fa["ids"], "opts": {"knockout": ko(part)}} for part in parts]
            + [{"ids": lt["ids"]}, {"ids": lt["ids"], "decode": lt["answer"]["ids"][:-1]}])
    _, js = run_node(browser_copy, "smollm2", reqs, tmp_path, kernels=kernels)

    def losses(out, ids):
        e = out["every"]
        return e["lse"][:len(ids) - 1] - e["next"][:len(ids) - 1]

    worst = 0.0
    for out, (ids, stored, ref) in zip(js, [(c["ids"], c["losses"], None), (c["ids"], c["knockout"]["losses"], c["knockout"]["heads"])]
                                       + [(t["ids"], t["losses"], None) for t in su[:2]]):
        got = losses(out, ids)
        fresh = experiments.positions(model, tok, ids, ablation.Ablation([("head", l, h) for l, h in ref]) if ref else None)["losses"]
        worst = max(worst, gap(got, fresh), gap(got, stored))
        assert gap(got, fresh) < LOGIT and gap(got, stored) < LOGIT
    top = [int(out["every"]["top"][0]) for out in js[:1]]
    assert top[0] == int(np.argmax(ablation.all_logits(model, c["ids"])[0]))
    for out, way in zip(js[4:6], ("direct", "steps")):
        p = np.exp(out["logits"] - out["logits"].max())
        assert abs(p[pk["answer_id"]] / p.sum() - pk[way]["prob"]) < PROB
    for out, part in zip(js[6:8], parts):
        p = np.exp(out["logits"] - out["logits"].max())
        assert abs(p[fa["answer_id"]] / p.sum() - fa[part[0]][part[1]]) < PROB, part
    # the greedy answer: the prompt's top token, then each decoded step's (the runner keeps each step's logits)
    steps = [js[8]["logits"]] + js[9]["decode"]
    assert [int(np.argmax(s)) for s in steps] == lt["answer"]["ids"]
    print(f"{kernels}: the engine's losses within {worst:.2e} of transformers and the stored numbers")
