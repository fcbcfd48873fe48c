// One step of several slots at once (engine.js step: the writers' and beams' tokens through the
// prompt kernels together, each over its own cache under its own knock-out): each row's logits are
// its slot's decode's, bit for bit on the SIMD and fused kernels and within rounding on the plain-JS
// ones, on 1 and 2 shares; copied slots share the prompt's pages until they write.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { execFileSync } = require("node:child_process");
const { stepChecks } = require("./step-checks.js");

function check(found, kernels) {
  // the plain-JS kernels sum one token's products block by block and several tokens' whole rows:
  // within their rounding, bit for bit only by luck
  if (kernels === "js") delete found["steps against decodes"].bits;
  assert.deepEqual(found, {
    kernels,
    "copies share the prompt's pages": true,
    "steps against decodes": kernels === "js" ? { small: true } : { bits: true, small: true },
    "the prompt's first page is still shared": true,
    "a fork and its source": true,
    refused: ["a step needs at least one [slot, token id]", "cache slot 1 is in the step twice", "decode needs a prefilled prompt first in cache slot 7",
              "token id 101 is outside the vocabulary (0-100)", "cache slot 9 is not 0-7",
              "a step's copies are a list of [from slot, to slot], each slot 0-7", "cancelled"],
    "every slot as it was": true,
    "a rewritten page is read again": { reused: 5, same: true },
  });
}

for (const shares of [1, 2]) {
  test(`a step of several slots equals their decodes: plain-JS kernels, ${shares} share(s)`, async () => check(await stepChecks(null, shares), "js"));
  test(`a step of several slots equals their decodes: SIMD kernels, ${shares} share(s)`, async () => {
    check(await stepChecks(require("./real-scripts.js").kernelsWasm(), shares), "wasm");
  });
}

test("a step of several slots equals their decodes: fused multiply-add kernels, 1 and 2 shares", () => {
  const child = `
    const fma = require(${JSON.stringify(__dirname)} + "/real-scripts.js").kernelsWasm("fma");
    const { stepChecks } = require(${JSON.stringify(__dirname)} + "/step-checks.js");
    (async () => console.log(JSON.stringify({ valid: WebAssembly.validate(fma), one: await stepChecks(fma, 1), two: await stepChecks(fma, 2) })))()
      .catch((e) => console.log(JSON.stringify({ error: e.message })));`;
  const got = JSON.parse(execFileSync(process.execPath, ["--experimental-wasm-relaxed-simd", "-e", child], { encoding: "utf8" }).trim().split("\n").pop());
  assert.equal(got.error, undefined);
  assert.equal(got.valid, true);
  check(got.one, "wasm");
  check(got.two, "wasm");
});
