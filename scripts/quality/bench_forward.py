"""Microseconds per forward pass of the tiny model: PyTorch float32 on one CPU thread, and the JS
runtime in Node (scripts/quality/bench_forward.js), side by side. Same weights, same tokens (the first
n_ctx tokens of the corpus). The last line is JSON for scripts/quality/bench.py: {"js_us": ..., "torch_us": ...}.
No target is asserted: this only measures.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file (scripts/quality/bench.py does): make `scripts` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch

from scripts.core.io import ROOT, SITE_DATA, StageError, read_json, run_main
from scripts.tiny.model import TinyConfig, TinyGPT
from scripts.tiny.tokenizer import load_tokenizer

RUNS = 7  # the median run is reported
ITERS = 2000


def load_model() -> TinyGPT:
    """weights.json (nested, Linear weights (out, in)) -> the PyTorch model, float32."""
    model_cfg = read_json(SITE_DATA / "tiny" / "config.json")["model"]
    cfg = TinyConfig(**{k: v for k, v in model_cfg.items() if k in TinyConfig.__dataclass_fields__})
    w = read_json(SITE_DATA / "tiny" / "weights.json")["weights"]
    state = {"wte.weight": w["wte"], "wpe.weight": w["wpe"], "ln_f.weight": w["ln_f"]["weight"], "ln_f.bias": w["ln_f"]["bias"]}
    for i, blk in enumerate(w["h"]):
        for name, part in (("ln_1", blk["ln_1"]), ("attn.c_attn", blk["attn"]["c_attn"]), ("attn.c_proj", blk["attn"]["c_proj"]),
                           ("ln_2", blk["ln_2"]), ("mlp.c_fc", blk["mlp"]["c_fc"]), ("mlp.c_proj", blk["mlp"]["c_proj"])):
            state[f"h.{i}.{name}.weight"] = part["weight"]
            state[f"h.{i}.{name}.bias"] = part["bias"]
    model = TinyGPT(cfg)
    missing = model.load_state_dict({k: torch.tensor(v, dtype=torch.float32) for k, v in state.items()}, strict=False)
    if [k for k in missing.missing_keys if not k.endswith("mask")] or missing.unexpected_keys:
        raise StageError(f"site_data/tiny/weights.json does not fit the model: {missing}")
    return model.eval()


def torch_us(model: TinyGPT, ids: list[int]) -> float:
    torch.set_num_threads(1)
    idx = torch.tensor([ids])
    runs = []
    with torch.no_grad():
        for _ in range(ITERS // 4):  # warm up
            model(idx)
        for _ in range(RUNS):
            t0 = time.perf_counter()
            for _ in range(ITERS):
                model(idx)
            runs.append((time.perf_counter() - t0) / ITERS * 1e6)
    return statistics.median(runs)


def node_figures() -> dict:
    proc = subprocess.run(["node", str(ROOT / "scripts" / "bench_forward.js")], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise StageError(f"scripts/quality/bench_forward.js failed: {proc.stderr.strip()[-500:]}")
    print(proc.stdout, end="")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    model = load_model()
    tok = load_tokenizer()
    ids = tok.encode(" ".join(read_json(SITE_DATA / "tiny" / "config.json")["corpus"]))[: model.cfg.n_ctx]
    t = torch_us(model, ids)
    print(f"PyTorch {torch.__version__} float32, 1 thread, no_grad, {len(ids)} tokens: {t:.1f} µs (median of {RUNS} runs of {ITERS})")
    js = node_figures()
    print(f"per forward pass over {len(ids)} tokens: JS {js['js_us']:.1f} µs (full trace)"
          + (f", JS {js['js_logits_us']:.1f} µs (logits only)" if "js_logits_us" in js else "") + f", PyTorch {t:.1f} µs")
    print(json.dumps({"js_us": round(js["js_us"], 2), "js_logits_us": js.get("js_logits_us") and round(js["js_logits_us"], 2),
                      "torch_us": round(t, 2), "tokens": len(ids)}))


if __name__ == "__main__":
    run_main(main)
