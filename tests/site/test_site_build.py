"""The pages' Jinja2 layer: every page renders from site_data with the published GPT-2 numbers and
with measured ones (SmolLM2's measurements standing in for a build that had GPT-2's weights), and an
undefined name fails loudly."""
from __future__ import annotations

import copy
from pathlib import Path

import jinja2
import pytest

from scripts.site.hooks import numbers

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(DOCS.glob("*.md"))


def body(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    if text.startswith("---\n"):
        text = text.split("\n---\n", 1)[1]
    return text


@pytest.fixture(scope="module")
def context():
    return numbers.build_context()


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_page_renders_published(context, path):
    out = numbers.make_env().from_string(body(path)).render(**context, page_meta={})
    assert "[[" not in out and "[%" not in out


@pytest.mark.parametrize("path", PAGES, ids=[p.name for p in PAGES])
def test_page_renders_measured(context, path):
    ctx = dict(context)
    measured = copy.deepcopy(ctx["smollm2"])
    for key in ("tokenizer", "released", "training_text_gb", "paper_top_k"):  # load_real_models adds these either way
        measured[key] = ctx["gpt2"][key]
    ctx["gpt2"] = measured
    out = numbers.make_env().from_string(body(path)).render(**ctx, page_meta={})
    assert 'sources.html#published-gpt-2-measurements"' not in out  # Llama 3 stays published: it is never run


def test_undefined_name_fails(context):
    with pytest.raises(jinja2.UndefinedError):
        numbers.make_env().from_string("[[ summary.no_such_number ]]").render(**context)


def test_filters():
    assert numbers.pct(0.665240956) == "67%"
    assert numbers.pct(0.0001, 1) == "under 0.1%"
    assert numbers.pct(0.999998, 1) == "over 99.9%"
    assert numbers.num(50257) == "50,257"
    assert numbers.show(" cat") == "·cat"
