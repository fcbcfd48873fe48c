"""No table of the built site has an empty cell (issue 43 item 4: tokens.html's "Tokenization isn't magic."
row had no ids; the softmax table's sum row no division): every cell a reader meets says something. Reads
the built pages, the embed pages included."""
from __future__ import annotations

import html.parser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "build" / "site"


class _Cells(html.parser.HTMLParser):
    """Each table cell's text and whether it holds any element (a strip of coloured cells, a formula)."""

    def __init__(self):
        super().__init__()
        self.cells: list[tuple[str, bool]] = []
        self._open: list[list] = []

    def handle_starttag(self, tag, attrs):
        if tag in ("td", "th"):
            self._open.append(["", False])
        elif self._open:
            self._open[-1][1] = True

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._open:
            text, holds = self._open.pop()
            self.cells.append((text, holds))

    def handle_data(self, data):
        if self._open:
            self._open[-1][0] += data


def test_every_table_cell_of_every_page_says_something():
    pages = sorted(SITE.rglob("*.html"))
    if not pages:
        pytest.fail("build/site has no pages: run `make site` first", pytrace=False)
    empty = []
    for page in pages:
        parser = _Cells()
        parser.feed(page.read_text(encoding="utf-8"))
        empty += [str(page.relative_to(SITE)) for text, holds in parser.cells if not text.strip() and not holds]
    assert empty == [], f"pages with an empty table cell: {sorted(set(empty))}"
