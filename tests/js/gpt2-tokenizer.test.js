// Parity of docs/js/gpt2/tokenizer.js with transformers: replays site_data/gpt2/tokenizer_parity.json
// (ids that scripts/real/gpt2_tokenizer_facts.py got from GPT2TokenizerFast) through the browser code.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const ROOT = path.resolve(__dirname, "..", "..");
const VOCAB_JS = path.join(ROOT, "docs/js/data/gpt2-vocab.js");
const PARITY = path.join(ROOT, "site_data/gpt2/tokenizer_parity.json");

function load() {
  assert.ok(fs.existsSync(VOCAB_JS), `${VOCAB_JS} is missing: run python -m scripts.site.gpt2_vocab_js (make site does)`);
  const sandbox = { TextEncoder, TextDecoder, Map, Uint8Array };
  sandbox.window = sandbox;
  vm.createContext(sandbox);
  for (const src of [path.join(ROOT, "docs/js/nexttoken.js"), VOCAB_JS, path.join(ROOT, "docs/js/gpt2/tokenizer.js")]) {
    vm.runInContext(fs.readFileSync(src, "utf8"), sandbox, { filename: src });
  }
  return sandbox.nexttoken.gpt2.tokenizer.create(sandbox.nexttoken.data["gpt2-vocab"]);
}

test("encode matches transformers on the parity corpus", () => {
  const tok = load();
  const cases = JSON.parse(fs.readFileSync(PARITY, "utf8")).cases;
  const failures = [];
  for (const c of cases) {
    const got = tok.encode(c.text).ids;
    if (JSON.stringify(got) !== JSON.stringify(c.ids)) failures.push({ text: c.text, expected: c.ids, got });
  }
  console.log(`gpt2 tokenizer parity: ${cases.length - failures.length} of ${cases.length} strings match transformers`);
  assert.deepStrictEqual(failures, []);
});

test("decode inverts encode on the parity corpus", () => {
  const tok = load();
  for (const c of JSON.parse(fs.readFileSync(PARITY, "utf8")).cases) {
    assert.strictEqual(tok.decode(c.ids), c.text);
  }
});

test("tokens are shown both as GPT-2 stores them and readably", () => {
  const tok = load();
  const r = tok.encode("The cat sat on the");
  assert.deepStrictEqual(Array.from(r.ids), [464, 3797, 3332, 319, 262]);
  assert.deepStrictEqual(Array.from(r.tokens), ["The", "\u0120cat", "\u0120sat", "\u0120on", "\u0120the"]);
  assert.deepStrictEqual(Array.from(r.readable), ["The", " cat", " sat", " on", " the"]);
});
