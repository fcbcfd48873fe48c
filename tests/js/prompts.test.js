// A reader's prompt for the tiny model (docs/js/runtime/prompts.js): a word the model cannot read, or has
// never seen, is answered with the words it knows that are nearest to it (fewest edits), not only refused.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const { ROOT, runtime, data } = require("./load.js");

for (const f of ["active", "prompts"]) require(path.join(ROOT, "docs/js/runtime", f + ".js"));
const prompts = runtime.prompts;
const corpus = data["tiny-model"].config.corpus;
const words = [...new Set(corpus.join(" ").toLowerCase().split(/\s+/).map((w) => w.replace(/[^a-z]/g, "")).filter(Boolean))];

// Edits from a to b, written again here rather than taken from the module under test.
function edits(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
  }
  return d[a.length][b.length];
}

function named(text, word) {
  const m = new RegExp(`the nearest words it knows to “${word}” are ([^.;]+)`).exec(text);
  assert.ok(m, `no nearest words for “${word}” in: ${text}`);
  return m[1].split(", ");
}

test("a word with a character the model lacks names the nearest words it knows, closest first", () => {
  const r = prompts.encode("hello");
  assert.strictEqual(r.ok, false);
  assert.match(r.message, /has no “l” \(U\+006C, at character 3\)/);
  const got = named(r.message, "hello");
  assert.strictEqual(got.length, 3);
  const best = Math.min(...words.map((w) => edits("hello", w)));
  assert.ok(got.every((w) => words.includes(w)), got.join());
  assert.strictEqual(edits("hello", got[0]), best);
  assert.deepStrictEqual(got.map((w) => edits("hello", w)), [...got.map((w) => edits("hello", w))].sort((a, b) => a - b));
});

test("a word it can spell but never saw is read, with a note naming the nearest words it knows", () => {
  const r = prompts.encode("the hat sat");
  assert.strictEqual(r.ok, true);
  assert.match(r.note, /never hold “hat”/);
  const got = named(r.note, "hat");
  assert.ok(got.every((w) => words.includes(w)) && got.every((w) => edits("hat", w) === 1), got.join());
  assert.strictEqual(prompts.encode("the cat sat on the").note, "", "a prompt of its own words needs no note");
});
