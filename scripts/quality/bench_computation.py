"""Benchmark of seeing the computation: printed figures, no targets asserted. The budgets: each page's
first load grows by at most 30 KB gzip over the site before the numbers opened, opening a number's
arithmetic takes under 50 ms, and no long task over 50 ms runs while a page loads.

    python -m scripts.quality.bench_computation                   # needs build/site (make site) and chromium
    python -m scripts.quality.bench_computation --baseline REF    # growth against another commit
    python -m scripts.quality.bench_computation --no-baseline     # the browser figures only

- growth: a page's first load (the page and every script and stylesheet it names, gzip -9), here and in
  the site built from the baseline commit (a git worktree that links this checkout's .venv and
  node_modules, built with its own `make site`);
- opening: every button that opens a number on a page (at most 40, spread over the page), the time
  from the click to the panel laid out (Chromium, file://, 360 px wide: the phone is the slow case);
- long tasks: a PerformanceObserver("longtask") installed before the page's first script, the
  longest task until the demos are ready, and the demos' synchronous starts, all of a page's together
  and the slowest (the demos' part of any such task; the rest is the theme's and the browser's
  parsing, style and layout, as on the pages without demos).
Figures also go to build/report/bench_computation.json.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from scripts.core.io import BUILD, ROOT, write_json_atomic
from scripts.quality.bench_training import first_load_gzip
from scripts.quality.needs import chromium_path, require
from scripts.quality.read_through import READ_THROUGH

SITE = BUILD / "site"
# The last commit before the numbers opened (the skeleton done, nothing of the computation yet).
BASELINE = "7a0f2b8"
TARGETS = {"growth_kb": 30.0, "open_ms": 50.0, "demo_task_ms": 50.0}
MAX_OPEN = 40

# Before the page's first script: every long task, and each demo's own start-up (ui.start's build,
# timed by wrapping it as js/ui.js is defined), so a long task can be told apart from the demos' share.
LONGTASKS = """window.__long = []; window.__demoMs = {};
new PerformanceObserver(function (l) { l.getEntries().forEach(function (e) { window.__long.push(e.duration); }); })
  .observe({ type: "longtask" });
(function () {
  var ui;
  window.nexttoken = {};  // js/nexttoken.js keeps this object and mounts each script's value on it
  Object.defineProperty(window.nexttoken, "ui", { configurable: true, enumerable: true, get: function () { return ui; }, set: function (v) {
    var start = v.start;
    v.start = function (name, build, opts) {
      return start(name, function (root, live) {
        var t0 = performance.now();
        try { return build(root, live); }
        finally { window.__demoMs[name] = Math.max(window.__demoMs[name] || 0, performance.now() - t0); }
      }, opts);
    };
    ui = v;
  } });
})();"""

TIME_OPEN = """(max) => {
  const all = [...document.querySelectorAll('.nt-x-num')].filter(b => b.offsetParent !== null);
  const step = Math.max(1, Math.floor(all.length / max)), out = [];
  for (let i = 0; i < all.length && out.length < max; i += step) {
    const b = all[i], start = performance.now();
    b.click();
    const panel = document.getElementById(b.getAttribute('aria-controls'));
    panel.getBoundingClientRect();  // the layout of the opened panel, not just the DOM
    out.push(performance.now() - start);
    b.click();
  }
  return {times: out, buttons: all.length};
}"""


def pages(site: Path) -> list[str]:
    return sorted(p.name for p in site.glob("*.html") if p.name != "404.html")


def baseline_site(ref: str, tmp: Path) -> Path:
    """Build `ref`'s site in a worktree under tmp; returns its build/site."""
    work = tmp / "baseline"
    subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=True)  # earlier runs' deleted worktrees
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(work), ref], cwd=ROOT, check=True)
    (work / ".venv").symlink_to(ROOT / ".venv")
    # node_modules as hard links, not a symlink: the older commit's `make site` may run `npm ci`, which
    # through a symlink would empty this checkout's node_modules
    shutil.copytree(ROOT / "node_modules", work / "node_modules", symlinks=True, copy_function=os.link)
    proc = subprocess.run(["make", "site"], cwd=work, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"error: `make site` at {ref} failed:\n{(proc.stdout + proc.stderr)[-2000:]}")
    return work / "build" / "site"


def growth(base: Path) -> dict[str, dict[str, float]]:
    out = {}
    for page in pages(SITE):
        now = sum(first_load_gzip(page, SITE).values()) / 1000
        before = sum(first_load_gzip(page, base).values()) / 1000 if (base / page).is_file() else None
        out[page] = {"now_kb": now, "before_kb": before, "growth_kb": None if before is None else now - before}
    return out


def browser_figures() -> dict[str, dict[str, float]]:
    from playwright.sync_api import sync_playwright
    out = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox", "--disable-gpu"])
        for page_name in pages(SITE):
            page = browser.new_page(viewport={"width": 360, "height": 800})
            page.add_init_script(LONGTASKS)
            page.add_init_script(READ_THROUGH)  # each demo brought into view, so every one starts
            page.goto((SITE / page_name).as_uri())
            page.wait_for_function("() => [...document.querySelectorAll('.nt-demo')].every("
                                   "d => d.hasAttribute('data-ready') || d.querySelector('.nt-error'))", timeout=10_000)
            page.wait_for_timeout(300)  # tasks that end after the demos say ready
            longs = page.evaluate("window.__long")
            demo_ms = page.evaluate("window.__demoMs")
            opened = page.evaluate(TIME_OPEN, MAX_OPEN)
            times = opened["times"]
            out[page_name] = {
                "longest_task_ms": max(longs, default=0.0), "long_tasks": len(longs),
                "demo_start_max_ms": max(demo_ms.values(), default=0.0), "demo_start_total_ms": sum(demo_ms.values()),
                "slowest_demo": max(demo_ms, key=demo_ms.get) if demo_ms else None,
                "buttons": opened["buttons"], "opened": len(times),
                "open_median_ms": statistics.median(times) if times else 0.0, "open_max_ms": max(times, default=0.0),
            }
            page.close()
        browser.close()
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE, help=f"commit to measure growth against (default {BASELINE})")
    ap.add_argument("--no-baseline", action="store_true", help="skip the growth figures (no baseline build)")
    args = ap.parse_args(argv)
    require("bench_computation", site_page="index.html", modules=("playwright",), chromium=True)
    figures: dict = {"baseline": None if args.no_baseline else args.baseline}
    if not args.no_baseline:
        with tempfile.TemporaryDirectory(prefix="nexttoken-baseline-") as tmp:
            try:
                figures["growth"] = growth(baseline_site(args.baseline, Path(tmp)))
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(Path(tmp) / "baseline")], cwd=ROOT,
                               capture_output=True)
        print(f"first load, gzip, against {args.baseline} (target: growth ≤ {TARGETS['growth_kb']:.0f} KB)")
        for page, g in figures["growth"].items():
            grew = "new page" if g["growth_kb"] is None else f"{g['growth_kb']:+6.1f} KB"
            before = "" if g["before_kb"] is None else f"{g['before_kb']:7.1f} KB -> "
            print(f"  {page:18s} {before}{g['now_kb']:7.1f} KB  {grew}")
    figures["pages"] = browser_figures()
    print(f"\nChromium, file://, 360 px (targets: open ≤ {TARGETS['open_ms']:.0f} ms, "
          f"no task over {TARGETS['demo_task_ms']:.0f} ms from the demos)")
    print(f"  {'page':18s} {'numbers':>7s} {'opened':>6s} {'open median':>11s} {'open max':>8s} "
          f"{'longest task':>12s} {'all demos start':>15s}  slowest demo")
    for page, f in figures["pages"].items():
        print(f"  {page:18s} {f['buttons']:7d} {f['opened']:6d} {f['open_median_ms']:9.1f} ms {f['open_max_ms']:5.1f} ms "
              f"{f['longest_task_ms']:9.1f} ms {f['demo_start_total_ms']:12.1f} ms  "
              + (f"{f['slowest_demo']} {f['demo_start_max_ms']:.1f} ms" if f["slowest_demo"] else ""))
    write_json_atomic(BUILD / "report" / "bench_computation.json", {"figures": figures, "targets": TARGETS})


if __name__ == "__main__":
    main()
