"""Share and export for the real-models page's inside view and writers (docs/js/demos/real-inside.js,
docs/js/demos/real-writers.js through docs/js/ui/permalink.js): a stored prompt's lens, heads and answer
downloaded read back to site_data; a link to a live state says it needs the model and offers the Load
button, with its prompt in the panel's box and its cuts on the bars; a hostile or malformed link changes
nothing, runs nothing and says so in one line; the inside view's embed page shows a stored prompt alone.
The round trip of each one's controls through its link is tests/browser/test_share.py's DEMOS.
With SmolLM2 loaded (slow): a writers' link writes again once the model has run its prompt, and its CSV
holds the steps the page holds."""
from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from tests.browser.test_share import download, read_csv
from tests.helpers.link import WATCH_LINK, link_written

pytestmark = pytest.mark.browser

from scripts.core.io import SITE_DATA, read_json  # noqa: E402

PAGE = "real-models.html"
INSIDE = '.nt-demo[data-demo="real-inside"]'
WRITERS = '.nt-demo[data-demo="real-writers"]'
BARS = '.nt-demo[data-demo="real-distribution"]'
ASK = '.nt-demo[data-demo="real-ask"]'


def stored(key: str) -> dict:
    return read_json(SITE_DATA / "smollm2" / "distributions" / f"{key}.json")


def has_model(page) -> bool:
    return "smollm2" in json.loads(page.locator(ASK).get_attribute("data-models"))


def top_line(page, sel):
    return page.locator(f"{sel} .nt-live > .nt-msg").first


def test_the_inside_views_downloads_read_back_to_site_data(open_page):
    rec = stored("bank")
    page = open_page(PAGE + "#nt=1&d=real-inside&key=bank&head=2.4")
    page.wait_for_selector(f'{INSIDE}[data-view="stored:bank"]')
    page.wait_for_selector(f'{INSIDE} [data-role="heat-map"]')  # the lab's record of the prompt is in
    text, name = download(page, INSIDE, "CSV")
    assert "# demo: real-inside" in text and "# table: lens" in text and "-lens-" in name
    rows = read_csv(text)
    assert rows[0] == ["position", "layer", "after", "rank", "id", "token", "probability"]
    shown = [float(p) for p in page.locator(f"{INSIDE} td.nt-lens-cell").evaluate_all("c => c.map(x => x.dataset.prob)")]
    assert [float(r[6]) for r in rows[1:]] == shown  # what the page draws
    top = len(rows[1:]) // len(rec["lens"])
    assert top >= 1 and len(rows) - 1 == top * len(rec["lens"])
    for r in rows[1:]:
        lens = rec["lens"][int(r[1])]
        rank = int(r[3]) - 1
        assert int(r[0]) == len(rec["tokens"]) - 1
        assert r[4] == "" and r[5] == lens["pieces"][rank]  # the browser's copy of a stored lens keeps no ids
        assert float(r[6]) == lens["probs"][rank]

    got = json.loads(download(page, INSIDE, "JSON")[0])
    assert got["provenance"]["demo"] == "real-inside" and got["provenance"]["version"]
    assert got["source"] == "stored" and got["prompt"]["key"] == "bank" and got["open_head"] == [2, 4]
    answer = got["tables"]["answer"]["rows"]
    assert [a[1] for a in answer] == rec["head"]["ids"][:len(answer)]
    assert [a[3] for a in answer] == rec["head"]["probs"][:len(answer)]
    assert [a[4] for a in answer] == rec["head"]["logits"][:len(answer)]
    att, lab = rec["attention"], read_json(SITE_DATA / "smollm2" / "lab" / "bank.json")
    kinds = read_json(SITE_DATA / "smollm2" / "lab.json")["kinds"]
    heads = got["tables"]["heads"]["rows"]
    assert len(heads) == att["n_layer"] * att["n_head"]
    for layer, head, kind, top_pos, _, top_weight, first, _, off, after, direct in heads:
        assert first == att["layers"][layer]["first"][head] and top_weight == att["layers"][layer]["top_weight"][head]
        assert top_pos == att["layers"][layer]["top_pos"][head] and off == 0
        assert kind == kinds[lab["kinds"]["kind"][layer][head]]
        assert after == lab["sweeps"]["zero"][layer * att["n_head"] + head] and direct == lab["direct"]["heads"][layer][head]
    assert got["target"]["ids"] == lab["target"]["ids"] and got["target"]["metric"]["value"] == lab["base"]["value"]
    # the open head's whole pattern: every query's row; the last one is the stored last-position row
    T = len(rec["tokens"])
    rows = got["tables"]["head_weights"]["rows"]
    assert len(rows) == T * (T + 1) // 2
    weights = {r[4]: r[6] for r in rows if r[2] == T - 1}
    assert weights[0] == pytest.approx(att["layers"][2]["first"][4], abs=1 / 65535)
    assert weights[att["layers"][2]["top_pos"][4]] == pytest.approx(att["layers"][2]["top_weight"][4], abs=1 / 65535)
    assert page.nt_problems == [], page.nt_problems


def test_a_link_to_a_live_inside_state_says_it_needs_the_model_and_offers_the_load_button(open_page):
    page = open_page(PAGE + "#nt=1&d=real-inside&key=capital&live=1&text=The%20sky%20is&chat=0&off=4.2.0.1&mlp=9&at=1", init=WATCH_LINK)
    page.wait_for_selector(f'{INSIDE}[data-view="stored:capital"]')  # the stored prompt shows meanwhile
    note = top_line(page, INSIDE).inner_text()
    assert "needs the model" in note and "block 5, head 3" in note and "block 10's MLP" in note, note
    assert page.locator(f"{INSIDE} button[data-role=link-load]").count() == (1 if has_model(page) else 0)
    assert page.locator(f"{ASK} [data-role=ask-prompt]").input_value() == "The sky is"
    assert page.locator(f"{BARS}[data-loaded=capital]").count() == 1
    # nothing switched off until the model runs; the link keeps what it asks for
    assert page.text_content(f'{INSIDE} [data-role="off"]') == "Every part is on."
    page.locator(f"{INSIDE} .nt-radios input").nth(0).check()
    link_written(page)
    frag = page.evaluate("location.hash")
    assert "off=4.2.0.1" in frag and "mlp=9" in frag and "at=1" in frag and "live=1&text=The%20sky%20is" in frag, frag
    assert page.nt_problems == [], page.nt_problems


HOSTILE = {
    "script in the prompt": "key=cat&live=1&text=%3Cimg%20src%3Dx%20onerror%3D%22window.__pwned%3D1%22%3E",
    "script as a head": "head=%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E",
    "a head without its block": "off=4.2.7",
    "a head the model lacks": "off=99.0",
    "a lens position past the end": "at=99999",
    "an unknown setting": "eval=alert(1)",
    "malformed": "key=%E0%A4%A&&=",
    "huge": "text=" + "a" * 5000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_bad_inside_link_changes_nothing_runs_nothing_and_says_so_in_one_line(open_page, name):
    page = open_page(PAGE + "#nt=1&d=real-inside&" + HOSTILE[name])
    page.wait_for_selector(f'{INSIDE}[data-view="stored:cat"]')
    top_line(page, INSIDE).wait_for(timeout=10_000)  # the link's reader (loaded on demand) has said its line
    assert page.evaluate("window.__pwned") is None
    assert page.locator("img[src=x]").count() == 0
    note = top_line(page, INSIDE)
    text = note.inner_text()
    assert note.is_visible() and "\n" not in text, text
    if name == "script in the prompt":  # a prompt is any text: it waits, as text, in the panel's box
        assert "needs the model" in text
        assert page.locator(f"{ASK} [data-role=ask-prompt]").input_value().startswith("<img src=x")
    elif name == "a head the model lacks":  # checked against the pass on show, before anything is applied
        assert text.startswith("This link's settings could not all be shown (it switches off a head or MLP the model does not have"), text
    elif name == "a head without its block":
        assert text.startswith("This link's settings could not all be shown (“off” must list a block and a head for each head"), text
    else:
        assert text.startswith("This link's settings were not used ("), text
    assert page.text_content(f'{INSIDE} [data-role="off"]') == "Every part is on."
    assert page.locator(f'{INSIDE} [data-role="head-weights"] .nt-x-title').count() == 0
    assert page.locator(f"{INSIDE} .nt-radios input").nth(0).is_checked()
    assert page.nt_problems == [], page.nt_problems


@pytest.mark.parametrize("mode", ["http", "file"])
def test_the_inside_views_embed_page_shows_a_stored_prompt_alone_and_takes_its_link(open_page, mode):
    page = open_page("embed/real-inside.html", mode=mode, width=360)
    page.wait_for_selector(f'{INSIDE}[data-view="stored:cat"]')
    assert page.locator(f'{INSIDE} [data-role="lens"] tbody tr').count() == len(stored("cat")["lens"])
    assert page.locator(f"{INSIDE} .nt-share button", has_text="Embed").count() == 1
    linked = open_page("embed/real-inside.html#nt=1&d=real-inside&key=bank&head=2.4&off=1.1", mode=mode)
    linked.wait_for_selector(f'{INSIDE}[data-view="stored:bank"]')
    assert linked.locator(f'{INSIDE} [data-role="head-weights"] .nt-x-title').inner_text().startswith("block 3, head 5")
    note = top_line(linked, INSIDE).inner_text()
    assert "needs the model" in note and "the page this view comes from" in note, note
    assert page.nt_problems == [] and linked.nt_problems == [], page.nt_problems + linked.nt_problems


def test_a_writers_link_puts_its_prompt_in_the_box_its_cuts_on_the_bars_and_asks_for_the_model(open_page):
    page = open_page(PAGE + "#nt=1&d=real-writers&len=7&greedy=1&sample=1&beam=0&text=Hello%20there&chat=1&T=0.5&k=40&p=0.9&seed=3&wrote=1")
    page.wait_for_selector(f"{WRITERS}[data-ready]")
    note = top_line(page, WRITERS).inner_text()
    assert "needs the model" in note and "write when it has run the prompt" in note, note
    assert page.locator(f"{WRITERS} button[data-role=link-load]").count() == (1 if has_model(page) else 0)
    assert page.locator(f"{WRITERS} input[data-role=length]").input_value() == "7"
    assert [page.locator(f"{WRITERS} .nt-check input").nth(i).is_checked() for i in range(3)] == [True, True, False]
    assert page.locator(f"{ASK} [data-role=ask-prompt]").input_value() == "Hello there"
    assert page.locator(f"{ASK} [data-role=ask-chat]").is_checked()
    sliders = page.locator(f"{BARS} input[type=range]")
    assert [sliders.nth(i).input_value() for i in range(3)] == ["0.5", "40", "0.9"]
    assert page.locator(f"{BARS} input[data-role=seed]").input_value() == "3"
    settings = page.text_content(f'{WRITERS} [data-role="settings"]')
    assert "temperature 0.5" in settings and "top-k 40" in settings and "seed 3" in settings, settings
    # nothing written yet: a download says so in one line
    page.locator(f"{WRITERS} .nt-share button", has_text="Download CSV").click()
    said = page.locator(f"{WRITERS} .nt-share + .nt-msg")
    said.wait_for(state="visible")
    assert said.inner_text().startswith("Nothing to download: nothing has been written yet")
    assert page.nt_problems == [], page.nt_problems


@pytest.mark.parametrize("bad", ["len=0", "len=2.5", "greedy=2", "seed=-1", "T=%3Cscript%3E"])
def test_a_bad_writers_link_changes_nothing_and_says_so_in_one_line(open_page, bad):
    page = open_page(PAGE + "#nt=1&d=real-writers&" + bad)
    page.wait_for_selector(f"{WRITERS}[data-ready]")
    text = top_line(page, WRITERS).inner_text()
    assert text.startswith("This link's settings were not used (") and "\n" not in text, text
    assert page.locator(f"{WRITERS} input[data-role=length]").input_value() == "16"
    assert page.locator(f"{BARS} input[type=range]").nth(0).input_value() == "1"
    assert page.nt_problems == [], page.nt_problems


@pytest.mark.slow
def test_a_writers_link_loads_smollm2_by_its_button_writes_again_and_its_csv_holds_the_pages_steps(open_page, site):
    if not (site / "js" / "data" / "real" / "smollm2" / "manifest.js").is_file():
        pytest.fail("build/site has no js/data/real/smollm2: build the site with the model (`make site`)", pytrace=False)
    prompt = "A quiet village by the sea was"
    page = open_page(f"{PAGE}#nt=1&d=real-writers&len=5&greedy=1&sample=1&beam=0&text={quote(prompt)}&chat=0&T=0.8&p=0.9&seed=7&wrote=1", init=WATCH_LINK)
    page.set_default_timeout(600_000)
    page.locator(f"{WRITERS} button[data-role=link-load]").click()
    page.wait_for_selector(f"{WRITERS}[data-done]")
    rows = read_csv(download(page, WRITERS, "CSV")[0])
    assert rows[0] == ["writer", "step", "id", "token", "probability"]
    for writer in ("greedy", "sample"):
        box = page.locator(f'{WRITERS} [data-writer="{writer}"]')
        ids, probs = json.loads(box.get_attribute("data-ids")), json.loads(box.get_attribute("data-probs"))
        mine = [r for r in rows[1:] if r[0] == writer]
        assert len(ids) == 5 or box.get_attribute("data-why") == "end"
        assert [int(r[2]) for r in mine] == ids and [float(r[4]) for r in mine] == probs
    assert not [r for r in rows[1:] if r[0] == "beam"]
    assert "temperature 0.8" in page.text_content(f'{WRITERS} [data-role="settings"]')
    # the same link opened again writes the same greedy and seeded text
    first = {w: page.locator(f'{WRITERS} [data-writer="{w}"]').get_attribute("data-ids") for w in ("greedy", "sample")}
    link_written(page)
    frag = page.evaluate("location.hash")
    again = open_page(PAGE + frag)
    again.set_default_timeout(600_000)
    again.locator(f"{WRITERS} button[data-role=link-load]").click()
    again.wait_for_selector(f"{WRITERS}[data-done]")
    assert {w: again.locator(f'{WRITERS} [data-writer="{w}"]').get_attribute("data-ids") for w in ("greedy", "sample")} == first
    assert page.nt_problems == [] and again.nt_problems == [], page.nt_problems + again.nt_problems


@pytest.mark.slow
def test_a_live_inside_link_loads_smollm2_applies_its_knockout_and_lens_and_its_downloads_hold_the_pages_numbers(open_page, site):
    if not (site / "js" / "data" / "real" / "smollm2" / "manifest.js").is_file():
        pytest.fail("build/site has no js/data/real/smollm2: build the site with the model (`make site`)", pytrace=False)
    prompt = "My neighbour always wanted"
    page = open_page(f"{PAGE}#nt=1&d=real-inside&key=cat&live=1&text={quote(prompt)}&chat=0&off=4.2&mlp=9&at=2&head=4.2", init=WATCH_LINK)
    page.set_default_timeout(600_000)
    page.locator(f"{INSIDE} button[data-role=link-load]").click()
    page.wait_for_selector(f'{INSIDE}[data-view="live"]')
    page.set_default_timeout(120_000)
    page.locator(INSIDE).scroll_into_view_if_needed()  # on screen, the passes compute its lens and heads
    page.wait_for_selector(f'{INSIDE} table.nt-lens-table[data-at="2"]')
    page.wait_for_selector(f'{INSIDE} [data-role="head-weights"] li[data-pos]')
    assert page.text_content(f'{INSIDE} [data-role="off"]') == "Switched off: block 5, head 3, block 10's MLP."
    assert page.text_content(f'{INSIDE} [data-role="real-badge"]') == "Live, parts switched off"
    assert prompt in page.text_content(f'{INSIDE} [data-role="inside-source"]')

    rows = read_csv(download(page, INSIDE, "CSV")[0])
    cells = page.locator(f"{INSIDE} td.nt-lens-cell").evaluate_all("c => c.map(x => [Number(x.dataset.id), Number(x.dataset.prob)])")
    assert [[int(r[4]), float(r[6])] for r in rows[1:]] == cells and {r[0] for r in rows[1:]} == {"2"}
    got = json.loads(download(page, INSIDE, "JSON")[0])
    assert got["source"] == "live" and got["knockout"] == {"heads": [[4, 2]], "mlp": [9]} and got["lens_at"] == 2
    shown = page.locator(f'{INSIDE} [data-role="answer"] li').evaluate_all("l => l.map(x => [Number(x.dataset.id), Number(x.dataset.prob), Number(x.dataset.logit)])")
    assert [[a[1], a[3], a[4]] for a in got["tables"]["answer"]["rows"]] == shown
    bars = page.locator(f'{INSIDE} [data-role="head-weights"] li[data-pos]').evaluate_all("l => l.map(x => [Number(x.dataset.pos), Number(x.dataset.weight)])")
    # the open head's whole pattern, one row per query: the last query's row is the bars drawn
    assert [[r[4], r[6]] for r in got["tables"]["head_weights"]["rows"] if r[2] == len(bars) - 1] == bars
    assert len(bars) == len(got["prompt"]["tokens"]) and sum(w for _, w in bars) == pytest.approx(1, abs=1e-4)
    # the state's own link keeps it all
    page.locator(INSIDE).get_by_label("switches it off or on").check()
    link_written(page)
    frag = page.evaluate("location.hash")
    for part in ("live=1", "text=" + quote(prompt), "off=4.2", "mlp=9", "at=2", "head=4.2", "click=off"):
        assert part in frag, (part, frag)
    assert page.nt_problems == [], page.nt_problems


def test_the_writers_embed_page_says_in_one_line_where_the_model_loads(open_page):
    page = open_page("embed/real-writers.html#nt=1&d=real-writers&len=5", mode="file", width=360)
    page.wait_for_selector(f"{WRITERS}[data-ready]")
    assert page.text_content(f'{WRITERS} [data-role="status-text"]').startswith("The writers run the model that the panel on their page loads")
    assert page.locator(f"{WRITERS} input[data-role=length]").input_value() == "5"
    assert page.locator(f"{WRITERS} .nt-writers").is_hidden()  # nothing written: no empty columns
    assert page.locator(f"{WRITERS} .nt-share button", has_text="Embed").count() == 1
    assert page.nt_problems == [], page.nt_problems


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_real_views_link_lines_load_buttons_and_share_rows_are_axe_clean(open_page, scheme):
    import sys

    from scripts.core.io import ROOT
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.axe import violations

    page = open_page(PAGE + "#nt=1&d=real-inside&key=bank&live=1&text=Hi&chat=0&off=4.2&head=2.4")
    page.emulate_media(color_scheme=scheme)
    page.wait_for_selector(f'{INSIDE}[data-view="stored:bank"]')
    page.locator(f"{INSIDE} .nt-share button", has_text="Embed").click()
    page.locator(f"{INSIDE} .nt-share + .nt-msg").wait_for(state="visible")
    assert violations(page, INSIDE) == []
    writers = open_page(PAGE + "#nt=1&d=real-writers&len=7&beam=0&text=Hi&chat=0&wrote=1")
    writers.emulate_media(color_scheme=scheme)
    writers.wait_for_selector(f"{WRITERS}[data-ready]")
    assert violations(writers, WRITERS) == []
