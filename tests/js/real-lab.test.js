// real.lab: a stored pattern decoded back to its weights (the lower triangle, 1/65,535ths), the kind
// rule (the largest share, "other" under a third), and the direct shares adding up to the logit.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const ROOT = path.resolve(__dirname, "..", "..");
let lab = null;
vm.runInNewContext(fs.readFileSync(path.join(ROOT, "docs/js/real/lab.js"), "utf8"),
  { nexttoken: { define: (name, needs, make) => { lab = make(); } }, atob: globalThis.atob }, { filename: "lab.js" });

test("a stored pattern decodes to its weights, query-major, zeros right of each query", () => {
  const T = 3, L = 2, H = 2, scale = 65535, weights = [];
  for (let l = 0; l < L; l++) for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) for (let j = 0; j <= i; j++) weights.push((l * 7 + h * 3 + i + j + 1) / 20);
  const u16 = Uint16Array.from(weights.map((w) => Math.round(w * scale)));
  const rec = { ids: [1, 2, 3], kinds: { kind: [[0, 0], [0, 0]] }, patterns: { scale, data: Buffer.from(u16.buffer).toString("base64") } };
  const p = lab.pattern(rec, 1, 0);
  assert.equal(p.length, T * T);
  assert.ok(Math.abs(p[2 * T + 1] - (7 + 0 + 2 + 1 + 1) / 20) < 1 / scale);
  assert.equal(p[0 * T + 2], 0);
});

test("a head's kind is its largest share, or other when none reaches a third", () => {
  assert.equal(lab.KINDS[lab.kindOf([0.1, 0.2, 0.05, 0.6, 0.05])], "induction");
  assert.equal(lab.KINDS[lab.kindOf([0.3, 0.3, 0.2, 0.1, 0.1])], "other");
  const live = lab.liveKinds([Float32Array.from([0.9, 0, 0, 0, 0.1, 0, 0.5, 0.4, 0, 0.1])]);
  assert.equal(live[0].map((k) => lab.KINDS[k.kind]).join(","), "first,self");
});

test("direct shares, with the embedding's, add up to part . (gamma scale row) summed", () => {
  const C = 4, d = { gamma: Float32Array.from([1, 2, 0.5, 1]), scale: 0.5, embedding: Float32Array.from([1, 0, 0, 1]),
    heads: [Float32Array.from([1, 1, 1, 1, 0, 2, 0, 0])], mlp: [Float32Array.from([0, 0, 4, 0])] };
  const out = lab.direct(d, [Float32Array.from([1, 1, 1, 1]), Float32Array.from([0, 1, 0, 0])], { ids: [5, 6] });
  const u = [0.5, 0, 0.25, 0.5];  // gamma scale (row a - row b)
  const dot = (v, o = 0) => u.reduce((s, x, i) => s + x * v[o + i], 0);
  assert.equal(out.heads[0].length, 2);
  assert.ok(Math.abs(out.total - (dot(d.embedding) + dot(d.heads[0]) + dot(d.heads[0], C) + dot(d.mlp[0]))) < 1e-12);
  assert.equal(out.heads[0][1], 0);
});
