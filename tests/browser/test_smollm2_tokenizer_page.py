"""SmolLM2's JS tokenizer in Chromium, loaded as a page loads it (classic <script> tags added when
asked, served and from file://): the held-out strings give node's ids, which
tests/real/test_smollm2_tokenizer.py checks against transformers."""
from __future__ import annotations

import pytest

from tests.helpers.smollm2_cases import held_out_cases, run_node

pytestmark = pytest.mark.browser

LOAD_AND_ENCODE = """async (cases) => {
  const scripts = ["js/data/smollm2-tokenizer.js", "js/real/tokenizer.js"];
  if (!window.nexttoken || !window.nexttoken.define) scripts.unshift("js/nexttoken.js");
  for (const src of scripts) {
    await new Promise((ok, fail) => {
      const s = document.createElement("script");
      s.src = src;
      s.onload = ok;
      s.onerror = () => fail(new Error("cannot load " + src));
      document.head.appendChild(s);
    });
  }
  const tok = window.nexttoken.real.tokenizer.create(window.nexttoken.data["smollm2-tokenizer"]);
  return cases.map((c) => {
    const r = tok.encode(c.text, { chat: c.chat, system: c.system });
    return r.ok ? { ok: true, ids: r.ids, replaced: r.replaced, dropped: r.dropped } : { ok: false, error: r.error };
  });
}"""


@pytest.mark.parametrize("mode", ["http", "file"])
def test_the_page_encodes_the_held_out_strings_as_node_does(open_page, mode):
    cases = held_out_cases()
    want = run_node({"cases": cases})["encoded"]
    page = open_page("index.html", mode)
    got = page.evaluate(LOAD_AND_ENCODE, cases)
    assert page.nt_problems == [], "\n".join(page.nt_problems)
    assert [i for i, (a, b) in enumerate(zip(got, want)) if a != b] == []
    assert len(got) == len(cases)
