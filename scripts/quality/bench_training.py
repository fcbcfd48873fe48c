"""Benchmark the experiments (prints figures; no target is asserted):

    python -m scripts.quality.bench_training     # needs build/site (make site), torch and chromium

- full training, the build's steps on the build corpus: headless Chromium (the page's own Train
  button, sliced, and the bare loop) beside the PyTorch loop of scripts/tiny/checkpoint.py, in one run;
- the longest main-thread task while the page trains (PerformanceObserver "longtask");
- a knock-out and a logit-lens update (the demos time their own reruns);
- gzip sizes: the training page's first load and the training code loaded on demand.
Figures also go to build/report/bench_training.json.
"""
from __future__ import annotations

import gzip
import re
import statistics
import time
from pathlib import Path

from scripts.core.io import BUILD, CONFIG, read_json, write_json_atomic
from scripts.quality.needs import chromium_path, require

SITE = BUILD / "site"
TARGETS = {"chromium_train_s": 2.0, "speedup_vs_pytorch": 2.0, "update_ms": 16.0, "training_page_gzip_kb": 150.0,
           "training_code_gzip_kb": 25.0}


def gz(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9))


def first_load_gzip(page: str, site: Path = SITE) -> dict[str, int]:
    """The page and every script and stylesheet it names (what loads before any click)."""
    html = (site / page).read_text(encoding="utf-8")
    files = {page: gz(site / page)}
    for ref in re.findall(r'(?:src|href)="([^"#?]+\.(?:js|css))"', html):
        if "://" not in ref and (site / ref).is_file():
            files[ref] = gz(site / ref)
    return files


def pytorch_seconds() -> float:
    import torch  # noqa: F401  (imported before the clock starts)
    from scripts.tiny.checkpoint import train
    from scripts.tiny.model import TinyConfig
    from scripts.tiny.tokenizer import load_tokenizer, read_corpus
    config = read_json(CONFIG / "tiny.json")
    start = time.perf_counter()
    train(TinyConfig(**config["model"]), config["training"], read_corpus(), load_tokenizer())
    return time.perf_counter() - start


def chromium_figures() -> dict:
    from playwright.sync_api import sync_playwright
    out: dict = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.goto((SITE / "training.html").as_uri())
        page.evaluate("localStorage.clear()")
        page.reload()
        page.evaluate("""window.__long = []; new PerformanceObserver(function (l) {
            l.getEntries().forEach(function (e) { window.__long.push(e.duration); }); }).observe({type: "longtask"});""")
        root = page.locator('.nt-demo[data-demo="train-yours"]')
        root.locator('button[data-role="train"]').click()
        page.wait_for_function('document.querySelector(\'.nt-demo[data-demo="train-yours"]\').getAttribute("data-trained") === "yes"', timeout=300000)
        out["chromium_train_s"] = float(root.get_attribute("data-train-seconds"))
        longs = page.evaluate("window.__long")
        out["longest_task_ms_while_training"] = max(longs) if longs else 0.0
        out["long_tasks_while_training"] = len(longs)
        # The bare loop, no slicing: what the arithmetic alone costs.
        out["chromium_loop_s"] = page.evaluate("""(function () {
            var nt = nexttoken, d = nt.runtime.active.built, mc = d.config.model, tk = nt.runtime.tokenizer.create(d.tokenizer);
            var tr = nt.runtime.trainer.createTrainer(mc, nt.data["tiny-init"].weights, nt.runtime.corpus.makeBatch(tk, d.config.corpus, mc.n_ctx), d.config.training);
            var t0 = performance.now();
            for (var i = 0; i < d.config.training.steps; i++) tr.step();
            return (performance.now() - t0) / 1000; })()""")
        page.evaluate("localStorage.clear()")
        for name, demo, box in (("knockout_update_ms", "knockout", 'input[data-knockout="mlp"]'),
                                ("lens_update_ms", "lens", 'input[data-knockout="mlp"]')):
            page.goto((SITE / "block.html").as_uri())
            times = []
            for _ in range(20):
                page.locator(f'.nt-demo[data-demo="knockout"] {box}').click()
                times.append(float(page.locator(f'.nt-demo[data-demo="{demo}"]').get_attribute("data-ms")))
            out[name] = statistics.median(times)
            out[name.replace("_ms", "_max_ms")] = max(times)
        browser.close()
    return out


def main() -> None:
    require("bench_training", site_page="training.html", modules=("torch", "playwright"), chromium=True)
    figures = {"pytorch_train_s": pytorch_seconds()}
    figures |= chromium_figures()
    figures["speedup_vs_pytorch"] = figures["pytorch_train_s"] / figures["chromium_train_s"]
    first = first_load_gzip("training.html")
    figures["training_page_gzip_kb"] = sum(first.values()) / 1000
    figures["training_code_gzip_kb"] = sum(gz(SITE / f) for f in ("js/runtime/corpus.js", "js/runtime/trainer.js", "js/demos/train-yours.js")) / 1000
    figures["initial_weights_gzip_kb"] = gz(SITE / "js/data/tiny-init.js") / 1000
    figures["snapshots_on_demand_gzip_kb"] = gz(SITE / "js/data/tiny-snapshots.js") / 1000
    for k, v in figures.items():
        target = TARGETS.get(k)
        note = "" if target is None else (f"  (target ≥ {target})" if k == "speedup_vs_pytorch" else f"  (target ≤ {target})")
        print(f"{k:36s} {v:10.3f}{note}")
    write_json_atomic(BUILD / "report" / "bench_training.json", {"figures": figures, "targets": TARGETS})


if __name__ == "__main__":
    main()
