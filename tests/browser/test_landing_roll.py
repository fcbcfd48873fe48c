"""The landing page opens on the model at work: SmolLM2's every bar for one stored prompt, on the first
screen at 1280x800 and within 1.5 screens at 360x740 with at most ~120 words above it, served and from
file://; each roll lands where the same roll in Python lands (the n-th number of seed 1), the tally counts
every roll, the bars are drawn in both schemes with axe finding nothing, and without JavaScript the
fallback names the tallest bars."""
from __future__ import annotations

import re

import numpy as np
import pytest

from scripts.core.io import SITE_DATA, read_json
from scripts.quality.first_minute import PROBE, figures
from scripts.site.hooks.numbers import pct
from scripts.tiny.sizing import Mulberry32
from tests.helpers.axe import violations
from tests.helpers.distributions import bucket_probs

pytestmark = pytest.mark.browser

PAGE = "index.html"
DEMO = '.nt-demo[data-demo="one-roll"]'


def loaded(page) -> None:
    page.wait_for_selector(f'{DEMO}[data-loaded="cat"]', timeout=10_000)


@pytest.mark.parametrize("mode", ["http", "file"])
@pytest.mark.parametrize("width,height,screens", [(1280, 800, 1.0), (360, 740, 1.5)])
def test_the_first_demo_is_every_bar_near_the_top_of_the_page(open_page, mode, width, height, screens):
    # a newcomer's first screen: no model of the reader's saved by an earlier test in this browser (its switch,
    # under the title, would add a line above the demo)
    page = open_page(PAGE, mode, width=width, height=height, lazy=True, fresh=True)
    page.evaluate("() => window.scrollTo(0, 0)")
    first = page.evaluate("() => document.querySelector('article .nt-demo').getAttribute('data-demo')")
    assert first == "one-roll"
    got = figures(page.evaluate(PROBE))
    assert got["demo_screens"] < screens, got
    assert got["words_before"] <= 120, got
    loaded(page)  # it builds and loads its bars without any scroll
    assert page.is_enabled('[data-role="roll"]')
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    assert not page.nt_problems, page.nt_problems


def test_rolls_land_where_python_lands_and_are_tallied(open_page):
    rec = read_json(SITE_DATA / "smollm2" / "distributions" / "cat.json")
    page = open_page(PAGE, "http")
    loaded(page)
    probs, rng = bucket_probs(rec, 1.0), Mulberry32(1)
    ranks = []
    for i in range(3):
        if i == 0:  # by keyboard
            page.focus('[data-role="roll"]')
            page.keyboard.press("Enter")
        else:
            page.click('[data-role="roll"]')
        u = rng.next_u32() / 4294967296
        rank = int(min(np.searchsorted(np.cumsum(probs), u, side="right"), len(probs) - 1))
        ranks.append(rank)
        line = page.text_content('[data-role="rolled"]')
        assert line.startswith(f"Roll {i + 1} (seed 1): u = {u:.4f} fell on rank {rank + 1:,}, "), (line, u, rank)
        word = page.text_content('[data-role="word"]')
        if rank < len(rec["head"]["pieces"]):
            assert word == rec["head"]["pieces"][rank].lstrip(" ")
    page.click('[data-role="roll-many"]')
    tally = page.text_content('[data-role="tally"]')
    assert tally.startswith("103 rolls so far, "), tally
    won = int(re.search(r"The tallest bar, ·\S+, won (\d+)\.", tally).group(1))
    assert 0 <= won < 103 * 0.3  # the top bar holds about 7%: it loses most rolls
    about = page.text_content('[data-role="about"]')
    head, V = len(rec["head"]["pieces"]), rec["vocab_size"]
    assert f"the top {head:,} exactly, the other {V - head:,} redrawn from {len(rec['tail']['buckets'])} rank buckets" in about
    assert not page.nt_problems, page.nt_problems


def test_a_fragment_among_the_tallest_bars_is_explained_by_what_the_model_writes_after_it(open_page):
    """A top token that is only a word's first piece (·cou) is said to be one, with what SmolLM2 writes after it,
    from the stored prompt that ends in it; never the old guess that a longer token among the bars (·couch) is
    its word."""
    rec = read_json(SITE_DATA / "smollm2" / "distributions" / "cat.json")
    path = SITE_DATA / "smollm2" / "distributions" / "cou.json"
    cou = read_json(path) if path.is_file() else None
    page = open_page(PAGE, "http")
    loaded(page)
    text = " ".join(page.text_content('[data-role="tallest"]').split())
    two_minute = " ".join(page.locator("article li", has_text="Then one weighted roll").text_content().split())
    assert "start of a longer word" not in text + two_minute
    if cou and cou["tokens"][-1] in rec["head"]["pieces"][:3] and cou["head"]["pieces"][0].isalpha():
        piece, nxt = cou["tokens"][-1].replace(" ", "·"), cou["head"]["pieces"][0]
        assert f"“{piece}” is only a word's first piece: after it, SmolLM2 writes “{nxt}” ({pct(cou['head']['probs'][0], 1)})" in text, text
        assert f"{piece} is only the first piece of a word: after it, SmolLM2 goes on with {nxt} ({pct(cou['head']['probs'][0])})" in two_minute, two_minute
    else:
        assert "first piece" not in text + two_minute


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_bars_are_drawn_and_axe_finds_nothing(open_page, scheme):
    page = open_page(PAGE, "http", width=360, height=740, scheme=scheme)
    want = "slate" if scheme == "dark" else "default"
    page.wait_for_function("w => document.body.getAttribute('data-md-color-scheme') === w", arg=want, timeout=5000)
    loaded(page)
    page.click('[data-role="roll"]')
    # some columns are painted: the bars are on the canvas
    painted = page.evaluate(f"""() => {{ const c = document.querySelector('{DEMO} canvas');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let n = 0;
        for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++; return n / (c.width * c.height); }}""")
    assert painted > 0.05, painted
    found = violations(page, DEMO)
    assert found == [], f"{scheme}: " + "; ".join(found)


def test_without_javascript_the_fallback_names_the_tallest_bars(browser_context, site):
    rec = read_json(SITE_DATA / "smollm2" / "distributions" / "cat.json")
    html = (site / PAGE).read_text(encoding="utf-8")
    fallback = html[html.index('data-demo="one-roll"'):]
    fallback = fallback[:fallback.index("</div>")]
    text = re.sub(r"<[^>]+>", "", fallback)
    assert "Without JavaScript" in text
    for piece in rec["head"]["pieces"][:5]:
        assert piece.replace(" ", "·") in text
