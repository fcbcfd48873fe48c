// The real model's last-step arithmetic (docs/js/explain/real.js) on hand-made vectors and on a stored
// distribution: every displayed line adds up, the folded terms hold the rest, and the probability is
// the softmax's over the whole vocabulary.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");

const { ROOT, data } = require("./load.js");
require(path.join(ROOT, "docs/js/explain/lines.js"));
require(path.join(ROOT, "docs/js/explain/real.js"));
const real = globalThis.nexttoken.explain.real;
const n = (t) => Number(t.replace("−", "-"));

function rng(seed) { return () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5; }
const SPEC = { ids: [1, 2, 3], knockout: { heads: [[0, 1]], mlp: [4] }, piece: "“·x”", weightsFile: "model.gguf" };

test("a logit is the 576 products: the six largest shown, the rest folded into their sum", () => {
  const r = rng(3), final = Float32Array.from({ length: 576 }, () => r() * 4), row = Float32Array.from({ length: 576 }, () => r() / 5);
  let dot = 0;
  for (let i = 0; i < 576; i++) dot += final[i] * row[i];
  const ex = real.logit({ ...SPEC, final, row, id: 42 });
  assert.equal(ex.lines.length, real.SHOWN + 1);
  const products = ex.lines.slice(0, real.SHOWN).map((l) => Math.abs(n(l.eq)));
  assert.deepEqual(products, [...products].sort((a, b) => b - a));  // largest first
  for (const l of ex.lines.slice(0, real.SHOWN)) assert.ok(Math.abs(n(l.terms[0]) * n(l.terms[1]) - n(l.eq)) < 1e-4, l);
  const last = ex.lines[real.SHOWN];
  assert.equal(last.terms.length, real.SHOWN + 1);
  assert.ok(Math.abs(last.terms.map(n).reduce((a, b) => a + b, 0) - n(last.eq)) < 1e-3);
  assert.ok(Math.abs(ex.value - dot) < 1e-9 && Math.abs(n(last.eq) - dot) <= 5e-5);
  assert.match(ex.snippet, /off_heads, off_mlp = \[\[0,1\]\], \[4\]/);
  assert.match(ex.snippet, /lm_head\.weight\[42\]/);
});

test("a probability is its exponential over the sum for the whole vocabulary, folded by rank", () => {
  const r = rng(9), logits = Float32Array.from({ length: 49152 }, () => r() * 20);
  let mx = -Infinity, z = 0;
  for (const l of logits) mx = Math.max(mx, l);
  for (const l of logits) z += Math.exp(l - mx);
  const ex = real.prob({ ...SPEC, logits, id: 7 });
  assert.deepEqual(real.bucketsOf(49152).map((b) => b[1]), [1, 10, 100, 1000, 10000, 49152]);
  const sums = ex.lines.slice(2, 8).map((l) => n(l.eq));
  assert.ok(Math.abs(sums.reduce((a, b) => a + b, 0) - z) < 1e-5);
  assert.ok(Math.abs(ex.value - Math.exp(logits[7] - mx) / z) < 1e-15);
  assert.match(ex.snippet, /softmax\(-1\)\[7\]/);
});

test("a stored prompt's probability comes from its exact head and its tail's rank buckets", () => {
  const file = path.join(ROOT, "docs/js/data/smollm2-dist-capital.js");
  require(file);
  const d = data["smollm2-dist-capital"];
  const ex = real.prob({ ...SPEC, stored: d, rank: 0 });
  assert.ok(Math.abs(ex.value - d.head.probs[0]) < 1e-6, [ex.value, d.head.probs[0]]);
  assert.match(ex.lines[ex.lines.length - 2].label, /49,152 tokens/);
});
