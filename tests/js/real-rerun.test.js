// A knock-out reruns only the blocks from the first one it changes (engine.js, opts.keep): on a
// random 5-block llama, a 40-token prompt, every output (logits, final, every block's residual, lens
// and attention weights) has the bits of a full pass with that knock-out, on the plain-JS kernels,
// plain SIMD and relaxed SIMD's fused multiply-add, on 1 and 2 shares (the workers' split).
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
const { execFileSync } = require("node:child_process");
const { rerunChecks } = require("./rerun-checks.js");

function expected(kernels) {
  const rerun = (from) => ({ from, reused: 40, blocks: 5 - from, same: true });
  return {
    kernels,
    "block 3": rerun(3),
    "block 1": rerun(1),
    "block 4, the last": rerun(4),
    // the same knock-out: only the last token runs, through every block
    "the same parts in another order": { from: undefined, reused: 39, blocks: 5, same: true },
    "block 1, all parts back on": rerun(1),
    "block 0": { from: undefined, reused: undefined, blocks: 5, same: true },
    "the lens moved to position 10": { from: 2, same: true },
    "the lens at position 10": { from: 3, same: true },
    // the wasm kernels read a prompt at once with decode's bits; the plain-JS ones within rounding
    "a decode step after a rerun": kernels === "js" ? "< 1e-5" : 0,
    "a stopped rerun": "cancelled",
    "a decode step in the stopped slot": "cache slot 0 holds a pass stopped halfway: prefill it again first",
    "its copy": { reused: undefined, same: true },
    "the rerun after it": { from: 3, same: true },
    "a kept copy": { from: 2, same: true, source: 39, sourceSame: true },
  };
}

function check(found, kernels) {
  const gap = found["a decode step after a rerun"];
  if (kernels === "js") found["a decode step after a rerun"] = gap < 1e-5 ? "< 1e-5" : gap;
  const plain = (o) => JSON.parse(JSON.stringify(o));  // the child's answer comes as JSON, which drops undefined
  assert.deepEqual(plain(found), plain(expected(kernels)));
}

for (const shares of [1, 2]) {
  test(`a knock-out reruns only its blocks, with a full pass's bits: plain-JS kernels, ${shares} share(s)`, async () => {
    check(await rerunChecks(null, shares), "js");
  });
  test(`a knock-out reruns only its blocks, with a full pass's bits: SIMD kernels, ${shares} share(s)`, async () => {
    check(await rerunChecks(require("./real-scripts.js").kernelsWasm(), shares), "wasm");
  });
}

test("a knock-out reruns only its blocks, with a full pass's bits: fused multiply-add kernels, 1 and 2 shares", () => {
  const child = `
    const dir = ${JSON.stringify(__dirname)};
    const fma = require(dir + "/real-scripts.js").kernelsWasm("fma");
    const { rerunChecks } = require(dir + "/rerun-checks.js");
    (async () => console.log(JSON.stringify({ valid: WebAssembly.validate(fma), one: await rerunChecks(fma, 1), two: await rerunChecks(fma, 2) })))()
      .catch((e) => console.log(JSON.stringify({ error: e.message })));`;
  const got = JSON.parse(execFileSync(process.execPath, ["--experimental-wasm-relaxed-simd", "-e", child], { encoding: "utf8", cwd: path.resolve(__dirname) }).trim().split("\n").pop());
  assert.equal(got.error, undefined);
  assert.equal(got.valid, true);
  check(got.one, "wasm");
  check(got.two, "wasm");
});
