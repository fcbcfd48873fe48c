"""Benchmark the experiments (prints figures; no target is asserted):

    python -m scripts.quality.bench_training     # needs build/site (make site), torch and chromium

- full training, the build's steps, for two jobs: the build corpus, and 48 sentences whose vocabulary
  is near the reader's cap (scripts/tiny/sizing.py): headless Chromium (the page's own Train button,
  sliced: the time the page reports and the time from the click until the model is saved and active;
  and the bare loop) beside the PyTorch loop of scripts/tiny/checkpoint.py on the same sizes;
- the same jobs in CPU seconds (Chromium's main thread, from the DevTools protocol; PyTorch's process),
  which a busy machine disturbs much less than the wall clock, and their ratio;
- the longest main-thread task while the page trains (PerformanceObserver "longtask");
- a knock-out and a logit-lens update (the demos time their own reruns);
- gzip sizes: the training page's first load and the training code loaded on demand.
The page is waited on by a promise that a MutationObserver settles, not by polling in every frame
(which would ask for a frame, and a paint, per frame the page trains in).
Figures also go to build/report/bench_training.json.
"""
from __future__ import annotations

import gzip
import os
import random
import re
import statistics
import time
from pathlib import Path

from scripts.core.io import BUILD, CONFIG, read_json, write_json_atomic
from scripts.quality.needs import chromium_path, require

SITE = BUILD / "site"
TARGETS = {"build_chromium_train_s": 2.0, "build_speedup_vs_pytorch": 2.0, "update_ms": 16.0, "training_page_gzip_kb": 150.0,
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


WORDS = ("the a my one big red old owl fox hen frog cow cat dog bird barn pond den mat rug hill tree ran sat ate saw "
         "flew jumped hid slept over in on to by under near river forest meadow garden kitchen window yellow purple "
         "silver golden quietly slowly happily bravely carried painted whispered wandered remembered discovered "
         "lantern blanket pebble thunder sparrow badger otter walrus pelican giraffe elephant kangaroo").split()


def wide_corpus(n: int = 48, seed: int = 3) -> list[str]:
    """n sentences of 3-6 words from WORDS: a vocabulary near the cap, every line well inside the window."""
    rnd = random.Random(seed)
    return [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 6))) + "." for _ in range(n)]


def jobs() -> dict[str, list[str]]:
    from scripts.tiny.tokenizer import read_corpus
    return {"build": read_corpus(), "wide48": wide_corpus()}


def pytorch_seconds(lines: list[str]) -> tuple[float, float, dict]:
    """checkpoint.py's loop on the model the reader's rule sizes from these lines: (wall s, CPU s, sizes)."""
    import torch  # noqa: F401  (imported before the clock starts)
    from scripts.tiny import sizing
    from scripts.tiny.checkpoint import train
    from scripts.tiny.model import TinyConfig
    from scripts.tiny.tokenizer import Tokenizer
    config = read_json(CONFIG / "tiny.json")
    bpe = sizing.learn_until_merged(lines)
    tok = Tokenizer(bpe["chars"], bpe["merges"])
    sizes = sizing.model_sizes(config["model"], len(tok.vocab), max(len(tok.encode(line)) + 1 for line in lines))
    start, cpu = time.perf_counter(), time.process_time()
    train(TinyConfig(**sizes), config["training"], lines, tok)
    return time.perf_counter() - start, time.process_time() - cpu, sizes


ROOT_SEL = '.nt-demo[data-demo="train-yours"]'
# Press Train; settle when the demo marks itself trained (the model saved and active): the click-to-active time.
PRESS_TRAIN = """() => new Promise(function (done) {
    var root = document.querySelector('%s'), t0 = performance.now();
    new MutationObserver(function (records, ob) {
        if (root.getAttribute('data-trained') === 'yes') { ob.disconnect(); done((performance.now() - t0) / 1000); }
    }).observe(root, {attributes: true, attributeFilter: ['data-trained']});
    root.querySelector('button[data-role="train"]').click(); })""" % ROOT_SEL
BARE_LOOP = """(function (lines) {
    var nt = nexttoken, d = nt.runtime.active.built, c = nt.runtime.corpus, t = nt.runtime.trainer;
    var sized = c.size(lines, d.config.model, c.CAPS, d.tokenizer, nt.runtime.tokenizer.create);
    var tr = t.createTrainer(sized.config, t.seededWeights(sized.config, 1, 0.2), sized.rows, d.config.training);
    var t0 = performance.now();
    for (var i = 0; i < d.config.training.steps; i++) tr.step();
    return (performance.now() - t0) / 1000; })"""


def chromium_figures(corpora: dict[str, list[str]]) -> dict:
    from playwright.sync_api import sync_playwright
    out: dict = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")

        def cpu() -> float:  # the renderer main thread's CPU seconds so far
            return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "ThreadTime")

        page.goto((SITE / "training.html").as_uri())
        page.evaluate("localStorage.clear()")
        page.reload()
        page.evaluate("""window.__long = []; new PerformanceObserver(function (l) {
            l.getEntries().forEach(function (e) { window.__long.push(e.duration); }); }).observe({type: "longtask"});""")
        root = page.locator(ROOT_SEL)
        for job, lines in corpora.items():
            page.evaluate(f"(function (r) {{ r.removeAttribute('data-trained'); r.removeAttribute('data-estimate-seconds'); }})(document.querySelector('{ROOT_SEL}'))")
            root.locator("textarea").fill("\n".join(lines))
            # What a reader sees before pressing Train: the preview's estimate.
            page.wait_for_function(f"document.querySelector('{ROOT_SEL}').hasAttribute('data-estimate-seconds')", timeout=120000, polling=100)
            page.evaluate("window.__long = []")
            c0 = cpu()
            out[f"{job}_chromium_click_to_active_s"] = page.evaluate(PRESS_TRAIN)
            out[f"{job}_chromium_train_cpu_s"] = cpu() - c0
            out[f"{job}_chromium_train_s"] = float(root.get_attribute("data-train-seconds"))
            out[f"{job}_estimate_s"] = float(root.get_attribute("data-estimate-seconds") or "nan")
            longs = page.evaluate("window.__long")
            out[f"{job}_longest_task_ms_while_training"] = max(longs) if longs else 0.0
            # The bare loop, no slicing: what the arithmetic alone costs.
            c0 = cpu()
            out[f"{job}_chromium_loop_s"] = page.evaluate(BARE_LOOP, lines)
            out[f"{job}_chromium_loop_cpu_s"] = cpu() - c0
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
    corpora = jobs()
    figures: dict = {"load_average_1min_at_start": os.getloadavg()[0]}
    for job, lines in corpora.items():
        seconds, cpu_seconds, sizes = pytorch_seconds(lines)
        figures |= {f"{job}_sentences": len(lines), f"{job}_vocab_size": sizes["vocab_size"], f"{job}_n_ctx": sizes["n_ctx"],
                    f"{job}_pytorch_train_s": seconds, f"{job}_pytorch_train_cpu_s": cpu_seconds}
    figures |= chromium_figures(corpora)
    for job in corpora:
        figures[f"{job}_speedup_vs_pytorch"] = figures[f"{job}_pytorch_train_s"] / figures[f"{job}_chromium_train_s"]
        figures[f"{job}_cpu_speedup_vs_pytorch"] = figures[f"{job}_pytorch_train_cpu_s"] / figures[f"{job}_chromium_train_cpu_s"]
    first = first_load_gzip("training.html")
    figures["training_page_gzip_kb"] = sum(first.values()) / 1000
    figures["training_code_gzip_kb"] = sum(gz(SITE / f) for f in ("js/runtime/corpus.js", "js/runtime/trainer.js", "js/demos/train-yours.js")) / 1000
    figures["snapshots_on_demand_gzip_kb"] = gz(SITE / "js/data/tiny-snapshots.js") / 1000
    figures["load_average_1min_at_end"] = os.getloadavg()[0]
    for k, v in figures.items():
        target = TARGETS.get(k)
        note = "" if target is None else (f"  (target ≥ {target})" if k.endswith("speedup_vs_pytorch") else f"  (target ≤ {target})")
        print(f"{k:40s} {v:10.3f}{note}")
    write_json_atomic(BUILD / "report" / "bench_training.json", {"figures": figures, "targets": TARGETS})


if __name__ == "__main__":
    main()
