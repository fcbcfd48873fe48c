"""A static server over build/site that, like GitHub Pages, gzips text, sends Cache-Control and keeps its
connections open (HTTP/1.1). Python's default, HTTP/1.0, opens a connection for every file: Lighthouse's
simulation then charges a handshake to each of a page's thirty-odd files, which no reader's browser pays
on GitHub Pages (HTTP/2, one connection)."""
from __future__ import annotations

import functools
import gzip
import http.server
import mimetypes
import os
import threading
from pathlib import Path
from typing import Any


# ---- the static server ---------------------------------------------------------------------------
class _Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: every response below says its length
    gzip_text = True
    _cache: dict[tuple[str, float], bytes] = {}

    def log_message(self, *args: Any) -> None:  # quiet
        pass

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):  # a browser closing a kept-alive connection: not an error
            pass

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "max-age=600")
        super().end_headers()

    def send_head(self):  # type: ignore[override]
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not self.path.split("?", 1)[0].endswith("/"):
                return super().send_head()  # redirect to the slash form
            path = os.path.join(path, "index.html")
        ctype = self.guess_type(path)
        if not os.path.isfile(path):
            page404 = os.path.join(self.directory, "404.html")
            body = Path(page404).read_bytes() if os.path.isfile(page404) else b"not found"
            self.send_response(404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            return _Body(body)
        body = Path(path).read_bytes()
        textual = ctype.startswith("text/") or ctype in ("application/javascript", "application/json",
                                                           "image/svg+xml", "application/xml")
        self.send_response(200)
        self.send_header("Content-Type", ctype + ("; charset=utf-8" if textual and "charset" not in ctype else ""))
        if self.gzip_text and textual and "gzip" in self.headers.get("Accept-Encoding", ""):
            key = (path, os.path.getmtime(path))
            if key not in self._cache:
                self._cache[key] = gzip.compress(body, compresslevel=6, mtime=0)
            body = self._cache[key]
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return _Body(body)


class _Body:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, *_: Any) -> bytes:
        data, self.data = self.data, b""
        return data

    def close(self) -> None:
        pass


class SiteServer:
    """`with SiteServer(site) as base:` serves `site` on 127.0.0.1; base ends with '/'."""

    def __init__(self, site: Path, gzip_text: bool = True) -> None:
        mimetypes.add_type("application/javascript", ".js")
        mimetypes.add_type("font/woff2", ".woff2")
        handler = functools.partial(type("H", (_Handler,), {"gzip_text": gzip_text}), directory=str(site))
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/"

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


