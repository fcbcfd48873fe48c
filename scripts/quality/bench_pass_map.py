"""Benchmark of the picture (the map of the pass, footnoted sources, figures per scheme): printed figures, no
targets asserted. The budgets: each page's first load at most 150 KB gzip, and no page more than 25 KB over
the site before this work.

    python -m scripts.quality.bench_pass_map                          # needs build/site (make site)
    python -m scripts.quality.bench_pass_map --baseline REF           # growth against another commit
    python -m scripts.quality.bench_pass_map --baseline-site DIR      # against a site already built

A page's first load is the page and every script and stylesheet it names, gzip -9 (as
bench_computation measures it); the baseline is built from its commit in a git worktree. "later KB" is
what the page's `later:` demos load on demand when the reader scrolls near them (their containers'
data-later scripts), outside the first load. Figures also go to build/report/bench_pass_map.json.
"""
from __future__ import annotations

import argparse
import re
import tempfile
from pathlib import Path

from scripts.core.io import BUILD, write_json_atomic
from scripts.quality.bench_computation import baseline_site, growth
from scripts.quality.needs import require
from scripts.quality.bench_training import SITE, gz

# The last commit before the picture: the chips of the pass, a badge per number, white figure cards.
BASELINE = "2ec9566"
TARGETS = {"first_load_kb": 150.0, "growth_kb": 25.0}


def later_kb(page: str, site: Path = SITE) -> float:
    """The scripts the page's later demos load on demand, each once, gzip -9, in KB."""
    html = (site / page).read_text(encoding="utf-8")
    names = {n for attr in re.findall(r'data-later="([^"]*)"', html) for n in attr.split()}
    return sum(gz(site / ("js/" + n.replace(".", "/") + ".js")) for n in names) / 1000


def report(rows: dict[str, dict]) -> list[str]:
    lines = [f"{'page':<18} {'now KB':>8} {'before KB':>10} {'growth KB':>10} {'later KB':>9}  budget"]
    for page, r in rows.items():
        ok = r["now_kb"] <= TARGETS["first_load_kb"] and (r["growth_kb"] is None or r["growth_kb"] <= TARGETS["growth_kb"])
        before = "-" if r["before_kb"] is None else f"{r['before_kb']:.1f}"
        grew = "-" if r["growth_kb"] is None else f"{r['growth_kb']:+.1f}"
        lines.append(f"{page:<18} {r['now_kb']:>8.1f} {before:>10} {grew:>10} {r['later_kb']:>9.1f}  {'within' if ok else 'OVER'}")
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default=BASELINE, help=f"commit to measure growth against (default {BASELINE})")
    ap.add_argument("--baseline-site", type=Path, help="a baseline site already built (skips building one)")
    args = ap.parse_args(argv)
    require("bench_pass_map", site_page="index.html")
    with tempfile.TemporaryDirectory(prefix="nt-bench-pass-map-") as tmp:
        base = args.baseline_site or baseline_site(args.baseline, Path(tmp))
        rows = growth(base)
    for page, r in rows.items():
        r["later_kb"] = later_kb(page)
    for line in report(rows):
        print(line)
    worst = max((r["growth_kb"] for r in rows.values() if r["growth_kb"] is not None), default=0.0)
    print(f"largest growth {worst:+.1f} KB (budget {TARGETS['growth_kb']:g}); largest first load "
          f"{max(r['now_kb'] for r in rows.values()):.1f} KB (budget {TARGETS['first_load_kb']:g})")
    write_json_atomic(BUILD / "report" / "bench_pass_map.json",
                      {"baseline": str(args.baseline_site or args.baseline), "targets": TARGETS, "pages": rows})


if __name__ == "__main__":
    main()
