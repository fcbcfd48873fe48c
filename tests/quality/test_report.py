"""The quality report's pure parts: request classification, page discovery, weight accounting,
judging, diffing and Markdown. The targets themselves are judged by the report, never here."""
from __future__ import annotations

import json
import urllib.request

import pytest

from scripts.quality.report import render, server, weight


@pytest.fixture()
def site(tmp_path):
    """A tiny built site: two pages, a 404, search internals, assets of every kind."""
    files = {
        "index.html": b"<html>" + b"x" * 993 + b"</html>",  # 1,006 bytes
        "attention.html": b"<html></html>",
        "sub/index.html": b"<html>sub</html>",
        "404.html": b"<html>404</html>",
        "search/search_index.js": b"var idx = " + b"1" * 5000,
        "search/search_index.json": b"{}" * 1000,
        "assets/stylesheets/main.css": b"a" * 2000,
        "assets/javascripts/bundle.js": b"b" * 3000,
        "assets/fonts/katex.woff2": b"f" * 400,
        "assets/figures/loss.svg": b"<svg/>" * 10,
        "js/data/tiny-model.js": b"window.TINY = {};" + b" " * 83,  # 100 bytes, counted as data
        "js/runtime/model.js": b"c" * 50,
        "js/demos/page.html": b"<p>fragment</p>",
    }
    for name, body in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
    return tmp_path


@pytest.mark.parametrize("url, kind", [
    ("http://127.0.0.1:8123/index.html", "local"),
    ("http://localhost:9000/a.js", "local"),
    ("file:///tmp/site/index.html", "local"),
    ("data:image/png;base64,AAAA", "local"),
    ("blob:http://127.0.0.1:8123/5f1c", "local"),
    ("about:blank", "local"),
    ("https://unpkg.com/iframe-worker/shim", "external"),
    ("https://fonts.googleapis.com/css?family=Roboto", "external"),
    ("http://127.0.0.2/x", "external"),
    ("https://127.0.0.1.evil.example/x", "external"),
    ("wss://example.com/socket", "external"),
])
def test_classify_request(url, kind):
    assert weight.classify_request(url) == kind


def test_find_pages_skips_404_search_and_assets(site):
    assert weight.find_pages(site) == ["attention.html", "index.html", "sub/index.html"]


def test_page_weight_counts_each_local_file_once_without_search_index(site):
    base = "http://127.0.0.1:8123/"
    urls = [
        base + "index.html",
        base + "assets/stylesheets/main.css",
        base + "assets/stylesheets/main.css?v=2",  # same file again: counted once
        base + "assets/javascripts/bundle.js#frag",
        base + "assets/fonts/katex.woff2",
        base + "assets/figures/loss.svg",
        base + "js/data/tiny-model.js",
        base + "search/search_index.js",  # the search index is excluded
        base + "missing.js",  # not on disk: nothing to count
        "data:image/png;base64,AAAA",
        "https://unpkg.com/iframe-worker/shim",
        (site / "js" / "runtime" / "model.js").as_uri(),  # file:// URLs map onto the same site
    ]
    w = weight.page_weight(urls, site, base)
    assert w["by_kind"] == {"html": 1006, "css": 2000, "js": 3050, "data": 100, "fonts": 400,
                            "images": 60, "other": 0}
    assert w["bytes"] == 1006 + 2000 + 3050 + 100 + 400 + 60
    assert 0 < w["gzip_bytes"] < w["bytes"]
    assert [f["file"] for f in w["files"]][:2] == ["assets/javascripts/bundle.js", "assets/stylesheets/main.css"]
    assert not any("search_index" in f["file"] for f in w["files"])


def test_url_to_file_directory_urls(site):
    base = "http://127.0.0.1:1/"
    assert weight.url_to_file(base, site, base) == "index.html"
    assert weight.url_to_file(base + "sub/", site, base) == "sub/index.html"
    assert weight.url_to_file(base + "sub", site, base) == "sub/index.html"
    assert weight.url_to_file("http://127.0.0.1:2/index.html", site, base) is None  # another server
    assert weight.url_to_file("file:///elsewhere/index.html", site, base) is None


def test_largest_files(site):
    top = weight.largest_files(site, 3)
    assert [f["file"] for f in top] == ["search/search_index.js", "assets/javascripts/bundle.js",
                                        "assets/stylesheets/main.css"]


def test_judge_and_targets():
    assert render.judge("page_weight_kb", 399.9) == "pass"
    assert render.judge("page_weight_kb", 400) == "FAIL"
    assert render.judge("lighthouse_accessibility", 100) == "pass"
    assert render.judge("lighthouse_accessibility", 99) == "FAIL"
    assert render.judge("external_requests", 0) == "pass"
    assert render.judge("demo_ready_ms", None) == "n/a"
    assert render.judge("no_such_figure", 3) == "n/a"
    assert render.target_text("tiny_model_kb", "KB") == "< 60 KB"


def _report(weight_kb, perf, result_weight):
    return {"meta": {"generated": "t", "site": "build/site", "lighthouse_presets": ["mobile"]},
            "pages": ["index.html"],
            "summary": [render.summary_row("page_weight_kb", "heaviest page weight", weight_kb, "KB", "index.html")],
            "lighthouse": {"presets": {"mobile": {"index.html": {
                "scores": {"performance": perf, "accessibility": 100, "best-practices": 96, "seo": 90},
                "failing": [{"category": "performance", "id": "largest-contentful-paint", "weight": 25,
                             "score": 0.8, "display": "2.9 s", "examples": []}]}}}},
            "weight": {"pages": {"index.html": {"bytes": int(weight_kb * 1000), "gzip_bytes": 1000,
                                                "by_kind": dict.fromkeys(weight.KINDS, 0), "files": []}},
                       "largest_files": [{"file": "a.js", "bytes": 5000}]},
            "axe": {"violations": [{"page": "index.html", "mode": "file", "id": "color-contrast",
                                    "impact": "serious", "nodes": 1, "targets": [".md-copyright"],
                                    "help": "contrast | ratio"}]},
            "external": {"requests": []},
            "demo_ready": {"pages": {"index.html": {"demos": 1, "served_ms": 120.5, "file_ms": 99.0,
                                                    "signal": "data-ready"}}},
            "notes": []}


def test_diff_reports():
    old, new = _report(390, 97, "pass"), _report(410, 93, "FAIL")
    new["demo_ready"]["pages"]["index.html"]["served_ms"] = None
    lines = render.diff_reports(old, new)
    text = "\n".join(lines)
    assert "page_weight_kb: 390 -> 410 (+20)" in text
    assert "lighthouse/mobile/index.html/performance: 97 -> 93 (-4)" in text
    assert "page_weight_kb: pass -> FAIL" in text
    assert "not measured this time (1): demo_ready/index.html/served_ms" in text
    assert render.diff_reports(new, new) == []
    json.dumps(new)  # the report stays JSON-serialisable


def test_render_markdown_tables():
    md = render.render_markdown(_report(410, 93, "FAIL"))
    assert md.startswith("# Quality report")
    assert "| heaviest page weight | 410 KB | < 400 KB | FAIL | index.html |" in md
    assert "| index.html | 93 | 100 | 96 | 90 | FAIL |" in md
    assert "| performance | largest-contentful-paint | 25 | 2.9 s | all 1 |" in md
    assert "contrast \\| ratio" in md  # pipes inside cells are escaped
    assert "| index.html | 1 | — | 120.5 | 99.0 | data-ready | pass |" in md
    assert "None, served or from file://" in md
    for line in md.splitlines():
        if line.startswith("|"):
            assert line.endswith("|")


def test_site_server_gzips_text_and_serves_404(site):
    with server.SiteServer(site) as base:
        req = urllib.request.Request(base + "assets/stylesheets/main.css", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req) as resp:
            assert resp.headers["Content-Encoding"] == "gzip"
            assert resp.headers["Cache-Control"] == "max-age=600"
            assert len(resp.read()) < 2000
        with urllib.request.urlopen(base + "index.html") as resp:  # no Accept-Encoding: plain
            assert resp.headers.get("Content-Encoding") is None
            assert len(resp.read()) == 1006
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(base + "nope.html")
        assert err.value.code == 404


def test_site_server_keeps_its_connection_open_as_github_pages_does(site):
    """HTTP/1.1 keep-alive: a page's files come over one connection, not a handshake each."""
    import http.client
    with server.SiteServer(site) as base:
        host, port = base.split("//")[1].rstrip("/").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        try:
            for path in ("/index.html", "/assets/stylesheets/main.css", "/nope.html", "/index.html"):
                conn.request("GET", path, headers={"Accept-Encoding": "gzip"})
                resp = conn.getresponse()
                resp.read()
                assert resp.version == 11, f"{path}: HTTP/{resp.version / 10}"
                assert not resp.will_close, f"{path}: the server closed the connection"
            sock = conn.sock
            conn.request("GET", "/index.html")
            conn.getresponse().read()
            assert conn.sock is sock  # the same connection throughout
        finally:
            conn.close()


def test_site_server_says_nothing_when_a_browser_drops_a_kept_connection(site, capsys):
    """A browser closing a kept-alive connection (Lighthouse's, at the end of each run) is not an error to print."""
    import socket
    import struct
    import time
    with server.SiteServer(site) as base:
        host, port = base.split("//")[1].rstrip("/").split(":")
        sock = socket.create_connection((host, int(port)), timeout=10)
        sock.sendall(b"GET /index.html HTTP/1.1\r\nHost: here\r\n\r\n")
        assert sock.recv(100).startswith(b"HTTP/1.1 200")
        time.sleep(0.2)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()  # a reset, not a polite close
        time.sleep(0.3)
    assert "Traceback" not in capsys.readouterr().err
