"""Quality report of the built site: Lighthouse, axe-core, page weight, demo start-up, offline-ness.

    python -m scripts.quality.report                      # every page; writes build/report/report.{json,md}
    python -m scripts.quality.report --skip-lighthouse    # the browser checks only (about a second a page)
    python -m scripts.quality.report --pages index.html --pages attention.html
    python -m scripts.quality.report --preset both        # Lighthouse mobile (the default) and desktop
    python -m scripts.quality.report --lh-runs 3          # each page's median of three Lighthouse runs
    python -m scripts.quality.report --with-bench         # run scripts.quality.bench first (minutes: cold build)

It measures build/site as it is (build it first: `make site`). Targets are figures to compare, not
assertions: the report says pass or FAIL for each, exits 0 either way (1 only when it could not
measure), and prints what changed since the previous build/report/report.json.

How each figure is taken (also written at the top of report.md):
- The site is served by a static server on 127.0.0.1 (a random port) that, like GitHub Pages,
  gzips text and sends `Cache-Control: max-age=600`. Lighthouse 12 runs on it one page at a time
  (it refuses file://); the Playwright checks run both on it and from file://.
- Page weight: every local file that Chromium requested while the page loaded (the page, workers
  and frames, until the network is idle), counted once at its size on disk (uncompressed: the
  offline copy is read uncompressed), without the search index. 1 KB = 1,000 bytes.
- Demo start-up: from navigation start (performance.now() = 0) until the first element carrying
  `data-demo` gets a `data-ready` attribute (see DEMO_READY below); median of --repeat fresh loads.
- External requests: every request whose URL is not file:, data:, blob:, about: or on
  127.0.0.1/localhost is counted, then aborted (served and file://).
"""
from __future__ import annotations

import argparse
import datetime as dt
import functools
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

from scripts.core.io import ROOT, write_json_atomic, write_text_atomic
from scripts.quality.report.browser import browser_checks
from scripts.quality.report.config import DEMO_FALLBACK, DEMO_READY, DEMO_ROOT, KB, LH_CATEGORIES, REPORT_DIR, SITE
from scripts.quality.report.lighthouse import run_lighthouse
from scripts.quality.report.render import _fmt, diff_reports, render_markdown, summary_row
from scripts.quality.report.server import SiteServer
from scripts.quality.report.weight import find_pages, largest_files

def median_run(runs: list[dict]) -> dict:
    """Of several Lighthouse runs of a page, the one with the median performance score (an error only
    when every run failed), with every run's performance score beside it."""
    ok = [r for r in runs if r.get("scores") and r["scores"].get("performance") is not None]
    if not ok:
        return runs[0]
    ok.sort(key=lambda r: r["scores"]["performance"])
    return {**ok[(len(ok) - 1) // 2], "performance_runs": [r["scores"]["performance"] if r.get("scores") else None for r in runs]}


# ---- bench figures ----------------------------------------------------------------------------------
def bench_figures(with_bench: bool, log) -> tuple[dict, list[dict], list[str]]:
    notes = []
    bench_path = REPORT_DIR / "bench.json"
    if with_bench:
        log("running scripts.quality.bench (cold build: minutes)")
        proc = subprocess.run([sys.executable, "-m", "scripts.quality.bench"], cwd=ROOT)
        if proc.returncode:
            notes.append(f"scripts.quality.bench exited {proc.returncode}; its figures below may be old")
    bench = {}
    if bench_path.exists():
        bench = json.loads(bench_path.read_text())
        age = dt.datetime.fromtimestamp(bench_path.stat().st_mtime, dt.timezone.utc)
        notes.append(f"build/runtime figures from build/report/bench.json written {age:%Y-%m-%d %H:%M} UTC"
                     + ("" if with_bench else " (not rerun: pass --with-bench)"))
    else:
        notes.append("no build/report/bench.json: build and forward-pass figures not measured "
                     "(run `make bench` or pass --with-bench)")
    figures: dict[str, dict] = {}
    for key, value in bench.items():
        if isinstance(value, (int, float)):
            figures[key] = {"value": value, "source": "bench.json"}
    for stage, seconds in (bench.get("stage_seconds") or {}).items():
        figures[f"cold build stage {stage} (s)"] = {"value": round(sum(seconds.values()), 2),
                                                    "source": "bench.json (cold build)"}
    manifest = ROOT / "site_data" / "manifest.json"
    if manifest.exists():
        for stage, info in json.loads(manifest.read_text()).get("stages", {}).items():
            seconds = info.get("seconds") or {}
            figures[f"stage {stage} (s)"] = {"value": round(sum(seconds.values()), 2),
                                             "source": f"site_data/manifest.json ({info.get('built', '?')}, "
                                                       f"{info.get('machine', '?')})"}
    smol = ROOT / "site_data" / "smollm2" / "measurements.json"
    if smol.exists():
        prov = json.loads(smol.read_text()).get("provenance", {})
        for step, value in (prov.get("seconds") or {}).items():
            figures[f"SmolLM2 {step} (s)"] = {"value": value, "source": "site_data/smollm2/measurements.json"}
    js, torch = bench.get("js_forward_us"), bench.get("torch_forward_us")
    if js and torch:
        figures["JS / PyTorch forward ratio"] = {"value": round(js / torch, 2), "source": "bench.json"}
    smol_s = figures.get("stage smollm2 (s)", {}).get("value")
    rows = [summary_row("training_s", "training time", bench.get("training_s"), "s", "scripts.tiny.checkpoint"),
            summary_row("cold_build_s", "`make site` cold", bench.get("cold_build_s"), "s"),
            summary_row("fresh_clone_build_s", "`make site` fresh clone", bench.get("fresh_clone_build_s"), "s"),
            summary_row("docs_only_rebuild_s", "`make site` docs-only rebuild", bench.get("docs_only_rebuild_s"), "s"),
            summary_row("js_forward_us", "JS forward pass", js, "µs", "scripts/quality/bench_forward.py"),
            summary_row("torch_forward_us", "PyTorch forward pass", torch, "µs", "scripts/quality/bench_forward.py"),
            summary_row("smollm2_stage_s", "SmolLM2 stage", smol_s, "s", "manifest.json")]
    return figures, rows, notes


# ---- main -------------------------------------------------------------------------------------------
def git_commit() -> str | None:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except Exception:
        return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="measure the built site against its targets")
    ap.add_argument("--site", type=Path, default=SITE, help="built site (default build/site)")
    ap.add_argument("--out", type=Path, default=REPORT_DIR, help="report folder (default build/report)")
    ap.add_argument("--pages", action="append", default=[],
                    help="only this page (site-relative, e.g. index.html); repeatable")
    ap.add_argument("--skip-lighthouse", action="store_true", help="no Lighthouse (the slow part)")
    ap.add_argument("--preset", choices=("mobile", "desktop", "both"), default="mobile",
                    help="Lighthouse form factor (default mobile, Lighthouse's own default)")
    ap.add_argument("--repeat", type=int, default=5, help="loads per demo page and mode for the start-up median")
    ap.add_argument("--no-gzip", action="store_true", help="serve uncompressed (GitHub Pages gzips)")
    ap.add_argument("--lh-runs", type=int, default=1,
                    help="Lighthouse runs per page and preset; the run with the median performance score is kept (3 for the report's figure)")
    ap.add_argument("--with-bench", action="store_true", help="run scripts.quality.bench first (slow: cold build)")
    args = ap.parse_args(argv)
    log = functools.partial(print, flush=True)
    site: Path = args.site.resolve()
    if not (site / "index.html").exists():
        print(f"error: {site} has no index.html: build the site first (make site)", file=sys.stderr)
        return 1
    pages = find_pages(site)
    if args.pages:
        unknown = [p for p in args.pages if p not in pages]
        if unknown:
            print(f"error: not pages of the site: {', '.join(unknown)} (pages: {', '.join(pages)})", file=sys.stderr)
            return 1
        pages = [p for p in pages if p in args.pages]
    started = time.perf_counter()
    report: dict[str, Any] = {
        "meta": {"generated": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "commit": git_commit(), "site": os.path.relpath(site, ROOT), "gzip": not args.no_gzip,
                 "lighthouse_presets": [] if args.skip_lighthouse else
                 (["mobile", "desktop"] if args.preset == "both" else [args.preset]),
                 "partial": bool(args.pages) or args.skip_lighthouse},
        "pages": pages, "summary": [], "notes": []}
    bench, bench_rows, notes = bench_figures(args.with_bench, log)
    report["notes"] += notes
    with SiteServer(site, gzip_text=not args.no_gzip) as base:
        if not args.skip_lighthouse:
            presets: dict[str, dict] = {}
            with tempfile.TemporaryDirectory(prefix="nexttoken-lh-") as tmp:
                for preset in report["meta"]["lighthouse_presets"]:
                    presets[preset] = {}
                    for name in pages:
                        t0 = time.perf_counter()
                        runs = [run_lighthouse(base + name, preset, Path(tmp)) for _ in range(max(1, args.lh_runs))]
                        presets[preset][name] = res = median_run(runs)
                        log(f"  lighthouse {preset} {name}: {res.get('scores') or res.get('error')} "
                            + (f"(performance of each run: {res['performance_runs']}) " if len(runs) > 1 else "")
                            + f"({time.perf_counter() - t0:.0f} s)")
            report["lighthouse"] = {"presets": presets}
        log(f"browser checks on {len(pages)} pages (served and file://)")
        checks = browser_checks(site, pages, base, max(1, args.repeat), log)
    report["meta"]["chromium"] = checks["chromium"]

    summary = report["summary"]
    if "lighthouse" in report:
        for preset, res in report["lighthouse"]["presets"].items():
            for cat in LH_CATEGORIES:
                vals = {p: r["scores"].get(cat) for p, r in res.items() if r.get("scores")}
                vals = {p: v for p, v in vals.items() if v is not None}
                worst = min(vals, key=vals.get) if vals else None
                errors = [p for p, r in res.items() if r.get("error")]
                row = summary_row(f"lighthouse_{cat}", f"Lighthouse {cat} ({preset}), worst page",
                                  vals[worst] if worst else None, "", worst or "")
                if errors:
                    row["result"] = "FAIL"
                    row["where"] += f" (no score: {', '.join(errors)})"
                row["key"] = f"lighthouse_{preset}_{cat}"
                summary.append(row)
    serious = [v for v in checks["axe"] if v["impact"] in ("serious", "critical")]
    summary.append(summary_row("axe_serious_critical", "axe serious + critical violations (rules × pages × modes)",
                               len(serious), "", ", ".join(sorted({v["id"] for v in serious}))))
    summary.append({**summary_row("axe_all", "axe violations of any impact", len(checks["axe"])),
                    "where": ", ".join(sorted({v["id"] for v in checks["axe"]}))})
    weights = checks["weight"]
    heaviest = max(weights, key=lambda p: weights[p]["bytes"]) if weights else None
    summary.append(summary_row("page_weight_kb", "heaviest page weight",
                               round(weights[heaviest]["bytes"] / KB, 1) if heaviest else None, "KB", heaviest or ""))
    tiny = site / "js" / "data" / "tiny-model.js"
    tiny_kb = round(tiny.stat().st_size / KB, 1) if tiny.exists() else None
    summary.append(summary_row("tiny_model_kb", "tiny model data (js/data/tiny-model.js)", tiny_kb, "KB",
                               "" if tiny.exists() else "file missing from the built site"))
    demo_vals = {p: max(v for v in (r["served_ms"], r["file_ms"]) if v is not None)
                 for p, r in checks["demo"].items() if r["served_ms"] is not None or r["file_ms"] is not None}
    silent = [p for p, r in checks["demo"].items() if r["demos"] and p not in demo_vals]
    slowest = max(demo_vals, key=demo_vals.get) if demo_vals else None
    row = summary_row("demo_ready_ms", "slowest demo start-up (median, served or file://)",
                      round(demo_vals[slowest], 1) if slowest else None, "ms", slowest or "")
    if silent:
        row["result"] = "FAIL"
        row["where"] = (row["where"] + "; " if row["where"] else "") + f"no signal: {', '.join(silent)}"
    summary.append(row)
    summary.append(summary_row("external_requests", "external requests (all pages, served + file://)",
                               len(checks["external"]), "",
                               ", ".join(sorted({urllib.parse.urlsplit(e["url"]).netloc for e in checks["external"]}))))
    summary.append({**summary_row("browser_problems", "console errors, page errors, broken local requests",
                                  len(checks["problems"])), "where": "see below" if checks["problems"] else ""})
    summary += bench_rows

    report["axe"] = {"violations": checks["axe"]}
    report["weight"] = {"pages": {p: {k: v for k, v in w.items() if k != "files"} | {"files": w["files"][:10]}
                                  for p, w in weights.items()},
                        "heaviest_page": heaviest,
                        "largest_on_pages": weights[heaviest]["files"][:10] if heaviest else [],
                        "largest_files": largest_files(site),
                        "tiny_model_bytes": tiny.stat().st_size if tiny.exists() else None}
    report["demo_ready"] = {"signal": DEMO_READY, "fallback": DEMO_FALLBACK, "pages": checks["demo"]}
    report["external"] = {"requests": checks["external"]}
    report["problems"] = checks["problems"]
    report["bench"] = bench
    report["meta"]["seconds"] = round(time.perf_counter() - started, 1)
    if not any(r["demos"] for r in checks["demo"].values()):
        report["notes"].append(f"no page has a `{DEMO_ROOT}` element, so demo start-up was not measured")

    out: Path = args.out
    previous = out / "report.json"
    old = json.loads(previous.read_text()) if previous.exists() else None
    write_json_atomic(out / "report.json", report)
    write_text_atomic(out / "report.md", render_markdown(report))

    log("")
    width = max(len(r["label"]) for r in summary)
    for r in summary:
        log(f"{r['label']:<{width}}  {_fmt(r['value']):>9} {r['unit']:<3} {r['target']:<10} {r['result']:<4}  {r['where']}")
    if old is not None:
        lines = diff_reports(old, report)
        log(f"\nchanges since the previous report ({old['meta']['generated']}):")
        log("\n".join(lines) if lines else "  none")
    failed = sum(r["result"] == "FAIL" for r in summary)
    log(f"\n{failed} target(s) missed; written to {os.path.relpath(out, ROOT)}/report.md and report.json "
        f"({report['meta']['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
