"""Benchmark of the pass, played (index page) and of every page's Lighthouse scores: printed figures, no
targets asserted. The budgets: during Play no long task over 50 ms and under 5% dropped frames; Lighthouse
mobile performance at least 95 and accessibility 100 on every page, served gzipped as GitHub Pages serves it.

    python -m scripts.quality.bench_play                       # needs build/site (make site), chromium, node_modules
    python -m scripts.quality.bench_play --skip-lighthouse     # Play only (about three minutes)
    python -m scripts.quality.bench_play --skip-lighthouse --runs 3   # Play three times per width
    python -m scripts.quality.bench_play --pages index.html    # Lighthouse on these pages only

Play is pressed in Chromium at 1280 and 360 px with motion allowed; a PerformanceObserver counts long tasks
and a requestAnimationFrame loop stamps every frame until the pass reaches its pick. A frame is dropped when
the gap to the one before spans more than one refresh interval (the median gap): each extra interval is a
dropped frame. Chromium's own totals give the share of the time its main thread was busy (tasks, script,
style, layout). Each long task is charged to the stage on show when it ended (a stage is drawn inside the
task that shows it) and printed with what the long-animation-frame entry says ran in it.

Timings depend on the machine's load, printed with them. To tell the page's own cost from a busy machine's,
one more Play per width runs under a Chromium trace (not counted in the figures above, as tracing slows the
page): the main thread's time per stage, wall and CPU (thread time), and each task over 50 ms with its CPU
time: a long task with little CPU time is the main thread waiting for a core, not work of the page.
Figures also go to build/report/bench_play.json.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path

from scripts.core.io import BUILD, ROOT, write_json_atomic
from scripts.quality.needs import chromium_path, require

SITE = ROOT / "build" / "site"
TARGETS = {"long_task_ms": 50.0, "dropped_pct": 5.0, "lighthouse_performance": 95, "lighthouse_accessibility": 100}
WIDTHS = (1280, 360)
# Stamps each frame, each long task and each long animation frame (what ran in it) from the moment Play is
# pressed; each stage's start is also a performance mark, for the trace.
WATCH = """() => { const b = window.ntBench = {frames: [], tasks: [], loafs: [], stages: []}, box = document.querySelector('.nt-play');
  new PerformanceObserver(l => { for (const e of l.getEntries()) b.tasks.push([e.startTime, e.duration]); }).observe({type: 'longtask'});
  try { new PerformanceObserver(l => { for (const e of l.getEntries()) b.loafs.push({start: e.startTime, duration: e.duration,
    style_layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
    scripts: e.scripts.map(s => ({what: s.invoker + (s.sourceFunctionName ? ' ' + s.sourceFunctionName : ''),
      ms: s.duration, forced: s.forcedStyleAndLayoutDuration}))}); }).observe({type: 'long-animation-frame'}); } catch (e) {}
  new MutationObserver(() => { const name = box.getAttribute('data-stage'); b.stages.push([performance.now(), name]);
    performance.mark('nt-stage:' + name); }).observe(box, {attributeFilter: ['data-stage']});
  const tick = t => { b.frames.push(t); b.raf = requestAnimationFrame(tick); };
  b.raf = requestAnimationFrame(tick); }"""
DONE = "() => document.querySelector('.nt-play [data-role=play]').textContent === 'Play again'"
TRACE_CATEGORIES = ["devtools.timeline", "disabled-by-default-devtools.timeline", "blink.user_timing"]
TOP_TASKS = ("RunTask", "ThreadControllerImpl::RunTask")


def stage_at(t: float, stages: list[list]) -> str:
    """The stage on show at time t (stages: [[start, name], ...] in time order); "before" the first."""
    name = "before"
    for start, n in stages:
        if start <= t:
            name = n
    return name


def by_stage(stamps: list[float], tasks: list[list[float]], stages: list[list]) -> dict[str, dict]:
    """The same figures for each stage, from the moment it was shown to the next; a long task counts for the
    stage on show when it ended (the task that shows a stage starts before the stage's stamp)."""
    out = {}
    for k, (start, name) in enumerate(stages):
        end = stages[k + 1][0] if k + 1 < len(stages) else float("inf")
        mine = [t for t in stamps if start <= t < end]
        out[name] = frame_figures(mine, [d for t, d in tasks if stage_at(t + d, stages) == name])
    return out


def long_tasks(tasks: list[list[float]], loafs: list[dict], stages: list[list]) -> list[dict]:
    """Each long task: when it ended, its stage, and what the long animation frame around it ran."""
    out = []
    for t, d in tasks:
        frame = next((f for f in loafs if f["start"] - 1 <= t <= f["start"] + f["duration"]), None)
        ran = sorted(frame["scripts"], key=lambda s: -s["ms"])[:3] if frame else []
        out.append({"ms": round(d, 1), "stage": stage_at(t + d, stages),
                    "style_layout_ms": round(frame["style_layout"], 1) if frame else None,
                    "scripts": [{"what": s["what"], "ms": round(s["ms"], 1), "forced_style_layout_ms": round(s["forced"], 1)}
                                for s in ran]})
    return out


def main_thread(trace: dict | list, long_ms: float = TARGETS["long_task_ms"]) -> dict:
    """From a Chromium trace with the stage marks: the renderer main thread's time per stage, wall and CPU
    (thread time) in ms, with its most CPU in one task, and each top-level task over long_ms with its CPU time."""
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    marks = sorted((e["ts"], e["name"][len("nt-stage:"):], e["pid"], e["tid"]) for e in events
                   if str(e.get("name", "")).startswith("nt-stage:"))
    if not marks:
        return {"stages": {}, "long_tasks": []}
    thread = (marks[0][2], marks[0][3])
    stages = [[ts, name] for ts, name, _, _ in marks]
    per: dict[str, dict] = {}
    longs = []
    for e in events:
        if e.get("ph") != "X" or e.get("name") not in TOP_TASKS or (e["pid"], e["tid"]) != thread:
            continue
        dur, cpu = e.get("dur", 0) / 1000, e.get("tdur", 0) / 1000
        name = stage_at(e["ts"] + e.get("dur", 0), stages)
        row = per.setdefault(name, {"wall_ms": 0.0, "cpu_ms": 0.0, "task_cpu_max_ms": 0.0})
        row["wall_ms"] += dur
        row["cpu_ms"] += cpu
        row["task_cpu_max_ms"] = max(row["task_cpu_max_ms"], cpu)
        if dur > long_ms:
            longs.append({"stage": name, "ms": round(dur, 1), "cpu_ms": round(cpu, 1)})
    return {"stages": {k: {m: round(v, 1) for m, v in r.items()} for k, r in per.items()}, "long_tasks": longs}


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


def play_once(browser, base: str, width: int, trace_to: Path | None = None) -> dict:
    """Press Play on the index page at this width and watch until the pick; with trace_to, under a trace."""
    ctx = browser.new_context(viewport={"width": width, "height": 900 if width > 400 else 780}, reduced_motion="no-preference")
    page = ctx.new_page()
    page.goto(base + "index.html", wait_until="load")
    page.locator(".nt-demo[data-demo=one-token]").scroll_into_view_if_needed()  # it builds near the screen
    page.wait_for_timeout(500)
    cdp = ctx.new_cdp_session(page)
    cdp.send("Performance.enable")
    page.evaluate(WATCH)
    if trace_to:
        browser.start_tracing(page=page, path=str(trace_to), categories=TRACE_CATEGORIES)
    before = busy(cdp)
    page.locator(".nt-play [data-role=play]").click()
    page.wait_for_function(DONE, timeout=120_000, polling=500)
    after = busy(cdp)
    if trace_to:
        browser.stop_tracing()
    got = page.evaluate("() => { cancelAnimationFrame(window.ntBench.raf); return window.ntBench; }")
    ctx.close()
    work = {k: round(100 * (after[k] - before[k]) / (after["Timestamp"] - before["Timestamp"]), 1)
            for k in ("TaskDuration", "ScriptDuration", "RecalcStyleDuration", "LayoutDuration")}
    return frame_figures(got["frames"], got["tasks"]) | {"main_thread_busy_pct": work,
        "stages": by_stage(got["frames"], got["tasks"], got["stages"]),
        "long_task_list": long_tasks(got["tasks"], got["loafs"], got["stages"])}


def measure_play(base: str, runs: int = 1) -> dict[str, dict]:
    """For each width: `runs` Plays (figures, load average before each), then one traced Play (main thread)."""
    from playwright.sync_api import sync_playwright
    out = {}
    with sync_playwright() as pw, tempfile.TemporaryDirectory(prefix="nt-bench-play-") as tmp:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True,
                                     args=["--no-sandbox", "--disable-background-networking", "--disable-sync"])
        for width in WIDTHS:
            tries = []
            for _ in range(runs):
                load = " ".join(f"{x:.2f}" for x in os.getloadavg())
                tries.append(play_once(browser, base, width) | {"load_average": load})
            trace = Path(tmp) / f"play-{width}.json"
            play_once(browser, base, width, trace_to=trace)
            out[f"{width}px"] = {"runs": tries, "traced": main_thread(json.loads(trace.read_text()))}
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


def task_line(t: dict) -> str:
    ran = "; ".join(f"{s['what']} {s['ms']}ms (forced style+layout {s['forced_style_layout_ms']}ms)" for s in t["scripts"])
    frame = f", style+layout {t['style_layout_ms']}ms" if t["style_layout_ms"] is not None else ""
    return f"           {t['ms']}ms at {t['stage']}{frame}" + (f": {ran}" if ran else ": no script (rendering or waiting)")


def report(play: dict, lighthouse: dict, load: str) -> list[str]:
    lines = [f"load average {load}", f"{'Play':<8} {'frames':>7} {'interval':>9} {'dropped':>8} {'dropped %':>10} "
             f"{'worst gap':>10} {'long tasks':>11} {'longest':>8}  budget   load average"]
    for width, both in play.items():
        for r in both["runs"]:
            ok = r["longest_task_ms"] <= TARGETS["long_task_ms"] and (r["dropped_pct"] or 0) < TARGETS["dropped_pct"]
            lines.append(f"{width:<8} {r['frames']:>7} {r['interval_ms']!s:>7}ms {r['dropped']!s:>8} {r['dropped_pct']!s:>9}% "
                         f"{r.get('worst_gap_ms', '-')!s:>8}ms {r['long_tasks']:>11} {r['longest_task_ms']:>6}ms  "
                         f"{'within' if ok else 'OVER':<8} {r['load_average']}")
            w = r["main_thread_busy_pct"]
            lines.append(f"         main thread busy {w['TaskDuration']}% of the time (script {w['ScriptDuration']}%, "
                         f"style {w['RecalcStyleDuration']}%, layout {w['LayoutDuration']}%)")
            lines.append("         by stage (dropped / longest task): " + ", ".join(
                f"{name} {st['dropped_pct']}% / {st['longest_task_ms']}ms" for name, st in r["stages"].items()))
            lines.extend(task_line(t) for t in r["long_task_list"])
        traced = both["traced"]
        lines.append("         traced Play, main thread per stage (wall / CPU / most CPU in one task, ms): " + ", ".join(
            f"{name} {st['wall_ms']:.0f} / {st['cpu_ms']:.0f} / {st['task_cpu_max_ms']:.0f}" for name, st in traced["stages"].items()))
        lines.append(f"         traced Play, tasks over {TARGETS['long_task_ms']:.0f} ms (wall / CPU): " + (", ".join(
            f"{t['ms']:.0f} / {t['cpu_ms']:.0f} at {t['stage']}" for t in traced["long_tasks"]) or "none"))
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
    ap.add_argument("--runs", type=int, default=2, help="Plays per width (default 2)")
    args = ap.parse_args(argv)
    require("bench_play", site_page="index.html", modules=("playwright",), chromium=True, node=not args.skip_lighthouse)
    if not args.skip_lighthouse and not (ROOT / "node_modules" / ".bin" / "lighthouse").exists():
        raise SystemExit("bench_play: node_modules/.bin/lighthouse not found: run `npm ci` (or `make deps`) first")
    from scripts.quality.report.server import SiteServer
    pages = args.pages or sorted(p.name for p in args.site.glob("*.html") if p.name != "404.html")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with SiteServer(args.site) as base:
        play = measure_play(base, max(1, args.runs))
        lighthouse = {} if args.skip_lighthouse else measure_lighthouse(base, pages)
    for line in report(play, lighthouse, load):
        print(line)
    write_json_atomic(BUILD / "report" / "bench_play.json",
                      {"targets": TARGETS, "load_average": load, "play": play, "lighthouse": lighthouse})


if __name__ == "__main__":
    main()
