// The engine split over workers (engine.layout's shares, each holding only its rows of every
// matrix): bit-identical to one share on every output, with a knock-out and the lens, on F32 and
// quantised blocks, plain-JS and WebAssembly kernels; the shares hold the file once between them.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const { bits, engine, randomLlamaData, splitModel } = require("./random-llama.js");

function wasmBytes() {
  return require("./real-scripts.js").kernelsWasm();
}

async function outputs(model) {
  const ids = [5, 17, 99, 3, 42, 64, 0];  // a 7-token prompt: the token-pair kernels with one left over
  const opts = { lens: true, residuals: true, heads: true, final: true, knockout: { heads: [[0, 1], [1, 3]], mlp: [1] } };
  const a = await model.prefill(ids, opts);
  const b = await model.decode(100, { lens: true, heads: true, final: true });
  const plain = await model.prefill(ids.slice(0, 3), {});
  const c = await model.decode(7, {});
  const row = await model.outputRow(100);
  return [bits(a), bits(b), bits(plain), bits(c), Buffer.from(row.buffer)];
}

// vocab 101 and rows of 32, 64 and 96: every matrix cut unevenly over 3 shares, some over 2.
for (const quantised of [false, true]) {
  for (const kernels of ["js", "wasm"]) {
    test(`${quantised ? "quantised" : "F32"} llama on the ${kernels} kernels: 2 and 3 shares give the bits of 1`, async () => {
      const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 11, scale: 0.6, n_ctx: 64, quantised });
      const wasm = kernels === "wasm" ? wasmBytes() : null;
      const one = splitModel(manifest, buffer, 1, wasm).model;
      assert.equal(one.kernels, quantised || kernels === "js" ? kernels : one.kernels);
      const want = await outputs(one);
      for (const count of [2, 3]) {
        const { model, plan } = splitModel(manifest, buffer, count, wasm);
        assert.equal(model.peers.length, count - 1);
        const q = plan.parts.map((p) => p.manifest.tensors.find((t) => t.name === "h.0.attn.q.weight").shape[0]);
        assert.equal(q.reduce((a, b) => a + b), 64);
        const got = await outputs(model);
        got.forEach((g, i) => assert.ok(g.equals(want[i]), `${count} shares, output ${i} differs`));
      }
    });
  }
}

test("the split model equals the model built from the whole buffer", async () => {
  const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 5, scale: 0.6, n_ctx: 64, quantised: true });
  const want = await outputs(new engine.Model(manifest, buffer.slice(0)));
  const got = await outputs(splitModel(manifest, buffer, 3).model);
  got.forEach((g, i) => assert.ok(g.equals(want[i]), `output ${i} differs`));
});

test("the shares hold the file's bytes once: each piece once, total within alignment padding", () => {
  const { manifest } = randomLlamaData({ vocab: 101, seed: 5, scale: 0.6, n_ctx: 64, quantised: true });
  for (const count of [1, 2, 3, 4]) {
    const plan = engine.layout(manifest, count);
    let at = 0, total = 0;
    for (const [from, length] of plan.pieces) { assert.ok(from >= at, "pieces in order, none overlapping"); at = from + length; total += length; }
    assert.equal(total, manifest.total_bytes, `${count} shares copy every byte once`);
    const held = plan.parts.reduce((a, p) => a + p.bytes, 0);
    assert.ok(held - manifest.total_bytes <= 16 * count * manifest.tensors.length, `${count} shares hold ${held} bytes for ${manifest.total_bytes}`);
    if (count === 1) assert.deepEqual(plan.pieces, [[0, manifest.total_bytes, 0, 0]]);
  }
});

test("a split model with the wrong number of peers is one line", () => {
  const { manifest } = randomLlamaData({ vocab: 101, seed: 5, scale: 0.6, n_ctx: 64 });
  const part = engine.layout(manifest, 3).parts[0];
  assert.throws(() => new engine.Model(part.manifest, engine.storage(part.manifest, part.bytes)), { message: "a model split 3 ways needs 2 peers, not 0" });
});

test("a share that fails rejects the call with its line, and the next call still runs", async () => {
  const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 5, scale: 0.6, n_ctx: 64 });
  const { model, shards } = splitModel(manifest, buffer, 2);
  const handle = shards[0].handle;
  shards[0].handle = () => { throw new Error("share 1 failed"); };
  await assert.rejects(model.prefill([1, 2, 3], {}), { message: "share 1 failed" });
  shards[0].handle = handle;
  const out = await model.prefill([1, 2, 3], {});
  assert.equal(out.length, 3);
});

// A prompt read as one batch (the tile kernels over 64-token tiles, attention four positions at a
// time) against the same tokens read one at a time: the same bits, on both kernels.
for (const kernels of ["js", "wasm"]) {
  test(`a 70-token prompt read at once gives the bits of reading it token by token (${kernels} kernels)`, async () => {
    const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 3, scale: 0.6, n_ctx: 128, quantised: true });
    const wasm = kernels === "wasm" ? wasmBytes() : null;
    const ids = Array.from({ length: 70 }, (_, i) => (i * 37 + 5) % 101);
    const opts = { heads: true, lens: true, final: true, knockout: { heads: [[1, 2]] } };
    const whole = await splitModel(manifest, buffer, 1, wasm).model.prefill(ids, opts);
    const m = splitModel(manifest, buffer, 1, wasm).model;
    assert.equal(m.kernels, kernels);
    let step = await m.prefill(ids.slice(0, 1), opts);
    for (const id of ids.slice(1)) step = await m.decode(id, opts);
    if (kernels === "wasm") assert.ok(bits(whole).equals(bits(step)), "every output");
    // the JS kernels sum a prompt's products over whole rows, one token's block by block
    else for (const k of ["logits", "final"]) assert.ok(Math.max(...whole[k].map((v, i) => Math.abs(v - step[k][i]))) < 1e-5, k);
  });
}

// A short prompt goes straight from the blocks, each row unpacked once for six tokens, then four,
// two, one (real_kernels.wat's $direct): every length up to the tiles' gives decode's bits.
// randomLlamaData's Q4_1 blocks have m = -8 d, so their m terms vanish; here each block's m differs.
test("prompts of 2 to 13 tokens read at once give the bits of reading them token by token (wasm kernels)", async () => {
  const { manifest, buffer } = randomLlamaData({ vocab: 101, seed: 4, scale: 0.6, n_ctx: 32, quantised: true });
  const u8 = new Uint8Array(buffer);
  for (const t of manifest.tensors.filter((t) => t.type === "Q4_1")) {
    const end = t.offset + t.shape[0] * t.shape[1] / 32 * 20;
    for (let p = t.offset, k = 0; p < end; p += 20, k++) { u8[p + 2] = (k * 53) % 256; u8[p + 3] = k % 3 ? 0xad : 0x2d; }
  }
  const opts = { lens: true, final: true };
  for (let n = 2; n <= 13; n++) {
    const ids = Array.from({ length: n }, (_, i) => (i * 41 + 7) % 101);
    const whole = await splitModel(manifest, buffer, 1, wasmBytes()).model.prefill(ids, opts);
    const m = splitModel(manifest, buffer, 1, wasmBytes()).model;
    let step = await m.prefill(ids.slice(0, 1), opts);
    for (const id of ids.slice(1)) step = await m.decode(id, opts);
    assert.ok(bits(whole).equals(bits(step)), `${n} tokens`);
  }
});
