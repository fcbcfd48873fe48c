// The tiny tokenizer in JS against the Python one (via the committed data).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { siteData, tokenizer } = require("./load.js");

const tk = tokenizer();
const data = siteData("tokenizer");
const config = siteData("config");

test("vocabulary and merges come from the data", () => {
  assert.deepStrictEqual(tk.vocab, data.vocab);
  assert.strictEqual(tk.vocab.length, config.model.vocab_size);
  assert.strictEqual(tk.eotId, data.eot_id);
});

test("every corpus sentence encodes to whole words and decodes back", () => {
  for (const s of config.corpus) {
    const enc = tk.encode(s);
    assert.ok(enc.ok);
    assert.strictEqual(enc.ids.length, s.split(" ").length + 1, s);  // words + the final "."
    assert.strictEqual(tk.decode(enc.ids), s);
  }
});

test("“cats” in running text is ·cat + s, merge by merge", () => {
  assert.deepStrictEqual(tk.encode(" cats").tokens, ["·cat", "s"]);
  assert.deepStrictEqual(tk.encode("the cats").tokens, ["the", "·cat", "s"]);
  const r = tk.mergeSteps(" cats");
  assert.ok(r.ok);
  const steps = r.chunks[0].steps;
  assert.deepStrictEqual(steps[0].symbols, ["·", "c", "a", "t", "s"]);
  assert.deepStrictEqual(steps[steps.length - 1].symbols, ["·cat", "s"]);
  for (let i = 2; i < steps.length; i++) assert.ok(steps[i].rank > steps[i - 1].rank, "merges apply in learned order");
});

test("unknown characters give a structured error naming the character and its position", () => {
  const r = tk.encode("the Cat");
  assert.strictEqual(r.ok, false);
  assert.strictEqual(r.error.kind, "unknown_char");
  assert.strictEqual(r.error.char, "C");
  assert.strictEqual(r.error.index, 4);
  assert.match(r.error.message, /“C” at position 5/);
  assert.match(r.error.message, /256 bytes/);
  const emoji = tk.encode("the 🐈");
  assert.strictEqual(emoji.error.char, "🐈");
  assert.strictEqual(tk.encode("").error.kind, "empty");
  assert.strictEqual(tk.mergeSteps("x<y").ok, false);
});
