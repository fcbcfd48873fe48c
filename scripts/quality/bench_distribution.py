"""Benchmark of the real-distribution demo: printed figures, no targets asserted (the budgets:
each prompt's data at most 60 KB gzip, the page's first load at most 50 KB more, a full draw of every
bar under 100 ms, a redraw under 16 ms).

    python -m scripts.quality.bench_distribution    # needs build/site (`make site`) and chromium

- full draw: a temperature change (every probability recomputed, the cuts, all bars drawn);
- redraw: a cursor move (the bars drawn again, nothing recomputed);
both timed in Chromium from file://, the median of 30 over a 1280-px window.
"""
from __future__ import annotations

import gzip
import statistics
from pathlib import Path

from scripts.core.io import ROOT
from scripts.core.registry import BY_NAME
from scripts.quality.needs import chromium_path, require

SITE = ROOT / "build" / "site"
# what the page loads with it that it did not load before this demo (ui.js is shared with other pages)
FIRST_LOAD = ("js/nexttoken.js", "js/runtime/kernels.js", "js/ui.js", "js/data/smollm2-dist-index.js",
              "js/demos/real-distribution.js")
RUNS = 30

TIME_JS = """([what, runs]) => {
  const root = document.querySelector('.nt-demo[data-demo="real-distribution"]');
  const lab = [...root.querySelectorAll('label')].find(l => l.textContent.startsWith('Temperature'));
  const t = document.getElementById(lab.htmlFor), canvas = root.querySelector('canvas');
  const out = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    if (what === 'full') { t.value = String(i % 2 ? 0.8 : 1.2); t.dispatchEvent(new Event('input')); }
    else canvas.dispatchEvent(new KeyboardEvent('keydown', {key: i % 2 ? 'ArrowLeft' : 'ArrowRight'}));
    canvas.getContext('2d').getImageData(0, 0, 1, 1);  // wait for the drawing to finish
    out.push(performance.now() - start);
  }
  return out;
}"""


def gz(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), 9))


def main() -> None:
    require("bench_distribution", site_page="real-models.html", modules=("playwright",), chromium=True)
    from playwright.sync_api import sync_playwright

    sizes = {Path(p).name: gz(ROOT / p) for p in BY_NAME["distributions_js"].outputs}
    prompts = {k: v for k, v in sizes.items() if not k.endswith("index.js")}
    print(f"per-prompt data, gzip: min {min(prompts.values()) / 1000:.1f} kB, max {max(prompts.values()) / 1000:.1f} kB "
          f"({max(prompts, key=prompts.get)}), {len(prompts)} prompts")
    first = {p: gz(ROOT / "docs" / p) for p in FIRST_LOAD}
    print("first-load growth of real-models.html, gzip: " + ", ".join(f"{Path(p).name} {n / 1000:.1f} kB" for p, n in first.items())
          + f"; total {sum(first.values()) / 1000:.1f} kB, plus the first prompt's data {prompts['smollm2-dist-cat.js'] / 1000:.1f} kB")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto((SITE / "real-models.html").as_uri())
        page.wait_for_selector('.nt-demo[data-demo="real-distribution"][data-loaded]')
        width = page.evaluate("() => document.querySelector('.nt-dist-canvas').width")
        for what in ("full", "redraw"):
            times = page.evaluate(TIME_JS, [what, RUNS])
            print(f"{what}: median {statistics.median(times):.1f} ms, max {max(times):.1f} ms over {RUNS} "
                  f"(canvas {width} px wide)")
        browser.close()


if __name__ == "__main__":
    main()
