"""The real-models page served over plain http on this machine's own network address, as a phone on
the same network opens a laptop's `make serve`: not a secure context, so no Web Crypto. The model
still loads (its chunks checked by real/sha256.js) and a prompt's top token equals transformers'."""
from __future__ import annotations

import functools
import http.server
import threading

import numpy as np
import pytest

from scripts.core.io import read_json
from scripts.quality.read_through import DONE, READ_THROUGH
from tests.helpers.network import own_address

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PROMPT = "The old lighthouse keeper walked slowly to the"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def lan_server(site):
    host = own_address()
    if host.startswith("127."):
        pytest.skip("this machine has no network address besides loopback")
    httpd = http.server.ThreadingHTTPServer((host, 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://{host}:{httpd.server_address[1]}/"
    httpd.shutdown()
    httpd.server_close()


def test_the_model_loads_and_answers_over_plain_http_from_another_address(browser_context, lan_server, site):
    pytest.importorskip("torch", reason="the reference needs the pipeline dependencies")
    if not (site / "js" / "data" / "real" / "smollm2" / "manifest.js").is_file():
        pytest.fail("build/site has no js/data/real/smollm2: build the site with the model (`make site`)", pytrace=False)
    page = browser_context.new_page()
    page.set_default_timeout(600_000)
    problems = []
    page.route("**/*", lambda r: r.continue_() if r.request.url.startswith(lan_server) or r.request.url.split(":")[0] in ("blob", "data")
               else (problems.append(r.request.url), r.abort()))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("console", lambda m: problems.append(f"console: {m.text}") if m.type == "error" else None)
    page.add_init_script(READ_THROUGH)
    page.goto(lan_server + "real-models.html", wait_until="load")
    page.wait_for_function(DONE)
    assert page.evaluate("() => [isSecureContext, !!(window.crypto && crypto.subtle)]") == [False, False]
    page.click('[data-role="ask-load"]')
    page.wait_for_function("""() => document.querySelector('.nt-demo[data-demo=real-ask]').hasAttribute('data-real-model')
        || document.querySelector('[data-role=ask-msg]').textContent""")
    assert page.get_attribute('.nt-demo[data-demo="real-ask"]', "data-real-model") == "smollm2", page.text_content('[data-role="ask-msg"]')
    assert page.evaluate("() => nexttoken.real.loader.checker()") == "JS"
    got = page.evaluate("""async (text) => {
      const box = document.querySelector('[data-role=ask-prompt]');
      const done = new Promise(res => { const off = nexttoken.store.subscribe('real.pass', p => { if (p && p.text === text) { off(); res(p); } }); });
      document.querySelector('[data-role=ask-chat]').checked = false;
      box.value = text;
      box.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
      const p = await done, z = p.result.logits;
      let top = 0; for (let i = 1; i < z.length; i++) if (z[i] > z[top]) top = i;
      return {ids: p.ids, top};
    }""", PROMPT)
    from scripts.real import loading
    from scripts.site import real_js
    from tests.helpers.real_reference import reference as ref
    model, tok, _, _ = loading.load("smollm2", read_json(real_js.CONFIG)["models"]["smollm2"])
    ids = tok.encode(PROMPT, add_special_tokens=False)
    assert got["ids"] == ids
    assert got["top"] == int(np.argmax(ref(model, ids)["logits"]))
    page.close()
    assert not problems, problems


@pytest.mark.parametrize("where", ["lan", "loopback"])
def test_an_altered_chunk_is_one_line_with_and_without_web_crypto(browser_context, lan_server, server, site, where):
    """One chunk changed in one byte on its way to the page: the panel refuses it in the loader's one
    line, where the JS digest checks (plain http from the network) and where Web Crypto does."""
    base = lan_server if where == "lan" else server
    chunk = site / "js" / "data" / "real" / "smollm2" / "w01.html"
    if not chunk.is_file():
        pytest.fail("build/site has no js/data/real/smollm2: build the site with the model (`make site`)", pytrace=False)
    text = chunk.read_text()
    at = text.index('id="b64">') + 1000
    bad = text[:at] + ("B" if text[at] == "A" else "A") + text[at + 1:]
    page = browser_context.new_page()
    page.set_default_timeout(300_000)
    page.route("**/js/data/real/smollm2/w01.html", lambda r: r.fulfill(status=200, content_type="text/html", body=bad))
    page.goto(base + "real-models.html", wait_until="load")
    page.wait_for_selector('.nt-demo[data-demo="real-ask"][data-ready]')
    assert page.evaluate("() => !!(window.crypto && crypto.subtle)") == (where == "loopback")
    page.click('[data-role="ask-load"]')
    page.wait_for_function("() => document.querySelector('[data-role=ask-msg]').textContent")
    assert page.text_content('[data-role="ask-msg"]') == "smollm2/w01.html is altered: its sha256 does not match the manifest."
    assert page.get_attribute('.nt-demo[data-demo="real-ask"]', "data-real-model") is None
    assert page.is_enabled('[data-role="ask-load"]')  # nothing lost: Load again is offered
    page.close()
