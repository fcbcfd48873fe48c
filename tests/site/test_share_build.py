"""The site's version and "Cite this" (scripts/site/provenance.py), the embed pages the share hook writes, the
theme's palette rule it keys to our own attribute, Markdown's tables written as the theme would rewrite them, and
our stylesheets as one file (scripts/site/hooks/share.py)."""
from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

from mkdocs.exceptions import PluginError

from scripts.site.hooks.share import (MD_TABLE, SITE_CSS, TABLE_RULE, TABLE_RULE_TOO, containers, quiet_palette_switch,
                                      tables_styled_with_a_class, wrapped_tables)
from scripts.site.provenance import provenance

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"


def test_the_version_is_the_content_hash_of_site_data_and_changes_with_it(tmp_path):
    (tmp_path / "manifest.json").write_bytes((ROOT / "site_data" / "manifest.json").read_bytes())
    first = provenance(tmp_path)
    assert first == provenance(tmp_path) and re.fullmatch(r"[0-9a-f]{12}", first["version"])
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", first["date"])
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    stage = next(iter(manifest["stages"].values()))
    path = next(iter(stage["outputs"]))
    stage["outputs"][path] = "0" * 64
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert provenance(tmp_path)["version"] != first["version"]


def _built(name: str) -> str:
    if not (SITE / name).is_file():
        pytest.fail(f"build/site/{name} not found: build the site first (`make site`)", pytrace=False)
    return (SITE / name).read_text(encoding="utf-8")


def test_the_bibtex_on_the_sources_page_parses_and_names_the_sites_version_and_date():
    from pybtex.database import parse_string

    page = _built("sources.html")
    block = re.search(r'<div class="nt-howtocite">.*?<code>(.*?)</code>', page, re.S)
    assert block, "no Cite this block on sources.html"
    text = html.unescape(re.sub(r"<[^>]+>", "", block.group(1)))
    entries = parse_string(text, "bibtex").entries
    assert len(entries) == 1
    (key, entry), = entries.items()
    want = provenance(ROOT / "site_data")
    assert entry.type == "misc" and key == f"nexttoken_{want['version']}"
    assert entry.fields["version"] == want["version"] and entry.fields["date"] == want["date"]
    assert want["title"] in entry.fields["title"]
    assert want["plain"] in html.unescape(re.sub(r"<[^>]+>", "", page))


def test_every_page_names_the_sites_version_for_links_and_downloads():
    want = provenance(ROOT / "site_data")["version"]
    for page in sorted(SITE.glob("*.html")):
        assert f'<meta name="nt-version" content="{want}"' in page.read_text(encoding="utf-8"), page.name


def test_containers_are_cut_whole_with_their_nested_divs():
    page = ('<p>x</p><div class="nt-demo" data-demo="a" data-later="ui"><div class="nt-fallback"><div>in</div></div></div>'
            '<div class="nt-demo" data-demo="b"></div><div>after</div>')
    got = containers(page)
    assert [d for d, _ in got] == ["a", "b"]
    assert got[0][1].endswith("<div>in</div></div></div>") and "after" not in got[1][1]


def test_each_demo_has_an_embed_page_with_its_fallback_scripts_styles_and_no_navigation():
    demos = sorted({d for p in SITE.glob("*.html") for d in re.findall(r'data-demo="([a-z0-9-]+)"', p.read_text(encoding="utf-8"))})
    assert demos
    for demo in demos:
        text = _built(f"embed/{demo}.html")
        assert f'data-demo="{demo}"' in text and "data-later" not in text
        assert "md-header" not in text and "md-sidebar" not in text and "md-nav" not in text
        for src in re.findall(r'<script src="([^"]+)"', text):
            assert (SITE / "embed" / src).resolve().is_file(), (demo, src)
        assert f'src="../js/demos/{demo}.js"' in text
        sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)"', text)
        assert any("assets/stylesheets/main." in h for h in sheets) and "../css/site.css" in sheets, (demo, sheets)
        for href in sheets:
            assert (SITE / "embed" / href).resolve().is_file(), (demo, href)


def test_each_embed_page_names_the_sites_icon_so_no_browser_asks_for_a_missing_favicon():
    pages = sorted((SITE / "embed").glob("*.html"))
    assert pages, "no embed pages in build/site (run `make site`)"
    for page in pages:
        icons = re.findall(r'<link rel="icon" href="([^"]+)"', page.read_text(encoding="utf-8"))
        assert len(icons) == 1 and (page.parent / icons[0]).resolve().is_file(), (page.name, icons)


def test_the_palette_rule_is_keyed_to_our_attribute_and_a_theme_without_it_stops_the_build(tmp_path):
    built = sorted((SITE / "assets" / "stylesheets").glob("palette.*.min.css"))
    assert len(built) == 1 and "[data-md-color-switching]" not in built[0].read_text() and "[data-nt-switching]" in built[0].read_text()
    sheets = tmp_path / "assets" / "stylesheets"
    sheets.mkdir(parents=True)
    sheet = sheets / "palette.0.min.css"
    sheet.write_text("a{color:red}[data-md-color-switching] *,[data-md-color-switching] :after{transition-duration:0s!important}")
    quiet_palette_switch(tmp_path)
    assert sheet.read_text() == "a{color:red}[data-nt-switching] *,[data-nt-switching] :after{transition-duration:0s!important}"
    with pytest.raises(PluginError, match="no \\[data-md-color-switching\\] rule"):
        quiet_palette_switch(tmp_path)  # already keyed: a theme whose stylesheet lost the rule is named, not passed over
    sheet.unlink()
    with pytest.raises(PluginError, match="found 0"):
        quiet_palette_switch(tmp_path)


def test_markdown_tables_are_written_wrapped_and_a_table_inside_one_is_left_as_it_is():
    table = '<table><tr><td><table class="x"><tr><td>1</td></tr></table></td></tr></table><p>after</p><table>\n</table>'
    wrapped = wrapped_tables(table)
    opened = f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="{MD_TABLE}">'
    assert wrapped == (f'{opened}<tr><td><table class="x"><tr><td>1</td></tr></table></td></tr></table></div></div>'
                       f'<p>after</p>{opened}\n</table></div></div>')
    assert wrapped_tables(wrapped) == wrapped  # a wrapped table has a class: nothing to do twice


def test_no_page_leaves_a_table_for_the_themes_bundle_to_move_and_the_themes_table_rules_hold_for_ours(tmp_path):
    """The bundle moves every table without a class into its scrolling box once the page has loaded: a new layout of
    each, in the task after the first paint (share.py says what it cost). Every page's tables are written there."""
    pages = sorted(SITE.glob("*.html")) + sorted(SITE.glob("embed/*.html"))
    counted = 0
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "<table>" not in text, page.name
        counted += text.count(f'<table class="{MD_TABLE}">')
        assert text.count(f'<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table class="{MD_TABLE}">') \
            == text.count(f'<table class="{MD_TABLE}">'), page.name
    assert counted > 30, counted
    built = sorted((SITE / "assets" / "stylesheets").glob("main.*.min.css"))
    assert len(built) == 1
    theme = built[0].read_text(encoding="utf-8")
    assert TABLE_RULE not in theme.replace(TABLE_RULE_TOO, "") and theme.count(TABLE_RULE_TOO) > 10
    assert TABLE_RULE not in (SITE / SITE_CSS).read_text(encoding="utf-8").replace(f"table:is(:not([class]), .{MD_TABLE})", "")
    sheets = tmp_path / "assets" / "stylesheets"
    sheets.mkdir(parents=True)
    (sheets / "main.0.min.css").write_text(".md-typeset table:not([class]) th{font-weight:700}")
    tables_styled_with_a_class(tmp_path)
    assert (sheets / "main.0.min.css").read_text() == f".md-typeset {TABLE_RULE_TOO} th{{font-weight:700}}"
    with pytest.raises(PluginError, match="no table:not"):
        tables_styled_with_a_class(tmp_path)  # a theme whose stylesheet lost the rule is named, not passed over


def test_every_page_loads_our_stylesheets_as_one_file_in_mkdocs_yml_order():
    from mkdocs.utils.yaml import yaml_load  # mkdocs.yml's !ENV tags

    listed = yaml_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["extra_css"]
    assert listed and all(name.startswith("css/") for name in listed), listed
    text = (SITE / SITE_CSS).read_text(encoding="utf-8")
    at = [text.index(f"/* {name} */\n" + (ROOT / "docs" / name).read_text(encoding="utf-8")) for name in listed]
    assert at == sorted(at) and at[0] == 0, at
    pages = [p for p in SITE.rglob("*.html") if "<head" in p.read_text(encoding="utf-8")]
    assert len(pages) > 40
    for page in pages:
        sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page.read_text(encoding="utf-8"))
        ours = [h for h in sheets if "/css/" in "/" + h and "explainers.css" not in h]
        # relative from its folder; 404.html, served for any path, names it from the site's root
        want = "/" + SITE_CSS if page.name == "404.html" else "../" * (len(page.relative_to(SITE).parts) - 1) + SITE_CSS
        assert ours == [want], (page.relative_to(SITE), sheets)
