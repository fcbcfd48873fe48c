"""Where a real-model number comes from, as a footnote: a small marker in the text, one source line per section
or table.

  marker(wrapped)   what the pages' `status` filter prints beside a number: a placeholder holding the number's
                    status and its whole source (escaped), until the page's HTML is complete
  footnote(html)    on the page's HTML: numbers each distinct source of the page (in order of first use), turns
                    each placeholder into a superscript marker linking to its source (the status as a letter:
                    m measured, c computed, p published, cfg config, and the source's number), and writes one
                    source line after each table that holds markers and one at the end of each section (at
                    each <h2>) for the rest
The build checks that every marker resolves to a source line that names its whole source
(scripts/site/hooks/checks.py).
"""
from __future__ import annotations

import html
import re

WORDS = {"measured": "measured", "computed": "computed", "published": "published", "config": "from the model's config.json"}
LETTER = {"measured": "m", "computed": "c", "published": "p", "config": "cfg"}
PLACE = re.compile(r'<sup class="nt-cite-raw" data-status="([a-z]+)" data-source="([^"]*)"(?: data-href="([^"]*)")?></sup>')
SECTION = re.compile(r"(?=<h2[\s>])")
TABLE = re.compile(r"(<table[\s>].*?</table>)", re.S)


def _attr(text: str) -> str:
    """Escaped for HTML text and attributes alike; `|` too, since a marker often sits in a table cell."""
    return html.escape(text, quote=True).replace("|", "&#124;")


def marker(wrapped: dict) -> str:
    if not isinstance(wrapped, dict):
        raise ValueError(f"status: {wrapped!r} is not a number with a source (a real model's {{value, status, source}})")
    st = wrapped.get("status")
    if st not in WORDS:
        raise ValueError(f"status: this number is {st!r} (no value to show): {wrapped.get('source')}")
    href = ""
    if st == "published":
        href = f' data-href="sources.html#{_attr(wrapped.get("anchor", "published-gpt-2-measurements"))}"'
    return f'<sup class="nt-cite-raw" data-status="{st}" data-source="{_attr(str(wrapped.get("source", "")))}"{href}></sup>'


def status_text(status: str, source: str) -> str:
    """The words a source line gives one source (and the marker's title)."""
    return f"{WORDS[status]}: {source}"


class _Page:
    """Numbers the page's sources in order of first use; each source line gets its own ids."""

    def __init__(self) -> None:
        self.numbers: dict[tuple, int] = {}
        self.lines = 0

    def number(self, key: tuple) -> int:
        return self.numbers.setdefault(key, len(self.numbers) + 1)

    def rewrite(self, text: str, line_id: str, used: list) -> str:
        def one(m: re.Match) -> str:
            st, src, href = m.group(1), html.unescape(m.group(2)), html.unescape(m.group(3) or "")
            n = self.number((st, src, href))
            if (st, src, href, n) not in used:
                used.append((st, src, href, n))
            label = f"{LETTER[st]}{n}"
            return (f'<sup class="nt-cite nt-cite-{st}"><a href="#{line_id}-{n}" title="{_attr(status_text(st, src))}">'
                    f'<span class="nt-sr">source </span>{label}</a></sup>')
        return PLACE.sub(one, text)

    def line(self, used: list, line_id: str) -> str:
        if not used:
            return ""
        items = []
        for st, src, href, n in sorted(used, key=lambda u: u[3]):
            shown = f'<a href="{_attr(href)}">{_attr(src)}</a>' if href else _attr(src)
            items.append(f'<li class="nt-src nt-src-{st}" id="{line_id}-{n}"><span class="nt-cite nt-cite-{st}">'
                         f'{LETTER[st]}{n}</span> {_attr(WORDS[st])}: {shown}</li>')
        return f'\n<ul class="nt-sources" aria-label="Sources">{"".join(items)}</ul>\n'


def footnote(html_text: str) -> str:
    if "nt-cite-raw" not in html_text:
        return html_text
    page = _Page()
    out = []
    for si, section in enumerate(SECTION.split(html_text)):
        rest: list = []
        pieces = []
        for ti, piece in enumerate(TABLE.split(section)):
            if ti % 2:  # a table: its own source line right under it
                used: list = []
                line_id = f"nt-src-{si}-t{ti // 2}"
                pieces.append(page.rewrite(piece, line_id, used) + page.line(used, line_id))
            else:
                pieces.append(page.rewrite(piece, f"nt-src-{si}", rest))
        out.append("".join(pieces) + page.line(rest, f"nt-src-{si}"))
    return "".join(out)
