"""Real-browser fixtures: Debian's chromium through Playwright, over a local http server and file://.

The site must already be built in build/site (`make test` builds it first). Every page a test opens
is watched: console errors, page errors, failed requests, and any request to a host other than the
site's own are recorded on `page.nt_problems`. Other hosts never answer: Chromium's resolver finds no
name but 127.0.0.1's (NO_DNS), which costs nothing per request, where a Playwright route made every
request a round trip through Python (about 0.1 s a page).

Chromium runs under the tests' own fontconfig (fonts.conf beside this file: DejaVu alone, as on a bare
Debian), so a layout test measures the site's web fonts, never the faces of the machine it runs on.
"""
from __future__ import annotations

import functools
import http.server
import os
import threading
from pathlib import Path
from urllib.parse import urlparse

import pytest

from scripts.quality.read_through import DONE, READ_THROUGH
from tests.helpers.network import own_address
from tests.helpers.faces import faces_loaded

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"
FONTS_CONF = Path(__file__).resolve().with_name("fonts.conf")
CHROMIUM = os.environ.get("NEXTTOKEN_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-gpu",
        # no name resolves but the site's own servers: loopback and this machine's address (test_real_lan)
        f"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE {own_address()}"]



@pytest.fixture(scope="session")
def site() -> Path:
    if not (SITE / "index.html").is_file():
        pytest.fail(f"{SITE.relative_to(ROOT)}/index.html not found: build the site first (`make site`)", pytrace=False)
    return SITE


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep pytest output clean
        pass


@pytest.fixture(scope="session")
def server(site):
    handler = functools.partial(_Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def browser_context(tmp_path_factory):
    if os.environ.get("NEXTTOKEN_BROWSER") == "skip":
        pytest.skip("BROWSER=skip: the browser tests were asked to be skipped")
    if not Path(CHROMIUM).exists():
        pytest.fail(f"chromium not found at {CHROMIUM}: install it (apt-get install chromium), "
                    "or run `make test BROWSER=skip` to skip the browser tests", pytrace=False)
    from playwright.sync_api import sync_playwright
    profile = tmp_path_factory.mktemp("chromium-profile")  # a fresh user-data dir
    with sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=ARGS,
            env={**os.environ, "FONTCONFIG_FILE": str(FONTS_CONF)},
            viewport={"width": 1280, "height": 900})
        yield ctx
        ctx.close()


def _allowed(url: str, base: str) -> bool:
    u = urlparse(url)
    if u.scheme in ("data", "blob", "about", "file"):
        return u.scheme != "file" or base.startswith("file:")
    b = urlparse(base)
    return u.scheme == b.scheme and u.netloc == b.netloc


def _opener(browser_context, server, site):
    """The open_page function and the list of the pages it opened (for its fixture to close)."""
    opened = []

    def _open(name: str, mode: str = "http", width: int = 1280, height: int = 900, lazy: bool = False,
              scheme: str | None = None, init: str | None = None, fresh: bool = False, motion: str | None = None,
              route: tuple | None = None):
        base = server if mode == "http" else site.as_uri() + "/"
        page = browser_context.new_page()
        page.set_viewport_size({"width": width, "height": height})
        problems: list[str] = []
        outside: set[str] = set()
        page.nt_problems = problems

        def request(r):
            if not _allowed(r.url, base):
                problems.append(f"external request: {r.url}")
                outside.add(r.url)

        page.on("request", request)
        loading: set = set()
        page.nt_loading = loading
        page.on("request", lambda r: loading.add(r))
        page.on("requestfinished", lambda r: loading.discard(r))
        page.on("requestfailed", lambda r: loading.discard(r))
        if init:
            page.add_init_script(init)
        if not lazy:
            page.add_init_script(READ_THROUGH)
        if scheme:
            page.add_init_script("localStorage.clear()")  # before Material's own scripts read a stored choice
            page.emulate_media(color_scheme=scheme)
        if motion:
            page.emulate_media(reduced_motion=motion)
        if route:
            page.route(*route)
        if fresh:  # cleared before the load, not by a page load and a reload
            cdp = browser_context.new_cdp_session(page)
            cdp.send("Storage.clearDataForOrigin", {"origin": "file://" if mode == "file" else base.rstrip("/"),
                                                    "storageTypes": "local_storage"})
            cdp.detach()
        page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: problems.append(f"failed request: {r.url} ({r.failure})")
                if r.url not in outside else None)
        page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
        page.goto(base + name, wait_until="load")
        faces_loaded(page)  # measure the site's faces, not their stand-ins
        if lazy:
            page.wait_for_timeout(150)
        else:  # every demo built and the page back at its top: two frames for what the scroll back set off
            page.wait_for_function(DONE, timeout=60_000)
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))")
        if scheme:  # Material applies the media query's palette after the demos have drawn
            page.wait_for_function("w => document.body.getAttribute('data-md-color-scheme') === w",
                                   arg="slate" if scheme == "dark" else "default", timeout=5000)
        opened.append(page)
        return page

    return _open, opened


@pytest.fixture
def open_page(browser_context, server, site):
    """open_page(name, mode="http"|"file") -> a Playwright page, watched for problems. Unless lazy=True,
    every load of the page scrolls each demo into view until it has built, then back (read_through).
    scheme="light"|"dark": the page as a reader's system asks for that scheme, from its first load (no stored
    palette, prefers-color-scheme emulated; Material follows it), so a test in a scheme loads the page once.
    init: a script run in the page before its own (Playwright's add_init_script). fresh=True: the page's first
    load finds no localStorage of its origin (a reader's model, an auditor's choice), as the page cleared and
    reloaded would, in one load; later loads keep what the page stores. motion="reduce"|"no-preference": the
    reduced-motion preference emulated from the first load. route=(url, handler): the page's requests for url
    answered by handler from the first load (Playwright's page.route). page.nt_loading holds the page's requests
    still in flight."""
    _open, opened = _opener(browser_context, server, site)
    yield _open
    for p in opened:
        p.close()


@pytest.fixture(scope="module")
def module_open_page(browser_context, server, site):
    """open_page's pages kept for the whole module: for a page that loads the real model, which several tests then
    use in turn (an open of the model costs more than most tests' own checks)."""
    _open, opened = _opener(browser_context, server, site)
    yield _open
    for p in opened:
        p.close()

