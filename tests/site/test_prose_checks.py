"""The build's checks on the pages' own text (scripts/site/hooks/checks.py).

Each check must fail on the fault it exists for (a typed number, front matter that is not YAML) and pass on
the real pages; the check of the source markers is tested in test_citations.py.
"""
from __future__ import annotations

import json
import re
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


def planted(tmp_path, name: str, after: str, text: str, replace: tuple[str, str] | None = None) -> tuple[Path, int]:
    """A copy of docs/<name> with `text` inserted as its own paragraph after the first line starting
    with `after` (or one replacement made); returns the page and the planted line's number."""
    source = (ROOT / "docs" / name).read_text(encoding="utf-8")
    if replace:
        assert replace[0] in source
        source = source.replace(replace[0], replace[1], 1)
        at = source[:source.index(replace[1])].count("\n") + 1
    else:
        lines = source.split("\n")
        i = next(i for i, line in enumerate(lines) if line.startswith(after))
        lines[i + 1:i + 1] = ["", text, ""]
        source, at = "\n".join(lines), i + 3
    page = tmp_path / name
    page.write_text(source, encoding="utf-8")
    return page, at


def build_fails(page: Path) -> str:
    with pytest.raises(PluginError) as err:
        checks.on_page_markdown("", fake_page(page), {}, None)
    return str(err.value)


def test_a_digit_inside_a_formula_fails_the_build(tmp_path):
    page, at = planted(tmp_path, "sampling.md", "## Top-k and top-p", "The paper's \\(k = 40\\) cut the tail.")
    assert f"sampling.md: line {at}: typed number `40` inside the formula" in build_fails(page)
    # a formula's structure passes: sums from 1, weights from 0 to 1, squares, values from the data
    assert checks.hidden_digits("\\(\\sum_{i=1}^{N} w_i = 1\\), \\(x^2\\), \\(T = [[ t ]]\\)", ALLOW) == []


def test_a_digit_inside_a_template_string_fails_the_build(tmp_path):
    page, at = planted(tmp_path, "index.md", "## The pass in one line", '[[ "about 40 GB of text" ]] went in.')
    assert f'index.md: line {at}: typed number `40` inside the template string "about 40 GB of text"' in build_fails(page)


def test_a_model_number_without_its_status_fails_the_build(tmp_path):
    page, at = planted(tmp_path, "block.md", "## Layers", "GPT-2 has [[ gpt2.config.n_layer.value ]] blocks.")
    assert f"block.md: line {at}: model number [[ gpt2.config.n_layer.value ]] printed without its status" in build_fails(page)
    # through a [% set %] name, and in SmolLM2's stored distributions, too
    numbers = checks.ModelNumbers()
    body = "[% set gc = gpt2.config %]\nIt has [[ gc.n_embd.value ]] numbers.\n\nTop: [[ smollm2_dist.cat.head.probs[0] | pct ]]."
    assert [e.split(":")[0] for e in checks.status_errors(body, numbers)] == ["line 2", "line 4"]
    # with a badge of the same source in its paragraph it passes; a badge of another source does not cover it
    assert checks.status_errors("[[ gpt2.config.n_layer.value ]] [[ gpt2.config.n_head | status ]]", numbers) == []
    assert checks.status_errors("[[ gpt2.config.n_layer.value ]] [[ gpt2.top_bars | status ]]", numbers) != []
    # text from the data (a token, a file name) is not a number
    assert checks.status_errors("`[[ gpt2.capital_top.value.token | show ]]`, [[ smollm2.provenance.weights_file ]]", numbers) == []


def test_two_counting_bases_on_one_page_fail_the_build(tmp_path):
    # the attention page counts heads from one; a head counted from zero on it fails
    page, at = planted(tmp_path, "attention.md", "## Score, mask, softmax, mix", "The subject head is head [[ sh ]].")
    message = build_fails(page)
    assert f"attention.md: line {at}: heads are counted from 1 on line" in message and "and from 0 here" in message
    # a table column counts too: snapshots from zero in a table, from one in the prose
    body = "Snapshot [[ n + 1 ]] is the last.\n\n| snapshot | step |\n|---|---|\n| [[ loop.index0 ]] | [[ s.step ]] |"
    assert checks.counting_errors(body) == ["line 5: snapshots are counted from 1 on line 1 and from 0 here; "
                                            "count each from one base on a page"]


def test_a_description_that_would_be_cut_by_its_quotes_fails_the_build(tmp_path):
    page, _ = planted(tmp_path, "attention.md", "", "", replace=(
        "How the last token of “the cat sat on the” finds the cat.", 'How the last token of "the cat sat on the" finds the cat.'))
    assert 'attention.md: line 3: the description holds "' in build_fails(page)


def test_a_prompt_label_its_bars_contradict_fails_the_build(tmp_path, monkeypatch):
    config = json.loads(checks.LABELS.read_text(encoding="utf-8"))
    for p in config["prompts"]:
        if p["key"] == "open":
            p["shape"] = "an open continuation: a flat distribution"
    bad = tmp_path / "real_prompts.json"
    bad.write_text(json.dumps(config, indent=1), encoding="utf-8")
    line = next(i for i, t in enumerate(bad.read_text().split("\n"), 1) if '"open"' in t)
    monkeypatch.setattr(checks, "LABELS", bad)
    with pytest.raises(PluginError, match=rf"real_prompts.json: line {line}: the label “an open continuation: a flat "
                                          r"distribution” of prompt 'open' claims a spread distribution, but its measured bars are leaning"):
        checks.on_pre_build({})
    monkeypatch.undo()
    checks.on_pre_build({})  # the real labels agree with their bars


def test_the_table_of_demos_lists_every_demo_of_every_page():
    """The landing page's table is read from the pages: every data-demo container appears under its page."""
    from scripts.site.demo_table import demo_table, page_demos
    assert page_demos('## Demo: one token { #d }\n<div class="nt-demo" data-demo="one-token" markdown>\n'
                      '## Which rows are alike\n<div class="nt-demo" data-demo="embeddings">') == [
        {"demo": "one-token", "heading": "one token"}, {"demo": "embeddings", "heading": "which rows are alike"}]
    table = demo_table(ROOT / "docs", ROOT / "mkdocs.yml")
    listed = {(p["page"], d["demo"]) for p in table for d in p["demos"]}
    in_pages = {(p.name, m) for p in PAGES for m in re.findall(r'data-demo="([a-z0-9-]+)"', p.read_text(encoding="utf-8"))}
    assert listed == in_pages and ("embeddings.md", "embeddings") in listed and ("real-models.md", "real-distribution") in listed
    built = ROOT / "build" / "site" / "index.html"
    if not built.is_file():
        pytest.fail("build/site is missing: run `make site` first", pytrace=False)
    text = built.read_text(encoding="utf-8")
    for page in table:
        if page["demos"]:
            assert f'href="{page["page"].replace(".md", ".html")}"' in text, page["page"]


def test_a_status_mark_standing_for_a_word_fails_the_build(tmp_path):
    page, at = planted(tmp_path, "sampling.md", "## Top-k and top-p", "Every number in this table is [[ smollm2.top_bars | status ]].")
    assert f"sampling.md: line {at}: a status mark stands where a word is needed" in build_fails(page)
    # two marks joined by "and" (through a loop), and a mark at a paragraph's end, fail too
    body = "The first rows are [% for e in rows %][[ e.badge | status ]][% if not loop.last %] and [% endif %][% endfor %]\n\nNext."
    assert [e.split(":")[0] for e in checks.status_word_errors(body)] == ["line 1"]
    # a mark after the number it labels, with the status in words, passes
    assert checks.status_word_errors("The figures are published: [[ x.value ]] GB [[ x | status ]].") == []


@pytest.mark.parametrize("typed, phrase", [("The two heads split the work.", "two heads"),
                                           ("The first two rows are published.", "first two rows")])
def test_a_count_typed_as_a_word_where_the_data_has_it_fails_the_build(tmp_path, typed, phrase):
    page, at = planted(tmp_path, "block.md", "## Layers", typed)
    assert f"block.md: line {at}: the count “{phrase}” is typed as a word" in build_fails(page)
    # in a figure's caption (a template string) too; a count the data does not hold passes ("two rows" compared)
    counts = {"heads": [("tiny.n_head", 2)]}
    assert checks.count_word_errors('[[ figure("x", "The tiny model\'s two heads.") ]]', counts)[0].startswith("line 1: the count “two heads”")
    assert checks.count_word_errors("Compare two rows; the three heads of another model.", counts) == []
    assert checks.count_word_errors("The [[ tiny.n_head ]] heads split the work.", counts) == []
