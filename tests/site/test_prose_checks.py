"""The build's checks on the pages' own text (scripts/site/hooks/checks.py).

Each check must fail on the fault it exists for (a typed number, front matter that is not YAML) and pass on
the real pages; the check of the source markers is tested in test_citations.py.
"""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from scripts.site.hooks import checks

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").glob("*.md"))
ALLOW = checks.load_allowlist()


def fake_page(path: Path) -> SimpleNamespace:
    return SimpleNamespace(file=SimpleNamespace(src_path=path.name, abs_src_path=str(path)))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_real_pages_pass_both_checks(page):
    assert checks.page_errors(page.read_text(encoding="utf-8"), page.name, ALLOW) == []


def test_a_planted_typed_number_fails_the_build_naming_page_and_line(tmp_path):
    source = (ROOT / "docs" / "sampling.md").read_text(encoding="utf-8")
    lines = source.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("## Softmax"))
    lines.insert(at + 2, "The tiny model has 58 tokens in its vocabulary.")
    page = tmp_path / "sampling.md"
    page.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(PluginError) as err:
        checks.on_page_markdown("", fake_page(page), {}, None)
    assert f"sampling.md: line {at + 3}: typed number `58`" in str(err.value)


def test_digits_outside_prose_and_allowlisted_ones_pass():
    body = "\n".join([
        "## Demo 7: a heading may count",
        "The model has [[ tiny.n_ctx ]] positions and [[ summary.picks[cfg.prompts[0]].prob | pct(2) ]].",
        "[% for i in range(3) %]x[% endfor %] and `wpe[8]` and \\(k = 40\\) and $$x^2$$",
        '<span title="id 42">·cat</span> ![a](figures/fig1.svg){ loading=lazy } [GPT-2](page2.md)',
        "1. A list item, published in 2019.",
        "```python\nprint(12)\n```",
    ])
    assert checks.prose_digits(body, ALLOW) == []


def test_allowlist_entries_need_a_reason(tmp_path):
    bad = tmp_path / "allow.yaml"
    bad.write_text('- text: "GPT-2"\n', encoding="utf-8")
    with pytest.raises(PluginError, match="reason"):
        checks.load_allowlist(bad)
    # and without the allowlist, a model's name with a digit is a typed number
    assert checks.prose_digits("GPT-2 small", []) != []


def test_front_matter_that_is_not_yaml_fails(tmp_path):
    page = tmp_path / "real-models.md"
    page.write_text("---\ntitle: Beside GPT-2\ndescription: Three sizes: tiny, small and SmolLM2.\n---\n\n# Beside\n",
                    encoding="utf-8")
    with pytest.raises(PluginError, match=r"real-models\.md: line 3: front matter is not YAML"):
        checks.on_page_markdown("", fake_page(page), {}, None)


@pytest.mark.parametrize("front, why", [
    ("title: Only a title", "`description` is missing"),
    ("title: T\ndescription: ''", "`description` is missing"),
    ("- a list", "not a mapping"),
])
def test_front_matter_needs_title_and_description(front, why):
    assert any(why in e for e in checks.front_matter_errors(f"---\n{front}\n---\nbody\n"))


def test_a_page_without_front_matter_fails():
    assert checks.front_matter_errors("# Just a heading\n") != []
