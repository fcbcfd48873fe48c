"""What a benchmark needs before it starts (the built site, packages, chromium, node), checked up front:
one line naming what is missing and the command that provides it, exit status 2, never a traceback."""
from __future__ import annotations

import importlib.util
import os
import sys

from scripts.core.io import ROOT
from scripts.core.tools import find

# Which make target installs each package (the pipeline's are not installed by `make site`).
PROVIDES = {"torch": "make pipeline-deps", "transformers": "make pipeline-deps", "playwright": "make deps"}


def chromium_path() -> str | None:
    """NEXTTOKEN_CHROMIUM (a command or path), else chromium on PATH, else Debian's /usr/bin/chromium."""
    return find(os.environ.get("NEXTTOKEN_CHROMIUM", "chromium")) or find("/usr/bin/chromium")


def missing(site_page: str | None = None, modules: tuple[str, ...] = (), chromium: bool = False,
            node: bool = False) -> str | None:
    """The first thing missing, as the sentence to print, or None."""
    if site_page and not (ROOT / "build" / "site" / site_page).is_file():
        return f"build/site/{site_page} not found: run `make site` first"
    for name in modules:
        if importlib.util.find_spec(name) is None:
            return f"the Python package {name} is not installed: run `{PROVIDES.get(name, 'make deps')}` first (or `make bench`)"
    if chromium and chromium_path() is None:
        return ("chromium not found: install it with 'sudo apt-get install chromium' (`make bench` and `make test` "
                "install it where they can), or set NEXTTOKEN_CHROMIUM to it")
    if node and find("node") is None:
        return "node not found: install it with 'sudo apt-get install nodejs' (Node 20 or later)"
    return None


def require(who: str, **needs) -> None:
    why = missing(**needs)
    if why:
        print(f"{who}: {why}", file=sys.stderr)
        raise SystemExit(2)
