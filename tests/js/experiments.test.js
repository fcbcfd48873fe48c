// Knock-outs and the logit lens in the browser runtime against PyTorch (site_data/parity/experiments.json,
// float64 with the same float32 weights), and the knock-out leaving the trace's shape alone.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { ROOT, model, maxDiff } = require("./load.js");

const ref = JSON.parse(fs.readFileSync(path.join(ROOT, "site_data", "parity", "experiments.json"), "utf8"));
const TOL = 1e-9;

test("every knock-out gives PyTorch's next-token probabilities", () => {
  const m = model();
  let worst = 0, n = 0;
  for (const p of ref.prompts) {
    for (const k of p.knockouts) {
      const tr = m.forward(p.ids, { knockout: { heads: k.heads, mlp: k.mlp } });
      worst = Math.max(worst, maxDiff(tr.probs[p.ids.length - 1], k.probs, `${p.prompt} ${k.name}`));
      n += 1;
    }
  }
  console.log(`# ${n} knock-out passes: largest probability difference ${worst.toExponential(2)} (tolerance ${TOL})`);
  assert.ok(worst <= TOL);
});

test("the logit lens gives PyTorch's probabilities at every stage and position", () => {
  const m = model();
  let worst = 0;
  for (const p of ref.prompts) {
    const lens = m.lens(p.ids);
    assert.deepStrictEqual(lens.stages.map((s) => s.name), p.lens.map((s) => s.name));
    lens.stages.forEach((s, i) => { worst = Math.max(worst, maxDiff(s.probs, p.lens[i].probs, `${p.prompt} ${s.name}`)); });
    assert.ok(maxDiff(lens.stages[lens.stages.length - 1].probs, lens.probs, "last stage") === 0);
  }
  console.log(`# logit lens, ${ref.prompts.length} prompts: largest difference ${worst.toExponential(2)} (tolerance ${TOL})`);
  assert.ok(worst <= TOL);
});

test("a knock-out keeps the trace's shape and zeroes only what it names", () => {
  const m = model(), ids = ref.prompts[0].ids;
  const full = m.forward(ids), off = m.forward(ids, { knockout: { heads: [0], mlp: true } });
  assert.deepStrictEqual(Object.keys(off).filter((k) => k !== "knockout"), Object.keys(full).filter((k) => k !== "knockout"));
  assert.ok(off.h[0].head_out[0].every((row) => row.every((x) => x === 0)));
  assert.deepStrictEqual(off.h[0].head_out[1], full.h[0].head_out[1]);
  assert.ok(off.h[0].mlp_out.every((row) => row.every((x) => x === 0)));
  assert.throws(() => m.forward(ids, { knockout: { heads: [m.config.n_head] } }), /no head/);
});
