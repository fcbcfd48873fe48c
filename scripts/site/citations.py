"""Where a real-model number comes from, said quietly: a thin mark on the number, a popover, and one closed
"Where these numbers come from" at the page's end.

  marker(wrapped, key)  what the pages' `status` filter prints after a number: a placeholder holding the
                        number's status, its whole source (escaped) and its data key, until the page's HTML is
                        complete
  footnote(html)        on the page's HTML: numbers each distinct source of the page (in order of first use) and
                        turns each placeholder into a mark: a small button (named "where this number comes
                        from", described by its popover) and the popover, which says the status, the source
                        and the data key and links to the source's line; then writes one closed <details>
                        ("Where these numbers come from") at the page's end, one line per source with its
                        label (m measured, c computed, p published, cfg config, and the source's number), its
                        status, its whole source and the data keys the page prints from it
The marks' script (docs/js/marks.js) opens a popover on tap and keeps the "auditor's view" (every mark's
label shown inline) across pages. The build checks that every mark resolves to a source line that names
its whole source (scripts/site/hooks/checks.py).
"""
from __future__ import annotations

import html
import re

WORDS = {"measured": "measured by this build", "computed": "computed by this build from a config or file",
         "published": "published", "config": "read from the model's config"}
LETTER = {"measured": "m", "computed": "c", "published": "p", "config": "cfg"}
PLACE = re.compile(r'\s*<sup class="nt-cite-raw" data-status="([a-z]+)" data-source="([^"]*)" data-key="([^"]*)"'
                   r'(?: data-href="([^"]*)")?></sup>')
WHERE = "nt-where"          # the <details> id; each source line is nt-where-N
TITLE = "Where these numbers come from"


def _attr(text: str) -> str:
    """Escaped for HTML text and attributes alike; `|` too, since a mark often sits in a table cell."""
    return html.escape(text, quote=True).replace("|", "&#124;")


def marker(wrapped: dict, key: str = "") -> str:
    if not isinstance(wrapped, dict):
        raise ValueError(f"status: {wrapped!r} is not a number with a source (a real model's {{value, status, source}})")
    st = wrapped.get("status")
    if st not in WORDS:
        raise ValueError(f"status: this number is {st!r} (no value to show): {wrapped.get('source')}")
    href = ""
    if st == "published":
        href = f' data-href="sources.html#{_attr(wrapped.get("anchor", "published-gpt-2-measurements"))}"'
    return (f'<sup class="nt-cite-raw" data-status="{st}" data-source="{_attr(str(wrapped.get("source", "")))}" '
            f'data-key="{_attr(key)}"{href}></sup>')


def status_text(status: str, source: str) -> str:
    """The words a source line gives one source, and its marks' popovers too (a source that already says
    "computed by this build from ..." is not prefixed with the same words again)."""
    if status == "computed" and source.startswith("computed by this build"):
        return source
    return f"{WORDS[status]}: {source}"


class _Page:
    """Numbers the page's sources in order of first use, and the data keys printed from each."""

    def __init__(self) -> None:
        self.numbers: dict[tuple, int] = {}
        self.keys: dict[int, list[str]] = {}
        self.marks = 0

    def mark(self, m: re.Match) -> str:
        st, src, key, href = m.group(1), html.unescape(m.group(2)), html.unescape(m.group(3)), html.unescape(m.group(4) or "")
        n = self.numbers.setdefault((st, src, href), len(self.numbers) + 1)
        keys = self.keys.setdefault(n, [])
        if key and key not in keys:
            keys.append(key)
        self.marks += 1
        pop = f"nt-mark-{self.marks}"
        label = f"{LETTER[st]}{n}"
        said = _attr(status_text(st, src)[:1].upper() + status_text(st, src)[1:])
        data = f' Data key: <code>{_attr(key)}</code>.' if key else ""
        # the button and its popover: hover and focus show it (CSS), a tap pins it (docs/js/marks.js)
        return (f'<span class="nt-mark nt-mark-{st}"><button type="button" class="nt-mark-btn" aria-expanded="false" '
                f'aria-controls="{pop}" aria-describedby="{pop}"><span class="nt-sr">where this number comes from</span>'
                f'<span class="nt-mark-label" aria-hidden="true">{label}</span></button>'
                f'<span class="nt-pop" id="{pop}"><span class="nt-pop-said">{said}</span>.{data} '
                f'<a href="#{WHERE}-{n}" class="nt-pop-link">All sources ({label})</a></span></span>')

    def details(self) -> str:
        items = []
        for (st, src, href), n in sorted(self.numbers.items(), key=lambda kv: kv[1]):
            shown = f'<a href="{_attr(href)}">{_attr(src)}</a>' if href else _attr(src)
            keys = ", ".join(f"<code>{_attr(k)}</code>" for k in self.keys.get(n, []))
            said = status_text(st, src)
            words = _attr(said[:len(said) - len(src)])
            items.append(f'<li class="nt-src nt-src-{st}" id="{WHERE}-{n}"><span class="nt-src-chip nt-src-chip-{st}">'
                         f'{LETTER[st]}{n}</span> <span class="nt-src-text">{words}{shown}</span>'
                         + (f'<span class="nt-src-keys"> (data {"keys" if "," in keys else "key"}: {keys})</span>' if keys else "")
                         + "</li>")
        return (f'\n<details class="nt-where" id="{WHERE}"><summary>{TITLE}</summary>\n'
                '<p>A number with a thin mark after it comes from a real model: hover, focus or tap the mark to see '
                'whether this build measured it, computed it from a config or file, or took it from a publication, '
                'and from where. The tiny model\'s numbers are all computed by this build.</p>\n'
                '<p class="nt-audit-row" hidden><button type="button" class="nt-audit" aria-pressed="false">'
                "Auditor's view: show every mark's label in the text</button></p>\n"
                f'<ul class="nt-sources" aria-label="Sources of this page\'s numbers">{"".join(items)}</ul>\n</details>\n')


def footnote(html_text: str) -> str:
    if "nt-cite-raw" not in html_text:
        return html_text
    page = _Page()
    text = PLACE.sub(page.mark, html_text)
    return text + page.details()
