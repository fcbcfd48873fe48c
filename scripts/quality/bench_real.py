"""Benchmark of SmolLM2 in the page against transformers float32, in the same run, on the same prompt
and the same thread count (the page on 1 worker against PyTorch on 1 thread, on N workers against N
threads). Printed and written to build/report/bench_real.json; no target is asserted (the issue's: a
decode step no slower than 3x transformers', a 6-token prefill under 3 s, load under 5 s from disk,
memory under 400 MB).

    python -m scripts.quality.bench_real                 # after `make site`; needs chromium, torch
    python -m scripts.quality.bench_real --workers 1,2,3 # 3 workers on 2 cores: oversubscribed

Chromium (file://, the harness page scripts/quality/real_harness.html), once per worker count, each
in a fresh browser: time to load and check the files (nexttoken.real.workers.open: scripts, base64, sha256,
the workers' start), a 6-token prefill, one decode step at 6 and at 510-512 tokens of context (a
512-token text: one prefill, then its last RUNS tokens one by one), the logit lens over all 30
blocks (a prefill with `lens` less one without), and the peak unique memory (USS) of the renderer
processes that run the page and its workers. transformers: from_pretrained of the same GGUF
(de-quantisation included), the same prefill and decode steps with its KV cache at each thread
count, the lens (ln_f and lm_head on the 30 residuals), and the peak resident memory of this
process beyond what it held before the load. Each time is the median of RUNS.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")  # one line per figure, not the GGUF loader's progress bars

from scripts.core.io import ROOT, read_json, write_json_atomic  # noqa: E402
from scripts.quality.needs import require  # noqa: E402
from scripts.site.real_js import read_manifest  # noqa: E402

DATA = ROOT / "docs" / "js" / "data" / "real"
OUT = ROOT / "build" / "report" / "bench_real.json"
CHROMIUM = os.environ.get("NEXTTOKEN_CHROMIUM", "/usr/bin/chromium")
RUNS = 3
PROMPT = "The capital of France is the"
LONG = 512

PAGE_JS = """async ([ids, long, runs, kernels, workers]) => {
  const t = () => performance.now(), med = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
  const t0 = t();
  const s = await nexttoken.real.workers.open({base: "js/data/real/", model: "smollm2", kernels, workers});
  const load = t() - t0;
  const prefill = [], decode6 = [], lens = [];
  for (let i = 0; i < runs; i++) {
    let a = t(); await s.prefill(ids, {}); prefill.push(t() - a);
    a = t(); await s.decode(ids[ids.length - 1], {}); decode6.push(t() - a);
    a = t(); await s.prefill(ids, {lens: true}); lens.push(t() - a - prefill[i]);
  }
  const a = t(); await s.prefill(long.slice(0, long.length - runs), {}); const prefillLong = t() - a;
  const decode512 = [];
  for (let i = long.length - runs; i < long.length; i++) {
    const b = t(); await s.decode(long[i], {}); decode512.push(t() - b);
  }
  s.close();
  return {kernels: s.kernels, workers: s.workers, cores: navigator.hardwareConcurrency, load, prefill6: med(prefill), decode6: med(decode6), decode512: med(decode512), lens30: med(lens), prefill_long: prefillLong};
}"""


def renderer_memory(profile: str) -> int:
    """Unique bytes (USS: not shared with other processes) of the Chromium renderers started with
    this profile; the page and its worker run in one of them."""
    import psutil

    total = 0
    for p in psutil.process_iter(["cmdline"]):
        cmd = " ".join(p.info["cmdline"] or [])
        if "--type=renderer" in cmd and profile in cmd:
            try:
                total += p.memory_full_info().uss
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                pass
    return total


def chromium(ids: list[int], long: list[int], engine: Path, kernels: str, workers: int) -> dict:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="bench-real-"))
    try:
        shutil.copy(ROOT / "scripts" / "quality" / "real_harness.html", work / "index.html")
        shutil.copytree(engine, work / "js" / "real")
        boot = engine.parent / "nexttoken.js"  # the bootstrap beside that engine: workers.js loads its needs through it
        shutil.copy(boot if boot.is_file() else ROOT / "docs" / "js" / "nexttoken.js", work / "js" / "nexttoken.js")
        (work / "js" / "data").mkdir()
        (work / "js" / "data" / "real").symlink_to(DATA)
        profile = str(work / "profile")
        peak, stop = [0], threading.Event()

        def watch():
            while not stop.is_set():
                peak[0] = max(peak[0], renderer_memory(profile))
                time.sleep(0.2)

        with sync_playwright() as pw:
            ctx = pw.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, headless=True,
                                                        args=["--no-sandbox", "--disable-gpu"])
            page = ctx.new_page()
            page.set_default_timeout(1_800_000)
            page.goto((work / "index.html").as_uri())
            idle = renderer_memory(profile)
            thread = threading.Thread(target=watch, daemon=True)
            thread.start()
            out = page.evaluate(PAGE_JS, [ids, long, RUNS, kernels, workers])
            stop.set()
            thread.join()
            ctx.close()
        out["peak_mb"] = peak[0] / 1e6
        out["idle_page_mb"] = idle / 1e6
        out["model_mb"] = (peak[0] - idle) / 1e6
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def transformers_side(threads: list[int]) -> tuple[dict, list[int], list[int]]:
    """{threads: figures} for each thread count, the model loaded once (on one thread)."""
    import torch

    from scripts.real import loading

    torch.set_num_threads(1)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    spec = read_json(ROOT / "scripts" / "config" / "real_models.json")["models"]["smollm2"]
    t0 = time.perf_counter()
    model, tok, _, _ = loading.load("smollm2", spec)
    load = time.perf_counter() - t0
    ids = tok.encode(PROMPT, add_special_tokens=False)
    text = " ".join(["The capital of France is Paris, and the capital of Italy is Rome."] * 60)
    long = tok.encode(text, add_special_tokens=False)[:LONG]
    res = {}
    for n in threads:
        torch.set_num_threads(n)
        res[n] = timings(model, ids, long, torch)
        res[n]["threads"] = torch.get_num_threads()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    for n in threads:
        res[n].update(load=load * 1e3, peak_mb=(peak - before) / 1e6)
    return res, ids, long


def timings(model, ids: list[int], long: list[int], torch) -> dict:
    def timed(fn):
        a = time.perf_counter()
        r = fn()
        return time.perf_counter() - a, r

    prefill, decode6, lens, decode512 = [], [], [], []
    with torch.no_grad():
        x = torch.tensor([ids])
        for _ in range(RUNS):
            dt, out = timed(lambda: model(x, use_cache=True))
            prefill.append(dt)
            dt, _ = timed(lambda: model(x[:, -1:], past_key_values=out.past_key_values, use_cache=True))
            decode6.append(dt)
            # hidden_states ends with the final norm's output: the lens of the last block is the logits
            dt, _ = timed(lambda: [model.lm_head(model.model.norm(h[:, -1])) for h in
                                   model(x, output_hidden_states=True).hidden_states[1:-1]])
            lens.append(dt - prefill[-1])
        prefill_long, out = timed(lambda: model(torch.tensor([long[:-RUNS]]), use_cache=True))
        for i in range(LONG - RUNS, LONG):
            dt, out = timed(lambda: model(torch.tensor([long[i:i + 1]]), past_key_values=out.past_key_values, use_cache=True))
            decode512.append(dt)
    med = statistics.median
    return {"prefill6": med(prefill) * 1e3, "decode6": med(decode6) * 1e3, "decode512": med(decode512) * 1e3,
            "lens30": med(lens) * 1e3, "prefill_long": prefill_long * 1e3}


def main() -> None:
    ap = argparse.ArgumentParser(description="SmolLM2 in Chromium against transformers float32")
    ap.add_argument("--engine", type=Path, default=ROOT / "docs" / "js" / "real",
                    help="the folder of engine.js, loader.js and workers.js to run (default: docs/js/real)")
    ap.add_argument("--kernels", choices=("js", "wasm"), default="wasm",
                    help="the engine's WebAssembly SIMD kernels (the page's default) or its plain-JS ones")
    ap.add_argument("--workers", default="1,2",
                    help="comma-separated worker counts to run the page on, each against PyTorch on as many threads (default 1,2)")
    args = ap.parse_args()
    try:
        counts = sorted({int(n) for n in args.workers.split(",")})
    except ValueError:
        raise SystemExit(f"error: --workers wants whole numbers separated by commas, not {args.workers!r}")
    if not counts or min(counts) < 1 or max(counts) > 16:
        raise SystemExit(f"error: --workers wants counts from 1 to 16, not {args.workers!r}")
    if not (args.engine / "engine.js").is_file():
        raise SystemExit(f"error: {args.engine} holds no engine.js")
    require("bench_real", modules=("torch", "transformers", "playwright"), chromium=True)
    if not (DATA / "smollm2" / "manifest.js").is_file():
        raise SystemExit("error: docs/js/data/real/smollm2/ not found (run `make site`)")
    manifest = read_manifest((DATA / "smollm2" / "manifest.js").read_text(), "smollm2")
    pt, ids, long = transformers_side(counts)
    js = {n: chromium(ids, long, args.engine.resolve(), args.kernels, n) for n in counts}
    files = sum(f.stat().st_size for f in (DATA / "smollm2").iterdir())
    weights = manifest["total_bytes"]
    # one decode step reads every weight byte once (the unembedding included): bytes / time
    for r in js.values():
        r["decode6_weight_read_gb_s"] = weights / (r["decode6"] / 1e3) / 1e9
    res = {"engine": str(args.engine), "prompt": PROMPT, "prompt_tokens": len(ids), "long_context": LONG, "runs": RUNS,
           "cpu_count": os.cpu_count(), "load_average": os.getloadavg(), "kernels": args.kernels,
           "chromium": {str(n): r for n, r in js.items()}, "transformers": {str(n): r for n, r in pt.items()},
           "files_mb": files / 1e6, "gguf_mb": manifest["source"]["bytes"] / 1e6,
           # the split's round trips in one decode step: an embedding row, 4 products per block, the unembedding
           "round_trips_per_step": 2 + 4 * manifest["config"]["n_layer"]}
    write_json_atomic(OUT, res)
    rows = [("load and check the data (ms)", "load"), ("prefill, 6 tokens (ms)", "prefill6"),
            ("decode step at 6 (ms)", "decode6"), (f"decode step at {LONG - RUNS + 1}-{LONG} (ms)", "decode512"),
            ("logit lens, 30 blocks (ms)", "lens30"), (f"prefill, {LONG - RUNS} tokens (ms)", "prefill_long"),
            ("peak memory (MB; Chromium: renderer USS)", "peak_mb")]
    print(f"SmolLM2-135M, prompt {PROMPT!r} ({len(ids)} tokens), median of {RUNS}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}; the page on its {js[counts[0]]['kernels']} kernels")
    head = "".join(f" {f'{n} wk':>9} {f'torch {n}t':>9} {'ratio':>6}" for n in counts)
    print(f"{'':40}{head}" + (f" {f'{counts[-1]} wk/1 wk':>9}" if len(counts) > 1 else ""))
    for label, k in rows:
        line = "".join(f" {js[n][k]:9.1f} {pt[n][k]:9.1f} {js[n][k] / pt[n][k]:6.2f}" for n in counts)
        if len(counts) > 1:
            line += f" {js[counts[-1]][k] / js[counts[0]][k]:9.2f}"
        print(f"{label:40}{line}")
    print(f"files {res['files_mb']:.1f} MB = {res['files_mb'] / res['gguf_mb']:.3f} x the GGUF; "
          + "; ".join(f"{n} worker(s): decode at 6 reads the weights at {js[n]['decode6_weight_read_gb_s']:.2f} GB/s, "
                      f"the model added {js[n]['model_mb']:.0f} MB to the bare page's {js[n]['idle_page_mb']:.0f}" for n in counts))
    if len(counts) > 1:
        one = js[counts[0]]["decode6"]
        for n in counts[1:]:  # what the split costs beyond perfect division of the arithmetic
            extra = js[n]["decode6"] - one / n
            print(f"{n} workers: a decode step at 6 takes {extra:.1f} ms more than 1 worker's / {n}, "
                  f"{extra / res['round_trips_per_step'] * 1e3:.0f} us per round trip ({res['round_trips_per_step']} a step)")
    if len(counts) > 1:  # the page's default worker count is the one that decodes its short texts fastest
        best = min(counts, key=lambda n: js[n]["decode6"])
        steps = ", ".join(f"{n} worker(s) {js[n]['decode6']:.1f} / {js[n]['decode512']:.1f} ms, peak {js[n]['peak_mb']:.0f} MB" for n in counts)
        print(f"decode at 6 / at {LONG}: {steps}. The page's texts are short (the panel's prompts, the writers' "
              f"continuations), so decode at 6 decides: {best} worker(s) fastest here, "
              + ("the page's default (workers.js DEFAULT): a split step's round trips cost more than the arithmetic they share out"
                 if best == 1 else "but the page's default is 1 (workers.js DEFAULT): check it on a quiet machine"))
        for n in counts[1:]:
            print(f"prefill of {LONG - RUNS} tokens: {n} workers take {js[n]['prefill_long'] / js[counts[0]]['prefill_long']:.2f} x "
                  f"the time of {counts[0]} (one message per product carries the whole prompt)")
        res["fastest_decode_workers"] = best
        write_json_atomic(OUT, res)
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
