"""Benchmark of the pass, played (index page) and of every page's Lighthouse scores: printed figures, no
targets asserted. The budgets: during Play no long task over 50 ms and under 5% dropped frames; Lighthouse
mobile performance at least 95 and accessibility 100 on every page, served gzipped as GitHub Pages serves it.

    python -m scripts.quality.bench_play                       # needs build/site (make site), chromium, node_modules
    python -m scripts.quality.bench_play --skip-lighthouse     # Play only (about a minute)
    python -m scripts.quality.bench_play --pages index.html    # Lighthouse on these pages only

Play is pressed in Chromium at 1280 and 360 px with motion allowed; a PerformanceObserver counts long tasks
and a requestAnimationFrame loop stamps every frame until the pass reaches its pick. A frame is dropped when
the gap to the one before spans more than one refresh interval (the median gap): each extra interval is a
dropped frame. Chromium's own totals give the share of the time its main thread was busy (tasks, script,
style, layout). Timings depend on the machine's load, printed with them. Figures also go to
build/report/bench_play.json.
"""
from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from scripts.core.io import BUILD, ROOT, write_json_atomic
from scripts.quality.needs import chromium_path, require

SITE = ROOT / "build" / "site"
TARGETS = {"long_task_ms": 50.0, "dropped_pct": 5.0, "lighthouse_performance": 95, "lighthouse_accessibility": 100}
WIDTHS = (1280, 360)
# Stamps each frame and each long task from the moment Play is pressed.
WATCH = """() => { const b = window.ntBench = {frames: [], tasks: [], stages: []}, box = document.querySelector('.nt-play');
  new PerformanceObserver(l => { for (const e of l.getEntries()) b.tasks.push([e.startTime, e.duration]); }).observe({type: 'longtask'});
  new MutationObserver(() => b.stages.push([performance.now(), box.getAttribute('data-stage')])).observe(box, {attributeFilter: ['data-stage']});
  const tick = t => { b.frames.push(t); b.raf = requestAnimationFrame(tick); };
  b.raf = requestAnimationFrame(tick); }"""
DONE = "() => document.querySelector('.nt-play [data-role=play]').textContent === 'Play again'"


def by_stage(stamps: list[float], tasks: list[list[float]], stages: list[list]) -> dict[str, dict]:
    """The same figures for each stage, from the moment it was drawn to the next."""
    out = {}
    for k, (start, name) in enumerate(stages):
        end = stages[k + 1][0] if k + 1 < len(stages) else float("inf")
        mine = [t for t in stamps if start <= t < end]
        out[name] = frame_figures(mine, [d for t, d in tasks if start <= t < end])
    return out


def frame_figures(stamps: list[float], tasks: list[float]) -> dict:
    """Frames drawn, the refresh interval (median gap), frames dropped and their share, long tasks."""
    tasks = [t[1] if isinstance(t, list) else t for t in tasks]
    gaps = [b - a for a, b in zip(stamps, stamps[1:])]
    if not gaps:
        return {"frames": len(stamps), "interval_ms": None, "dropped": None, "dropped_pct": None,
                "long_tasks": len(tasks), "longest_task_ms": max(tasks, default=0.0)}
    interval = statistics.median(gaps)
    slots = [max(1, round(g / interval)) for g in gaps]
    dropped = sum(s - 1 for s in slots)
    return {"frames": len(stamps), "interval_ms": round(interval, 2), "dropped": dropped,
            "dropped_pct": round(100 * dropped / sum(slots), 2), "worst_gap_ms": round(max(gaps), 1),
            "long_tasks": len(tasks), "longest_task_ms": round(max(tasks, default=0.0), 1),
            "seconds": round((stamps[-1] - stamps[0]) / 1000, 1)}


def busy(cdp) -> dict[str, float]:
    """Chromium's running totals of main-thread time (seconds): tasks, script, style, layout."""
    return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}


def measure_play(base: str) -> dict[str, dict]:
    from playwright.sync_api import sync_playwright
    out = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True,
                                     args=["--no-sandbox", "--disable-background-networking", "--disable-sync"])
        for width in WIDTHS:
            ctx = browser.new_context(viewport={"width": width, "height": 900 if width > 400 else 780},
                                      reduced_motion="no-preference")
            page = ctx.new_page()
            page.goto(base + "index.html", wait_until="load")
            page.locator(".nt-demo[data-demo=one-token]").scroll_into_view_if_needed()  # it builds near the screen
            page.wait_for_timeout(500)
            cdp = ctx.new_cdp_session(page)
            cdp.send("Performance.enable")
            page.evaluate(WATCH)
            before = busy(cdp)
            page.locator(".nt-play [data-role=play]").click()
            page.wait_for_function(DONE, timeout=120_000, polling=500)
            after = busy(cdp)
            got = page.evaluate("() => { cancelAnimationFrame(window.ntBench.raf); return window.ntBench; }")
            work = {k: round(100 * (after[k] - before[k]) / (after["Timestamp"] - before["Timestamp"]), 1)
                    for k in ("TaskDuration", "ScriptDuration", "RecalcStyleDuration", "LayoutDuration")}
            out[f"{width}px"] = frame_figures(got["frames"], got["tasks"]) | {"main_thread_busy_pct": work} | {
                "stages": by_stage(got["frames"], got["tasks"], got["stages"])}
            ctx.close()
        browser.close()
    return out


def measure_lighthouse(base: str, pages: list[str]) -> dict[str, dict]:
    from scripts.quality.report.lighthouse import run_lighthouse
    out = {}
    with tempfile.TemporaryDirectory(prefix="nt-bench-play-") as tmp:
        for name in pages:
            res = run_lighthouse(base + name, "mobile", Path(tmp))
            out[name] = res
            print(f"  lighthouse {name}: {res.get('scores') or res.get('error')}", flush=True)
    return out


def report(play: dict, lighthouse: dict, load: str) -> list[str]:
    lines = [f"load average {load}", f"{'Play':<8} {'frames':>7} {'interval':>9} {'dropped':>8} {'dropped %':>10} "
             f"{'worst gap':>10} {'long tasks':>11} {'longest':>8}  budget"]
    for width, r in play.items():
        ok = r["longest_task_ms"] <= TARGETS["long_task_ms"] and (r["dropped_pct"] or 0) < TARGETS["dropped_pct"]
        lines.append(f"{width:<8} {r['frames']:>7} {r['interval_ms']!s:>7}ms {r['dropped']!s:>8} {r['dropped_pct']!s:>9}% "
                     f"{r.get('worst_gap_ms', '-')!s:>8}ms {r['long_tasks']:>11} {r['longest_task_ms']:>6}ms  "
                     f"{'within' if ok else 'OVER'}")
        w = r["main_thread_busy_pct"]
        lines.append(f"         main thread busy {w['TaskDuration']}% of the time (script {w['ScriptDuration']}%, "
                     f"style {w['RecalcStyleDuration']}%, layout {w['LayoutDuration']}%)")
        lines.append("         by stage: " + ", ".join(f"{name} {st['dropped_pct']}% / {st['longest_task_ms']}ms"
                                                    for name, st in r["stages"].items()))
    if lighthouse:
        lines.append(f"{'page':<18} {'performance':>12} {'accessibility':>14}  budget   failing audits")
        for name, r in lighthouse.items():
            if "error" in r:
                lines.append(f"{name:<18} error: {r['error']}")
                continue
            s = r["scores"]
            ok = (s.get("performance") or 0) >= TARGETS["lighthouse_performance"] and \
                (s.get("accessibility") or 0) >= TARGETS["lighthouse_accessibility"]
            failing = ", ".join(f"{f['id']} {f['display'] or f['score']}" for f in r["failing"]
                                if f["category"] in ("performance", "accessibility"))
            lines.append(f"{name:<18} {s.get('performance')!s:>12} {s.get('accessibility')!s:>14}  "
                         f"{'within' if ok else 'OVER':<8} {failing}")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skip-lighthouse", action="store_true", help="Play only")
    ap.add_argument("--pages", action="append", default=[], help="Lighthouse on this page only (repeatable)")
    ap.add_argument("--site", type=Path, default=SITE, help="a built site (default build/site)")
    args = ap.parse_args(argv)
    require("bench_play", site_page="index.html", modules=("playwright",), chromium=True, node=not args.skip_lighthouse)
    if not args.skip_lighthouse and not (ROOT / "node_modules" / ".bin" / "lighthouse").exists():
        raise SystemExit("bench_play: node_modules/.bin/lighthouse not found: run `npm ci` (or `make deps`) first")
    from scripts.quality.report.server import SiteServer
    pages = args.pages or sorted(p.name for p in args.site.glob("*.html") if p.name != "404.html")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with SiteServer(args.site) as base:
        play = measure_play(base)
        lighthouse = {} if args.skip_lighthouse else measure_lighthouse(base, pages)
    for line in report(play, lighthouse, load):
        print(line)
    write_json_atomic(BUILD / "report" / "bench_play.json",
                      {"targets": TARGETS, "load_average": load, "play": play, "lighthouse": lighthouse})


if __name__ == "__main__":
    main()
