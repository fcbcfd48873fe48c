"""Stage 3: export the trained tiny model to site_data/tiny/.

Reads build/tiny/train.pt and writes config.json, weights.json, training.json, traces.json and
summary.json. Traces are recomputed in float64 from the float32 weights so the browser, which
computes in float64, can be checked to 1e-6 and better. Snapshots are stored rounded to float16
(they are only replayed for the training view) and every snapshot number is computed from the
rounded weights, so what the page says is what the browser shows.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, round_floats, run_main, validate, write_json_atomic
from scripts.tiny.model import TinyConfig, TinyGPT, nested_weights
from scripts.tiny.settings import subject_position
from scripts.tiny.tokenizer import SPACE_MARKER, Tokenizer, load_tokenizer, read_corpus
from scripts.tiny.checkpoint import load_checkpoint

OUT = SITE_DATA / "tiny"


def f64_model(cfg: TinyConfig, state: dict) -> TinyGPT:
    model = TinyGPT(cfg)
    model.load_state_dict(state)
    return model.double().eval()


def to_f16(state: dict) -> dict:
    return {k: (v if k.endswith("mask") else v.to(torch.float16).to(torch.float32)) for k, v in state.items()}


def _rows(t: torch.Tensor):
    """Tensor -> lists; -inf (masked scores) becomes null, since JSON has no infinity."""
    return [_rows(x) for x in t] if t.dim() > 0 else (None if math.isinf(t.item()) else t.item())


def trace_prompt(model: TinyGPT, tok: Tokenizer, text: str) -> dict:
    ids = tok.encode(text)
    return trace_ids(model, tok, ids) | {"prompt": text}


def trace_ids(model: TinyGPT, tok: Tokenizer, ids: list[int]) -> dict:
    trace: dict = {}
    with torch.no_grad():
        model(torch.tensor([ids]), trace)
    out = {"ids": ids, "tokens": [tok.show(i) for i in ids]}
    for key in ("wte", "x", "ln_f", "logits", "probs"):
        out[key] = _rows(trace[key][0])
    out["wpe"] = _rows(trace["wpe"])
    out["h"] = [{k: _rows(v[0]) for k, v in block.items()} for block in trace["h"]]
    probs = trace["probs"][0, -1]
    top = torch.argsort(probs, descending=True)[:5].tolist()
    out["top"] = [{"id": i, "token": tok.show(i), "prob": probs[i].item()} for i in top]
    return out


def greedy(model: TinyGPT, tok: Tokenizer, text: str, max_new: int) -> dict:
    """Greedy decoding by full recomputation, the reference the KV-cache lane must reproduce."""
    ids = tok.encode(text)
    steps = []
    for _ in range(max_new):
        window = ids[-model.cfg.n_ctx:]
        with torch.no_grad():
            probs = F.softmax(model(torch.tensor([window]))[0, -1], dim=-1)
        nxt = int(torch.argmax(probs))
        steps.append({"id": nxt, "token": tok.show(nxt), "prob": probs[nxt].item()})
        ids.append(nxt)
        if nxt == tok.eot_id:
            break
    return {"prompt": text, "steps": steps, "text": tok.decode(ids)}


def position_losses(model: TinyGPT, tok: Tokenizer, sentence: str) -> dict:
    """-log p(correct next token) at every position of a sentence followed by end-of-text."""
    ids = (tok.encode(sentence) + [tok.eot_id])[: model.cfg.n_ctx + 1]
    x, y = ids[:-1], ids[1:]
    with torch.no_grad():
        logp = F.log_softmax(model(torch.tensor([x]))[0], dim=-1)
    losses = [-logp[t, y[t]].item() for t in range(len(y))]
    return {"sentence": sentence, "targets": [tok.show(i) for i in y], "loss": losses,
            "mean": sum(losses) / len(losses)}


def softmax_t(scores: list[float], t: float) -> list[float]:
    return F.softmax(torch.tensor(scores, dtype=torch.float64) / t, dim=0).tolist()


def summarise(cfg: TinyConfig, tok: Tokenizer, traces: dict, training: dict, n_params: int, config: dict) -> dict:
    """The handful of facts the pages quote, derived from the traces (never typed by hand).

    Which prompts they come from is config (`roles` in tiny.json), checked by scripts.tiny.settings."""
    roles = config["roles"]
    cat, dog = (traces[p] for p in roles["subject"])
    subject_pos = subject_position(config, tok)  # where the two subject prompts differ (·cat, ·dog)
    last_w = [cat["h"][0]["attn_weights"][h][-1] for h in range(cfg.n_head)]
    subject_head = max(range(cfg.n_head), key=lambda h: last_w[h][subject_pos])
    other = [h for h in range(cfg.n_head) if h != subject_head]
    other_top = {h: max(range(len(last_w[h])), key=lambda j: last_w[h][j]) for h in other}
    verbs = traces[roles["verbs"]]["top"][:3]
    losses = training["loss_curve"]
    toy = config["toy_softmax"]
    return {
        "schema_version": SCHEMA_VERSION,
        "n_params": n_params,
        "vocab_size": len(tok.vocab),
        "n_chars": len(tok.chars),
        "n_merges": len(tok.merges),
        "first_merges": ["+".join(m).replace(" ", SPACE_MARKER) for m in tok.merges[:4]],
        "cats": [tok.show(i) for i in tok.encode(" " + roles["unseen_word"])],
        "picks": {p: t["top"][0] for p, t in traces.items()},
        "subject_head": {"head": subject_head, "token": cat["tokens"][subject_pos],
                         "weight_cat": last_w[subject_head][subject_pos],
                         "weight_dog": dog["h"][0]["attn_weights"][subject_head][-1][subject_pos]},
        "other_heads": [{"head": h, "top_pos": j, "token": cat["tokens"][j], "weight": last_w[h][j]}
                        for h, j in other_top.items()],
        "verbs_after_the_cat": verbs,
        "loss": {"first": losses[0], "last": losses[-1], "steps": len(losses) - 1},
        "toy_softmax": {"scores": toy["scores"], "by_temperature": [{"t": t, "probs": softmax_t(toy["scores"], t)}
                                                                    for t in toy["temperatures"]]},
        "roles": {"subject": roles["subject"], "subject_position": subject_pos, "verbs": roles["verbs"],
                  "unseen_word": roles["unseen_word"]},
    }


def export(checkpoint: dict, tok: Tokenizer, lines: list[str]) -> dict[str, dict]:
    config = checkpoint["config"]
    cfg = TinyConfig(**config["model"])
    final = f64_model(cfg, checkpoint["state"])
    n_params = final.n_params()
    if n_params != 1416 and cfg == TinyConfig():
        raise StageError(f"the default tiny model should have 1,416 weights, found {n_params}")
    try:
        traces = {p: trace_prompt(final, tok, p) for p in config["prompts"]}
        sliding_ids = tok.encode(config["sliding_prompt"])
    except ValueError as exc:
        raise StageError(f"scripts/config/tiny.json: a prompt cannot be tokenized: {exc}") from None
    window = sliding_ids[-cfg.n_ctx:]
    sliding = {"prompt": config["sliding_prompt"], "ids": sliding_ids, "window_start": len(sliding_ids) - len(window),
               "window": trace_ids(final, tok, window)}
    unseen = config["unseen_sentences"]
    snapshots = []
    for snap in checkpoint["snapshots"]:
        state16 = to_f16(snap["state"])
        model16 = f64_model(cfg, state16)
        per = [position_losses(model16, tok, s) for s in lines + unseen]
        snapshots.append({
            "step": snap["step"],
            "train_loss_f32": snap["loss"],
            "corpus_loss": sum(p["mean"] for p in per[: len(lines)]) / len(lines),
            "weights": nested_weights(state16, cfg),
            "positions": per,
        })
    training = {
        "schema_version": SCHEMA_VERSION,
        "optimizer": "Adam",
        "steps": config["training"]["steps"],
        "loss_curve": checkpoint["losses"],
        "snapshot_dtype": "float16",
        "snapshots": snapshots,
        "final_positions": [position_losses(final, tok, s) for s in lines + unseen],
        "n_train_sentences": len(lines),
    }
    files = {
        "config.json": {
            "schema_version": SCHEMA_VERSION,
            "model": config["model"] | {"d_head": cfg.d_head, "ln_eps": cfg.ln_eps, "activation": "gelu_tanh",
                                        "tied_embeddings": True, "n_params": n_params},
            "training": config["training"],
            "corpus": lines,
            "unseen_sentences": unseen,
            "prompts": config["prompts"],
        },
        "weights.json": {"schema_version": SCHEMA_VERSION, "dtype": "float32",
                         "weights": nested_weights(checkpoint["state"], cfg)},
        "training.json": training,
        "traces.json": {"schema_version": SCHEMA_VERSION, "dtype": "float64", "traces": list(traces.values()),
                        "sliding": sliding,
                        "greedy": [greedy(final, tok, p, cfg.n_ctx) for p in config["roles"]["greedy"]]},
    }
    files["summary.json"] = summarise(cfg, tok, traces, training, n_params, config)
    return {name: round_floats(data) for name, data in files.items()}


def main() -> None:
    tok = load_tokenizer()
    files = export(load_checkpoint(), tok, read_corpus())
    for name, data in files.items():  # validate all before writing any
        validate(data, "tiny_" + name.removesuffix(".json"), f"site_data/tiny/{name}")
    for name, data in files.items():
        write_json_atomic(OUT / name, data)
    s = files["summary.json"]
    print(f"tiny_data: {len(files)} files in site_data/tiny; {s['n_params']} weights; "
          f"'the cat sat on the' -> {s['picks']['the cat sat on the']['token']}; "
          f"head {s['subject_head']['head']} puts {s['subject_head']['weight_cat']:.2f} on {s['subject_head']['token']}")


if __name__ == "__main__":
    run_main(main)
