"""Page weight and request classification: pure functions over the built site (tested in tests/quality/test_report.py)."""
from __future__ import annotations

import functools
import gzip
import urllib.parse
from pathlib import Path
from typing import Iterable

from scripts.quality.report.config import KINDS, LOCAL_HOSTS, LOCAL_SCHEMES, SEARCH_INDEX, _EXT_KIND

def classify_request(url: str) -> str:
    """'local' for file:/data:/blob:/about: URLs and 127.0.0.1/localhost, else 'external'."""
    parts = urllib.parse.urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme in LOCAL_SCHEMES:
        return "local"
    if scheme in ("http", "https", "ws", "wss") and (parts.hostname or "").lower() in LOCAL_HOSTS | {"::1"}:
        return "local"
    return "external"


def find_pages(site: Path) -> list[str]:
    """Every reader-facing HTML page of the site, relative and sorted (no 404, search, assets)."""
    pages = []
    for path in sorted(site.rglob("*.html")):
        name = path.relative_to(site).as_posix()
        top = name.split("/", 1)[0]
        if name == "404.html" or top in ("search", "assets") or name.startswith("js/"):
            continue
        pages.append(name)
    return pages


def url_to_file(url: str, site: Path, base: str | None) -> str | None:
    """The site-relative file that a local URL names, or None (data:, blob:, outside the site)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        path = Path(urllib.parse.unquote(parts.path))
        try:
            name = path.resolve().relative_to(site.resolve()).as_posix()
        except ValueError:
            return None
    elif parts.scheme in ("http", "https") and base and url.startswith(base):
        name = urllib.parse.unquote(parts.path).lstrip("/")
    else:
        return None
    if name == "" or name.endswith("/"):
        name += "index.html"
    elif (site / name).is_dir():
        name += "/index.html"
    return name


def kind_of(name: str) -> str:
    ext = Path(name).suffix.lower()
    if ext == ".js" and "/data/" in f"/{name}":
        return "data"  # generated data shipped as window.X = {...} scripts
    return _EXT_KIND.get(ext, "other")


@functools.lru_cache(maxsize=4096)
def _gzip_size(path: str, mtime: float, size: int) -> int:
    return len(gzip.compress(Path(path).read_bytes(), compresslevel=6, mtime=0))


def page_weight(urls: Iterable[str], site: Path, base: str | None = None) -> dict:
    """Bytes by kind of the distinct local files behind `urls`, search index excluded."""
    names = set()
    for url in urls:
        name = url_to_file(url, site, base)
        if name and not name.endswith(SEARCH_INDEX) and (site / name).is_file():
            names.add(name)
    by_kind = dict.fromkeys(KINDS, 0)
    files, total, gz = [], 0, 0
    for name in sorted(names):
        path = site / name
        st = path.stat()
        by_kind[kind_of(name)] += st.st_size
        total += st.st_size
        gz += _gzip_size(str(path), st.st_mtime, st.st_size)
        files.append({"file": name, "bytes": st.st_size})
    files.sort(key=lambda f: -f["bytes"])
    return {"bytes": total, "gzip_bytes": gz, "by_kind": by_kind, "files": files}


def largest_files(site: Path, n: int = 10) -> list[dict]:
    sizes = [(p.stat().st_size, p.relative_to(site).as_posix()) for p in site.rglob("*") if p.is_file()]
    return [{"file": name, "bytes": size} for size, name in sorted(sizes, key=lambda t: (-t[0], t[1]))[:n]]


