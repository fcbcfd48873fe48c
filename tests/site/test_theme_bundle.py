"""Every built page holds the theme's bundle back for the reader's first move (overrides/main.html and
overrides/partials/javascripts/bundle.html); the embed pages have no bundle at all."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

SITE = Path(__file__).resolve().parents[2] / "build" / "site"
BUNDLE = r'assets/javascripts/bundle\.[0-9a-f]+\.min\.js'


def _pages(pattern: str) -> list[Path]:
    pages = sorted(SITE.glob(pattern))
    if not pages:
        pytest.fail(f"build/site/{pattern} not found: build the site first (`make site`)", pytrace=False)
    return pages


def test_every_page_holds_the_themes_bundle_back_and_starts_it_itself():
    """One script tag of the bundle per page, of a type the browser neither fetches nor runs, and the script
    that starts it after it. Were the theme to write its tag another way, the page would load it at once:
    this fails first."""
    pages = _pages("*.html")
    assert len(pages) > 15
    for page in pages:
        text = page.read_text(encoding="utf-8")
        tags = re.findall(rf'<script[^>]*src="[^"]*{BUNDLE}"[^>]*>', text)
        assert len(tags) == 1 and tags[0].startswith('<script type="nt-later" src="'), (page.name, tags)
        held = text.index(tags[0])
        assert text.find("script[type=\"nt-later\"]", held) > held, page.name
        assert re.search(r'<script src="[^"]*js/site\.js">', text[held:]), page.name  # the site's own still runs at once


def test_the_embed_pages_have_no_bundle():
    for page in _pages("embed/*.html"):
        assert not re.search(BUNDLE, page.read_text(encoding="utf-8")), page.name
