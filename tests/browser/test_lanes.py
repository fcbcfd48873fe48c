"""Attention as lines, generation's two lanes and the context window, in a real browser.

Every token of every attention lane is inside its lane's visible box at 360 and 1280 px (nothing hidden
in a box that scrolls), for an 8-token prompt and for a reader's model with a 16-token context; the
lines' widths are the runtime's weights (and PyTorch's); the lane without a cache recomputes every K,V
row at every step and the cached lane adds one; the tables do not clip; the context window's frame
renumbers its positions, says the cache is stale on the step where it slid, and shows the runtime's top
three; with reduced motion nothing animates; no page scrolls sideways at 360 px and axe finds nothing
once the demos have been driven, in both schemes.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.helpers.axe import violations
from tests.helpers.tiny_page import use_yours

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "site_data" / "tiny"
CONFIG = json.loads((TINY / "config.json").read_text())
TRACES_ALL = json.loads((TINY / "traces.json").read_text())
TRACES = {t["prompt"]: t for t in TRACES_ALL["traces"]}
SUMMARY = json.loads((TINY / "summary.json").read_text())
N_CTX = CONFIG["model"]["n_ctx"]
EIGHT = "the cat sat on the mat. the"  # n_ctx tokens: the, ·cat, ·sat, ·on, ·the, ·mat, ., ·the
LINE_WIDTH = 7  # px of line at weight 1 (js/attention-lines.js)

# Token elements of the attention lanes: the lines' two columns, the bars' labels, the mix grid's and
# the heat map's row and column labels.
TOKENS = ".nt-attn-tok, .nt-attn-key, .nt-bar-label, .nt-vecgrid code, .nt-heat-row, .nt-heat-col"
OUTSIDE = """([sel, tokens]) => {
  const out = [];
  for (const lane of document.querySelectorAll(sel + ' .nt-lane')) {
    const L = lane.getBoundingClientRect();
    for (const el of lane.querySelectorAll(tokens)) {
      const r = el.getBoundingClientRect();
      const boxes = [['lane', L]];
      // a box that clips (a scroller) shows only its client area
      for (let a = el.parentElement; a && a !== lane; a = a.parentElement) {
        const cs = getComputedStyle(a);
        if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
        const b = a.getBoundingClientRect(), x = b.left + a.clientLeft, y = b.top + a.clientTop;
        boxes.push([a.className, {left: x, right: x + a.clientWidth, top: y, bottom: y + a.clientHeight}]);
      }
      for (const [name, b] of boxes) {
        if (r.width === 0 || r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) {
          out.push(`${el.className || el.tagName} "${el.textContent}" [${r.left.toFixed(0)}, ${r.right.toFixed(0)}] outside ${name} [${b.left.toFixed(0)}, ${b.right.toFixed(0)}]`);
          break;
        }
      }
    }
  }
  return out;
}"""


def clean(page):
    assert page.nt_problems == [], "\n".join(page.nt_problems)


def demo(page, name):
    root = page.locator(f'.nt-demo[data-demo="{name}"]').first
    root.locator(".nt-live").first.wait_for(state="visible", timeout=5000)
    return root


def enter(box, text):
    box.fill(text)
    box.press("Enter")


def runtime_weights(page, text, head):
    """The runtime's attention weights (js/runtime/model.js) for a prompt, and its tokens."""
    return page.evaluate("""([text, head]) => {
        const r = nexttoken.runtime.prompts.encode(text);
        const tr = nexttoken.runtime.active.tiny(nexttoken.runtime.model).model.forward(r.ids);
        return {W: tr.h[0].attn_weights[head], tokens: r.tokens};
    }""", [text, head])


def lines_of(page, lane_sel):
    return page.locator(f"{lane_sel} .nt-attn-line").evaluate_all("""ls => ls.map(l => ({i: +l.dataset.i, j: +l.dataset.j,
        w: +l.dataset.weight, width: parseFloat(getComputedStyle(l).strokeWidth), on: l.classList.contains('nt-on'),
        opacity: parseFloat(getComputedStyle(l).opacity)}))""")


def check_lines(page, lane_sel, head, n, text):
    ref = runtime_weights(page, text, head)
    lines = lines_of(page, lane_sel)
    assert sorted((ln["i"], ln["j"]) for ln in lines) == [(i, j) for i in range(n) for j in range(i + 1)]
    for ln in lines:
        w = ref["W"][ln["i"]][ln["j"]]
        assert ln["w"] == pytest.approx(w, abs=1e-12)
        assert ln["width"] == pytest.approx(LINE_WIDTH * w, abs=2e-3), ln  # the drawn width is the weight
    return ref, lines


# ---- attention as lines ----------------------------------------------------------------------------

@pytest.mark.parametrize("width", [360, 1280])
def test_every_attention_token_is_inside_its_lane(open_page, width):
    page = open_page("attention.html", width=width)
    root = demo(page, "attention")
    for lane in ("a", "b"):
        enter(root.locator(f'[data-lane="{lane}"] input[type=text]'), EIGHT)
    page.wait_for_timeout(200)
    assert root.locator('[data-lane="a"] .nt-attn-tok').count() == N_CTX
    assert page.evaluate(OUTSIDE, ['.nt-demo[data-demo="attention"]', TOKENS]) == []
    block = open_page("block.html", width=width)
    two = demo(block, "two-heads")
    enter(two.locator("input[type=text]"), EIGHT)
    block.wait_for_timeout(200)
    assert two.locator(".nt-heat-row").count() == N_CTX * CONFIG["model"]["n_head"]
    assert block.evaluate(OUTSIDE, ['.nt-demo[data-demo="two-heads"]', TOKENS]) == []
    for p in (page, block):
        assert p.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
        clean(p)


def test_lines_are_as_wide_as_the_runtime_weights(open_page):
    """Each token is joined to itself and every earlier token; a line's width is 7 px × the runtime's
    weight (PyTorch's to 1e-6); the chosen token's lines are drawn in full, the others faintly; hovering
    a key shows only the lines into it; arrow keys move the choice and the readout follows."""
    page = open_page("attention.html")
    root = demo(page, "attention")
    head = SUMMARY["subject_head"]["head"]
    lane = '.nt-demo[data-demo="attention"] [data-lane="a"]'
    prompt = CONFIG["prompts"][0]
    n = len(TRACES[prompt]["tokens"])
    ref, lines = check_lines(page, lane, head, n, prompt)
    torch = TRACES[prompt]["h"][0]["attn_weights"][head]
    for ln in lines:
        assert ln["w"] == pytest.approx(torch[ln["i"]][ln["j"]], abs=1e-6)
        assert ln["on"] == (ln["i"] == n - 1)  # the last token's lines first
        assert ln["opacity"] == (1 if ln["on"] else pytest.approx(0.18))
    # the subject's line is the widest of the last token's
    last = [ln for ln in lines if ln["i"] == n - 1]
    assert max(last, key=lambda ln: ln["width"])["j"] == ref["tokens"].index("·cat")
    # hover a key: only the lines into it
    root.locator('[data-lane="a"] .nt-attn-key[data-j="1"]').hover()
    shown = [ln for ln in lines_of(page, lane) if ln["opacity"] > 0]
    assert {(ln["i"], ln["j"]) for ln in shown} == {(i, 1) for i in range(1, n)}
    page.mouse.move(0, 0)
    # keyboard: the checked token is the one tab stop; ArrowUp moves the choice and the readout
    tok = root.locator('[data-lane="a"] .nt-attn-tok[aria-checked="true"]')
    assert tok.get_attribute("data-i") == str(n - 1)
    tok.focus()
    page.keyboard.press("ArrowUp")
    assert page.evaluate("() => document.activeElement.dataset.i") == str(n - 2)
    assert root.locator('[data-lane="a"] .nt-attn-tok[aria-checked="true"]').get_attribute("data-i") == str(n - 2)
    bars = root.locator('[data-lane="a"] li.nt-attn-col')
    assert bars.count() == n - 1
    assert float(bars.nth(0).get_attribute("data-weight")) == pytest.approx(ref["W"][n - 2][0], abs=1e-12)
    assert f"(position {n - 2})" in root.locator('[data-lane="a"] .nt-attn-readout').inner_text()
    assert {ln["i"] for ln in lines_of(page, lane) if ln["on"]} == {n - 2}
    page.keyboard.press("End")
    assert root.locator('[data-lane="a"] li.nt-attn-col').count() == n
    # the other head redraws the lines with its own weights
    root.locator(f'.nt-radios input[value="{1 - head}"]').check()
    check_lines(page, lane, 1 - head, n, prompt)
    clean(page)


def test_two_heads_lines_follow_the_heat_map_cursor(open_page):
    page = open_page("block.html")
    root = demo(page, "two-heads")
    enter(root.locator("input[type=text]"), EIGHT)
    page.wait_for_timeout(100)
    for hd in range(CONFIG["model"]["n_head"]):
        lane = f'.nt-demo[data-demo="two-heads"] .nt-lane[data-head="{hd}"]'
        check_lines(page, lane, hd, N_CTX, EIGHT)
        page.locator(f'{lane} .nt-attn-tok[data-i="{N_CTX - 1}"]').click()  # the last row (the maps share one cursor)
        grid = root.locator(".nt-heat").nth(hd)
        grid.focus()
        grid.press("ArrowUp")
        checked = page.locator(f'{lane} .nt-attn-tok[aria-checked="true"]')
        assert checked.get_attribute("data-i") == str(N_CTX - 2)
        # and picking a token in the lines moves the map's cursor to its row
        page.locator(f'{lane} .nt-attn-tok[data-i="2"]').click()
        assert page.locator(f"{lane} .nt-heat-cell.nt-cursor").get_attribute("data-i") == "2"
    clean(page)


def test_endoftext_never_wraps(open_page):
    page = open_page("attention.html", width=360)
    root = demo(page, "attention")
    enter(root.locator('[data-lane="a"] input[type=text]'), "the cat sat on the mat.")
    page.wait_for_timeout(100)
    gen = open_page("generation.html", width=360)
    g = demo(gen, "generate")
    g.locator("select").select_option("300")
    g.get_by_role("button", name="Play").click()
    gen.wait_for_function("() => !document.querySelector('.nt-demo[data-demo=generate]').hasAttribute('data-playing')", timeout=15000)
    for p in (page, gen):
        heights = p.evaluate("""() => [...document.querySelectorAll('.nt-demo code, .nt-demo .nt-attn-tok')]
            .filter(e => e.textContent.trim() === '<|endoftext|>' && e.getClientRects().length)
            .map(e => [e.getClientRects().length, e.getBoundingClientRect().height / parseFloat(getComputedStyle(e).fontSize)])""")
        assert heights, "no <|endoftext|> on show"
        assert all(n == 1 and h < 2.2 for n, h in heights), heights  # one line
    clean(page)
    clean(gen)


@pytest.mark.slow  # it trains a model in the page
def test_a_sixteen_token_context_fits_the_lanes(open_page):
    """A reader's model with a 16-token context (one sentence of 15 words and a full stop): every token of
    a 16-token prompt is inside its lane at 360 and 1280 px, in both attention demos."""
    page = open_page("training.html", fresh=True)
    corpus = ["the cat and the dog and the hen sat on the big red mat.", "a dog sat on a mat.", "the hen ran to the cat."]
    root = demo(page, "train-yours")
    root.locator("textarea").fill("\n".join(corpus))
    root.locator('button[data-role="train"]').click()
    page.wait_for_function("document.querySelector('.nt-demo[data-demo=\"train-yours\"]').getAttribute('data-trained') === 'yes'",
                           timeout=180000)
    try:
        check_sixteen(page, corpus)
    finally:
        page.evaluate("localStorage.clear()")  # the other tests use the built model
    clean(page)


def check_sixteen(page, corpus):
    saved = json.loads(page.evaluate("localStorage.getItem('nexttoken.yourModel.v1')"))
    assert saved["config"]["model"]["n_ctx"] == 16
    long = corpus[0][:-1] + " the cat"  # its 14 words and two more: 16 tokens
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(page.url.replace("training.html", "attention.html"), wait_until="load")
        use_yours(page)  # a page opens on the built model; its switch turns the reader's on
        att = demo(page, "attention")
        for lane in ("a", "b"):
            enter(att.locator(f'[data-lane="{lane}"] input[type=text]'), long)
        page.wait_for_timeout(200)
        assert att.locator('[data-lane="a"] .nt-attn-tok').count() == 16
        assert page.evaluate(OUTSIDE, ['.nt-demo[data-demo="attention"]', TOKENS]) == [], width
        page.goto(page.url.replace("attention.html", "block.html"), wait_until="load")
        use_yours(page)
        two = demo(page, "two-heads")
        enter(two.locator("input[type=text]"), long)
        page.wait_for_timeout(200)
        assert two.locator(".nt-attn-tok").count() == 16 * CONFIG["model"]["n_head"]
        assert page.evaluate(OUTSIDE, ['.nt-demo[data-demo="two-heads"]', TOKENS]) == [], width
        assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
        page.goto(page.url.replace("block.html", "training.html"), wait_until="load")


# ---- generation: both lanes ---------------------------------------------------------------------------

def kv_state(page):
    """Per lane: the rows drawn, the rows marked as computed at this step, and every cell's number."""
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('.nt-demo[data-demo=generate] .nt-lane')].map(l => [l.dataset.lane, {
        rows: l.querySelectorAll('.nt-kv-row').length, fresh: l.querySelectorAll('.nt-kv-row.nt-kv-new').length,
        kv: l.querySelector('.nt-kv') && [+l.querySelector('.nt-kv').dataset.rows, +l.querySelector('.nt-kv').dataset.new],
        cells: [...l.querySelectorAll('.nt-kv-row .nt-cell')].map(c => c.title),
        table: [...l.querySelectorAll('.nt-gen-table tbody tr')].map(tr => tr.cells[2].firstChild.textContent)}]))""")


def test_without_a_cache_every_row_is_recomputed_with_one_one_row_is_added(open_page):
    page = open_page("generation.html")
    root = demo(page, "generate")
    prompt_len = root.locator('[data-lane="cache"] .nt-prompt-tok').count()
    step = root.get_by_role("button", name="Next step")
    n = 0
    while step.is_enabled():
        step.click()
        n += 1
        s = kv_state(page)
        window = min(prompt_len + n - 1, N_CTX)
        assert s["nocache"]["rows"] == s["nocache"]["fresh"] == window  # every row, again
        assert s["cache"]["rows"] == window
        assert s["cache"]["fresh"] == (prompt_len if n == 1 else 1)  # the prefill, then one new row
        assert s["nocache"]["table"][-1] == str(window) and s["cache"]["table"][-1] == str(s["cache"]["fresh"])
        # the same numbers in both lanes: recomputing gives what the cache kept
        assert s["nocache"]["cells"] == s["cache"]["cells"]
        # and the runtime's own keys and values for the window (js/runtime/model.js)
        kv = page.evaluate("""() => {
            const ids = [...document.querySelectorAll('.nt-demo[data-demo=generate] [data-lane=cache] .nt-kv-row')].map(r => +r.dataset.id);
            const tr = nexttoken.runtime.active.tiny(nexttoken.runtime.model).model.forward(ids);
            return ids.map((_, p) => [tr.h[0].k, tr.h[0].v].map(x => x.map(h => h[p]).flat().map(v => v.toFixed(2))));
        }""")
        drawn = s["cache"]["cells"]
        per = len(drawn) // window
        for p in range(window):
            want = kv[p][0] + kv[p][1]
            got = [c.split(": ")[1].replace("\u2212", "-") for c in drawn[p * per:(p + 1) * per]]
            assert [float(x) for x in got] == pytest.approx([float(x) for x in want], abs=0.0051)
    assert n >= 3
    clean(page)


@pytest.mark.parametrize("width", [360, 1280])
def test_generation_tables_do_not_clip(open_page, width):
    page = open_page("generation.html", width=width)
    root = demo(page, "generate")
    root.locator("input[type=range]").fill(str(N_CTX))
    root.locator("select").select_option("300")
    root.get_by_role("button", name="Play").click()
    page.wait_for_function("() => !document.querySelector('.nt-demo[data-demo=generate]').hasAttribute('data-playing')", timeout=20000)
    boxes = root.locator(".nt-table-wrap, .nt-kv .nt-scroll").evaluate_all(
        "els => els.map(e => [e.closest('.nt-lane').dataset.lane, e.scrollWidth, e.clientWidth])")
    assert len(boxes) == 4
    for lane, sw, cw in boxes:
        assert sw <= cw, f"{lane}: {sw} > {cw} px at {width}"
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    clean(page)


def test_play_animates_to_the_end_and_pauses(open_page):
    page = open_page("generation.html")
    root = demo(page, "generate")
    root.locator("select").select_option("300")
    play = root.locator('button[data-role="play"]')
    play.click()
    assert play.inner_text() == "Pause"
    # the rows flash while it plays
    page.wait_for_function("() => document.querySelector('.nt-demo[data-demo=generate]').getAnimations({subtree: true}).length > 0", timeout=3000)
    page.wait_for_function("() => !document.querySelector('.nt-demo[data-demo=generate]').hasAttribute('data-playing')", timeout=15000)
    total = root.locator('[data-lane="nocache"] .nt-gen-table tbody tr').count()
    assert total == root.locator('[data-lane="nocache"] .nt-new-tok').count() >= 3
    assert play.inner_text() == "Play"
    assert not root.get_by_role("button", name="Next step").is_enabled()
    # Play again starts over; Pause holds the step
    root.locator("select").select_option("1600")
    play.click()
    play.click()
    held = root.locator('[data-lane="nocache"] .nt-gen-table tbody tr').count()
    assert held == 1
    page.wait_for_timeout(1800)
    assert root.locator('[data-lane="nocache"] .nt-gen-table tbody tr').count() == held
    clean(page)


def test_reduced_motion_nothing_animates(open_page):
    page = open_page("generation.html", motion="reduce")
    root = demo(page, "generate")
    root.locator("select").select_option("300")
    root.get_by_role("button", name="Play").click()
    counts = []
    for _ in range(12):
        counts.append(page.evaluate("() => document.querySelector('.nt-demo[data-demo=generate]').getAnimations({subtree: true}).length"))
        page.wait_for_timeout(120)
    page.wait_for_function("() => !document.querySelector('.nt-demo[data-demo=generate]').hasAttribute('data-playing')", timeout=15000)
    assert counts == [0] * len(counts)
    assert root.locator('[data-lane="nocache"] .nt-kv-row.nt-kv-new').count() > 0  # still marked, only not moving
    ctx = open_page("context.html", motion="reduce")
    win = demo(ctx, "context-window")
    enter(win.locator("input[type=text]"), EIGHT)
    win.get_by_role("button", name="Add a token").click()
    assert ctx.evaluate("() => document.querySelector('.nt-demo[data-demo=context-window]').getAnimations({subtree: true}).length") == 0
    clean(page)
    clean(ctx)


# ---- the context window ---------------------------------------------------------------------------------

def window_state(page):
    return page.evaluate("""() => {
        const r = document.querySelector('.nt-demo[data-demo="context-window"]');
        const strip = r.querySelector('.nt-window-strip'), frame = r.querySelector('.nt-window-frame');
        const chips = [...r.querySelectorAll('.nt-window-track .nt-chip')];
        const S = strip.getBoundingClientRect(), F = frame.getBoundingClientRect();
        const inside = chips.filter(c => { const b = c.getBoundingClientRect(); return b.left >= F.left - 0.5 && b.right <= F.right + 0.5; });
        return {pos: chips.map(c => c.dataset.pos === undefined ? null : +c.dataset.pos), framed: inside.map(c => +c.dataset.index),
                frameVisible: [F.right <= S.right + 1 && F.right > S.left, F.left >= S.left - 1],
                wraps: new Set(chips.map(c => Math.round(c.getBoundingClientRect().top))).size,
                cache: r.querySelector('[data-role=window]').dataset.cache, note: r.querySelector('.nt-cache-note').textContent,
                info: r.querySelector('.nt-window-info').textContent,
                top: [...r.querySelectorAll('[data-role=next] li[data-id]')].map(li => [+li.dataset.id, +li.dataset.prob]),
                ids: chips.filter(c => c.dataset.pos !== undefined).map(c => +c.dataset.id),
                tokens: chips.filter(c => c.dataset.pos !== undefined).map(c => c.querySelector('code').textContent)};
    }""")


def runtime_top3(page, ids):
    """The runtime's top three next tokens after the window's ids (js/runtime/model.js's forward pass)."""
    return page.evaluate("""(ids) => {
        const p = nexttoken.runtime.active.tiny(nexttoken.runtime.model).model.forward(ids).probs[ids.length - 1];
        return nexttoken.runtime.kernels.argsort(p).slice(0, 3).map(i => [i, p[i]]);
    }""", ids)


@pytest.mark.parametrize("width", [360, 1280])
def test_the_window_frame_slides_renumbers_and_says_the_cache_is_stale(open_page, width):
    page = open_page("context.html", width=width)
    root = demo(page, "context-window")
    enter(root.locator("input[type=text]"), EIGHT)
    page.wait_for_timeout(500)  # the frame's move
    s = window_state(page)
    assert s["pos"] == list(range(N_CTX)) and s["framed"] == list(range(N_CTX))
    assert s["cache"] == "prefill" and s["wraps"] == 1
    assert s["frameVisible"][0]
    assert [i for i, _ in s["top"]] == [i for i, _ in runtime_top3(page, s["ids"])]
    for (i, p), (j, q) in zip(s["top"], runtime_top3(page, s["ids"])):
        assert i == j and p == pytest.approx(q, abs=1e-12)
    add = root.get_by_role("button", name="Add a token")
    for step in range(1, 4):
        add.click()
        page.wait_for_timeout(500)
        s = window_state(page)
        # the window slid by one: the oldest token is gone, every position renumbered
        assert s["pos"] == [None] * step + list(range(N_CTX))
        assert s["framed"] == list(range(step, step + N_CTX))
        assert s["wraps"] == 1 and s["frameVisible"][0], s
        assert s["cache"] == "stale" and "stale" in s["note"] and "grew" not in s["note"] and "adds one" not in s["note"]
        assert root.locator('[data-role=window] tr[data-cache="rebuilt"]').count() == N_CTX
        assert root.locator(".nt-window-info").get_attribute("data-rebuilt") == "1"
        assert [i for i, _ in s["top"]] == [i for i, _ in runtime_top3(page, s["ids"])]
    # the text from the page's own prompt: no slide until it outgrows the window, then the runtime's rebuild
    enter(root.locator("input[type=text]"), "the cat sat")
    page.wait_for_timeout(100)
    add.click()
    s = window_state(page)
    assert s["cache"] == "grew" and "adds one" in s["note"] and "stale" not in s["note"]
    clean(page)


def test_the_window_top_three_are_pytorchs_for_the_sliding_prompt(open_page):
    """The page's long prompt, cut to the last n_ctx tokens: the three bars are PyTorch's top three."""
    page = open_page("context.html")
    demo(page, "context-window")
    s = window_state(page)
    want = TRACES_ALL["sliding"]["window"]["top"][:3]
    assert [i for i, _ in s["top"]] == [e["id"] for e in want]
    assert [p for _, p in s["top"]] == pytest.approx([e["prob"] for e in want], abs=1e-6)
    assert s["ids"] == TRACES_ALL["sliding"]["window"]["ids"]
    start = TRACES_ALL["sliding"]["window_start"]
    assert s["framed"] == list(range(start, start + N_CTX)) and s["frameVisible"][0]  # framed from the first paint
    assert s["tokens"] == TRACES_ALL["sliding"]["window"]["tokens"]
    clean(page)


# ---- the pages, driven: no sideways scroll at 360 px, axe in both schemes ------------------------------

def drive(page, name):
    if name == "attention.html":
        root = demo(page, "attention")
        enter(root.locator('[data-lane="a"] input[type=text]'), EIGHT)
        root.locator('[data-lane="a"] .nt-attn-tok[data-i="3"]').click()
    elif name == "block.html":
        root = demo(page, "two-heads")
        enter(root.locator("input[type=text]"), EIGHT)
    elif name == "generation.html":
        root = demo(page, "generate")
        root.locator("select").select_option("300")
        root.get_by_role("button", name="Play").click()
        page.wait_for_function("() => !document.querySelector('.nt-demo[data-demo=generate]').hasAttribute('data-playing')", timeout=15000)
    else:
        root = demo(page, "context-window")
        enter(root.locator("input[type=text]"), EIGHT)
        root.get_by_role("button", name="Add a token").click()
    page.evaluate(SETTLED)


# What a drive set off has run: its finite animations and transitions (the window frame's slide, a row's flash)
# to their end, then two frames for what their end sets off. Endless ones (a spinner) are not waited for.
SETTLED = """async () => {
  await Promise.all(document.getAnimations()
    .filter((a) => a.playState === "running" && Number.isFinite(a.effect.getComputedTiming().endTime))
    .map((a) => a.finished.catch(() => null)));
  return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))));
}"""
# The page's reaction to a resize, a scroll or a hover happens in its next rendering frames; one more after them.
# violations() lets the transitions they started run to their end.
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(() => r(true)))))"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", ["attention.html", "block.html", "generation.html", "context.html"])
def test_driven_pages_fit_a_phone_and_axe_finds_nothing(open_page, name, scheme):
    page = open_page(name, width=360, height=800, scheme=scheme)
    drive(page, name)
    assert page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth") <= 1
    for width in (360, 1280):
        page.set_viewport_size({"width": width, "height": 900})
        page.evaluate("() => window.scrollTo(0, 0)")  # the theme's sidebars as a reader first sees them
        page.mouse.move(width - 1, 450)  # not left hovering a link where the last click was (a hover colour is not the link's)
        page.evaluate(FRAMES)
        found = violations(page)
        assert found == [], f"{name} ({scheme}, {width} px): " + "; ".join(found)
    clean(page)
