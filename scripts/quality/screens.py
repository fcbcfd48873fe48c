"""Screenshots of every page at phone and desktop widths in both colour schemes, for looking at.

    .venv/bin/python -m scripts.quality.screens [PAGE.html ...] [--full]
    .venv/bin/python -m scripts.quality.screens --play

Needs a built site (`make site`) and Debian's chromium. Writes build/screens/<page>-<width>-<scheme>.png
(the first screen, or the whole page with --full) and prints each file's path; with --play, the landing
page's played pass at the stages of PLAYED instead (build/screens/play-<stage>-<width>-<scheme>.png, each
stage reached with its button, at rest).
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
OUT = ROOT / "build" / "screens"
CHROMIUM = os.environ.get("NEXTTOKEN_CHROMIUM", "/usr/bin/chromium")
WIDTHS = (360, 1280)
SCHEMES = ("light", "dark")
PLAYED = ("lookup", "attention", "softmax", "pick")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def shoot(pages: list[str], full: bool, play: bool = False) -> list[str]:
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
                    ctx = browser.new_context(viewport={"width": width, "height": 900 if width > 400 else 780},
                                              color_scheme=scheme, reduced_motion="reduce" if play else None)
                    page = ctx.new_page()
                    page.add_init_script(READ_THROUGH)  # demos build near the screen: scroll each into view first
                    if play:
                        page.goto(base + "index.html", wait_until="load")
                        for stage in PLAYED:
                            page.locator(f".nt-play-jump[data-stage='{stage}']").click()
                            page.locator(".nt-play-stage").evaluate("e => e.parentNode.scrollIntoView({block: 'start'})")
                            page.evaluate("() => window.scrollBy(0, -60)")  # below the theme's header
                            page.add_style_tag(content=".md-top { display: none !important; }")  # its back-to-top button
                            page.wait_for_timeout(200)
                            path = OUT / f"play-{stage.replace(' ', '-')}-{width}-{scheme}.png"
                            page.screenshot(path=str(path))
                            written.append(str(path.relative_to(ROOT)))
                        pages_now = []
                    else:
                        pages_now = pages
                    for name in pages_now:
                        page.goto(base + name, wait_until="load")
                        page.wait_for_function(DONE, timeout=60_000)
                        page.evaluate("() => document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; })")
                        page.wait_for_load_state("networkidle")
                        page.wait_for_timeout(400)
                        path = OUT / f"{name.removesuffix('.html')}-{width}-{scheme}.png"
                        page.screenshot(path=str(path), full_page=full)
                        written.append(str(path.relative_to(ROOT)))
                    ctx.close()
            browser.close()
    finally:
        httpd.shutdown()
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pages", nargs="*", help="page file names (default: every page)")
    ap.add_argument("--full", action="store_true", help="the whole page, not only the first screen")
    ap.add_argument("--play", action="store_true", help="the landing page's played pass at several stages")
    args = ap.parse_args()
    pages = args.pages or sorted(p.name for p in SITE.glob("*.html") if p.name != "404.html")
    for path in shoot(pages, args.full, args.play):
        print(path)


if __name__ == "__main__":
    run_main(main)
