"""The screenshot set: every page at phone and desktop widths in both colour schemes, and the played pass.

    .venv/bin/python -m scripts.quality.screens                  # the whole set
    .venv/bin/python -m scripts.quality.screens PAGE.html ...    # those pages only, no played pass
    .venv/bin/python -m scripts.quality.screens --first-screen   # the first screen of each page, not the whole
    .venv/bin/python -m scripts.quality.screens --play           # the played pass only

Needs a built site (`make site`) and Debian's chromium. Writes build/report/screens/<page>-<width>-<scheme>.png
(the whole page, after scrolling through it so that every demo and lazy figure has been drawn) and
play-<stage>-<width>-<scheme>.png (the landing page's played pass at the moments of PLAYED, each reached
with its stage button, at rest), lists them in build/report/screens/index.txt and prints each path.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import os
import threading

from scripts.core.io import ROOT, run_main
from scripts.quality.read_through import DONE, READ_THROUGH

SITE = ROOT / "build" / "site"
OUT = ROOT / "build" / "report" / "screens"
CHROMIUM = os.environ.get("NEXTTOKEN_CHROMIUM", "/usr/bin/chromium")
WIDTHS = (360, 1280)
SCHEMES = ("light", "dark")
PLAYED = ("lookup", "attention", "pick")  # the row taken from its table, the query reaching back, the draw

# Scroll down a screen at a time until the bottom stays put: demos that start only near the screen, and
# lazy images, are drawn before the whole page is shot.
SCROLL_THROUGH = """async () => {
  const pause = ms => new Promise(r => setTimeout(r, ms));
  document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; });
  let last = -1;
  for (let i = 0; i < 400 && (window.scrollY + innerHeight < document.documentElement.scrollHeight - 2
                              || document.documentElement.scrollHeight !== last); i++) {
    last = document.documentElement.scrollHeight;
    window.scrollBy(0, Math.round(innerHeight * 0.8));
    await pause(120);
  }
  await pause(300);
  window.scrollTo(0, 0);
  await pause(200);
}"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _played(page, base: str, width: int, scheme: str) -> list:
    page.goto(base + "index.html", wait_until="load")
    page.wait_for_function(DONE, timeout=60_000)
    page.add_style_tag(content=".md-top { display: none !important; }")  # the theme's back-to-top button
    shots = []
    for stage in PLAYED:
        page.locator(f".nt-play-jump[data-stage='{stage}']").click()
        page.locator(".nt-play-stage").evaluate("e => e.parentNode.scrollIntoView({block: 'start'})")
        page.evaluate("() => window.scrollBy(0, -60)")  # below the theme's header
        page.wait_for_timeout(300)
        path = OUT / f"play-{stage}-{width}-{scheme}.png"
        page.screenshot(path=str(path))
        shots.append(path)
    return shots


def _page(page, base: str, name: str, width: int, scheme: str, whole: bool) -> list:
    page.goto(base + name, wait_until="load")
    page.wait_for_function(DONE, timeout=60_000)
    page.evaluate(SCROLL_THROUGH)
    page.wait_for_load_state("networkidle")
    path = OUT / f"{name.removesuffix('.html')}-{width}-{scheme}.png"
    page.screenshot(path=str(path), full_page=whole)
    return [path]


def shoot(pages: list[str], whole: bool = True, play: bool = True) -> list[str]:
    from playwright.sync_api import sync_playwright
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(SITE)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    OUT.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
            for scheme in SCHEMES:
                for width in WIDTHS:
                    size = {"width": width, "height": 900 if width > 400 else 780}
                    ctx = browser.new_context(viewport=size, color_scheme=scheme)
                    ctx.add_init_script(READ_THROUGH)  # every demo built before it is shot
                    page = ctx.new_page()
                    for name in pages:
                        written += _page(page, base, name, width, scheme, whole)
                    ctx.close()
                    if play:  # at rest: reduced motion stops each stage's animation at its end
                        ctx = browser.new_context(viewport=size, color_scheme=scheme, reduced_motion="reduce")
                        ctx.add_init_script(READ_THROUGH)
                        written += _played(ctx.new_page(), base, width, scheme)
                        ctx.close()
            browser.close()
    finally:
        httpd.shutdown()
    listed = [str(p.relative_to(ROOT)) for p in written]
    (OUT / "index.txt").write_text("\n".join(listed) + "\n", encoding="utf-8")
    return listed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="*", help="page file names (default: every page, and the played pass)")
    ap.add_argument("--first-screen", action="store_true", help="the first screen of each page, not the whole page")
    ap.add_argument("--play", action="store_true", help="the played pass only")
    args = ap.parse_args()
    every = sorted(p.name for p in SITE.glob("*.html") if p.name != "404.html")
    pages = [] if args.play else (args.pages or every)
    for path in shoot(pages, whole=not args.first_screen, play=args.play or not args.pages):
        print(path)


if __name__ == "__main__":
    run_main(main)
