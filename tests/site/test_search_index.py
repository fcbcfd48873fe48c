"""Search holds the prose only: Material's search plugin indexes a page's HTML, and a number's mark (its button,
its popover), the key under the page's first mark and the page's sources block stay out of it
(scripts/site/citations.py marks them data-search-exclude). The plugin's parser drops an excluded element at the
first closing tag of its name, so these tests feed it the marks as the pages have them, nested in a paragraph,
a list and a table, and then read the built site's index."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from material.plugins.search.plugin import Parser

from scripts.site.citations import footnote, marker

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "build" / "site" / "search" / "search_index.json"
# what only a mark, the key or the sources block say (a page about the marks may name them in its prose)
NOT_PROSE = [r"where this number comes from\w", r"Data key: \w+\.", r"All sources \(", r"A mark after a number says where it comes from \(",
             r"A number with a thin mark after it", r"Auditor's view: show", r"\(data keys?: "]


def indexed(html: str) -> str:
    """What Material's search plugin would index of this HTML: every section's title and text."""
    parser = Parser()
    parser.feed(html)
    parser.close()
    return " ".join("".join(s.title) + " " + "".join(s.text) for s in parser.data)


def test_material_indexes_a_marked_pages_prose_and_none_of_its_marks():
    meas = marker({"value": 1, "status": "measured", "source": "site_data/smollm2/measurements.json (HuggingFaceTB/x)"}, "smollm2.top_bars")
    conf = marker({"value": 3, "status": "config", "source": "HuggingFaceTB's config (site_data/smollm2/measurements.json)"}, "smollm2.config.n_head")
    page = footnote("\n".join([
        '<h1 id="kv">The KV cache</h1>',
        f"<p>Its 9 query heads share 3 key/value heads{conf}, so its cache is smaller.</p>",
        f"<ul><li><p>One pass took 54 ms{meas} on one machine.</p></li></ul>",
        f"<table><tr><td>heads</td><td>3{conf}</td></tr></table>",
        '<h2 id="next">Next</h2>', f"<p>Then a measured 7{meas} and the end.</p>"]))
    assert 'class="nt-mark-key"' in page and 'class="nt-where"' in page
    text = re.sub(r"<[^>]+>", "", indexed(page))
    assert "share 3 key/value heads, so its cache is smaller." in text
    assert "One pass took 54 ms on one machine." in text and "Then a measured 7 and the end." in text
    for words in NOT_PROSE + ["Read from SmolLM2's config", "Measured:", "tap one", "nt-mark", "where this number"]:
        assert not re.search(words, text), words


def test_the_built_search_index_holds_no_mark_key_or_source_list_and_kv_cache_reads_clean():
    if not INDEX.is_file():
        pytest.fail("build/site/search/search_index.json is missing: run `make site` first", pytrace=False)
    docs = json.loads(INDEX.read_text(encoding="utf-8"))["docs"]
    for doc in docs:
        for words in NOT_PROSE:
            assert not re.search(words, doc["title"] + " " + doc["text"]), (doc["location"], words)
    hits = [re.sub(r"<[^>]+>", "", d["text"]) for d in docs if "kv cache" in d["text"].lower()]
    assert len(hits) >= 3
    for text in hits:  # each hit's sentence, as the results list shows it: prose, no glued-on popover
        for m in re.finditer(r"[^.]*KV cache[^.]*\.", text, re.I):
            assert not re.search(r"[a-z](where this|Read from|Measured by|Published:|cfg\d|m\d\b)", m.group(0)), m.group(0)
