"""The real models' page variables: `load_real_models()` -> {"gpt2": {...}, "smollm2": {...}}.

Called by the MkDocs Jinja hook; standard library only (the site build may run without torch).
Every number is wrapped as {"value": ..., "status": ..., "source": ...}:
  status "measured"    read from site_data/<model>/measurements.json (written by scripts/real/measurements.py)
  status "published"   GPT-2 only, when this build had no weights: site_data/gpt2/published.json
  status "config"      computed from a model's config constants (GPT-2's config.json, in published.json)
  status "computed"    computed by the build from files it has (GPT-2's tokenizer files)
  status "unavailable" value None: nothing measured and nothing published (e.g. GPT-2's temperatures)

Keys of both models (prompt keys as in scripts/config/real_prompts.json: cat, capital, city):
  top_bars            [{token, prob, id?, logit?}] for "The cat sat on the", most likely first
  top8_mass           probability the 8 most likely tokens hold (published: {"below": 0.40})
  top_k               {k, kept, mass}: what top-k keeps
  top_p_kept          {p, kept}: how many tokens top-p keeps
  logit_range         {min, max} of the last position's logits
  logit_mean          mean of those logits
  logit_histogram     {bin_width, edges, counts}
  temperatures        [{t, top_bars}]
  cat_head            {layer, head, weight, token}: the head sending most attention to " cat" (from 0)
  sink_heads          {count, of, threshold}: heads putting > threshold of the last token's attention on the first
  sink_spread         {min, median, max, n, of, threshold}: that count (the same rule) over every measured prompt
                      (published: unavailable, one prompt only)
  capital_top         {token, prob}: top pick after "The capital of France is"
  paris_rank          {rank, prob}: where " Paris" ranks there (1 = top)
  marseille_vs_paris  {piece?, marseille, paris}: first piece of " Marseille" (measured only; the
                      published source does not name it) and both probabilities after
                      "The capital of France is the city of"
  sampled_pick        the episode's sampled token (published only; the build never samples)
  forward_ms          median milliseconds of one forward pass (published: "about")
  n_params            parameter count (GPT-2 unmeasured: computed from its config)
  embedding           {token, id, length, vector} of " cat"
  config              {n_layer, n_head, n_kv_heads, n_embd, d_head, d_mlp, vocab_size, n_ctx, ...}, each wrapped
  provenance          {status, source, ...}: where this model's numbers came from; measured models add
                      stored_bits and stored_share (bits per weight of the file's quantisation type, e.g.
                      Q4_1 -> 4, and the share of the weights stored so: the GGUF metadata as the stage
                      recorded it; None otherwise) beside the record's dtype (what the build computed
                      in) and dtype_bits (its width, float32 -> 32)
gpt2 also has
  tokenizer           site_data/gpt2/tokenizer_facts.json: ids_of, pieces_of, first_piece, vocabulary
                      {vocab_size, byte_tokens, merges, special_tokens} (status "computed": by the build,
                      from the tokenizer files)
  disagreements       measured-vs-published differences beyond rounding ([] when none or unmeasured)
settings              scripts/config/real_models.json and real_prompts.json as they are: the prompts, mass_n,
                      top_k, top_p, head_n, model ids
llama3                vocab_size, n_layer, n_params of Llama 3's largest model and n_ctx (its longest window),
                      published (published.json's "llama3" record); each badge links to the sources page's
                      #published-llama-3
smollm2 also has
  experiments         site_data/smollm2/experiments.json's five experiments (copying, same_work, surprise,
                      tokens, facts) and config, one wrapped value (scripts/real/experiments.py)
Both models also have `released` (the year, published), SmolLM2 `pretraining_tokens` and `post_training`
(its model card), and GPT-2 `training_text_gb` ({about}: the walk-through's "about 40 GB of web text") and
`paper_top_k` (the k of the GPT-2 paper's top-k samples, cited to the paper, which the walk-through quotes);
their badges link to the sources page's #published-model-facts
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from scripts.core.io import CONFIG, SITE_DATA, StageError, read_json, rel
from scripts.core.shapes import gpt2_param_breakdown

KEYS = ["top_bars", "top8_mass", "top_k", "top_p_kept", "logit_range", "logit_mean", "logit_histogram",
        "temperatures", "cat_head", "sink_heads", "sink_spread", "capital_top", "paris_rank", "marseille_vs_paris",
        "sampled_pick", "forward_ms", "n_params", "embedding"]


def wrap(value: Any, status: str, source: str) -> dict:
    if value is None:
        return {"value": None, "status": "unavailable", "source": source}
    return {"value": value, "status": status, "source": source}


def stored(quantisation: dict | None) -> dict:
    """The weights file's quantisation as the stage read it from the GGUF file's own metadata:
    {bits (general.file_type: Q4_1 -> 4), share (of the weights stored in that type)}, or Nones for
    a file stored as computed."""
    q = quantisation or {}
    if not q.get("bits"):
        return {"bits": None, "share": None}
    share = sum(t["share"] for t in q.get("tensor_types", []) if t["type"] == q["file_type"])
    return {"bits": q["bits"], "share": share or None}


def gpt2_param_count(c: dict) -> int:
    """GPT-2's weights from its config.json."""
    return sum(gpt2_param_breakdown(c["vocab_size"], c["n_positions"], c["n_embd"], c["n_layer"],
                                    c.get("n_inner") or 4 * c["n_embd"]).values())


def from_measurements(m: dict, path: Path) -> dict:
    """The page keys of one measurements.json (shape checked by its schema when it was written)."""
    try:
        prompts = {p["key"]: p for p in m["prompts"]}
        cat = prompts[m["main_prompt"]]
        capital, city = prompts["capital"], prompts["city"]
        src = f"{rel(path)} ({m['provenance']['model_id']}, {m['provenance']['date']})"
        city_ranks = {r["name"]: r for r in city["ranks"]}
        paris = next(r for r in capital["ranks"] if r["name"] == " Paris")
        values = {
            "top_bars": cat["top_bars"],
            "top8_mass": cat["top_mass"]["mass"] if cat["top_mass"]["n"] == 8 else None,
            "top_k": cat["top_k"],
            "top_p_kept": cat["top_p"],
            "logit_range": {"min": cat["logits"]["min"], "max": cat["logits"]["max"]},
            "logit_mean": cat["logits"]["mean"],
            "logit_histogram": cat["logits"]["histogram"],
            "temperatures": cat["temperatures"],
            "cat_head": cat.get("attends_most"),
            "sink_heads": cat["sink_heads"],
            "sink_spread": sink_spread(m["prompts"]),
            "capital_top": {"token": capital["top_bars"][0]["token"], "prob": capital["top_bars"][0]["prob"]},
            "paris_rank": {"rank": paris["rank"], "prob": paris["prob"]},
            "marseille_vs_paris": {"piece": city_ranks[" Marseille"]["piece"], "marseille": city_ranks[" Marseille"]["prob"],
                                   "paris": city_ranks[" Paris"]["prob"]},
            "sampled_pick": None,
            "forward_ms": m["forward_ms"]["median"],
            "n_params": m["n_params"],
            "embedding": m["embedding"] | {"length": len(m["embedding"]["vector"])},
        }
        out = {k: wrap(values[k], "measured", src) for k in KEYS}
        # the shape is read from the model's own config by the run, not measured by it
        cfg_src = f"{m['provenance']['model_id']}'s config, as read by this build's run ({src})"
        out["config"] = {k: wrap(v, "config", cfg_src) for k, v in m["config"].items()}
        out["provenance"] = {"status": "measured", "source": src, **m["provenance"],
                             **{"stored_" + k: v for k, v in stored(m["provenance"].get("quantisation")).items()},
                             "dtype_bits": dtype_bits(m["provenance"].get("dtype"))}
        out["disagreements"] = m.get("disagreements", [])
    except (KeyError, TypeError, StopIteration) as exc:
        raise StageError(f"{rel(path)}: missing or malformed entry ({exc!r}); rerun its stage") from None
    return out


def gpt2_published(pub: dict, path: Path) -> dict:
    try:
        s = pub["source"]
        src = f"{s['publication']}, “{s['title']}” ({s['address']}; {s['setup']})"
        v, c = pub["values"], pub["config"]
        values = {
            "top_bars": v["top_bars"],
            "top8_mass": {"below": v["top8_mass_below"]},
            "top_k": None,
            "top_p_kept": {"p": v["top_p"], "kept": v["top_p_kept"]},
            "logit_range": {"min": v["logit_range"][0], "max": v["logit_range"][1]},
            "logit_mean": None,
            "logit_histogram": None,
            "temperatures": None,
            "cat_head": v["cat_head"] | {"token": " cat"},
            "sink_heads": {"count": v["sink_heads"], "of": v["sink_heads_of"], "threshold": v["sink_threshold"]},
            "sink_spread": None,
            "capital_top": {"token": v["capital_top"]},
            "paris_rank": {"rank": v["paris_rank"]},
            "marseille_vs_paris": v["marseille_vs_paris"],
            "sampled_pick": v["sampled_pick"],
            "forward_ms": {"about": v["forward_ms_about"]},
            "n_params": None,
            "embedding": None,
        }
        out = {k: wrap(values[k], "published", src) for k in KEYS}
        cfg_src = f"{c['source']} (via {rel(path)})"
        out["n_params"] = wrap(gpt2_param_count(c), "computed", cfg_src)  # counted from the config, not in it
        out["config"] = {
            k: wrap(val, "config", cfg_src) for k, val in {
                "model_type": c["model_type"], "n_layer": c["n_layer"], "n_head": c["n_head"], "n_kv_heads": c["n_head"],
                "n_embd": c["n_embd"], "d_head": c["n_embd"] // c["n_head"], "d_mlp": 4 * c["n_embd"],
                "vocab_size": c["vocab_size"], "n_ctx": c["n_positions"]}.items()}
        out["provenance"] = {"status": "published", "source": src, "url": s.get("url"), "address": s.get("address")}
        out["disagreements"] = []
    except (KeyError, TypeError, IndexError) as exc:
        raise StageError(f"{rel(path)}: missing or malformed entry ({exc!r})") from None
    return out


def sink_spread(prompts: list[dict]) -> dict:
    """The sink count (one rule: the last token gives the first more than the threshold) over every
    measured prompt: its least, median and most."""
    counts = sorted(p["sink_heads"]["count"] for p in prompts)
    n = len(counts)
    median = counts[n // 2] if n % 2 else (counts[n // 2 - 1] + counts[n // 2]) / 2
    first = prompts[0]["sink_heads"]
    return {"min": counts[0], "median": median, "max": counts[-1], "n": n, "of": first["of"], "threshold": first["threshold"]}


def dtype_bits(dtype: str | None) -> int | None:
    """Bits of a torch dtype's name: 'float32' -> 32, 'bfloat16' -> 16."""
    m = re.fullmatch(r"b?float(\d+)", dtype or "")
    return int(m.group(1)) if m else None


def llama3_published(pub: dict, path: Path) -> dict:
    """Llama 3's scale figures, quoted from the paper (published.json's "llama3" record)."""
    try:
        rec = pub["llama3"]
        s = rec["source"]
        src = f"{s['publication']}, “{s['title']}” ({s['year']}), {s['where']}: {s['url']}"
        out = {k: wrap(rec[k], "published", src) | {"anchor": "published-llama-3"}
               for k in ("vocab_size", "n_layer", "n_params")}
        out["n_ctx"] = wrap(rec["n_ctx"], "published", src.replace(s["where"], rec["n_ctx_where"])) | {"anchor": "published-llama-3"}
        out["source"] = dict(s)
    except (KeyError, TypeError) as exc:
        raise StageError(f"{rel(path)}: missing or malformed llama3 entry ({exc!r})") from None
    return out


def facts_published(pub: dict, path: Path) -> dict:
    """What both models' own publications state and no file here can show: each one's release year, and
    SmolLM2's pretraining tokens and post-training rounds (published.json's "released" and "smollm2")."""
    try:
        out = {m: {"released": wrap(r["year"], "published", r["source"]) | {"anchor": "published-model-facts"}}
               for m, r in pub["released"].items()}
        s = pub["smollm2"]
        out["smollm2"] |= {k: wrap(s[k], "published", s["source"]) | {"anchor": "published-model-facts"}
                           for k in ("pretraining_tokens", "post_training")}
        # quoted from the walk-through whether or not this build measured GPT-2: no run can show them
        v, src = pub["values"], gpt2_published(pub, path)["provenance"]["source"]
        out["gpt2"] |= {"training_text_gb": wrap({"about": v["training_text_gb_about"]}, "published", src) | {"anchor": "published-model-facts"},
                        # the k of the GPT-2 paper's samples: the paper's own figure (the walk-through quotes it)
                        "paper_top_k": wrap(v["paper_top_k"], "published", pub["released"]["gpt2"]["source"])
                        | {"anchor": "published-model-facts"}}
    except (KeyError, TypeError) as exc:
        raise StageError(f"{rel(path)}: missing or malformed released/smollm2 entry ({exc!r})") from None
    return out


# What a distribution's measured rows say about its shape: a top bar at PEAKED or more is most of the
# probability; under SPREAD, no token stands out.
PEAKED, SPREAD = 0.5, 0.15


def _describe(pieces: list[str], probs: list[float], mass: float, n: int, q) -> tuple[str, str]:
    shown = [q(p.replace(" ", "·").replace("\n", "\\n")) for p in pieces[:3]]
    first = f"{shown[0]} {probs[0]:.1%}"
    if pieces[0].strip() == "":
        return "whitespace", (f"the top token is whitespace ({first}): the answer starts one token later, "
                              "so this bar says nothing about it")
    if probs[0] >= PEAKED:
        return "peaked", f"peaked: {first}, then {shown[1]} {probs[1]:.1%}"
    if probs[0] < SPREAD:
        return "spread", f"spread: the top token, {first}, holds little; the top {n} hold {mass:.1%}"
    return "leaning", f"leaning: {first}, then {shown[1]} {probs[1]:.1%} and {shown[2]} {probs[2]:.1%}"


def distribution_shape(d: dict, n: int = 10) -> dict:
    """What one stored distribution's bars show, read from its head (most likely first):
    {kind: whitespace | peaked | spread | leaning, text (Markdown, tokens as code), plain (tokens in
    quotes, for textContent), top, top_n_mass}. The pages and the demo print this beside the config's
    label, which names the prompt, not what the model did with it."""
    pieces, probs = d["head"]["pieces"], d["head"]["probs"]
    mass = sum(probs[:n])
    kind, text = _describe(pieces, probs, mass, n, lambda t: f"`{t}`")
    _, plain = _describe(pieces, probs, mass, n, lambda t: f"“{t}”")
    return {"kind": kind, "text": text, "plain": plain, "top": probs[0], "top_n_mass": mass}


def experiments(path: Path) -> dict:
    """The experiments page's numbers (scripts/real/experiments.py), one wrapped value: its marks name
    the file, the model and the transformers that measured it."""
    rec = _object(path)
    try:
        p = rec["provenance"]
        src = f"{rel(path)} ({p['model_id']}, transformers {p['libraries']['transformers']}, {p['compute_dtype']})"
        value = {k: rec[k] for k in ("config", "copying", "same_work", "surprise", "tokens", "facts")}
    except (KeyError, TypeError) as exc:
        raise StageError(f"{rel(path)}: missing or malformed entry ({exc!r}); rerun its stage") from None
    return wrap(value, "measured", src)


def _object(path: Path) -> dict:
    data = read_json(path)
    if not isinstance(data, dict):
        raise StageError(f"{rel(path)}: expected a JSON object")
    return data


def load_real_models(site_data: Path = SITE_DATA) -> dict:
    gpt2_meas = site_data / "gpt2" / "measurements.json"
    pub = site_data / "gpt2" / "published.json"
    published = _object(pub)
    if gpt2_meas.exists():
        gpt2 = from_measurements(_object(gpt2_meas), gpt2_meas)
    else:
        gpt2 = gpt2_published(published, pub)
    facts_path = site_data / "gpt2" / "tokenizer_facts.json"
    facts = _object(facts_path)
    try:
        gpt2["tokenizer"] = {k: wrap(facts[k], "computed", f"computed from GPT-2's tokenizer files ({rel(facts_path)})")
                             for k in ("ids_of", "pieces_of", "first_piece", "vocabulary")}
    except KeyError as exc:
        raise StageError(f"{rel(facts_path)}: missing entry {exc}") from None
    smol = site_data / "smollm2" / "measurements.json"
    smollm2 = from_measurements(_object(smol), smol)
    smollm2["experiments"] = experiments(site_data / "smollm2" / "experiments.json")
    for model, extra in facts_published(published, pub).items():
        {"gpt2": gpt2, "smollm2": smollm2}[model].update(extra)
    return {"gpt2": gpt2, "smollm2": smollm2, "llama3": llama3_published(published, pub),
            "settings": read_json(CONFIG / "real_models.json") | read_json(CONFIG / "real_prompts.json")}
