"""Microseconds per forward pass of the tiny model: PyTorch float32 on one CPU thread, and the JS
runtime in Node (scripts/quality/bench_forward.js), side by side. Same weights, same tokens (the first
n_ctx tokens of the corpus). The last line is JSON for scripts/quality/bench.py: {"js_us": ..., "torch_us": ...}.
No target is asserted: this only measures.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import time
from typing import TYPE_CHECKING

from scripts.core.io import ROOT, SITE_DATA, StageError, read_json, run_main
from scripts.quality.needs import require
from scripts.tiny.tokenizer import load_tokenizer

if TYPE_CHECKING:
    from scripts.tiny.model import TinyGPT

RUNS = 7  # the median run is reported
ITERS = 2000


def load_model() -> TinyGPT:
    from scripts.tiny.model import from_site_data  # imports torch: only once require() has found it

    try:
        return from_site_data(read_json(SITE_DATA / "tiny" / "config.json"), read_json(SITE_DATA / "tiny" / "weights.json"))
    except ValueError as exc:
        raise StageError(f"site_data/tiny/weights.json: {exc}") from None


def torch_us(model: TinyGPT, ids: list[int]) -> float:
    import torch

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
    proc = subprocess.run(["node", str(ROOT / "scripts" / "quality" / "bench_forward.js")], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        raise StageError(f"scripts/quality/bench_forward.js failed: {proc.stderr.strip()[-500:]}")
    print(proc.stdout, end="")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    require("bench_forward", modules=("torch",), node=True)
    import torch

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
