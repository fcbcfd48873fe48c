// Training snapshots: the per-position losses the JS computes equal PyTorch's in training.json.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const { runtime, data, siteData, tokenizer } = require("./load.js");

const tk = tokenizer();
const training = siteData("training");
const TOL = 1e-5;

// Largest relative difference over two nested weight trees (objects and arrays of the same shape).
function maxRel(a, b, where) {
  if (typeof b === "number") return Math.abs(a - b) / Math.max(Math.abs(b), 1e-12);
  const keys = Array.isArray(b) ? b.map((_, i) => i) : Object.keys(b);
  assert.strictEqual(Object.keys(a).length, keys.length, `${where}: shape differs`);
  return Math.max(0, ...keys.map((k) => maxRel(a[k], b[k], `${where}.${k}`)));
}

test("every snapshot decodes to the float16 weights of training.json", () => {
  let worst = 0;
  training.snapshots.forEach((snap, i) => {
    const w = runtime.snapshots.unpackSnapshot(data["tiny-model"].weights, data["tiny-snapshots"].snapshots[i].weights_f16);
    worst = Math.max(worst, maxRel(w, snap.weights, `snapshot ${i}`));
  });
  // training.json keeps 9 significant digits of each float16 value, so they agree to about 5e-10.
  console.log(`# every weight of every snapshot: largest relative difference ${worst.toExponential(2)}`);
  assert.ok(worst < 1e-8);
});

test("per-position loss under every snapshot matches PyTorch", () => {
  let worst = 0;
  training.snapshots.forEach((snap, i) => {
    const m = runtime.snapshots.snapshotModel(data["tiny-model"], data["tiny-snapshots"], i);
    for (const pos of snap.positions) {
      const ids = tk.encode(pos.sentence).ids.concat([tk.eotId]);
      const js = runtime.snapshots.positionLosses(m, ids);
      assert.deepStrictEqual(js.map((p) => tk.show(p.target)), pos.targets);
      js.forEach((p, t) => { worst = Math.max(worst, Math.abs(p.loss - pos.loss[t])); });
    }
  });
  console.log(`# ${training.snapshots.length} snapshots: largest per-position loss difference ${worst.toExponential(2)} (tolerance ${TOL})`);
  assert.ok(worst <= TOL);
});

test("the loss falls from the first snapshot to the last", () => {
  const first = runtime.snapshots.snapshotModel(data["tiny-model"], data["tiny-snapshots"], 0);
  const last = runtime.snapshots.snapshotModel(data["tiny-model"], data["tiny-snapshots"], data["tiny-snapshots"].snapshots.length - 1);
  const ids = tk.encode("the cat sat on the mat.").ids.concat([tk.eotId]);
  assert.ok(runtime.snapshots.meanLoss(last, ids) < runtime.snapshots.meanLoss(first, ids) / 4);
});
