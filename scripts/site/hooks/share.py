"""MkDocs hook: the site's version for links and downloads, and each demo's page to embed.

The version and date (scripts/site/provenance.py) go to `config.extra.nt_version` / `nt_built`, which
overrides/main.html writes as <meta name="nt-version">, read by js/ui/permalink.js and js/ui/export.js.
The faces' @font-face rules (scripts/site/vendor.py's fonts.css) go to `config.extra`, which main.html and
embed.html write inline in the head (a stylesheet of their own would be one more request before a page's
first paint): the stand-ins (local() faces sized as ours) as they are, in `nt_font_stand_ins`; our faces
(url()s) in `nt_font_faces`, written under media="print" and switched on by `nt_faces_on` once the page
has painted its first text. Their files then load after the first paint, never ahead of it: on a phone's
line 110 KB of faces held the first paint 0.7 s, the stand-ins drawing the same lines (STYLE.md, Type).
Each demo's container, as its first page in the nav renders it (its static fallback included), is kept;
after the build every one is written to embed/<demo>.html through overrides/embed.html: the demo alone,
with the theme's colours and the scripts it needs (scripts/site/demos.py), nothing else.
Material's palette stylesheet turns transitions off while `data-md-color-switching` is on <body>; its
script set that attribute on every page load too, and a rule under an attribute of <body> makes the
browser restyle the whole page. The built stylesheet keys the rule to `data-nt-switching` instead, which
our palette switch (overrides/partials/javascripts/palette.html) sets only while the reader switches.
Our stylesheets (mkdocs.yml's extra_css, one file per concern) reach the pages as one file, css/site.css,
in the same order: each file is one more request ahead of a page's first paint.
Markdown's tables are written in the theme's scrolling box, with a class, so the theme's bundle does not move
each one there after the first paint; its stylesheet's rules for a table without a class hold for that class.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:  # MkDocs loads hooks by path: make `scripts` importable from anywhere
    sys.path.insert(0, str(ROOT))

from scripts.site import demos  # noqa: E402
from scripts.site.provenance import provenance  # noqa: E402

OPEN = re.compile(r'<div class="nt-demo" data-demo="([a-z0-9-]+)"[^>]*>')
TAG = re.compile(r"<(/?)div\b[^>]*>")
RELATIVE = re.compile(r'\b(src|href)="(?![a-z]+:|#|/)([^"]+)"')
LATER = re.compile(r' data-later="[^"]*"')

_found: dict[str, dict] = {}


def containers(html: str) -> list[tuple[str, str]]:
    """Each demo container in a page's HTML, whole (nested <div>s balanced): [(demo, html)]."""
    out = []
    for m in OPEN.finditer(html):
        depth = 0
        for t in TAG.finditer(html, m.start()):
            depth += -1 if t.group(1) else 1
            if depth == 0:
                out.append((m.group(1), html[m.start():t.end()]))
                break
    return out


# Our faces on (the <style id="nt-faces"> the templates write) once the page has drawn something a reader sees
# (its first contentful paint): in Lighthouse's model of a phone, a file that finished before that paint held it
# up. An embed page's first frame can be blank (its demo drawn when its data arrive), and a frame then a task
# came before its first text. Where the browser does not report paints, a frame then a task; at the latest, a
# frame after the page has loaded. <html data-nt-faces> says it is done.
FACES_ON = ("(function () { var done = false; function on() { if (done) return; done = true;"
            " document.getElementById('nt-faces').media = 'all'; document.documentElement.setAttribute('data-nt-faces', ''); }"
            " function soon() { if (window.requestAnimationFrame) requestAnimationFrame(function () { setTimeout(on, 0); }); else on(); }"
            " var types = window.PerformanceObserver && PerformanceObserver.supportedEntryTypes;"
            " if (types && types.indexOf('paint') >= 0) new PerformanceObserver(function (list, seen) {"
            " if (list.getEntriesByName('first-contentful-paint').length) { seen.disconnect(); setTimeout(on, 0); } })"
            ".observe({ type: 'paint', buffered: true });"
            " else soon();"
            " addEventListener('load', soon); })();")


def font_faces(css: Path) -> tuple[str, str]:
    """fonts.css's rules on one line each, comments out: (our faces, the stand-ins). Our faces' url()s
    name files beside fonts.css, and the templates put the path to that folder in front."""
    try:
        text = css.read_text(encoding="utf-8")
    except OSError:
        raise PluginError(f"share hook: {css.relative_to(ROOT)} not found: run `python -m scripts.site.vendor` "
                          "(`make site` does)") from None
    rules = re.findall(r"@font-face\s*{[^}]*}", re.sub(r"/\*.*?\*/", "", text, flags=re.S))
    if not rules:
        raise PluginError(f"share hook: {css.relative_to(ROOT)} holds no @font-face rule: run `python -m scripts.site.vendor`")
    rules = [re.sub(r"\s*\n\s*", " ", r) for r in rules]
    ours, stand_ins = [r for r in rules if "url(" in r], [r for r in rules if "url(" not in r]
    if not ours or not stand_ins:
        raise PluginError(f"share hook: {css.relative_to(ROOT)} needs our faces (url()) and their stand-ins (local()):"
                          " run `python -m scripts.site.vendor`")
    return "\n".join(ours), "\n".join(stand_ins)


SITE_CSS = "css/site.css"
_sheets: list[str] = []  # extra_css as mkdocs.yml lists it, joined into SITE_CSS


def on_config(config, **kwargs):
    if list(config["extra_css"]) != [SITE_CSS]:  # `mkdocs serve` may hand the same config back
        _sheets[:] = [str(c) for c in config["extra_css"]]
        config["extra_css"] = [SITE_CSS]
    try:
        prov = provenance(ROOT / "site_data")
    except (OSError, ValueError, KeyError) as exc:
        raise PluginError(f"share hook: site_data/manifest.json gives no version ({exc!r}): run `make data`") from None
    config["extra"]["nt_version"] = prov["version"]
    config["extra"]["nt_built"] = prov["date"]
    faces, stand_ins = font_faces(Path(config["docs_dir"]) / "assets" / "vendor" / "fonts" / "fonts.css")
    config["extra"].update(nt_font_faces=faces, nt_font_stand_ins=stand_ins, nt_faces_on=FACES_ON)
    _found.clear()
    return config


# Markdown's tables, written as the theme's bundle would rewrite them. When a page has loaded, the bundle moves
# every table without a class into two <div>s (the box that scrolls it sideways): each table leaves the page's
# layout and comes back, every cell styled and laid out again, in the task after the first paint that
# Lighthouse counts (real-models.html, five tables: total blocking time 250-380 ms with it, 75-156 ms without,
# three runs each). Written wrapped, with a class (the bundle leaves a table with a class alone), and the
# theme's rules for a table without a class made to hold for that class too (TABLE_RULE, after the build).
MD_TABLE, TABLE_TAG = "nt-md-table", re.compile(r"<table>|<table\b[^>]*>|</table>")
TABLE_RULE, TABLE_RULE_TOO = "table:not([class])", f"table:is(:not([class]),.{MD_TABLE})"


def wrapped_tables(html: str) -> str:
    """Each <table> without attributes wrapped as the theme wraps it and given MD_TABLE (nested tables kept)."""
    out, at, mine = [], 0, []
    for m in TABLE_TAG.finditer(html):
        out.append(html[at:m.start()])
        tag = m.group(0)
        if tag == "<table>":
            mine.append(True)
            tag = f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="{MD_TABLE}">'
        elif tag.startswith("<table"):
            mine.append(False)
        elif mine and mine.pop():
            tag = "</table></div></div>"
        out.append(tag)
        at = m.end()
    out.append(html[at:])
    return "".join(out)


def theme_sheet_rewritten(site: Path, pattern: str, old: str, new: str, check: str) -> None:
    """The theme's one stylesheet named `pattern` with `old` written as `new`; a sheet without `old` stops the
    build, naming what to check against the theme (its rule is gone or renamed)."""
    sheets = sorted((site / "assets" / "stylesheets").glob(pattern))
    if len(sheets) != 1:
        raise PluginError(f"share hook: expected one {pattern} from the theme, found {len(sheets)}")
    text = sheets[0].read_text(encoding="utf-8")
    if old not in text:
        raise PluginError(f"share hook: {sheets[0].name} has no {old} rule any more: check {check} against this theme version")
    sheets[0].write_text(text.replace(old, new), encoding="utf-8")


def tables_styled_with_a_class(site: Path) -> None:
    """The theme's stylesheet: its rules for a table without a class hold for MD_TABLE too (same specificity)."""
    theme_sheet_rewritten(site, "main.*.min.css", TABLE_RULE, TABLE_RULE_TOO, "the theme's tables and wrapped_tables")


def on_page_content(html, page, config, files, **kwargs):
    html = wrapped_tables(html)
    for demo, box in containers(html):
        if demo not in _found:  # the first page in the nav that shows it
            _found[demo] = {"html": LATER.sub("", box), "page": page}
    return html


SWITCHING, OURS = "[data-md-color-switching]", "[data-nt-switching]"


def quiet_palette_switch(site: Path) -> None:
    """The palette stylesheet's no-transition rule under our own attribute (see the module's docstring)."""
    theme_sheet_rewritten(site, "palette.*.min.css", SWITCHING, OURS, "the palette switch (overrides/partials/javascripts/palette.html)")


def one_stylesheet(docs: Path, site: Path) -> None:
    """extra_css's files, in their order, as css/site.css (each headed by its name, for a reader of the CSS)."""
    try:
        parts = [f"/* {name} */\n" + (docs / name).read_text(encoding="utf-8") for name in _sheets]
    except OSError as exc:
        raise PluginError(f"share hook: a stylesheet of extra_css cannot be read ({exc})") from None
    (site / SITE_CSS).parent.mkdir(parents=True, exist_ok=True)
    (site / SITE_CSS).write_text("\n".join(parts), encoding="utf-8")


def on_post_build(config, **kwargs):
    site = Path(config["site_dir"])
    quiet_palette_switch(site)
    tables_styled_with_a_class(site)
    one_stylesheet(Path(config["docs_dir"]), site)
    scripts = demos.scan(Path(config["docs_dir"]))
    css = sorted(p.relative_to(site).as_posix() for p in (site / "assets" / "stylesheets").glob("*.min.css"))
    template = config["theme"].get_env().get_template("embed.html")
    (site / "embed").mkdir(exist_ok=True)
    for demo, found in sorted(_found.items()):
        try:
            plan = demos.plan(f"embed/{demo}.html", [demo], scripts)
        except demos.ManifestError as exc:
            raise PluginError(f"share hook: {exc}") from None
        page = found["page"]
        text = template.render(
            demo=demo, container=RELATIVE.sub(lambda m: f'{m.group(1)}="../{m.group(2)}"', found["html"]),
            # js/site.js too (extra_javascript): it lets the keyboard scroll a wide box
            scripts=["../" + s for s in plan.scripts] + ["../" + str(s) for s in config["extra_javascript"]],
            css=["../" + c for c in css] + ["../" + c for c in config["extra_css"]] + ["../css/explainers.css"],
            page_title=page.title, page_url="../" + page.url, config=config)
        (site / "embed" / f"{demo}.html").write_text(text, encoding="utf-8")
