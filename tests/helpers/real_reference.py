"""transformers references for the browser engine (docs/js/real/engine.js) and the Node runner that
drives it (tests/helpers/real_node.js): the same prompt through both, compared number by number."""
from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
NODE_RUNNER = ROOT / "tests" / "helpers" / "real_node.js"


@contextlib.contextmanager
def one_thread():
    """torch on one thread while a browser test computes its transformers reference. Beside Chromium (and, in
    `make test`, the other worker) torch's two threads wait on each other spinning: a SmolLM2 forward pass of a
    dozen tokens took 0.8-2.7 s of CPU on two threads on a busy machine, 0.12 s on one. The reference's last
    bits may move (a logit by 3e-5), far inside what the tests allow the browser's engine; torch's thread
    count is given back after (tests/conftest.py sets it back before each test anyway)."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def run_node(folder: Path, model: str, requests: list[dict], work: Path, timeout: int = 1800,
             kernels: str = "js", workers: int = 1) -> tuple[dict, list[dict]]:
    """Each request through the JS engine on its plain-JS or WebAssembly kernels, split into
    `workers` shares as the page splits it; (index, results) with the float arrays as numpy. The
    runner fails when the kernels asked for did not run."""
    req = work / f"{model}-{kernels}-{workers}-requests.json"
    req.write_text(json.dumps(requests))
    out = work / f"{model}-{kernels}-{workers}-out"
    proc = subprocess.run(["node", str(NODE_RUNNER), str(folder), model, str(req), str(out), kernels, str(workers)],
                          capture_output=True, text=True, timeout=timeout)
    if proc.returncode:
        raise AssertionError(f"node runner failed: {proc.stderr.strip()}")
    index = json.loads(out.with_suffix(".json").read_text())
    flat = np.fromfile(out.with_suffix(".f32"), dtype=np.float32)

    def get(at):
        return None if at is None else flat[at[0]:at[0] + at[1]].astype(np.float64)

    results = []
    for r in index["results"]:
        results.append({
            "logits": get(r["logits"]), "decode": [get(a) for a in r["decode"]],
            "residuals": None if r["residuals"] is None else [get(a) for a in r["residuals"]],
            "heads": None if r["heads"] is None else [get(a) for a in r["heads"]],
            "lens": None if r["lens"] is None else [get(a) for a in r["lens"]],
            "every": None if r.get("every") is None else {k: get(a) for k, a in r["every"].items()},
            "ms": r["ms"],
        })
    return index, results


def blocks(model):
    """The model's blocks, llama (model.layers) or GPT-2 (transformer.h)."""
    base = getattr(model, "model", None) or model.transformer
    return base.layers if hasattr(base, "layers") else base.h


def out_proj(block):
    return block.self_attn.o_proj if hasattr(block, "self_attn") else block.attn.c_proj


def reference(model, ids: list[int], knockout: dict | None = None, lens: bool = True) -> dict:
    """Last-position logits, the residual after every block and its lens (ln_f, unembedding; None with
    lens=False: a block's lens reads the whole output matrix), every head's last-position attention;
    a knocked-out head has its slice of the output projection's input zeroed (a forward pre-hook), a
    knocked-out MLP returns zeros (a forward hook)."""
    import torch

    knockout = knockout or {}
    cfg = model.config
    n_head = cfg.num_attention_heads if hasattr(cfg, "num_attention_heads") else cfg.n_head
    hd = (cfg.hidden_size if hasattr(cfg, "hidden_size") else cfg.n_embd) // n_head
    residuals, hooks = [], []
    for layer, block in enumerate(blocks(model)):
        hooks.append(block.register_forward_hook(lambda m, a, out: residuals.append(
            (out[0] if isinstance(out, tuple) else out)[0, -1].double().numpy().copy())))
        heads = [h for (l, h) in knockout.get("heads", []) if l == layer]
        if heads:
            def pre(m, args, heads=heads):
                x = args[0].clone()
                for h in heads:
                    x[..., h * hd:(h + 1) * hd] = 0
                return (x,)
            hooks.append(out_proj(block).register_forward_pre_hook(pre))
        if layer in knockout.get("mlp", []):
            hooks.append(block.mlp.register_forward_hook(lambda m, a, out: torch.zeros_like(out)))
    try:
        with torch.no_grad(), one_thread():
            out = model(torch.tensor([ids]), output_attentions=True)
    finally:
        for h in hooks:
            h.remove()
    final_norm = model.model.norm if hasattr(model, "model") else model.transformer.ln_f
    with torch.no_grad(), one_thread():
        lenses = [model.lm_head(final_norm(torch.tensor(r, dtype=torch.float32))).double().numpy()
                  for r in residuals] if lens else None
    return {"logits": out.logits[0, -1].double().numpy(), "residuals": residuals, "lens": lenses,
            "heads": [a[0, :, -1, :].double().numpy().ravel() for a in out.attentions]}


def log_softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max()
    return x - np.log(np.exp(x).sum())


def compare(ref: dict, js: dict) -> dict:
    """The figures the parity tests bound: largest logit gap, KL(ref || js), same top token, largest
    residual gap (absolute, and relative to the residual's largest entry), largest lens-logit gap,
    largest head-weight gap."""
    lr, lj = log_softmax(ref["logits"]), log_softmax(js["logits"])
    out = {"logit": float(np.abs(ref["logits"] - js["logits"]).max()),
           "kl": float((np.exp(lr) * (lr - lj)).sum()),
           "top_same": int(ref["logits"].argmax()) == int(js["logits"].argmax())}
    if js["residuals"] is not None:
        out["residual"] = max(float(np.abs(a - b).max()) for a, b in zip(ref["residuals"], js["residuals"]))
        out["residual_rel"] = max(float(np.abs(a - b).max() / np.abs(a).max()) for a, b in zip(ref["residuals"], js["residuals"]))
    if js["lens"] is not None:
        out["lens_logit"] = max(float(np.abs(a - b).max()) for a, b in zip(ref["lens"], js["lens"]))
    if js["heads"] is not None:
        out["heads"] = max(float(np.abs(a - b).max()) for a, b in zip(ref["heads"], js["heads"]))
    return out
