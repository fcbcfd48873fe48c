"""The MathML hook: arithmatex's LaTeX becomes MathML, and a bad formula fails the build."""
from __future__ import annotations

import pytest
from mkdocs.exceptions import PluginError

from scripts.site.hooks.math import to_mathml


def test_inline_and_display_formulas_become_mathml():
    html = ('<p>see <span class="arithmatex">\\(q_i \\cdot k_j\\)</span></p>'
            '<div class="arithmatex">\\[s = \\frac{a}{\\sqrt{d}} &lt; 1\\]</div>')
    out = to_mathml(html)
    assert "arithmatex" not in out
    assert out.count("<math") == 2
    assert 'display="inline"' in out and 'display="block"' in out
    assert "<mfrac>" in out and "<msqrt>" in out
    assert 'aria-label="s = \\frac{a}{\\sqrt{d}} &lt; 1"' in out


def test_an_inline_formula_keeps_its_punctuation_on_its_line():
    out = to_mathml('<p><span class="arithmatex">\\(-\\infty\\)</span>, the <em>causal mask</em></p>')
    assert out.startswith('<p><span class="nt-nobr"><math ') and out.endswith('</math>,</span> the <em>causal mask</em></p>')
    assert to_mathml('<p>a <span class="arithmatex">\\(x\\)</span> b</p>').count("nt-nobr") == 0


def test_text_without_formulas_is_untouched():
    html = "<p>no math here: $5 and \\(not in a span\\)</p>"
    assert to_mathml(html) == html


@pytest.mark.parametrize("tex", ["\\foo x", "{", "\\sqrt"])
def test_a_formula_that_cannot_convert_names_the_page(tex):
    with pytest.raises(PluginError, match="attention.md"):
        to_mathml(f'<span class="arithmatex">\\({tex}\\)</span>', "attention.md")
