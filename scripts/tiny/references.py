"""Stage: PyTorch references for the browser's own training, as llm.c checks its C against PyTorch.

Produces site_data/parity/:
- init.json         the build's initial weights (seed and init of scripts/tiny/checkpoint.py, float32),
                    the starting point of "train it yourself" in the browser;
- grads.json        float64 autograd gradients of every parameter at step 1 (loss as checkpoint.py);
- adam.json         50 float64 Adam steps from init: the loss before each step, after the last,
                    and the final weights;
- bpe.json          the merges scripts/tiny/tokenizer.py learns from the build corpus and from
                    edited corpora (or the error it raises);
- experiments.json  knock-outs and the logit lens for the config's prompts, with the final weights
                    of site_data/tiny/weights.json in float64 (also the pages' static fallback).
Node tests (tests/js/train.test.js, experiments.test.js) replay all of them.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, read_json, run_main, validate, write_json_atomic
from scripts.tiny.checkpoint import IGNORE, make_batch
from scripts.tiny.export import nested_weights
from scripts.tiny.model import TinyConfig, TinyGPT
from scripts.tiny.tokenizer import SPACE_MARKER, Tokenizer, build_tokenizer, read_corpus

OUT = SITE_DATA / "parity"
ADAM_STEPS = 50


def edited_corpora(lines: list[str]) -> dict[str, list[str]]:
    """The build corpus and edits a reader might make; each one a different test of the rule."""
    return {
        "build": lines,
        "add_cow_rug": lines + ["the cow sat on the rug."],
        "remove_first": lines[1:],
        "new_words": lines + ["a big red fox ran far.", "the fox saw my hen."],
        "reversed_order": lines[::-1],  # same counts, other first-seen order: ties break differently
        "repeated": lines + lines[:3],
        "punctuation": lines + ["the cat, the dog!", "did the cat sit?"],
        "too_small": ["the cat sat."],  # fully merged before the vocabulary fills: an error
    }


def initial_state(cfg: TinyConfig, tcfg: dict) -> dict:
    """The same calls, in the same order, as scripts/tiny/checkpoint.train before its first step."""
    torch.manual_seed(tcfg["seed"])
    model = TinyGPT(cfg)
    model.init_weights(tcfg["init_std"])
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def f64(cfg: TinyConfig, state: dict) -> TinyGPT:
    model = TinyGPT(cfg)
    model.load_state_dict(state)
    return model.double()


def loss_of(model: TinyGPT, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, model.cfg.vocab_size), y.reshape(-1), ignore_index=IGNORE)


def gradients(cfg: TinyConfig, state: dict, x, y) -> dict:
    model = f64(cfg, state)
    loss = loss_of(model, x, y)
    loss.backward()
    grads = {k: p.grad for k, p in model.named_parameters()}
    return {"loss": loss.item(), "grads": nested_weights(grads, cfg)}


def adam(cfg: TinyConfig, tcfg: dict, state: dict, x, y, steps: int) -> dict:
    torch.set_num_threads(1)
    model = f64(cfg, state)
    opt = torch.optim.Adam(model.parameters(), lr=tcfg["lr"], betas=tuple(tcfg["betas"]))
    losses = []
    for _ in range(steps):
        loss = loss_of(model, x, y)
        losses.append(loss.item())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    with torch.no_grad():
        losses.append(loss_of(model, x, y).item())
    return {"steps": steps, "losses": losses, "weights": nested_weights(model.state_dict(), cfg)}


def bpe_cases(lines: list[str], vocab_size: int) -> list[dict]:
    cases = []
    for name, corpus in edited_corpora(lines).items():
        case = {"name": name, "corpus": corpus}
        try:
            tok = build_tokenizer(corpus, vocab_size)
            case |= {"chars": tok.chars, "merges": [list(m) for m in tok.merges]}
        except StageError as exc:
            case["error"] = str(exc)
        cases.append(case)
    return cases


def knockouts(cfg: TinyConfig) -> list[dict]:
    variants = [{"name": "none", "heads": [], "mlp": False}]
    variants += [{"name": f"head{h}", "heads": [h], "mlp": False} for h in range(cfg.n_head)]
    variants += [{"name": "heads", "heads": list(range(cfg.n_head)), "mlp": False},
                 {"name": "mlp", "heads": [], "mlp": True}]
    return variants


def run_knocked(model: TinyGPT, ids: list[int], heads: list[int], mlp: bool) -> tuple[torch.Tensor, dict]:
    """Forward with the chosen heads' outputs zeroed before c_proj and/or the MLP's output zeroed."""
    hs = model.cfg.n_embd // model.cfg.n_head
    hooks = []
    for block in model.h:
        if heads:
            def zero_heads(_mod, args):
                joined = args[0].clone()
                for h in heads:
                    joined[..., h * hs:(h + 1) * hs] = 0
                return (joined,)
            hooks.append(block.attn.c_proj.register_forward_pre_hook(zero_heads))
        if mlp:
            hooks.append(block.mlp.register_forward_hook(lambda _m, _a, out: torch.zeros_like(out)))
    trace: dict = {}
    try:
        with torch.no_grad():
            model(torch.tensor([ids]), trace)
    finally:
        for hk in hooks:
            hk.remove()
    return trace["probs"][0], trace


def experiments(cfg: TinyConfig, weights_file: dict, tok: Tokenizer, prompts: list[str]) -> dict:
    """Knock-outs (last position) and the logit lens (every stage, every position) per prompt."""
    w = weights_file["weights"]
    state = {"wte.weight": w["wte"], "wpe.weight": w["wpe"], "ln_f.weight": w["ln_f"]["weight"], "ln_f.bias": w["ln_f"]["bias"]}
    for i, blk in enumerate(w["h"]):
        for name, lin in (("ln_1", blk["ln_1"]), ("attn.c_attn", blk["attn"]["c_attn"]), ("attn.c_proj", blk["attn"]["c_proj"]),
                          ("ln_2", blk["ln_2"]), ("mlp.c_fc", blk["mlp"]["c_fc"]), ("mlp.c_proj", blk["mlp"]["c_proj"])):
            state[f"h.{i}.{name}.weight"] = lin["weight"]
            state[f"h.{i}.{name}.bias"] = lin["bias"]
    model = TinyGPT(cfg).double()
    own = model.state_dict()
    model.load_state_dict({k: (torch.tensor(state[k], dtype=torch.float64) if k in state else own[k]) for k in own})
    model.eval()

    def top(p: torch.Tensor) -> dict:
        i = int(torch.argmax(p))
        return {"id": i, "token": tok.show(i), "prob": p[i].item()}

    out = []
    for prompt in prompts:
        ids = tok.encode(prompt)
        entry = {"prompt": prompt, "ids": ids, "tokens": [tok.show(i) for i in ids], "knockouts": []}
        for v in knockouts(cfg):
            probs, _ = run_knocked(model, ids, v["heads"], v["mlp"])
            entry["knockouts"].append(v | {"top": top(probs[-1]), "probs": probs[-1].tolist()})
        _, trace = run_knocked(model, ids, [], False)
        resid = [("embeddings", None, trace["x"][0])]
        for layer, blk in enumerate(trace["h"]):
            resid += [("attention", layer, blk["resid_mid"][0]), ("mlp", layer, blk["resid_post"][0])]
        with torch.no_grad():
            entry["lens"] = [{"name": name, "layer": layer,
                              "top": [top(p) for p in F.softmax(model.ln_f(r) @ model.wte.weight.T, dim=-1)],
                              "probs": F.softmax(model.ln_f(r) @ model.wte.weight.T, dim=-1).tolist()}
                             for name, layer, r in resid]
        out.append(entry)
    return {"schema_version": SCHEMA_VERSION, "dtype": "float64", "space_marker": SPACE_MARKER, "prompts": out}


def build(config: dict, lines: list[str], tok: Tokenizer, weights_file: dict) -> dict[str, dict]:
    cfg = TinyConfig(**config["model"])
    tcfg = config["training"]
    init = initial_state(cfg, tcfg)
    x, y = make_batch(tok, lines, cfg.n_ctx)
    head = {"schema_version": SCHEMA_VERSION}
    return {
        "init.json": head | {"dtype": "float32", "seed": tcfg["seed"], "init_std": tcfg["init_std"],
                             "weights": nested_weights(init, cfg)},
        "grads.json": head | {"dtype": "float64", "step": 1} | gradients(cfg, init, x, y),
        "adam.json": head | {"dtype": "float64", "lr": tcfg["lr"], "betas": tcfg["betas"], "eps": 1e-8}
                          | adam(cfg, tcfg, init, x, y, ADAM_STEPS),
        "bpe.json": head | {"vocab_size": cfg.vocab_size, "cases": bpe_cases(lines, cfg.vocab_size)},
        "experiments.json": experiments(cfg, weights_file, tok, config["prompts"]),
    }


def main() -> None:
    from scripts.tiny.tokenizer import load_tokenizer
    config = read_json(CONFIG / "tiny.json")
    files = build(config, read_corpus(), load_tokenizer(), read_json(SITE_DATA / "tiny" / "weights.json"))
    for name, data in files.items():
        validate(data, "parity_" + name.removesuffix(".json"), f"site_data/parity/{name}")
    for name, data in files.items():
        write_json_atomic(OUT / name, data)
    g = files["grads.json"]
    a = files["adam.json"]
    print(f"parity: {len(files)} files in site_data/parity; step-1 loss {g['loss']:.6f}; "
          f"{a['steps']} Adam steps {a['losses'][0]:.4f} -> {a['losses'][-1]:.4f}; "
          f"{len(files['bpe.json']['cases'])} BPE corpora")


if __name__ == "__main__":
    run_main(main)
