"""MkDocs hook: each page's <script> tags from the demos its front matter names (scripts/site/demos.py).

A page lists `demos: [name, ...]`; this hook sets `page.meta["nt_scripts"]` to the bootstrap and every
script those demos need, in dependency order, for overrides/main.html to write; the container of a demo
listed as `later:NAME` gains data-later, the scripts docs/js/ui.js loads for it on demand. A front matter that
still lists `scripts:` by hand, a demo with no container (or a container with no listed demo), a need
that no script provides, or a script whose define() call is malformed fails the build with one line
naming the page and the script. A page whose numbers carry provenance marks also loads docs/js/marks.js. After the build, the copied scripts under the site's js/ lose their
whole-line comments (demos.blank_comments).
"""
from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # MkDocs loads hooks by path: make `scripts` importable from anywhere
    sys.path.insert(0, str(ROOT))

from scripts.site import demos  # noqa: E402

_scripts: dict[str, demos.Script] = {}
MARKS = "marks"  # docs/js/marks.js: the provenance marks' popovers and the auditor's view


_docs: list[Path] = []


def on_pre_build(config, **kwargs):
    _scripts.clear()
    _docs[:] = [Path(config["docs_dir"])]


def on_page_markdown(markdown, page, config, files, **kwargs):
    where = f"docs/{page.file.src_uri}"
    try:
        if "scripts" in page.meta:
            raise demos.ManifestError(f"{where}: front matter lists scripts: by hand; name the page's demos instead (demos: [name, ...])")
        listed = page.meta.get("demos") or []
        if not isinstance(listed, list):
            raise demos.ManifestError(f"{where}: demos: must be a list of demo names")
        demos.check_containers(where, listed, markdown)
        # a page whose numbers carry provenance marks (numbers.py ran first) loads their small script too
        extra = (MARKS,) if "nt-cite-raw" in markdown else ()
        if (listed or extra) and not _scripts:
            _scripts.update(demos.scan(_docs[0]))
        got = demos.plan(where, listed, _scripts, extra) if listed or extra else demos.Plan([], {})
        page.meta["nt_scripts"] = got.scripts
    except demos.ManifestError as e:
        raise PluginError(f"demo manifest: {e}") from None
    return demos.mark_later(markdown, got.later)


def on_post_build(config, **kwargs):
    for file in (Path(config["site_dir"]) / "js").rglob("*.js"):
        text = file.read_text(encoding="utf-8")
        blanked = demos.blank_comments(text)
        if blanked != text:
            file.write_text(blanked, encoding="utf-8")
