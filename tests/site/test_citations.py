"""Where a real-model number comes from: a thin mark on the number whose popover says, first, where the number
comes from in the reader's words, then the status, the source and the data key; a one-line key under the page's
first mark; one closed "Where these numbers come from" at the page's end; the build check that every mark
resolves to a line there naming its whole source; and a search index that holds the prose only."""
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


def text_of(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def source_lines(text: str) -> list[str]:
    return [text_of(li) for li in re.findall(r'<li class="nt-src[^>]*>(.*?)</li>', text)]


def popovers(text: str) -> list[str]:
    return [text_of(p) for p in re.findall(r'<span class="nt-pop" id="[^"]+" data-search-exclude>(.*?)</span></span>', text)]


def said(text: str) -> str:
    """The auditor's part of the first popover: the status and the whole source."""
    return text_of(re.search(r'<em class="nt-pop-said">(.*?)</em>', text).group(1))


def test_marks_become_quiet_buttons_and_one_closed_list_at_the_page_end():
    pub = marker({"value": 1, "status": "published", "source": QUOTED}, "gpt2.paper_top_k")
    meas = marker({"value": 2, "status": "measured", "source": "site_data/smollm2/measurements.json"}, "smollm2.top_bars")
    text = page_of(
        f"<p>A number 12 {meas} and another {meas}.</p>",
        "<table><tr><td>a</td><td>" + pub + "</td></tr>" + "".join(f"<tr><td>{pub}</td></tr>" for _ in range(9)) + "</table>",
        '<h2 id="next">Next</h2>', f"<p>Only measured here {meas}.</p>")
    assert "nt-cite-raw" not in text
    assert "12<span class=\"nt-mark nt-mark-measured\">" in text  # the mark hugs its number: no space, no chip in the sentence
    assert text.count('<details class="nt-where" id="nt-where" data-search-exclude>') == 1 and text.rstrip().endswith("</details>")
    assert "<details class=\"nt-where\" id=\"nt-where\" open" not in text  # closed
    # the key follows the paragraph of the first mark, naming the two shapes the page uses, in the reader's words
    key = text.index('<p class="nt-mark-key"')
    assert text.index("and another") < key < text.index("<table>") and text.count('class="nt-mark-key"') == 1
    assert text_of(text[key:text.index("</p>", key)]) == (
        "A mark after a number says where it comes from (tap one):  measured by running the model,  published.")
    lead = page_of(f"<h2>A</h2><p>Per token, 4 bytes {meas}:</p><table><tr><td>1</td></tr></table>")
    assert lead.index('class="nt-mark-key"') < lead.index("<p>Per token")  # a block that leads into a table keeps its colon's place
    fallback = page_of(f'<div class="nt-demo" data-demo="x"><p>static {meas}</p></div><details><p>folded {meas}</p></details><p>seen {pub}</p>')
    assert fallback.index("seen") < fallback.index('class="nt-mark-key"')  # the first mark a reader sees, not a demo's or a fold's
    assert source_lines(text) == ["m1 measured by this build: site_data/smollm2/measurements.json (data key: smollm2.top_bars)",
                                  "p2 published: " + QUOTED + " (data key: gpt2.paper_top_k)"]
    pops = popovers(text)
    assert len(pops) == 13 and len(set(re.findall(r'id="(nt-mark-\d+)"', text))) == 13
    assert pops[0] == ("Measured: SmolLM2 itself was run to get this number. "  # the reader's sentence first, the auditor's after
                       "Measured by this build: site_data/smollm2/measurements.json. Data key: smollm2.top_bars. All sources (m1)")
    assert pops[2] == "From a published run of GPT-2 small (engineering.fm); GPT-2 itself does not run on this site. Published: " + QUOTED + ". Data key: gpt2.paper_top_k. All sources (p2)"
    assert checks.citation_errors(text) == []
    assert "|" not in text.replace("&#124;", "")  # a raw pipe would split the table cell a mark sits in


def test_every_real_model_number_gets_a_mark_naming_its_whole_source_and_its_data_key():
    real = load_real_models()
    for model in ("gpt2", "smollm2", "llama3"):
        numbers.data_keys(real[model], model)
    wrapped = [w for model in ("gpt2", "smollm2") for w in real[model].values()
               if isinstance(w, dict) and w.get("status") in ("published", "measured", "computed")]
    wrapped += [w for w in real["gpt2"]["config"].values()] + [w for w in real["gpt2"]["tokenizer"].values()]
    wrapped += [w for k, w in real["llama3"].items() if k != "source"]
    assert {w["status"] for w in wrapped} >= {"published", "measured", "computed", "config"}
    assert real["gpt2"]["config"]["n_layer"]["data_key"] == "gpt2.config.n_layer"
    for w in wrapped:
        text = page_of(f"<p>x {numbers.status(w)}</p>")
        reader = text_of(re.search(r'<strong class="nt-pop-reader">(.*?)</strong>', text).group(1))
        assert "site_data" not in reader and "this build" not in reader and w["data_key"] not in reader, reader
        said = globals()["said"](text)
        assert said.endswith(": " + w["source"])
        assert f"Data key: <code>{w['data_key']}</code>" in text
        assert source_lines(text)[0].split(" ", 1)[1].startswith(said[0].lower() + said[1:])
        assert checks.citation_errors(text) == []
    with pytest.raises(ValueError, match="unavailable"):
        numbers.status({"value": None, "status": "unavailable", "source": "nothing"})


def test_the_build_fails_on_a_cut_or_dangling_mark_and_passes_the_built_pages():
    page = SimpleNamespace(file=SimpleNamespace(src_path="real-models.md", abs_src_path=str(ROOT / "docs" / "real-models.md")))
    good = page_of("<p>x " + marker({"value": 1, "status": "published", "source": QUOTED}, "gpt2.paper_top_k") + "</p>")
    assert checks.on_page_content(good, page, {}, None) == good
    cut = good.replace('aria-describedby="nt-mark-1"', 'aria-describedby="nt-mark-1" episode="02"', 1)  # a quote cut the source
    with pytest.raises(PluginError, match=r"real-models.md: HTML line 1: mark has stray attributes"):
        checks.on_page_content(cut, page, {}, None)
    dangling = re.sub(r'<li class="nt-src.*?</li>', "", good, flags=re.S)
    assert any("links to no source line" in e for e in checks.citation_errors(dangling))
    short = good.replace("one word", "one", 1)  # the popover no longer reads the whole source of its line
    assert any("does not name its whole source" in e for e in checks.citation_errors(short))
    unsaid = re.sub(r'<em class="nt-pop-said">Published', '<em class="nt-pop-said">Somewhere', good)
    assert any("names no status" in e for e in checks.citation_errors(unsaid))
    undescribed = good.replace('aria-describedby="nt-mark-1"', 'aria-describedby="nt-mark-9"')
    assert any("described by no popover" in e for e in checks.citation_errors(undescribed))
    two = good + good[good.index("<details"):]
    assert any("“Where these numbers come from” blocks" in e for e in checks.citation_errors(two))
    raw = "<p>" + marker({"value": 1, "status": "measured", "source": "s"}) + "</p>"
    assert checks.citation_errors(raw) == ["1 source markers were never resolved to a mark"]
    built = sorted((ROOT / "build" / "site").glob("*.html"))
    if not built:
        pytest.fail("build/site is missing: run `make site` first", pytrace=False)
    marks = 0
    for path in built:
        text = path.read_text(encoding="utf-8")
        marks += text.count('class="nt-mark-btn"')
        assert "nt-cite" not in text.replace("nt-cite-raw", ""), path.name  # no chips are left in the prose
        assert checks.citation_errors(text) == [], path.name
    assert marks > 10
