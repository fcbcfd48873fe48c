"""Benchmark of the attention page's played step (js/demos/attention-steps.js): printed figures, no targets
asserted. The budget, as for the loop page's pass (bench_play): during Play no long task over 50 ms and
under 5% dropped frames.

    python -m scripts.quality.bench_attention_play          # needs build/site (make site) and chromium

Play is pressed in Chromium at 1280 and 360 px with motion allowed; a PerformanceObserver counts long tasks
and a requestAnimationFrame loop stamps every frame until the last step (bench_play's figures, per step).
Timings depend on the machine's load, printed with them. Figures also go to build/report/bench_attention_play.json.
"""
from __future__ import annotations

import os

from scripts.core.io import BUILD, ROOT, write_json_atomic
from scripts.quality.bench_play import TARGETS, WATCH, WIDTHS, by_stage, frame_figures, long_tasks, task_line
from scripts.quality.needs import chromium_path, require

SITE = ROOT / "build" / "site"
BOX = ".nt-as"
DONE = f"() => document.querySelector('{BOX} [data-role=play]').textContent === 'Play again'"


def play_once(browser, base: str, width: int) -> dict:
    ctx = browser.new_context(viewport={"width": width, "height": 900 if width > 400 else 780}, reduced_motion="no-preference")
    page = ctx.new_page()
    page.goto(base + "attention.html", wait_until="load")
    page.locator(".nt-demo[data-demo=attention-steps]").scroll_into_view_if_needed()
    page.locator(f"{BOX} [data-role=play]").wait_for()
    page.wait_for_timeout(500)
    page.evaluate(WATCH.replace(".nt-play", BOX))
    page.locator(f"{BOX} [data-role=play]").click()
    page.wait_for_function(DONE, timeout=120_000, polling=500)
    got = page.evaluate("() => { cancelAnimationFrame(window.ntBench.raf); return window.ntBench; }")
    ctx.close()
    return frame_figures(got["frames"], got["tasks"]) | {"stages": by_stage(got["frames"], got["tasks"], got["stages"]),
                                                         "long_task_list": long_tasks(got["tasks"], got["loafs"], got["stages"])}


def main() -> None:
    require("bench_attention_play", site_page="attention.html", modules=("playwright",), chromium=True)
    from playwright.sync_api import sync_playwright
    from scripts.quality.report.server import SiteServer
    out = {}
    with SiteServer(SITE) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), headless=True,
                                     args=["--no-sandbox", "--disable-background-networking", "--disable-sync"])
        for width in WIDTHS:
            load = " ".join(f"{x:.2f}" for x in os.getloadavg())
            out[f"{width}px"] = play_once(browser, base, width) | {"load_average": load}
        browser.close()
    for width, r in out.items():
        ok = r["longest_task_ms"] <= TARGETS["long_task_ms"] and (r["dropped_pct"] or 0) < TARGETS["dropped_pct"]
        print(f"{width}: {r['frames']} frames, {r['dropped_pct']}% dropped, {r['long_tasks']} long tasks, longest "
              f"{r['longest_task_ms']} ms ({'within' if ok else 'OVER'} budget), load average {r['load_average']}")
        print("  by step (dropped / longest task): " + ", ".join(
            f"{name} {st['dropped_pct']}% / {st['longest_task_ms']}ms" for name, st in r["stages"].items()))
        for t in r["long_task_list"]:
            print(task_line(t))
    write_json_atomic(BUILD / "report" / "bench_attention_play.json", {"targets": TARGETS, "play": out})


if __name__ == "__main__":
    main()
