"""MkDocs hook: formulas become MathML at build time, so pages need no math script or font.

pymdownx.arithmatex (generic mode) leaves each formula as `<span class="arithmatex">\\(...\\)</span>`
or `<div class="arithmatex">\\[...\\]</div>`; this hook converts the LaTeX with the pure-Python
latex2mathml, and browsers render MathML natively (Chromium 109+, Firefox, Safari), offline, with
no JavaScript. A formula that fails to convert fails the build, naming the page. An inline formula and the
punctuation right after it stay on one line (a browser may break between a formula and its comma, and
", the causal mask" began a line).
"""
from __future__ import annotations

import html
import re

from latex2mathml.converter import convert
from mkdocs.exceptions import PluginError

FORMULA = re.compile(
    r'<(?P<tag>span|div) class="arithmatex">\s*\\(?P<open>[(\[])(?P<tex>.*?)\\(?P<close>[)\]])\s*</(?P=tag)>'
    r'(?P<after>[,.;:!?)\]’”]*)', re.S)

LEAKED = re.compile(r">\\[A-Za-z]+<")


def to_mathml(markup: str, where: str = "a page") -> str:
    """Replace every arithmatex formula in `markup` with MathML (display for \\[ \\], inline for \\( \\))."""
    def one(m: re.Match) -> str:
        tex = html.unescape(m.group("tex")).strip()
        display = "block" if m.group("open") == "[" else "inline"
        try:
            mathml = convert(tex, display=display)
        except Exception as exc:  # latex2mathml raises assorted types on unknown commands
            raise PluginError(f"{where}: cannot convert the formula {tex!r} to MathML ({exc!r})") from None
        if LEAKED.search(mathml):  # latex2mathml passes unknown commands through as text
            raise PluginError(f"{where}: the formula {tex!r} uses a command MathML conversion does not know")
        mathml = mathml.replace("<math ", f'<math aria-label="{html.escape(tex, quote=True)}" ', 1)
        after = m.group("after")
        if display == "block":
            return f'<div class="nt-math">{mathml}</div>{after}'
        return f'<span class="nt-nobr">{mathml}{after}</span>' if after else mathml

    return FORMULA.sub(one, markup)


def on_page_content(html_text: str, page, config, files) -> str:
    return to_mathml(html_text, page.file.src_path)
