"""The numbers of the "Around the pick" page (docs/around.md), computed while the site builds from
the models' configs, SmolLM2's storage record (site_data/smollm2/storage.json), the published
figures of site_data/around/published.json and the page's settings (scripts/config/around.json).

`around(...)` returns one dict per section; each carries `status` ({status, source}) for its badge.
Pure: no file is read here, and a record that disagrees with this account raises ValueError (the
numbers hook turns it into a build failure naming the page)."""
from __future__ import annotations

import math

KB, MB = 1e3, 1e6  # decimal units, as every size on the site (kB, MB)


def _computed(source: str) -> dict:
    return {"status": "computed", "source": f"computed by this build from {source}"}


def matmul_weights(c: dict) -> dict[str, int]:
    """Weights of one layer's matrices by name, as (out, in) products, and the unembedding.
    Grouped-query attention: k and v have n_kv_heads heads; a gated MLP has three matrices."""
    d, h, kv, dh, ff = c["n_embd"], c["n_head"], c["n_kv_heads"], c["d_head"], c["d_mlp"]
    mats = {"q": (h * dh, d), "k": (kv * dh, d), "v": (kv * dh, d), "o": (d, h * dh)}
    gated = "gated" in c.get("mlp", "")
    mats |= {"gate": (ff, d), "up": (ff, d), "down": (d, ff)} if gated else {"fc": (ff, d), "proj": (d, ff)}
    return {k: {"out": o, "in": i, "weights": o * i} for k, (o, i) in mats.items()}


def shape(cfg: dict) -> dict:
    """A wrapped config ({key: {value, ...}}) as plain numbers, with the MLP kind."""
    v = {k: cfg[k]["value"] for k in ("n_layer", "n_head", "n_kv_heads", "n_embd", "d_head", "d_mlp", "vocab_size", "n_ctx")}
    feats = cfg.get("features", {}).get("value", {}) if "features" in cfg else {}
    return v | {"mlp": feats.get("mlp", "")}


def macs(c: dict, n_params: int) -> dict:
    """Multiply-adds of one token's pass: every matrix weight once (the tied unembedding included),
    plus attention over the n earlier positions (scores and the weighted sum of values: 2·n·h·d_head
    per layer), here at the full window."""
    layer = sum(m["weights"] for m in matmul_weights(c).values())
    matrices = c["n_layer"] * layer + c["vocab_size"] * c["n_embd"]
    attn_full = c["n_layer"] * 2 * c["n_ctx"] * c["n_head"] * c["d_head"]
    return {"matrices": matrices, "per_weight": matrices / n_params, "flops": 2 * matrices,
            # a token's attention over one earlier position (or itself), every block and head
            "attention_per_key": c["n_layer"] * 2 * c["n_head"] * c["d_head"],
            "attention_full": attn_full, "attention_share_full": attn_full / (matrices + attn_full),
            "attention_outweighs": attn_full > matrices}


def kv(c: dict, bytes_per: int = 4) -> dict:
    """Cache bytes per token: a key and a value vector per layer and key/value head."""
    per = 2 * c["n_layer"] * c["n_kv_heads"] * c["d_head"] * bytes_per
    all_heads = 2 * c["n_layer"] * c["n_head"] * c["d_head"] * bytes_per
    return {"factors": [2, c["n_layer"], c["n_kv_heads"], c["d_head"], bytes_per], "bytes": per, "n_ctx": c["n_ctx"], "kb": per / KB, "full_bytes": per * c["n_ctx"], "full_mb": per * c["n_ctx"] / MB,
            "all_heads_kb": all_heads / KB, "gqa_saving": all_heads / per,
            "float16_kb": per / 2 / KB}


def q4_1(storage: dict) -> dict:
    """The storage record checked against the format: the block's weights recomputed from its bytes."""
    b = storage["block"]
    raw = bytes.fromhex(b["bytes_hex"])
    types = {t["type"]: t for t in storage["tensor_types"]}
    q41 = types["Q4_1"]
    if q41["block_bytes"] * 8 != 2 * 16 + 4 * q41["block_size"]:
        raise ValueError(f"a Q4_1 block of {q41['block_size']} weights in {q41['block_bytes']} bytes is not two float16 and 4-bit codes")
    codes = [x & 0x0F for x in raw[4:]] + [x >> 4 for x in raw[4:]]
    if codes != b["q"] or list(raw[4:]) != b["qs"]:
        raise ValueError("storage.json: the block's codes differ from its bytes")
    for q, w in zip(b["q"], b["w"]):
        if not math.isclose(b["d"] * q + b["m"], w, rel_tol=1e-6, abs_tol=1e-9):
            raise ValueError(f"storage.json: weight {w} is not d·q + m = {b['d']}·{q} + {b['m']}")
    tensor_bytes = sum(t["bytes"] for t in storage["tensor_types"])
    return {
        "block_size": q41["block_size"], "block_bytes": q41["block_bytes"],
        "bits_per_weight": q41["block_bytes"] * 8 / q41["block_size"], "nibble_bytes": q41["block_size"] // 2,
        "code_bits": (q41["block_bytes"] - 4) * 8 // q41["block_size"], "levels": 2 ** ((q41["block_bytes"] - 4) * 8 // q41["block_size"]),
        "types": [t | {"bits_per_weight": t["block_bytes"] * 8 / t["block_size"], "share": t["elements"] / storage["n_weights"]}
                  for t in storage["tensor_types"]],
        "tensor_bytes": tensor_bytes, "file_bytes": storage["file_bytes"], "file_mb": storage["file_bytes"] / MB, "other_bytes": storage["file_bytes"] - tensor_bytes,
        "block": b | {"pairs": [{"j": j, "byte": x, "hex": f"{x:02x}", "low": x & 0x0F, "high": x >> 4} for j, x in enumerate(b["qs"])],
                      "w_min": min(b["w"]), "w_max": max(b["w"]), "half_step": b["d"] / 2},
    }


def weight_bytes(n: int, bits: list[int]) -> list[dict]:
    return [{"bits": k, "bytes": n * k // 8, "mb": n * k / 8 / MB} for k in bits]


def lora(c: dict, rank: int, names: list[str], n_params: int) -> dict:
    """A rank-r update B·A of a (out, in) matrix trains r·(in + out) weights instead of out·in."""
    mats = matmul_weights(c)
    rows = [{"name": k, "out": mats[k]["out"], "in": mats[k]["in"], "full": mats[k]["weights"],
             "lora": rank * (mats[k]["in"] + mats[k]["out"])} for k in names]
    per_layer = sum(r["lora"] for r in rows)
    return {"rank": rank, "rows": rows, "per_layer": per_layer, "total": per_layer * c["n_layer"],
            "share": per_layer * c["n_layer"] / n_params, "first": rows[0] | {"share": rows[0]["lora"] / rows[0]["full"]}}


def moe_toy(c: dict, n_experts: int, top_k: int, n_params: int) -> dict:
    """SmolLM2 with each layer's MLP copied into n experts and a router (n_embd × n) choosing top k."""
    mlp = sum(m["weights"] for k, m in matmul_weights(c).items() if k not in ("q", "k", "v", "o"))
    router = c["n_embd"] * n_experts
    total = n_params + c["n_layer"] * ((n_experts - 1) * mlp + router)
    active = n_params + c["n_layer"] * ((top_k - 1) * mlp + router)
    return {"n_experts": n_experts, "top_k": top_k, "mlp": mlp, "router": router,
            "total": total, "active": active, "share": active / total}


def memory_bound(tensor_bytes: int, flops: int, n_params: int, chip: dict) -> dict:
    """Bytes a decode step must read (every weight once) against its arithmetic, and a chip's ratio."""
    ratio = chip["fp16_flops"] / chip["bandwidth_bytes"]
    intensity = flops / tensor_bytes
    return {"bytes": tensor_bytes, "flops": flops, "intensity": intensity, "intensity_f32": flops / (4 * n_params),
            "chip": chip["chip"], "chip_ratio": ratio, "chip_tflops": chip["fp16_flops"] / 1e12, "chip_gb_s": chip["bandwidth_bytes"] / 1e9,
            "read_us": tensor_bytes / chip["bandwidth_bytes"] * 1e6, "compute_us": flops / chip["fp16_flops"] * 1e6,
            "batch_even": ratio / intensity}


def paged(c: dict, kv_bytes: int, block_tokens: int, reply: int) -> dict:
    blocks = -(-reply // block_tokens)
    return {"block_tokens": block_tokens, "block_kb": block_tokens * kv_bytes / KB, "reply": reply,
            "blocks": blocks, "slots": blocks * block_tokens, "unused": blocks * block_tokens - reply,
            "reserved_mb": c["n_ctx"] * kv_bytes / MB, "reserved_unused": (c["n_ctx"] - reply) / c["n_ctx"],
            "full_blocks": c["n_ctx"] // block_tokens}


def speculative(trace: dict, vocab: list[str], t_draft: float, show) -> dict:
    """Draft q = the tiny model's last-position scores divided by t_draft; target p = the same at T = 1.
    A drafted x is kept with probability min(1, p(x)/q(x)), else the token is drawn from
    max(0, p - q) renormalised; the result is p exactly, which is checked here."""
    logits = trace["logits"][-1]
    def softmax(zs):
        top = max(zs)
        e = [math.exp(z - top) for z in zs]
        s = sum(e)
        return [x / s for x in e]
    p, q = softmax(logits), softmax([z / t_draft for z in logits])
    accept = sum(min(a, b) for a, b in zip(p, q))
    excess = [max(0.0, a - b) for a, b in zip(p, q)]
    resid = [e / sum(excess) for e in excess]
    out = [b * min(1.0, a / b) + (1 - accept) * r for a, b, r in zip(p, q, resid)]
    err = max(abs(o - a) for o, a in zip(out, p))
    if err > 1e-12:
        raise ValueError(f"speculative toy: the accept rule gives a distribution {err} away from the target")
    order = sorted(range(len(p)), key=lambda i: -p[i])[:4]
    return {"t_draft": t_draft, "accept": accept, "tokens": [show(t) for t in vocab], "p": p, "q": q, "max_error": err, "max_error_text": f"{err:.0e}" if err else "zero", "prompt": trace["prompt"],
            "rows": [{"token": show(vocab[i]), "p": p[i], "q": q[i], "keep": min(1.0, p[i] / q[i]), "resid": resid[i]} for i in order]}


def router(trace: dict, n_experts: int, top_k: int) -> dict:
    """A stand-in router on the tiny model's real pass: its MLP's hidden units cut into n_experts equal
    groups, each group's score the sum of its units' pre-activations at a token; the top k scores are
    kept and softmaxed, as Mixtral does. (The tiny model was not trained with a router; its numbers are
    real, the routing is the illustration.)"""
    pre = trace["h"][0]["mlp_pre"]
    units = len(pre[0])
    if units % n_experts:
        raise ValueError(f"the tiny MLP's {units} units do not split into {n_experts} experts")
    size = units // n_experts
    rows = []
    for t, z in zip(trace["tokens"], pre):
        scores = [sum(z[e * size:(e + 1) * size]) for e in range(n_experts)]
        keep = sorted(range(n_experts), key=lambda e: -scores[e])[:top_k]
        top = max(scores[e] for e in keep)
        ex = [math.exp(scores[e] - top) for e in keep]
        rows.append({"token": t, "scores": scores, "keep": keep, "gates": [x / sum(ex) for x in ex]})
    return {"prompt": trace["prompt"], "n_experts": n_experts, "top_k": top_k, "units": units, "size": size, "rows": rows}


def around(gpt2: dict, smollm2: dict, storage: dict, published: dict, settings: dict, trace: dict, vocab: list[str], show,
           router_trace: dict | None = None) -> dict:
    """Every number of docs/around.md, by section."""
    g, s = shape(gpt2["config"]), shape(smollm2["config"])
    gn, sn = gpt2["n_params"]["value"], smollm2["n_params"]["value"]
    if storage["n_weights"] != sn:
        raise ValueError(f"storage.json counts {storage['n_weights']} weights, measurements.json {sn}")
    pub = published["records"]
    src_g = "GPT-2's config.json"
    src_s = "SmolLM2's config (site_data/smollm2/measurements.json)"
    bits = settings["bits"]
    q = q4_1(storage)
    mg, ms = macs(g, gn), macs(s, sn)
    kg, ks = kv(g), kv(s)
    return {
        "weights": {"gpt2": weight_bytes(gn, bits), "smollm2": weight_bytes(sn, bits),
                    "status": _computed("each model's weight count")},
        "q4_1": q | {"status": {"status": "measured", "source": f"read by this build from {storage['provenance']['weights_file']} with gguf (site_data/smollm2/storage.json)"}},
        "macs": {"gpt2": mg, "smollm2": ms, "status": _computed(f"{src_g} and {src_s}")},
        "kv": {"gpt2": kg, "smollm2": ks, "status": _computed(f"{src_g} and {src_s}, float32")},
        "memory": memory_bound(q["tensor_bytes"], ms["flops"], sn, pub["a100"])
                  | {"status": _computed(f"{src_s}, the GGUF's tensor bytes and NVIDIA's published A100 figures")},
        "paged": paged(s, ks["bytes"], pub["paged_attention"]["block_tokens"], settings["paged"]["reply_tokens"])
                 | {"status": _computed(f"{src_s} and PagedAttention's published block size")},
        "moe": {"examples": [pub[k] | {"share": pub[k]["n_params_active"] / pub[k]["n_params_total"],
                                       "total_billion": pub[k]["n_params_total"] / 1e9, "active_billion": pub[k]["n_params_active"] / 1e9,
                                       "badge": published_badge(pub[k])} for k in ("mixtral", "deepseek_v3")],
                "toy": moe_toy(s, settings["moe"]["n_experts"], settings["moe"]["top_k"], sn),
                "status": _computed(src_s)},
        "lora": lora(s, settings["lora"]["rank"], settings["lora"]["matrices"], sn) | {"status": _computed(src_s)},
        "published": {k: published_badge(v) for k, v in pub.items()},
        "sources": {k: v["source"] for k, v in pub.items()},
        "smollm2_training": pub["smollm2_training"] | {"tokens_trillion": pub["smollm2_training"]["tokens"] / 1e12},
        "router": router(router_trace or trace, settings["moe"]["n_experts"], settings["moe"]["top_k"])
                  | {"status": _computed("the tiny model's traces (site_data/tiny/traces.json)")},
        "spec": speculative(trace, vocab, settings["speculative"]["draft_temperature"], show)
                | {"status": _computed("the tiny model's traces (site_data/tiny/traces.json)")},
    }


def published_badge(rec: dict) -> dict:
    """A published record's badge: {status, source, anchor} for numbers.py's `status` filter."""
    s = rec["source"]
    year = f" ({s['year']})" if s.get("year") else ""
    return {"status": "published", "source": f"{s['publication']}, “{s['title']}”{year}, {s['where']}: {s['url']}",
            "anchor": "published-around"}
