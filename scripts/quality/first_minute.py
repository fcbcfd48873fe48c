"""The reader's first minute, per page: how much prose it holds, how long its sentences run, and how far down its first demo starts.

    .venv/bin/python -m scripts.quality.first_minute                     # every page of build/site
    .venv/bin/python -m scripts.quality.first_minute --pages index.html  # some pages
    .venv/bin/python -m scripts.quality.first_minute --compare OLD.json  # and the change from an earlier run

For every page, from its built HTML (scripts/site/prose.py, the same measure the build's prose checks use):
- prose words: words of paragraphs and list items outside demos, tables, figures and closed details;
- long sentences: prose sentences over 30 words;
- "build": how often the prose says build, built, builds or building;
and at 1280x800 and 360x740 (Debian's chromium, the built site opened from disk, after load):
- demo top: the first demo container's (`.nt-demo`) or figure's top, in screens (its distance from the
  page's top divided by the viewport's height; under 1 means it starts in the first screen);
- words before: the words a reader meets above it (rendered text in the article, in document order);
- marks: provenance marks visible in the prose (a rendered element whose whole text is a status letter and a
  number, m1, c2, p3, cfg4, outside the source lines), whatever markup carries them, so the count follows
  the marks however they are drawn: a mark shown only on hover or by the auditor's view is not counted;
- build-file paragraphs: rendered blocks (paragraph, list item, cell) naming build files: a site_data/ path,
  a .json/.gguf/.safetensors file, or a timestamp like 2026-12-03T15:55:35Z.
Figures, not targets (issue 42's targets are printed beside them). Written to build/report/first_minute.json.
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from scripts.core.io import ROOT, run_main, write_json_atomic
from scripts.site import prose
from scripts.site.prose import build_file_blocks, sentences, words  # noqa: F401 (the measures, re-exported)

SITE = ROOT / "build" / "site"
OUT = ROOT / "build" / "report" / "first_minute.json"
VIEWPORTS = {"1280": {"width": 1280, "height": 800}, "360": {"width": 360, "height": 740}}
LONG = prose.SENTENCE_WORDS  # words: a sentence over this is long
MAIN = tuple(p.replace(".md", ".html") for p in prose.MAIN_PAGES)  # the main path's ten pages
TARGETS = (f"the ten main pages: <= {prose.MAIN_TOTAL:,} prose words in all, <= {prose.MAIN_WORDS} each, "
           f"\"build\" at most once each; every page: no sentence over {LONG} words, the first demo's top "
           "< 1 screen at 1280 and <= 1.5 at 360")

MARK = re.compile(r"^(?:m|c|p|cfg)\d+$")

# Runs in the page: the first demo's top and what is rendered in the article before it and in it.
PROBE = """() => {
  const article = document.querySelector("article.md-content__inner") || document.body;
  const demo = article.querySelector(".nt-demo, figure");  // a page of the shelf may open on a figure
  const shown = el => el.checkVisibility({opacityProperty: true, visibilityProperty: true}) && el.getClientRects().length > 0
    && !el.closest(".nt-sr, .headerlink, script, style, noscript, template");
  const BLOCK = "p, li, td, th, dd, dt, figcaption, caption, summary, h1, h2, h3, h4, h5, h6, blockquote, pre";
  const blocks = new Map();  // block element -> its own rendered text, in document order
  let before = [], marks = 0;
  const walk = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!n.data.trim() || !el || !shown(el)) continue;
    const inDemo = !!el.closest(".nt-demo"), inSources = !!el.closest(".nt-sources, .nt-src");
    if (!inDemo && !inSources && /^(?:m|c|p|cfg)\\d+$/.test(n.data.trim())) { marks++; continue; }
    if (demo && (demo.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_PRECEDING)) before.push(n.data);
    if (inDemo || el.closest("pre, code.nt-block, .katex-mathml, mjx-assistive-mml")) continue;
    const block = el.closest(BLOCK);
    if (!block || !article.contains(block) || block.matches("pre")) continue;
    blocks.set(block, (blocks.get(block) || "") + n.data);
  }
  const top = demo ? demo.getBoundingClientRect().top + scrollY : null;
  return {top, height: innerHeight, before: before.join(" "), blocks: [...blocks.values()], marks};
}"""


def long_sentences(blocks: list[str], limit: int = LONG) -> list[str]:
    return prose.long_sentences(blocks, limit)


def figures(probe: dict) -> dict:
    """One page at one viewport: the probe's raw text turned into its figures."""
    top = probe["top"]
    return {"demo_screens": None if top is None else round(top / probe["height"], 2),
            "words_before": None if top is None else words(probe["before"]),
            "marks": probe["marks"],
            "build_file_paragraphs": len(build_file_blocks(probe["blocks"]))}


def prose_figures(html_text: str) -> dict:
    """One page's prose, from its built HTML: words, sentences over LONG words, mentions of the build."""
    blocks = prose.prose_blocks(html_text)
    return {"prose_words": sum(words(b) for b in blocks), "long_sentences": len(long_sentences(blocks)),
            "build_words": sum(prose.build_words(b) for b in blocks)}


def measure(pages: list[str], site: Path = SITE) -> dict[str, dict[str, dict]]:
    from playwright.sync_api import sync_playwright

    from scripts.quality.screens import CHROMIUM
    out: dict[str, dict[str, dict]] = {p: {"prose": prose_figures((site / p).read_text(encoding="utf-8"))} for p in pages}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            for vp, size in VIEWPORTS.items():
                ctx = browser.new_context(viewport=size)
                page = ctx.new_page()
                for name in pages:
                    page.goto((site / name).resolve().as_uri(), wait_until="load")
                    page.wait_for_timeout(300)  # the theme's bundle and the demos' first build settle
                    out[name][vp] = figures(page.evaluate(PROBE))
                ctx.close()
        finally:
            browser.close()
    return out


def _cell(v) -> str:
    return "-" if v is None else (f"{v:.2f}" if isinstance(v, float) else f"{v:,}" if isinstance(v, int) else str(v))


def table(rows: dict[str, dict[str, dict]], old: dict | None = None) -> list[str]:
    """Markdown rows: one per page; 'new (old)' where an earlier run is given and the figure moved; then the
    ten main pages' total and every page's, and the pages whose first demo starts past the targets."""
    def moved(now, was) -> str:
        return _cell(now) if was == now else f"{_cell(now)} ({_cell(was)})"

    def cell(page: str, part: str, key: str) -> str:
        now = rows[page].get(part, {}).get(key)
        return moved(now, ((old or {}).get(page) or {}).get(part, {}).get(key, now))

    head = ("| page | prose words | sentences > 30 words | \"build\" | demo top 1280 (screens) | words before "
            "| demo top 360 (screens) | marks in prose | paragraphs naming build files |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for page in rows:
        lines.append(f"| {page} | {cell(page, 'prose', 'prose_words')} | {cell(page, 'prose', 'long_sentences')} "
                     f"| {cell(page, 'prose', 'build_words')} | {cell(page, '1280', 'demo_screens')} "
                     f"| {cell(page, '1280', 'words_before')} | {cell(page, '360', 'demo_screens')} "
                     f"| {cell(page, '1280', 'marks')} | {cell(page, '1280', 'build_file_paragraphs')} |")

    def total(which: list[str], data: dict, part: str, key: str) -> int:
        return sum((data.get(p) or {}).get(part, {}).get(key) or 0 for p in which)

    for label, which in ((f"the {len(MAIN)} main pages", [p for p in rows if p in MAIN]), ("all pages", list(rows))):
        old_which = [p for p in (old or {}) if p in MAIN] if label != "all pages" else list(old or {})
        c = {(part, key): moved(total(which, rows, part, key), total(old_which, old, part, key) if old else total(which, rows, part, key))
             for part, key in (("prose", "prose_words"), ("prose", "long_sentences"), ("prose", "build_words"),
                               ("1280", "marks"), ("1280", "build_file_paragraphs"))}
        lines.append(f"| {label} | {c['prose', 'prose_words']} | {c['prose', 'long_sentences']} | {c['prose', 'build_words']} "
                     f"| | | | {c['1280', 'marks']} | {c['1280', 'build_file_paragraphs']} |")
    return lines


def late_demos(rows: dict[str, dict[str, dict]]) -> list[str]:
    """Pages whose first demo starts past a screen at 1280 or past 1.5 screens at 360."""
    out = []
    for page, r in rows.items():
        a, b = r.get("1280", {}).get("demo_screens"), r.get("360", {}).get("demo_screens")
        if (a is not None and a >= 1) or (b is not None and b > 1.5):
            out.append(f"{page} ({_cell(a)} at 1280, {_cell(b)} at 360)")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--site", type=Path, default=SITE, help="built site (default build/site)")
    ap.add_argument("--pages", action="append", default=[], help="only this page (e.g. index.html); repeatable")
    ap.add_argument("--compare", type=Path, help="an earlier first_minute.json: its figures in brackets where they moved")
    ap.add_argument("--out", type=Path, default=OUT, help=f"where the figures go (default {OUT.relative_to(ROOT)})")
    args = ap.parse_args()
    if not (args.site / "index.html").exists():
        raise SystemExit(f"error: {args.site} has no index.html: build the site first (make site)")
    every = sorted(p.name for p in args.site.glob("*.html") if p.name != "404.html")
    order = [p for p in MAIN if p in every] + [p for p in every if p not in MAIN]
    pages = args.pages or order
    rows = measure(pages, args.site)
    old = json.loads(args.compare.read_text()) if args.compare else None
    write_json_atomic(args.out, rows)
    print("\n".join(table(rows, old)))
    late = late_demos(rows)
    print(f"\nfirst demo past the targets: {', '.join(late) if late else 'none'}")
    print(f"marks and paragraphs are counted at 1280 px; targets (issue 42): {TARGETS}")


if __name__ == "__main__":
    run_main(main)
