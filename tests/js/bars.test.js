// SmolLM2's stored distribution as one logit per rank (docs/js/real/bars.js): the head as stored, each
// tail bucket's ranks inside its logit range and holding its stored mass, so the probabilities add to one.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { ROOT } = require("./load.js");

require(path.join(ROOT, "docs/js/real/bars.js"));
const dist = path.join(ROOT, "docs/js/data/smollm2-dist-cat.js");
if (!fs.existsSync(dist)) throw new Error("docs/js/data/smollm2-dist-cat.js is missing: run make site");
require(dist);
const { real, data } = globalThis.nexttoken;
const d = data["smollm2-dist-cat"];

test("expand keeps the head exactly and puts each bucket's ranks in its range with its stored mass", () => {
  const out = real.bars.expand(d);
  assert.strictEqual(out.length, d.vocab_size);
  d.head.logits.forEach((l, r) => assert.strictEqual(out[r], l));
  for (const b of d.tail.buckets) {
    let s = 0;
    for (let j = 0; j < b.count; j++) {
      s += Math.exp(out[b.start + j] - d.max_logit);
      if (j) assert.ok(out[b.start + j] <= out[b.start + j - 1] + 1e-12, "sorted within a bucket");
    }
    assert.ok(Math.abs(s - b.sum_exp) <= 1e-9 * Math.max(1, b.sum_exp), `bucket at ${b.start}: ${s} vs ${b.sum_exp}`);
  }
  let total = 0;
  for (let r = 0; r < out.length; r++) total += Math.exp(out[r] - d.max_logit);
  // The file stores every number to 7 significant digits (scripts/real/measurements.py, DIGITS), so the head's
  // logits and the maximum carry a rounding of up to half a unit in their 7th digit: the total can miss the
  // stored sum by at most what those roundings move it, and no more.
  const half = (x) => (x === 0 ? 0 : 0.5 * Math.pow(10, Math.floor(Math.log10(Math.abs(x))) - 6));
  let bound = half(d.sum_exp) + d.tail.buckets.reduce((a, b) => a + half(b.sum_exp), 0);
  d.head.logits.forEach((l) => { bound += Math.exp(l - d.max_logit) * (half(l) + half(d.max_logit)); });
  assert.ok(Math.abs(total - d.sum_exp) <= bound, `${total} vs ${d.sum_exp} (rounding allows ${bound})`);
});

test("show marks a leading space and a newline as the pages do", () => {
  assert.strictEqual(real.bars.show(" cat"), "·cat");
  assert.strictEqual(real.bars.show("a\nb"), "a↵b");
});
