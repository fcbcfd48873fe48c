"""Where a real-model number comes from: a marker in the text, one source line per section or table, and the
build check that every marker resolves to a line naming its whole source."""
from __future__ import annotations

import html
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from scripts.real.page_variables import load_real_models
from scripts.site.citations import footnote, marker
from scripts.site.hooks import checks, numbers

ROOT = Path(__file__).resolve().parents[2]
QUOTED = 'engineering.fm, episode 02, "50,257 bars, one word" (2026; a | b <setup>)'


def page_of(*blocks: str) -> str:
    return footnote("\n".join(blocks))


def source_lines(text: str) -> list[list[str]]:
    return [[html.unescape(re.sub(r"<[^>]+>", "", li)) for li in re.findall(r"<li class=\"nt-src[^>]*>(.*?)</li>", ul)]
            for ul in re.findall(r'<ul class="nt-sources".*?</ul>', text, re.S)]


def test_markers_become_one_source_line_per_table_and_per_section():
    pub = marker({"value": 1, "status": "published", "source": QUOTED})
    meas = marker({"value": 2, "status": "measured", "source": "site_data/smollm2/measurements.json"})
    text = page_of(
        f"<p>A number {meas} and another {meas}.</p>",
        "<table><tr><td>a</td><td>" + pub + "</td></tr>" + "".join(f"<tr><td>{pub}</td></tr>" for _ in range(9)) + "</table>",
        f"<p>After the table {pub}.</p>",
        '<h2 id="next">Next</h2>', f"<p>Only measured here {meas}.</p>")
    assert "nt-cite-raw" not in text
    lines = source_lines(text)
    # the first section: one line under the table (its ten markers share one source), one at the section's end
    assert lines == [["p2 published: " + QUOTED], ["m1 measured: site_data/smollm2/measurements.json", "p2 published: " + QUOTED],
                     ["m1 measured: site_data/smollm2/measurements.json"]]
    assert text.count('class="nt-cite nt-cite-published"><a') == 11
    assert checks.citation_errors(text) == []
    assert "|" not in text.replace("&#124;", "")  # a raw pipe would split the table cell a marker sits in


def test_every_real_model_number_gets_a_marker_naming_its_whole_source():
    real = load_real_models()
    wrapped = [w for model in ("gpt2", "smollm2") for w in real[model].values()
               if isinstance(w, dict) and w.get("status") in ("published", "measured", "computed")]
    wrapped += [w for w in real["gpt2"]["config"].values()] + [w for w in real["gpt2"]["tokenizer"].values()]
    wrapped += [w for k, w in real["llama3"].items() if k != "source"]
    assert {w["status"] for w in wrapped} >= {"published", "measured", "computed", "config"}
    for w in wrapped:
        text = page_of(f"<p>x {numbers.status(w)}</p>")
        title = html.unescape(re.search(r'<a href="#[^"]+" title="([^"]*)"', text).group(1))
        assert title.endswith(": " + w["source"])
        assert source_lines(text)[0][0].split(" ", 1)[1] == title
        assert checks.citation_errors(text) == []
    with pytest.raises(ValueError, match="unavailable"):
        numbers.status({"value": None, "status": "unavailable", "source": "nothing"})


def test_the_build_fails_on_a_cut_or_dangling_marker_and_passes_the_real_pages():
    page = SimpleNamespace(file=SimpleNamespace(src_path="real-models.md", abs_src_path=str(ROOT / "docs" / "real-models.md")))
    good = page_of("<p>x " + marker({"value": 1, "status": "published", "source": QUOTED}) + "</p>")
    assert checks.on_page_content(good, page, {}, None) == good
    cut = good.replace("&quot;", '"', 1)  # the source's first quote left unescaped: it splits the title
    with pytest.raises(PluginError, match=r"real-models.md: HTML line 1: source marker .* stray attributes"):
        checks.on_page_content(cut, page, {}, None)
    dangling = re.sub(r'<ul class="nt-sources".*?</ul>', "", good, flags=re.S)
    assert any("links to no source line" in e for e in checks.citation_errors(dangling))
    short = good.replace("one word", "one", 1)  # the line no longer reads the whole source of its marker
    assert any("does not name its whole source" in e for e in checks.citation_errors(short))
    raw = "<p>" + marker({"value": 1, "status": "measured", "source": "s"}) + "</p>"
    assert checks.citation_errors(raw) == ["1 source markers were never resolved to a source line"]
    built = sorted((ROOT / "build" / "site").glob("*.html"))
    if not built:
        pytest.fail("build/site is missing: run `make site` first", pytrace=False)
    markers = 0
    for path in built:
        text = path.read_text(encoding="utf-8")
        markers += text.count('<sup class="nt-cite ')
        assert "nt-status" not in text, path.name  # no badge boxes are left
        assert checks.citation_errors(text) == [], path.name
    assert markers > 10
