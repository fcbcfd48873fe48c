"""Share, embed, export (docs/js/ui/permalink.js, docs/js/ui/export.js, scripts/site/hooks/share.py): a demo's
state set by its controls is in the page's link, and the link opened in a fresh page (served and from disk)
shows the same numbers; every demo has the share row; a hostile or malformed link changes nothing, runs nothing
and says so in one line, and a link's largest values cost the page one picture; a download reads back to
site_data's numbers and its link is its own demo's state; a demo's embed page builds inside a frame of another
origin; printed, closed folds show their figures."""
from __future__ import annotations

import csv
import functools
import http.server
import io
import json
import re
import threading
import time
from pathlib import Path

import pytest

from tests.helpers.link import WATCH_LINK, link_written

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
TRACES = {t["prompt"]: t for t in json.loads((ROOT / "site_data" / "tiny" / "traces.json").read_text())["traces"]}
TEMP = '.nt-demo[data-demo="temperature"]'


def fragment(page):
    return page.evaluate("location.hash")


def settle(page):
    link_written(page)  # the link is written 300 ms after the last input (a page opened with init=WATCH_LINK)


NEXT_FRAME = "() => new Promise(r => requestAnimationFrame(() => r(true)))"


def shown_once_settled(page, read, want, timeout=10.0):
    """What read(page) shows once it equals want with no request of the page in flight and still does a frame
    later (a link's reader, and a stored prompt's data, load on demand after the demo is ready); else what it
    shows after timeout seconds. Each frame is a poll."""
    end = time.monotonic() + timeout
    while True:
        got = read(page)
        if got == want and not page.nt_loading:
            page.evaluate(NEXT_FRAME)
            got = read(page)
            if got == want or time.monotonic() > end:
                return got
        elif time.monotonic() > end:
            return got
        page.evaluate(NEXT_FRAME)


def bars(page, sel):
    """The numbers a demo shows: every bar's label and value text, in order."""
    return page.locator(f"{sel} .nt-bar:not(.nt-bar-axis)").evaluate_all(
        "rows => rows.map(r => r.querySelector('.nt-bar-label').textContent + ' ' + r.querySelector('.nt-bar-value').textContent)")


def set_temperature(page):
    root = page.locator(TEMP)
    inp = root.locator("input[data-role=prompt]")
    inp.fill("the dog sat on the")
    inp.press("Enter")
    root.locator("input[type=range]").nth(0).fill("0.75")  # not the demo's opening T (0.5)
    root.locator("input[type=range]").nth(1).fill("4")
    root.locator("input[data-role=seed]").fill("7")
    root.locator("input[data-role=seed]").dispatch_event("change")
    root.locator("button", has_text="Draw").first.click()
    settle(page)


def shown_temperature(page):
    return bars(page, TEMP) + [page.locator(f"{TEMP} .nt-pick").inner_text()]


@pytest.mark.parametrize("mode", ["http", "file"])
def test_a_temperature_state_set_by_the_controls_comes_back_from_its_link(open_page, mode):
    page = open_page("sampling.html", mode=mode, init=WATCH_LINK)
    set_temperature(page)
    frag = fragment(page)
    assert frag.startswith("#nt=1&d=temperature") and "T=0.75" in frag and "k=4" in frag and "seed=7" in frag and "draws=1" in frag, frag  # the seed typed, and one Draw from it
    want = shown_temperature(page)
    again = open_page("sampling.html" + frag, mode=mode)
    assert again.locator(f"{TEMP} input[data-role=prompt]").input_value() == "the dog sat on the"
    assert shown_once_settled(again, shown_temperature, want) == want
    assert again.locator(f"{TEMP} .nt-live > .nt-msg").first.is_hidden()  # nothing to say about a good link
    assert page.nt_problems == [] and again.nt_problems == [], page.nt_problems + again.nt_problems


# What a demo shows: its controls' values and its text, without the share row and its note.
SHOWN = """sel => {
  const live = document.querySelector(sel + ' .nt-live');
  const values = [...live.querySelectorAll('input, select, textarea')].filter(i => !i.closest('.nt-share') && !i.classList.contains('nt-share-text'))
    .map(i => i.type === 'checkbox' || i.type === 'radio' ? String(i.checked) : i.value);
  const copy = live.cloneNode(true);
  copy.querySelectorAll('.nt-share, .nt-share + .nt-msg, .nt-share-text').forEach(n => n.remove());
  return values.concat([copy.textContent.replace(/\\s+/g, ' ')]);
}"""


def demo(name):
    return f'.nt-demo[data-demo="{name}"]'


def prompt_enter(page, sel, text, role="prompt", nth=0):
    inp = page.locator(f"{sel} input[data-role={role}]").nth(nth)
    inp.fill(text)
    inp.press("Enter")


def set_generate(page, sel):
    prompt_enter(page, sel, "the dog sat")
    page.locator(f"{sel} input[type=range]").first.fill("4")
    for _ in range(2):
        page.locator(f"{sel} button", has_text="Next step").click()


def set_two_heads(page, sel):
    prompt_enter(page, sel, "the dog sat on the")
    grid = page.locator(f"{sel} .nt-heat").nth(1)
    grid.focus()
    grid.press("ArrowUp")
    grid.press("ArrowLeft")


def set_attention(page, sel):
    prompt_enter(page, sel, "the dog sat on the mat", nth=0)
    page.locator(f"{sel} .nt-radios input").nth(0).check()
    page.locator(f"{sel} [data-lane=b] button.nt-attn-tok").nth(1).click()


def set_one_token(page, sel):
    prompt_enter(page, sel, "the dog sat on")


def set_tokenize(page, sel):
    prompt_enter(page, sel, "catsat", role="text")
    page.locator(f"{sel} input[type=checkbox]").check()
    page.locator(f"{sel} button", has_text="Next merge").click()


def set_real_distribution(page, sel):
    page.locator(f"{sel} .nt-choices button").nth(1).click()
    page.wait_for_selector(f"{sel}[data-loaded=capital]")
    page.locator(f"{sel} input[type=range]").nth(0).fill("1.5")
    page.locator(f"{sel} input[type=range]").nth(1).fill("40")
    page.locator(f"{sel} [data-role=draw-button]").click()
    page.locator(f"{sel} [data-role=draw-button]").click()


def set_knockout(page, sel):
    prompt_enter(page, sel, "the dog sat on the")
    page.locator(f"{sel} input[data-knockout=head1]").check()
    page.locator(f"{sel} input[data-knockout=mlp]").check()


def set_lens(page, sel):
    prompt_enter(page, sel, "the bird sat on the")


def set_embeddings(page, sel):
    page.locator(f"{sel} select").select_option(index=7)


def set_context_window(page, sel):
    prompt_enter(page, sel, "the dog sat on the mat. the cat")
    for _ in range(3):
        page.locator(f"{sel} button", has_text="Add a token").click()


def set_snapshots(page, sel):
    page.locator(f"{sel} [data-role=load-snapshots]").click()
    page.wait_for_selector(f"{sel}[data-snapshots=loaded]")
    page.locator(f"{sel} input[type=range]").fill("2")
    page.locator(f"{sel} select").select_option(index=1)


def set_real_inside(page, sel):
    page.select_option(f'{demo("real-distribution")} select', "bank")
    page.wait_for_selector(f'{sel}[data-view="stored:bank"]')
    page.locator(f'{sel} button[data-layer="2"][data-head="4"]').click()
    page.locator(f"{sel} .nt-radios input").nth(1).check()


def set_real_writers(page, sel):
    page.locator(f"{sel} input[data-role=length]").fill("9")
    page.locator(f"{sel} .nt-check input").nth(2).uncheck()


def set_attention_steps(page, sel):
    page.locator(f"{sel} .nt-radios input").nth(0).check()
    for _ in range(3):
        page.locator(f"{sel} button[data-role=step]").click()


def set_kv_cache(page, sel):
    page.locator(f"{sel} .nt-radios input").nth(0).check()
    page.locator(f"{sel} input[type=range]").fill("300")


def set_moe_router(page, sel):
    page.locator(f"{sel} .nt-radios input").nth(1).check()


def set_one_roll(page, sel):
    page.wait_for_selector(f"{sel}[data-loaded]")
    page.locator(f"{sel} button[data-role=roll]").click()
    page.locator(f"{sel} button[data-role=roll-many]").click()


def set_spec_decode(page, sel):
    page.locator(f"{sel} button", has_text="Draft one token").click()
    page.locator(f"{sel} button", has_text="Draft 1,000").click()


# the five demos that had no share row (issue 43): one round trip each, served (the link's reading is the same from disk)
SHARED_LATER = {
    "attention-steps": ("attention.html", set_attention_steps),
    "kv-cache": ("fast.html", set_kv_cache),
    "moe-router": ("weights.html", set_moe_router),
    "one-roll": ("index.html", set_one_roll),
    "spec-decode": ("fast.html", set_spec_decode),
}

DEMOS = {  # demo: (page, how the test sets a state through the controls)
    "generate": ("generation.html", set_generate),
    "two-heads": ("block.html", set_two_heads),
    "attention": ("attention.html", set_attention),
    "one-token": ("index.html", set_one_token),
    "tokenize": ("tokens.html", set_tokenize),
    "real-distribution": ("sampling.html", set_real_distribution),
    "knockout": ("block.html", set_knockout),
    "lens": ("block.html", set_lens),
    "embeddings": ("embeddings.html", set_embeddings),
    "context-window": ("context.html", set_context_window),
    "snapshots": ("training.html", set_snapshots),
    "real-inside": ("real-models.html", set_real_inside),
    "real-writers": ("real-models.html", set_real_writers),
}


@pytest.mark.parametrize("mode", ["http", "file"])
@pytest.mark.parametrize("name", sorted(DEMOS))
def test_each_demos_state_set_by_its_controls_comes_back_from_its_link(open_page, name, mode):
    round_trip(open_page, name, mode, *DEMOS[name])


@pytest.mark.parametrize("name", sorted(SHARED_LATER))
def test_the_five_demos_that_gained_a_share_row_come_back_from_their_links(open_page, name):
    round_trip(open_page, name, "http", *SHARED_LATER[name])


def round_trip(open_page, name, mode, where, act):
    sel = demo(name)
    page = open_page(where, mode=mode, init=WATCH_LINK)
    default = page.evaluate(SHOWN, sel)
    act(page, sel)
    settle(page)
    frag = fragment(page)
    assert frag.startswith(f"#nt=1&d={name}&"), frag
    want = page.evaluate(SHOWN, sel)
    assert want != default, "the test's actions changed nothing"
    again = open_page(where + frag, mode=mode)
    again.locator(f"{sel}[data-ready]").wait_for(timeout=30_000)
    if name == "snapshots":
        again.wait_for_selector(f"{sel}[data-snapshots=loaded]")
    if name == "one-roll":
        again.wait_for_selector(f"{sel}[data-loaded]")
    assert shown_once_settled(again, lambda p: p.evaluate(SHOWN, sel), want) == want
    assert page.nt_problems == [] and again.nt_problems == [], page.nt_problems + again.nt_problems


HOSTILE = {
    "script": "#nt=1&d=temperature&prompt=%3Cimg%20src%3Dx%20onerror%3D%22window.__pwned%3D1%22%3E&T=%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E",
    "huge": "#nt=1&d=temperature&prompt=" + "a" * 5000,
    "malformed": "#nt=1&d=temperature&T=%E0%A4%A&&=",
    "other format": "#nt=9&d=temperature&T=0.5",
    "unknown setting": "#nt=1&d=temperature&eval=alert(1)",
    "out of range": "#nt=1&d=temperature&T=1e309",
    "no such demo": "#nt=1&d=no-such-demo&T=0.5",
    # names every plain object inherits: a map with no prototype reads them as unknown settings, not as "twice"
    "constructor": "#nt=1&d=temperature&constructor=",
    "toString": "#nt=1&d=temperature&toString=1",
    "hasOwnProperty": "#nt=1&d=temperature&hasOwnProperty=1&T=0.5",
}


DEFAULTS: list = []  # what the temperature demo shows with no link: read once, by the first of the tests below


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_bad_link_leaves_the_defaults_runs_nothing_and_says_so_in_one_line(open_page, name):
    if not DEFAULTS:
        DEFAULTS.append(shown_temperature_defaults(open_page("sampling.html")))
    want = DEFAULTS[0]
    page = open_page("sampling.html" + HOSTILE[name])
    # said once, by the demo the link names (else the first that builds), when the link's reader (loaded on
    # demand) has read it
    notes = page.locator(".nt-live > .nt-msg:visible", has_text="not used")
    notes.first.wait_for(timeout=10_000)
    assert page.evaluate("window.__pwned") is None
    assert notes.count() == 1
    text = notes.first.inner_text()
    assert "\n" not in text and text.startswith("This link's settings were not used ("), text
    if name not in ("no such demo",):
        assert page.locator(f"{TEMP} .nt-live > .nt-msg:visible", has_text="not used").count() == 1
    if name in ("constructor", "toString", "hasOwnProperty"):
        assert f"(this demo has no setting “{name}”)" in text, text
    assert shown_temperature_defaults(page) == want
    assert page.locator(f"{TEMP} img").count() == 0
    assert page.nt_problems == [], page.nt_problems


def mulberry32(seed, n):
    """The n-th number (from 1) of the site's one draw stream (docs/js/runtime/sampling.js's mulberry32)."""
    a = seed & 0xFFFFFFFF
    for _ in range(n):
        a = (a + 0x6D2B79F5) & 0xFFFFFFFF
        t = ((a ^ (a >> 15)) * (1 | a)) & 0xFFFFFFFF
        t = (t + (((t ^ (t >> 7)) * (61 | t)) & 0xFFFFFFFF)) & 0xFFFFFFFF ^ t
        u = ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296
    return u


def test_a_link_at_the_most_draws_shows_that_draw_without_a_redraw_per_draw(open_page):
    """draws=100000 took the page 30-96 s (one picture per draw); now the stream steps to the last draw and draws once."""
    import time
    start = time.monotonic()
    page = open_page("sampling.html#nt=1&d=temperature&seed=3&draws=100000", lazy=True)
    page.wait_for_selector(f"{TEMP}[data-ready]")
    pick = page.locator(f"{TEMP} .nt-pick").inner_text()
    took = time.monotonic() - start
    assert pick.startswith("Draw 100000 with seed 3: u = " + f"{mulberry32(3, 100000):.3f}"), pick
    assert took < 20, f"the page took {took:.0f} s to show the link's state"  # a hang check, not a speed target
    assert page.nt_problems == [], page.nt_problems


def shown_temperature_defaults(page):
    return [page.locator(f"{TEMP} input[data-role=prompt]").input_value()] + bars(page, TEMP)


def test_a_link_from_another_site_version_applies_its_settings_and_says_so(open_page):
    page = open_page("sampling.html#nt=1&d=temperature&v=000000000000&T=0.5")
    note = page.locator(f"{TEMP} .nt-live > .nt-msg").first
    assert "another version of the site" in note.inner_text()
    assert page.locator(f"{TEMP} input[type=range]").nth(0).input_value() == "0.5"


def test_a_link_to_a_trained_model_this_browser_lacks_falls_back_to_the_built_one(open_page):
    page = open_page("sampling.html#nt=1&d=temperature&m=yours&T=0.5")
    note = page.locator(f"{TEMP} .nt-live > .nt-msg").first
    assert "this browser does not have" in note.inner_text() and "built model" in note.inner_text()
    assert page.locator(f"{TEMP} input[type=range]").nth(0).input_value() == "0.5"


def download(page, sel, kind):
    with page.expect_download() as got:
        page.locator(f"{sel} .nt-share button", has_text=f"Download {kind}").click()
    return Path(got.value.path()).read_text(encoding="utf-8"), got.value.suggested_filename


def read_csv(text):
    # split on "\n" only: a token may hold \x0c or \x85, which str.splitlines() would take for line ends
    lines = [ln for ln in text.split("\n") if not ln.startswith("# ")]
    return [r for r in csv.reader(io.StringIO("\n".join(lines), newline="")) if r]


def test_the_temperature_csv_reads_back_to_site_datas_probabilities(open_page):
    prompt = "the cat sat on the"
    page = open_page("sampling.html#nt=1&d=temperature&prompt=" + prompt.replace(" ", "%20"))
    text, name = download(page, TEMP, "CSV")
    version = page.evaluate("document.querySelector('meta[name=nt-version]').content")
    assert f"# version: {version}" in text and version in name and "# built: " in text
    rows = read_csv(text)
    assert rows[0] == ["id", "token", "logit", "p_T1", "p_after_T_and_filters"]
    probs = TRACES[prompt]["probs"][-1] if isinstance(TRACES[prompt]["probs"][0], list) else TRACES[prompt]["probs"]
    assert len(rows) - 1 == len(probs)
    for r in rows[1:]:
        assert float(r[3]) == pytest.approx(probs[int(r[0])], abs=1e-6)


def test_a_download_names_its_own_demos_state_not_the_last_one_changed(open_page):
    page = open_page("sampling.html", init=WATCH_LINK)
    page.locator(f"{TEMP} input[type=range]").nth(0).fill("0.5")
    settle(page)
    assert "d=temperature" in fragment(page)  # the page's address now holds the temperature demo's state
    page.wait_for_selector(f"{REAL}[data-loaded]")
    text, _ = download(page, REAL, "CSV")
    link = [ln for ln in text.split("\n") if ln.startswith("# link: ")]
    assert len(link) == 1 and "#nt=1&d=real-distribution&" in link[0] and "key=cat" in link[0] and "T=0.5" not in link[0], link
    assert page.nt_problems == [], page.nt_problems


def test_an_export_of_a_state_that_no_longer_exists_says_so_in_one_line(open_page):
    page = open_page("sampling.html")
    inp = page.locator(f"{TEMP} input[data-role=prompt]")
    inp.fill("zzzz qqqq")
    inp.press("Enter")
    page.locator(f"{TEMP} .nt-share button", has_text="Download CSV").click()
    note = page.locator(f"{TEMP} .nt-share + .nt-msg")
    note.wait_for(state="visible")
    assert note.inner_text().startswith("Nothing to download:")
    assert page.nt_problems == [], page.nt_problems


@pytest.fixture(scope="module")
def other_origin(tmp_path_factory):
    """A second local server, another origin, serving a page that frames the site's embed page."""
    folder = tmp_path_factory.mktemp("host")
    handler = functools.partial(_Quiet, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield folder, f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.mark.parametrize("frag", ["#nt=1&d=temperature&T=0.25&k=4", ""])
def test_an_embed_page_builds_its_demo_inside_a_frame_of_another_origin(browser_context, server, other_origin, frag):
    folder, host = other_origin
    host_page = f"host{len(frag)}.html"  # one file per case: the browser caches a page it has seen
    (folder / host_page).write_text(f'<!doctype html><title>host</title><iframe id="f" width="900" height="800" '
                                      f'src="{server}embed/temperature.html{frag}"></iframe>', encoding="utf-8")
    page = browser_context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 and "favicon" not in r.url else None)
    try:
        page.goto(host + host_page)
        frame = page.frame_locator("#f")
        frame.locator(f"{TEMP}[data-ready]").wait_for(timeout=30_000)
        assert frame.locator(f"{TEMP} .nt-bar").count() > 0
        assert frame.locator(f"{TEMP} .nt-fallback").is_hidden()
        slider = frame.locator(f"{TEMP} input[type=range]").nth(0).input_value()
        assert slider == ("0.25" if frag else "0.5")  # the link's T, else the demo's opening one
        assert frame.locator(f"{TEMP} .nt-live > .nt-msg").first.is_hidden()  # no fragment: defaults, no message
        assert frame.locator("nav, .md-header, .md-sidebar").count() == 0
        assert errors == [], errors
    finally:
        page.close()


def test_an_embed_page_opened_from_disk_builds_its_demo(open_page):
    page = open_page("embed/temperature.html#nt=1&d=temperature&T=0.25", mode="file")
    assert page.locator(f"{TEMP}[data-ready]").count() == 1
    assert page.locator(f"{TEMP} input[type=range]").nth(0).input_value() == "0.25"
    assert page.nt_problems == [], page.nt_problems


REAL = demo("real-distribution")
ASK = demo("real-ask")


def test_the_stored_distributions_csv_reads_back_to_site_data(open_page):
    page = open_page("sampling.html#nt=1&d=real-distribution&key=capital")
    page.wait_for_selector(f"{REAL}[data-loaded=capital]")
    text, _ = download(page, REAL, "CSV")
    rows = read_csv(text)
    data = json.loads((ROOT / "site_data" / "smollm2" / "distributions" / "capital.json").read_text())
    assert rows[0] == ["rank", "id", "token", "logit", "probability_at_T", "kept"]
    assert len(rows) - 1 == data["vocab_size"]
    head = data["head"]
    for r, row in enumerate(rows[1:len(head["ids"]) + 1]):
        assert int(row[1]) == head["ids"][r]
        assert float(row[3]) == pytest.approx(head["logits"][r], abs=1e-4)
        assert float(row[4]) == pytest.approx(head["probs"][r], rel=1e-3, abs=1e-7)
    assert sum(float(r[4]) for r in rows[1:]) == pytest.approx(1, abs=1e-6)


def test_a_link_to_a_live_smollm2_state_says_it_needs_the_model_and_offers_the_load_button(open_page):
    page = open_page("sampling.html#nt=1&d=real-distribution&key=cat&T=0.7&live=1&text=The%20sky%20is&chat=0")
    note = page.locator(f"{REAL} .nt-live > .nt-msg").first
    assert "needs the model" in note.inner_text(), note.inner_text()
    has_model = "smollm2" in json.loads(page.locator(ASK).get_attribute("data-models"))
    assert page.locator(f"{REAL} button", has_text="Load the model").count() == (1 if has_model else 0)
    assert page.locator(f"{ASK} [data-role=ask-prompt]").input_value() == "The sky is"
    assert page.locator(f"{REAL} input[type=range]").nth(0).input_value() == "0.7"
    assert page.nt_problems == [], page.nt_problems


def test_a_real_ask_link_puts_its_prompt_in_the_box_and_asks_for_the_model(open_page):
    page = open_page("real-models.html#nt=1&d=real-ask&model=smollm2&text=Hello%20there&chat=1")
    note = page.locator(f"{ASK} .nt-live > .nt-msg").first
    assert "needs the model" in note.inner_text() or "does not hold" in note.inner_text(), note.inner_text()
    assert page.locator(f"{ASK} [data-role=ask-prompt]").input_value() == "Hello there"
    assert page.locator(f"{ASK} [data-role=ask-chat]").is_checked()
    assert page.nt_problems == [], page.nt_problems


TRAIN = demo("train-yours")
WEIGHTS = json.loads((ROOT / "site_data" / "tiny" / "weights.json").read_text())["weights"]


def test_the_model_download_holds_site_datas_weights_and_loads_back_as_your_model(open_page, tmp_path):
    page = open_page("training.html")
    try:
        text, name = download(page, TRAIN, "JSON")
        got = json.loads(text)
        assert got["provenance"]["version"] and got["model"]["which"] == "built"
        assert got["model"]["weights"] == WEIGHTS
        assert got["model"]["config"]["corpus"] and got["model"]["tokenizer"]["vocab"]
        rows = read_csv(download(page, TRAIN, "CSV")[0])
        assert rows[0] == ["tensor", "flat_index", "value"]
        values = {(r[0], int(r[1])): float(r[2]) for r in rows[1:]}
        width = len(WEIGHTS["wte"][0])
        assert values[("wte", 3 * width + 5)] == WEIGHTS["wte"][3][5]
        assert len(values) == sum(1 for _ in _numbers(WEIGHTS))
        # loaded back through the file box, it becomes "your model" and the page says so
        saved = tmp_path / name
        saved.write_text(text, encoding="utf-8")
        with page.expect_navigation():
            page.locator(f"{TRAIN} input[data-role=model-file]").set_input_files(str(saved))
        page.wait_for_selector(".nt-model-switch[data-active-model=yours]")
        bad = tmp_path / "bad.json"
        bad.write_text('{"model": {"weights": 1}}', encoding="utf-8")
        page.locator(f"{TRAIN}").scroll_into_view_if_needed()
        page.wait_for_selector(f"{TRAIN}[data-ready]")
        page.locator(f"{TRAIN} input[data-role=model-file]").set_input_files(str(bad))
        page.wait_for_selector(f"{TRAIN} .nt-msg.nt-error")
        assert page.locator(f"{TRAIN} .nt-msg.nt-error").inner_text().startswith("That file holds no model")
        assert page.nt_problems == [], page.nt_problems
    finally:
        page.evaluate("() => { localStorage.removeItem('nexttoken.yourModel.v1'); localStorage.removeItem('nexttoken.activeModel'); }")


def _numbers(x):
    if isinstance(x, dict):
        for v in x.values():
            yield from _numbers(v)
    elif isinstance(x, list):
        for v in x:
            yield from _numbers(v)
    else:
        yield x


def test_a_gpt2_tokenizer_link_puts_its_text_in_the_box_until_the_tokenizer_loads(open_page):
    sel = demo("gpt2-tokenizer")
    page = open_page("tokens.html#nt=1&d=gpt2-tokenizer&text=na%C3%AFve%20caf%C3%A9")
    assert page.locator(f"{sel} input[data-role=text]").input_value() == "naïve café"
    assert "load GPT-2's tokenizer" in page.locator(f"{sel} .nt-live > .nt-msg").first.inner_text()
    assert page.nt_problems == [], page.nt_problems


def test_printed_a_closed_fold_shows_its_figures(open_page):
    page = open_page("real-models.html", lazy=True)
    folded = page.locator("details:not([open]) .nt-figure")
    assert folded.count() >= 1 and not any(f.is_visible() for f in folded.all())  # closed on screen
    page.evaluate("() => document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; })")  # as printing does
    page.emulate_media(media="print")
    try:
        for f in folded.all():
            img = f.locator("img:visible")
            img.wait_for()
            assert f.is_visible() and img.bounding_box()["height"] > 100, img.bounding_box()
    finally:
        page.emulate_media(media="screen")


def test_printed_a_page_keeps_its_figures_and_the_demos_fallbacks_and_drops_the_controls(open_page):
    page = open_page("sampling.html")
    assert page.locator(f"{TEMP} .nt-live").is_visible()
    page.emulate_media(media="print")
    try:
        for root in page.locator(".nt-demo").all():
            assert root.locator(".nt-live").count() == 0 or root.locator(".nt-live").first.is_hidden()
            if root.locator(".nt-fallback").count():
                assert root.locator(".nt-fallback").first.is_visible()
        assert page.locator(".nt-share:visible, .md-header:visible, .md-sidebar:visible").count() == 0
        figures = page.locator("figure.nt-figure img:visible")
        assert figures.count() >= 1
    finally:
        page.emulate_media(media="screen")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_share_row_its_lines_and_an_embed_page_are_axe_clean_in_both_schemes(open_page, scheme):
    import sys
    sys.path.insert(0, str(ROOT / "tests"))
    from helpers.axe import violations

    page = open_page("sampling.html#nt=1&d=temperature&T=9")
    page.emulate_media(color_scheme=scheme)
    page.locator(f"{TEMP} .nt-share button", has_text="Embed").click()
    page.locator(f"{TEMP} .nt-share + .nt-msg").wait_for(state="visible")
    assert violations(page, TEMP) == []
    embed = open_page("embed/temperature.html#nt=1&d=temperature&T=0.5")
    embed.emulate_media(color_scheme=scheme)
    assert violations(embed) == []


EMBEDS = sorted(p.stem for p in (ROOT / "build" / "site" / "embed").glob("*.html"))


@pytest.mark.parametrize("name", EMBEDS)
def test_every_embed_page_opened_from_disk_with_no_fragment_builds_its_demo_without_a_word(open_page, name):
    page = open_page(f"embed/{name}.html", mode="file", width=360)
    sel = demo(name)
    page.locator(f"{sel}[data-ready]").wait_for(timeout=30_000)
    assert page.locator(f"{sel} .nt-msg.nt-error:visible, {sel} .nt-msg.nt-warn:visible").count() == 0
    # every demo shares: its state declared to js/ui/permalink.js gives it Copy link and Embed
    assert page.locator(f"{sel} .nt-share button").all_inner_texts()[:2] == ["Copy link", "Embed"]
    assert page.evaluate("document.documentElement.scrollWidth - innerWidth") <= 1
    assert page.nt_problems == [], page.nt_problems


def test_copy_link_in_a_frame_without_the_clipboard_shows_the_link_selected_to_copy_by_hand(browser_context, server, other_origin):
    folder, host = other_origin
    (folder / "copy.html").write_text(f'<!doctype html><title>host</title><iframe id="f" width="900" height="900" '
                                      f'src="{server}embed/temperature.html#nt=1&d=temperature&T=0.25"></iframe>', encoding="utf-8")
    page = browser_context.new_page()
    try:
        page.goto(host + "copy.html")
        frame = page.frame_locator("#f")
        frame.locator(f"{TEMP}[data-ready]").wait_for(timeout=30_000)
        frame.locator(f"{TEMP} .nt-share button", has_text="Embed").click()
        box = frame.locator(f"{TEMP} textarea.nt-share-text")
        box.wait_for(state="visible", timeout=10_000)
        snippet = box.input_value()
        assert snippet.startswith('<iframe src="' + server + "embed/temperature.html#nt=1&d=temperature&") and "T=0.25" in snippet
        from playwright.sync_api import expect
        frame.locator(f"{TEMP} .nt-share button", has_text="Copy link").click()
        # the link replaces the snippet in the box once the clipboard has refused it
        expect(box).to_have_value(re.compile("^" + re.escape(server + "embed/temperature.html#nt=1&d=temperature&")), timeout=10_000)
    finally:
        page.close()


@pytest.mark.slow
def test_a_live_link_loads_smollm2_by_its_button_and_its_csv_equals_the_builds_transformers_distribution(open_page, site):
    """The live path end to end: a link to a live state, its Load button, the pass in the page, the CSV."""
    from urllib.parse import quote

    if not (site / "js" / "data" / "real" / "smollm2" / "manifest.js").is_file():
        pytest.fail("build/site has no js/data/real/smollm2: build the site with the model (`make site`)", pytrace=False)
    stored = json.loads((ROOT / "site_data" / "smollm2" / "distributions" / "cat.json").read_text())
    page = open_page(f"real-models.html#nt=1&d=real-distribution&key=cat&live=1&chat={int(stored['chat'])}&text={quote(stored['text'])}")
    page.set_default_timeout(600_000)
    page.locator(f"{REAL} button", has_text="Load the model").click()
    page.wait_for_selector(f"{REAL}[data-source=live]")
    text, _ = download(page, REAL, "CSV")
    rows = read_csv(text)
    bad = [r for r in rows if len(r) != 6]
    assert not bad, bad[:5]
    assert len(rows) - 1 == stored["vocab_size"]
    head = stored["head"]
    assert int(rows[1][1]) == head["ids"][0]  # the same top token
    live = {int(r[1]): float(r[4]) for r in rows[1:]}
    for i, p in zip(head["ids"][:5], head["probs"][:5]):  # tolerance of tests/browser/test_real_ask_live.py
        assert abs(live[i] - p) <= 1e-5 + 1e-3 * p, (i, live[i], p)
    assert page.nt_problems == [], page.nt_problems


def test_a_code_block_in_a_closed_fold_has_no_box_until_the_fold_opens(open_page):
    """The theme's bundle measures every code block as it starts; for one in a closed fold the browser styled and
    laid out the whole fold to answer (numbers.html: the largest restyle of its load). Closed, the block has no
    box; opened, it shows, and the theme makes it reachable by keyboard when it scrolls, as any other; printed, it
    shows too."""
    page = open_page("numbers.html", lazy=True, width=360)
    block = page.locator("details.nt-fold > .highlight").first
    assert block.evaluate("b => !b.parentElement.open && getComputedStyle(b).display === 'none'")
    code = block.locator("pre > code")
    page.emulate_media(media="print")
    try:
        assert block.evaluate("b => getComputedStyle(b).display") != "none"
    finally:
        page.emulate_media(media="screen")
    block.locator("xpath=..").locator("> summary").click()
    assert block.is_visible() and block.bounding_box()["height"] > 50
    page.wait_for_function("c => c.getAttribute('tabindex') === '0'", arg=code.element_handle(), timeout=3000)
    assert page.nt_problems == [], page.nt_problems
