// The experiments page's arithmetic (docs/js/real/experiments.js), apart from any drawing: the seeded
// choices (the same draws as the build's stage, scripts/real/experiments.py: see
// tests/site/test_experiment_draws.py), per-token losses from the engine's every-position summary,
// perplexity, the worst tokens, multiply-adds and the lens's first lead.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { runtime } = require("./load.js");
require("../../docs/js/real/experiments.js");
const lab = globalThis.nexttoken.real.experiments;

test("the pool keeps the stored tokens that match, in id order", () => {
  assert.deepEqual(lab.pool(["<s>", "Ġcat", "Ġa", "dog", "Ġbird", "Ġcat2"], "^Ġ[a-z]{3,}$"), [1, 4]);
});

test("a sequence is the seed's draws from the pool, and the copy prompt holds it twice after the start", () => {
  const pool = [10, 20, 30, 40, 50], seq = lab.sequence(pool, 7, 12), r = runtime.sampling.mulberry32(7);
  assert.deepEqual(seq, seq.map(() => pool[Math.floor(r() * pool.length)]));
  const ids = lab.copyPrompt(0, seq), sl = lab.copySlices(12);
  assert.equal(ids.length, 25);
  // losses[t] is token t + 1's: the copies' scored tokens are the same tokens
  assert.deepEqual(ids.slice(sl.first[0] + 1, sl.first[1] + 1), ids.slice(sl.second[0] + 1, sl.second[1] + 1));
});

test("random heads are distinct, sorted, and never the skipped ones", () => {
  const skip = [[18, 6], [17, 4]];
  for (let seed = 1; seed < 40; seed++) {
    const got = lab.randomHeads(seed, 5, 30, 9, skip), keys = got.map((h) => h[0] * 9 + h[1]);
    assert.equal(new Set(keys).size, 5);
    assert.deepEqual(keys, keys.slice().sort((a, b) => a - b));
    assert.ok(!got.some((h) => skip.some((s) => s[0] === h[0] && s[1] === h[1])));
  }
  assert.throws(() => lab.randomHeads(1, 3, 1, 2, []), /cannot draw 3 heads/);
});

test("a shuffle keeps every word once", () => {
  const text = "the old lighthouse stood at the edge of the cliff.";
  const got = lab.shuffleWords(text, 3);
  assert.deepEqual(got.split(" ").sort(), text.split(" ").sort());
  assert.notEqual(got, text);
});

test("losses and what was expected come from the every-position summary", () => {
  // two positions, k = 2: lse, the next token's logit, the top two
  const every = { lse: Float64Array.from([2, 3]), next: Float32Array.from([1.5, NaN]), top: Int32Array.from([4, 2, 7, 1]), topLogits: Float32Array.from([1.5, 1, 2.5, 2]) };
  const got = lab.perToken(every, 2);
  assert.deepEqual(got.losses, [0.5]);
  assert.equal(got.expected[0][0].id, 4);
  assert.ok(Math.abs(got.expected[1][1].prob - Math.exp(-1)) < 1e-12);
  assert.ok(Math.abs(lab.perplexity([1, 3]) - Math.exp(2)) < 1e-12);
  assert.deepEqual(lab.worst([1, 5, 5, 0.2], 3), [1, 2, 0]);
});

test("multiply-adds: every matrix once a token, attention over each token and those before it", () => {
  assert.equal(lab.macs(3, { matrices: 100, attention_per_key: 2 }), 300 + 2 * (1 + 2 + 3));
});

test("the lens's first lead, ranks and probabilities", () => {
  assert.equal(lab.leads([{ layer: 0, rank: 3 }, { layer: 1, rank: 1 }, { layer: 2, rank: 2 }]), 1);
  assert.equal(lab.leads([{ layer: 0, rank: 3 }]), null);
  const logits = Float32Array.from([1, 3, 2]);
  assert.equal(lab.rank(logits, 2), 2);
  assert.equal(lab.argmax(logits), 1);
  const z = Math.exp(1) + Math.exp(3) + Math.exp(2);
  assert.ok(Math.abs(lab.softmaxAt(logits, 0) - Math.exp(1) / z) < 1e-12);
  assert.equal(lab.count("strawberry", "r"), 3);
});
