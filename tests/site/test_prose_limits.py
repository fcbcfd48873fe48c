"""The build's limits on the prose a reader reads (scripts/site/prose.py, checked by scripts/site/hooks/checks.py
on each page's HTML): a sentence over 30 words, a main page over 900 words of prose and a main page that talks
of the build twice each fail the build in one line naming the page and the source line."""
from __future__ import annotations

from pathlib import Path

import pytest
from mkdocs.exceptions import PluginError

from scripts.site import prose
from scripts.site.hooks import checks

ROOT = Path(__file__).resolve().parents[2]
# 31 words; without its last word, 30
THIRTY_ONE = ("The cache keeps every key and value that the earlier steps of the loop computed, so each new "
              "step only computes the newest token's row and attends over all the rest.")


@pytest.fixture(scope="module")
def build():
    """A page's Markdown through the build's own steps: its checks, its numbers, Markdown to HTML with the
    site's extensions, its marks and formulas, then the checks on the HTML. Returns the error it fails with
    ("" when it passes) and the HTML the checks were given."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import File, Files
    from mkdocs.structure.pages import Page

    from scripts.site.hooks import math as math_hook
    from scripts.site.hooks import numbers

    config = load_config(str(ROOT / "mkdocs.yml"))

    def run(path: Path) -> tuple[str, str]:
        f = File(path.name, src_dir=str(path.parent), dest_dir=str(path.parent / "out"), use_directory_urls=False)
        files = Files([f])
        page = Page(None, f, config)
        page.read_source(config)
        html = ""
        try:
            checks.on_page_markdown(page.markdown, page, config, files)
            page.markdown = numbers.on_page_markdown(page.markdown, page, config, files)
            page.render(config, files)
            html = math_hook.on_page_content(numbers.on_page_content(page.content, page, config, files), page, config, files)
            checks.on_page_content(html, page, config, files)
        except PluginError as err:
            return str(err), html
        return "", html
    return run


def planted(tmp_path: Path, name: str, after: str | None, paragraphs: list[str]) -> tuple[Path, int]:
    """A copy of docs/<name> with the paragraphs inserted after the first line starting with `after` (at
    the page's end when None); returns the page and the line of the first one."""
    lines = (ROOT / "docs" / name).read_text(encoding="utf-8").rstrip("\n").split("\n")
    i = len(lines) - 1 if after is None else next(i for i, line in enumerate(lines) if line.startswith(after))
    new = [x for p in paragraphs for x in ("", p)] + [""]
    lines[i + 1:i + 1] = new
    page = tmp_path / name
    page.write_text("\n".join(lines), encoding="utf-8")
    return page, i + 3


def test_the_real_page_passes(build):
    assert build(ROOT / "docs" / "generation.md")[0] == ""


def test_a_planted_sentence_of_31_words_on_a_main_page_fails_the_build_naming_page_and_line(tmp_path, build):
    assert prose.words(THIRTY_ONE) == 31
    page, at = planted(tmp_path, "generation.md", "## Work that does not need redoing", [THIRTY_ONE])
    err, _ = build(page)
    assert f"generation.md: line {at}: a sentence of 31 words (over 30)" in err
    assert "\n" not in err
    thirty = THIRTY_ONE.replace(" all the rest.", " the rest.")
    assert prose.words(thirty) == 30
    page, _ = planted(tmp_path, "generation.md", "## Work that does not need redoing", [thirty])
    assert build(page)[0] == ""


def test_a_main_page_over_900_words_of_prose_fails_the_build_naming_page_and_line(tmp_path, build):
    err, html = build(ROOT / "docs" / "generation.md")
    assert err == ""
    here = sum(prose.words(b) for b in prose.prose_blocks(html))
    filler = [f"Paragraph {chr(97 + n // 26)}{chr(97 + n % 26)} of the planted text says again that a cache keeps keys and values."
              for n in range(1, 80)]
    need = (prose.MAIN_WORDS - here) // prose.words(filler[0]) + 1  # the paragraph that passes the limit
    page, at = planted(tmp_path, "generation.md", None, filler[:need])
    err, _ = build(page)
    assert f"generation.md: line {at + 2 * (need - 1)}: the page's prose passes 900 words here" in err
    assert "\n" not in err
    page, _ = planted(tmp_path, "generation.md", None, filler[:need - 1])
    assert "passes 900 words" not in build(page)[0]


def test_a_main_page_saying_build_twice_fails_and_a_shelf_page_may_run_to_1500_words():
    source = "---\ntitle: t\ndescription: d\n---\n\nThe model was built on a laptop.\n\nA second build followed.\n"
    html = "<p>The model was built on a laptop.</p><p>A second build followed.</p>"
    assert checks.prose_errors(html, source, "generation.md") == [
        "line 8: the prose says build or built 2 times (at most 1 on a main page): say what the reader sees; "
        "how a number is made belongs on the page “How every number is made”"]
    assert checks.prose_errors(html, source, "fast.md") == []
    body = "".join(f"<p>{' '.join(['word'] * 24)} end.</p>" for _ in range(60))  # 1,500 words
    assert checks.prose_errors(body, source, "fast.md") == []
    assert "passes 1500 words" in checks.prose_errors(body + "<p>One more.</p>", source, "fast.md")[0]
def test_prose_leaves_out_demos_tables_figures_closed_details_marks_and_counts_a_formula_as_a_word():
    html = ("<p>One two three.</p><div class='nt-demo'><p>demo words</p></div>"
            "<table><tr><td>cell words</td></tr></table><figure><figcaption>caption words</figcaption></figure>"
            "<details><summary>folded</summary><p>folded words</p></details>"
            "<details open><summary>open</summary><p>open words</p></details>"
            "<p>A <span class='nt-mark'><button>m1</button><span class='nt-pop'>popover words</span></span>b "
            "<math><mi>x</mi><mo>=</mo><mn>2</mn></math> c.</p><ul><li>item<p>nested</p></li></ul><pre>code words</pre>")
    assert prose.prose_blocks(html) == ["One two three.", "open words", "A b x c.", "item", "nested"]
    assert prose.words("A b x c.") == 4


def test_sentences_end_at_stops_but_not_after_abbreviations_or_initials():
    text = "One sentence, e.g. with an example. Haviv et al. 2022 said so. J. Smith agrees! Does it? 7.6% stays."
    assert prose.sentences(text) == ["One sentence, e.g. with an example.", "Haviv et al. 2022 said so.",
                                     "J. Smith agrees!", "Does it?", "7.6% stays."]
