"""The writers (docs/js/demos/real-writers.js) stream: each token is on the page as soon as it is
picked, while the engine reads it, in the order picked, and a writer starts from the panel's cache
slot (copied, then only the tokens it lacks run). Driven on the demo's embed page by a stand-in session
whose every engine call is logged with what the page showed at that moment, so no model is needed;
the real model's writers are test_real_writers.py's."""
from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

ROOT_SEL = '.nt-demo[data-demo="real-writers"]'

# A session over a 6-token vocabulary whose step answers after `ms`: the logits favour token
# 1 + (step mod 5), so greedy writes 1, 2, 3, ... Every call is logged, step with the greedy
# column's ids and text at the moment it was called.
STREAM = """async ([ms, length]) => {
  const root = document.querySelector('.nt-demo[data-demo="real-writers"]');
  const col = root.querySelector('[data-writer="greedy"]'), log = [];
  const logits = (n) => { const z = new Float32Array(6); z[1 + n % 5] = 5; return z; };
  let step = 0;
  const session = {
    prefill: async (ids, o) => { log.push({op: "prefill", ids: Array.from(ids), slot: o.slot, reuse: !!o.reuse}); return {logits: logits(0), reused: ids.length - 1}; },
    copySlot: async (from, to) => { log.push({op: "copy", from, to}); return {length: 3}; },
    step: (list) => {
      log.push({op: "step", list, shown: JSON.parse(col.dataset.ids || "[]"), text: col.querySelector('[data-role=text]').textContent});
      return new Promise((r) => setTimeout(() => r(list.map(() => ({logits: logits(++step)}))), ms));
    },
  };
  const tokenizer = {eosId: null, decode: (ids) => ids.map((i) => "w" + i + " ").join(""), pieces: (ids) => ids.map((i) => ({token: "w" + i})),
                     encode: () => ({ok: false})};
  nexttoken.store.set("real.model", {session, tokenizer, config: {}, model: "stand-in", name: "stand-in"});
  nexttoken.store.set("real.pass", {text: "a b c", chat: false, ids: [3, 4, 5], pieces: [], result: null, knockout: null, model: "stand-in", name: "stand-in", ms: 1, inside: null});
  root.querySelector('[data-role="length"]').value = String(length);
  for (const box of root.querySelectorAll('.nt-check input')) box.checked = box.parentNode.querySelector("label").textContent === "Greedy";
  root.querySelector('[data-role="write"]').click();
  while (!root.hasAttribute("data-done")) await new Promise((r) => setTimeout(r, 20));
  return {log, ids: JSON.parse(col.dataset.ids), text: col.querySelector('[data-role=text]').textContent, why: col.dataset.why};
}"""


@pytest.mark.parametrize("mode", ["http", "file"])
def test_each_token_is_shown_as_it_is_picked_while_the_engine_reads_it(open_page, mode):
    page = open_page("embed/real-writers.html", mode)
    page.wait_for_selector(f"{ROOT_SEL}[data-ready]")
    got = page.evaluate(STREAM, [150, 6])
    ops = [e["op"] for e in got["log"]]
    # the panel's slot (0) copied into greedy's (1), the prompt run there keeping what it can
    assert ops[:2] == ["copy", "prefill"], ops
    assert got["log"][0]["from"] == 0 and got["log"][0]["to"] == 1
    assert got["log"][1] == {"op": "prefill", "ids": [3, 4, 5], "slot": 1, "reuse": True}
    decodes = [e for e in got["log"] if e["op"] == "step"]
    assert got["ids"] == [1, 2, 3, 4, 5, 1] and got["why"] == "length"
    assert [d["list"] for d in decodes] == [[[1, i]] for i in got["ids"][:-1]]  # greedy's slot; the last token needs no step
    for k, d in enumerate(decodes):
        # when the engine is asked for what follows token k, tokens 0..k are already on the page, in order
        assert d["shown"] == got["ids"][:k + 1], (k, d)
        assert d["text"] == "".join(f"w{i} " for i in got["ids"][:k + 1]), (k, d)
    assert got["text"] == "".join(f"w{i} " for i in got["ids"])
    assert page.nt_problems == []
