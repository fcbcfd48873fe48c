"""The reader's first minute, per page: how far down its first demo starts and what the prose puts before a reader.

    .venv/bin/python -m scripts.quality.first_minute                     # every page of build/site
    .venv/bin/python -m scripts.quality.first_minute --pages index.html  # some pages
    .venv/bin/python -m scripts.quality.first_minute --compare OLD.json  # and the change from an earlier run

For every page, at 1280x800 and 360x740 (Debian's chromium, the built site opened from disk, after load):
- demo top: the first demo container's (`.nt-demo`) top, in screens (its distance from the page's top
  divided by the viewport's height; under 1 means it starts in the first screen);
- words before: the words a reader meets above it (rendered text in the article, in document order);
- marks: provenance marks visible in the prose (a rendered element whose whole text is a status letter and a
  number, m1, c2, p3, cfg4, outside the source lines), whatever markup carries them, so the count follows
  the marks however they are drawn: a mark shown only on hover or by the auditor's view is not counted;
- long sentences: sentences over 40 words in the rendered prose;
- build-file paragraphs: rendered blocks (paragraph, list item, cell) naming build files: a site_data/ path,
  a .json/.gguf/.safetensors file, or a timestamp like 2026-12-03T15:55:35Z.
Figures, not targets (issue 29's targets are printed beside them). Written to build/report/first_minute.json.
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from scripts.core.io import ROOT, run_main, write_json_atomic

SITE = ROOT / "build" / "site"
OUT = ROOT / "build" / "report" / "first_minute.json"
VIEWPORTS = {"1280": {"width": 1280, "height": 800}, "360": {"width": 360, "height": 740}}
LONG = 40  # words: a sentence over this is long
TARGETS = "landing: demo top < 1 screen at 1280, <= 1.5 at 360, <= ~120 words; others: <= 1.5 screens at 1280, <= ~250 words"

MARK = re.compile(r"^(?:m|c|p|cfg)\d+$")
BUILD_FILE = re.compile(r"site_data/|\b[\w.-]+\.(?:json|gguf|safetensors)\b|\b\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d)?Z?\b")
WORD = re.compile(r"[^\W_]", re.UNICODE)  # a word holds a letter or digit: "·", "→", "|" are not words
# A full stop that ends no sentence: abbreviations, initials.
ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|vs|al|cf|etc|approx|Fig|No|Mr|Dr|St)|\b[A-Z])\.$")
END = re.compile(r"(?<=[.!?])([\"”’)\]]*)\s+")

# Runs in the page: the first demo's top and what is rendered in the article before it and in it.
PROBE = """() => {
  const article = document.querySelector("article.md-content__inner") || document.body;
  const demo = article.querySelector(".nt-demo");
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


def words(text: str) -> int:
    """Words in a text: whitespace-separated runs holding a letter or a digit."""
    return sum(1 for t in text.split() if WORD.search(t))


def sentences(text: str) -> list[str]:
    """A block's text cut into sentences at . ! or ? followed by space (abbreviations and initials kept whole)."""
    out, start = [], 0
    text = " ".join(text.split())
    for m in END.finditer(text):
        if ABBREV.search(text[start:m.start()]):
            continue
        out.append(text[start:m.end(1)])
        start = m.end()
    if text[start:].strip():
        out.append(text[start:])
    return out


def long_sentences(blocks: list[str], limit: int = LONG) -> list[str]:
    return [s for b in blocks for s in sentences(b) if words(s) > limit]


def build_file_blocks(blocks: list[str]) -> list[str]:
    return [b for b in blocks if BUILD_FILE.search(b)]


def figures(probe: dict) -> dict:
    """One page at one viewport: the probe's raw text turned into the five figures."""
    top = probe["top"]
    return {"demo_screens": None if top is None else round(top / probe["height"], 2),
            "words_before": None if top is None else words(probe["before"]),
            "marks": probe["marks"],
            "long_sentences": len(long_sentences(probe["blocks"])),
            "build_file_paragraphs": len(build_file_blocks(probe["blocks"]))}


def measure(pages: list[str], site: Path = SITE) -> dict[str, dict[str, dict]]:
    from playwright.sync_api import sync_playwright

    from scripts.quality.screens import CHROMIUM
    out: dict[str, dict[str, dict]] = {p: {} for p in pages}
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
    return "-" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))


def table(rows: dict[str, dict[str, dict]], old: dict | None = None) -> list[str]:
    """Markdown rows: one per page; 'new (old)' where an earlier run is given and the figure moved."""
    def cell(page: str, vp: str, key: str) -> str:
        now = rows[page][vp][key]
        was = ((old or {}).get(page) or {}).get(vp, {}).get(key, now)
        return _cell(now) if was == now else f"{_cell(now)} ({_cell(was)})"
    head = ("| page | demo top 1280 (screens) | words before | demo top 360 (screens) | marks in prose "
            "| sentences > 40 words | paragraphs naming build files |")
    lines = [head, "|---|---:|---:|---:|---:|---:|---:|"]
    total = {"marks": 0, "long_sentences": 0, "build_file_paragraphs": 0}
    for page in rows:
        for k in total:
            total[k] += rows[page]["1280"][k]
        lines.append(f"| {page} | {cell(page, '1280', 'demo_screens')} | {cell(page, '1280', 'words_before')} "
                     f"| {cell(page, '360', 'demo_screens')} | {cell(page, '1280', 'marks')} "
                     f"| {cell(page, '1280', 'long_sentences')} | {cell(page, '1280', 'build_file_paragraphs')} |")
    lines.append(f"| all pages | | | | {total['marks']} | {total['long_sentences']} | {total['build_file_paragraphs']} |")
    return lines


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
    pages = args.pages or ["index.html"] + [p for p in every if p != "index.html"]
    rows = measure(pages, args.site)
    old = json.loads(args.compare.read_text()) if args.compare else None
    write_json_atomic(args.out, rows)
    print("\n".join(table(rows, old)))
    print(f"\nmarks, sentences and paragraphs are counted at 1280 px; targets (issue 29): {TARGETS}")


if __name__ == "__main__":
    run_main(main)
