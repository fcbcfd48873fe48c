// The real-model engine's pieces on hand-made data: the chunk check's one-line faults, the
// quantised matrix products against their de-quantised weights, bad prompts, cancel.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const crypto = require("node:crypto");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
const { loader } = require("./real-scripts.js");
const engine = require(path.join(ROOT, "docs/js/real/engine.js"))();

function f16(x) {  // float32 -> float16 bits, truncated (normal numbers only: the scales of hand-made blocks)
  const f = new Float32Array([x]), u = new Uint32Array(f.buffer)[0];
  const s = (u >>> 16) & 0x8000, e = ((u >>> 23) & 255) - 127 + 15, m = (u >>> 13) & 1023;
  return e <= 0 ? s : s | (e << 10) | m;
}

function manifestFor(bytes, files = 1) {
  const size = Math.ceil(bytes.length / files), chunks = [];
  for (let i = 0; i < files; i++) {
    const part = bytes.subarray(i * size, (i + 1) * size);
    chunks.push({ file: `w0${i}.html`, bytes: part.length, sha256: crypto.createHash("sha256").update(part).digest("hex") });
  }
  return { model: "m", total_bytes: bytes.length, chunks, tensors: [] };
}

test("a chunk that is truncated, altered, not base64 or absent is one line naming its file", async () => {
  const bytes = crypto.randomBytes(3000);
  const m = manifestFor(bytes, 2);
  const b64 = (i) => Buffer.from(bytes.subarray(i * 1500, (i + 1) * 1500)).toString("base64");
  const out = new Uint8Array(3000);
  await loader.accept(m, 0, b64(0), out);
  await loader.accept(m, 1, b64(1), out);
  assert.deepEqual(Buffer.from(out), bytes);
  await assert.rejects(loader.accept(m, 1, b64(1).slice(0, 400), out), { message: "m/w01.html is truncated or altered: 300 bytes, the manifest says 1500" });
  const altered = (b64(1)[10] === "A" ? "B" : "A");
  await assert.rejects(loader.accept(m, 1, b64(1).slice(0, 10) + altered + b64(1).slice(11), out), { message: "m/w01.html is altered: its sha256 does not match the manifest" });
  await assert.rejects(loader.accept(m, 0, "%%%not base64%%%", out), { message: "m/w00.html is damaged (not base64)" });
  await assert.rejects(loader.accept(m, 0, undefined, out), { message: "m/w00.html is damaged (it holds no model data)" });
  // the page's path: bytes its chunk page decoded, checked as they are
  await loader.check(m, 1, bytes.subarray(1500));
  await assert.rejects(loader.check(m, 1, bytes.subarray(1500, 2999)), { message: "m/w01.html is truncated or altered: 1499 bytes, the manifest says 1500" });
  const flipped = Uint8Array.from(bytes.subarray(1500));
  flipped[700] ^= 1;
  await assert.rejects(loader.check(m, 1, flipped), { message: "m/w01.html is altered: its sha256 does not match the manifest" });
});

test("float16 scales decode exactly", () => {
  const cases = [[0x0000, 0], [0x3c00, 1], [0xc000, -2], [0x3800, 0.5], [0x7bff, 65504], [0x0400, 6.103515625e-05], [0x0001, 5.960464477539063e-08]];
  for (const [bits, x] of cases) assert.equal(engine.f16[bits], x);
});

// A 5 x 64 matrix as Q4_1 and as Q8_0 blocks, with its de-quantised float weights (5 rows: one
// four-row tile of the kernels and a partial one).
function blocks(type) {
  const rows = 5, cols = 64, nb = cols / 32, bb = type === "Q4_1" ? 20 : 34;
  const buf = new ArrayBuffer(rows * nb * bb), u8 = new Uint8Array(buf), i8 = new Int8Array(buf), w = new Float64Array(rows * cols);
  let p = 0, seed = 7;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let r = 0; r < rows; r++) {
    for (let b = 0; b < nb; b++) {
      const dBits = f16(0.01 + rnd() / 10), mBits = f16(-rnd() / 2), d = engine.f16[dBits], m = engine.f16[mBits];
      u8[p] = dBits & 255; u8[p + 1] = dBits >> 8;
      if (type === "Q4_1") {
        u8[p + 2] = mBits & 255; u8[p + 3] = mBits >> 8;
        for (let j = 0; j < 16; j++) {
          const lo = Math.floor(rnd() * 16), hi = Math.floor(rnd() * 16);
          u8[p + 4 + j] = lo | (hi << 4);
          w[r * cols + b * 32 + j] = d * lo + m;
          w[r * cols + b * 32 + j + 16] = d * hi + m;
        }
      } else {
        for (let j = 0; j < 32; j++) { const q = Math.floor(rnd() * 255) - 127; i8[p + 2 + j] = q; w[r * cols + b * 32 + j] = d * q; }
      }
      p += bb;
    }
  }
  return { t: { type, rows, cols, off: 0, u8, i8, u32: new Uint32Array(buf, 0, buf.byteLength >> 2) }, w };
}

for (const type of ["Q4_1", "Q8_0"]) {
  test(`${type} products straight from the blocks equal the de-quantised weights`, () => {
    const { t, w } = blocks(type);
    for (const T of [1, 3, 4]) {  // one token, and token pairs with an odd one left over
      const x = Float32Array.from({ length: T * 64 }, (_, i) => Math.sin(i));
      const y = new Float32Array(T * 5);
      engine.matmul(t, x, T, y);
      for (let k = 0; k < T; k++) {
        for (let r = 0; r < 5; r++) {
          let want = 0;
          for (let c = 0; c < 64; c++) want += w[r * 64 + c] * x[k * 64 + c];
          assert.ok(Math.abs(y[k * 5 + r] - want) < 1e-4, `${type} T=${T} row ${r}: ${y[k * 5 + r]} vs ${want}`);
        }
      }
      const row = new Float32Array(64);
      engine.row(t, 1, row, 0);
      for (let c = 0; c < 64; c++) assert.ok(Math.abs(row[c] - w[64 + c]) < 1e-6);
    }
  });
}

// The SIMD kernels (docs/js/real/kernels-wasm.js, generated by `make site`) on the same blocks.
function wasmBytes() {
  return require("./real-scripts.js").kernelsWasm();
}

for (const type of ["Q4_1", "Q8_0"]) {
  test(`${type} products in WebAssembly equal the de-quantised weights and the JS kernels`, () => {
    const { t, w } = blocks(type);
    const manifest = { tensors: [{ name: "m", type, shape: [5, 64], offset: 0 }] };
    const ts = engine.tensors(manifest, t.u8.buffer, wasmBytes());
    assert.equal(ts.kernels, "wasm");
    assert.ok(ts.tensors.m.k, "the tensor runs on the WebAssembly kernels");
    for (const T of [1, 3, 6]) {  // one at a time, and four at once with two left over
      const x = Float32Array.from({ length: T * 64 }, (_, i) => Math.cos(i));
      const y = new Float32Array(T * 5), js = new Float32Array(T * 5);
      engine.matmul(ts.tensors.m, x, T, y);
      engine.matmul(t, x, T, js);
      for (let k = 0; k < T; k++) {
        for (let r = 0; r < 5; r++) {
          let want = 0;
          for (let c = 0; c < 64; c++) want += w[r * 64 + c] * x[k * 64 + c];
          assert.ok(Math.abs(y[k * 5 + r] - want) < 1e-4, `${type} T=${T} row ${r}: ${y[k * 5 + r]} vs ${want}`);
          assert.ok(Math.abs(y[k * 5 + r] - js[k * 5 + r]) < 1e-5);
        }
      }
    }
  });
}

test("bytes that are not a WebAssembly module leave the JS kernels running", () => {
  const { t } = blocks("Q4_1");
  const ts = engine.tensors({ tensors: [{ name: "m", type: "Q4_1", shape: [5, 64], offset: 0 }] }, t.u8.buffer, new Uint8Array([0, 97, 115, 109, 1]));
  assert.equal(ts.kernels, "js");
  assert.equal(ts.tensors.m.k, null);
});

// A 1-block llama with F32 tensors: enough to exercise the checks and the cache.
function tinyLlama() {
  const C = 64, F = 64, V = 40, names = [["wte.weight", [V, C]], ["ln_f.weight", [C]], ["h.0.ln_1.weight", [C]], ["h.0.ln_2.weight", [C]],
    ["h.0.attn.q.weight", [C, C]], ["h.0.attn.k.weight", [32, C]], ["h.0.attn.v.weight", [32, C]], ["h.0.attn.c_proj.weight", [C, C]],
    ["h.0.mlp.gate.weight", [F, C]], ["h.0.mlp.up.weight", [F, C]], ["h.0.mlp.c_proj.weight", [C, F]]];
  let off = 0;
  const tensors = names.map(([name, shape]) => { const t = { name, type: "F32", shape, offset: off }; off += 4 * shape.reduce((a, b) => a * b); return t; });
  const buf = new ArrayBuffer(off), f = new Float32Array(buf);
  let seed = 11;
  for (let i = 0; i < f.length; i++) f[i] = ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * 0.6;
  const config = { arch: "llama", n_layer: 1, n_embd: C, n_head: 4, n_kv_heads: 2, d_mlp: F, n_ctx: 16, rms_eps: 1e-5, rope_base: 10000, vocab_size: V };
  return new engine.Model({ config, tensors }, buf);
}

test("bad prompts are one line; the cache survives them", async () => {
  const m = tinyLlama();
  await assert.rejects(m.prefill([], {}), { message: "the prompt is empty: type at least one character" });
  await assert.rejects(m.prefill(Array(17).fill(1), {}), { message: "the prompt and continuation are 17 tokens; the limit is 16" });
  await assert.rejects(m.prefill([1, 40], {}), { message: "token id 40 is outside the vocabulary (0-39)" });
  await assert.rejects(m.prefill([1.5], {}), { message: "token id 1.5 is outside the vocabulary (0-39)" });
  await assert.rejects(m.prefill([1], { knockout: { heads: [[0, 4]] } }), { message: "knock-out head [0,4] is not [layer 0-0, head 0-3]" });
  await assert.rejects(m.decode(3, {}), { message: "decode needs a prefilled prompt first" });
  const a = await m.prefill([1, 2, 3], {});
  assert.equal(a.length, 3);
  await assert.rejects(m.decode(3, {}, async () => { throw new engine.Cancelled(); }), { message: "cancelled" });
  assert.equal(m.length, 3);  // rolled back: the next step sees the same cache
  const b = await m.decode(4, {});
  const c = await m.prefill([1, 2, 3, 4], {});
  for (let i = 0; i < c.logits.length; i++) assert.ok(Math.abs(b.logits[i] - c.logits[i]) < 1e-5);
});

test("knock-outs change the output, and the whole MLP or head can be removed", async () => {
  const m = tinyLlama();
  const base = (await m.prefill([1, 2, 3], { heads: true })).logits;
  const noHead = (await m.prefill([1, 2, 3], { knockout: { heads: [[0, 2]] } })).logits;
  const noMlp = (await m.prefill([1, 2, 3], { knockout: { mlp: [0] } })).logits;
  const diff = (a, b) => Math.max(...a.map((v, i) => Math.abs(v - b[i])));
  assert.ok(diff(base, noHead) > 1e-4 && diff(base, noMlp) > 1e-4);
  const h = (await m.prefill([1, 2, 3], { heads: true })).heads[0];
  for (let hh = 0; hh < 4; hh++) {
    const s = h.slice(hh * 3, hh * 3 + 3).reduce((x, y) => x + y);
    assert.ok(Math.abs(s - 1) < 1e-6, `head ${hh} weights sum to ${s}`);
  }
});

test("a chunk's text is read from its page's text/plain script", () => {
  const page = '<!doctype html>\n<script>\nparent.postMessage(0, "*");\n</script>\n<script type="text/plain" id="b64">QUJD</script>\n';
  assert.equal(loader.chunkText(page), "QUJD");
  assert.equal(loader.chunkText(page.slice(0, -12)), undefined);  // cut before its end: no text
  assert.equal(loader.chunkText("<!doctype html><p>not a chunk"), undefined);
});
