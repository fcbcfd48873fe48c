// A random llama (2 blocks unless asked) with grouped-query attention (4 query heads, 2 key/value heads) in the
// engine's own format: the model the slot, decoding and split tests run without any file. Its
// tensors are F32, or (quantised) the matrices as random Q8_0 and Q4_1 blocks, as SmolLM2's are.
"use strict";
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
const engine = require(path.join(ROOT, "docs/js/real/engine.js"))();

const BYTES = { F32: 4, Q8_0: 34 / 32, Q4_1: 20 / 32 };

function randomLlamaData({ vocab, seed, scale, n_ctx, quantised = false, layers = 2 }) {
  const C = 64, F = 96, V = vocab, L = layers, names = [["wte.weight", [V, C]], ["ln_f.weight", [C]]];
  for (let l = 0; l < L; l++) {
    names.push([`h.${l}.ln_1.weight`, [C]], [`h.${l}.ln_2.weight`, [C]], [`h.${l}.attn.q.weight`, [C, C]],
      [`h.${l}.attn.k.weight`, [32, C]], [`h.${l}.attn.v.weight`, [32, C]], [`h.${l}.attn.c_proj.weight`, [C, C]],
      [`h.${l}.mlp.gate.weight`, [F, C]], [`h.${l}.mlp.up.weight`, [F, C]], [`h.${l}.mlp.c_proj.weight`, [C, F]]);
  }
  let off = 0, s = seed;
  const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  const tensors = names.map(([name, shape], i) => {
    const type = !quantised || shape.length === 1 ? "F32" : name === "wte.weight" || i % 2 ? "Q8_0" : "Q4_1";
    const t = { name, type, shape, offset: off };
    off += Math.ceil(BYTES[type] * shape.reduce((a, b) => a * b) / 4) * 4;
    return t;
  });
  const buf = new ArrayBuffer(off), f = new Float32Array(buf), u8 = new Uint8Array(buf);
  for (const t of tensors) {
    const n = t.shape.reduce((a, b) => a * b);
    if (t.type === "F32") { for (let i = 0; i < n; i++) f[t.offset / 4 + i] = (rnd() - 0.5) * scale; continue; }
    const bb = t.type === "Q8_0" ? 34 : 20;
    for (let p = t.offset; p < t.offset + n / 32 * bb; p += bb) {
      for (let j = 0; j < bb; j++) u8[p + j] = Math.floor(rnd() * 256);
      u8[p] = 0x1f; u8[p + 1] = 0x21;  // scale d ~ 0.01 (float16), and for Q4_1 m ~ -0.08
      if (bb === 20) { u8[p + 2] = 0x1f; u8[p + 3] = 0xad; }
    }
  }
  const config = { arch: "llama", n_layer: L, n_embd: C, n_head: 4, n_kv_heads: 2, d_mlp: F, n_ctx, rms_eps: 1e-5, rope_base: 10000, vocab_size: V };
  return { manifest: { model: "random", config, tensors, total_bytes: off }, buffer: buf };
}

function randomLlama(opts) {
  const { manifest, buffer } = randomLlamaData(opts);
  return new engine.Model(manifest, buffer);
}

// The model split over `count` shares as the page splits it over workers (engine.layout), the
// shares answering the leader in this thread through a structured clone, as a port would copy.
function splitModel(manifest, buffer, count, wasm = null) {
  const plan = engine.layout(manifest, count), src = new Uint8Array(buffer);
  const stores = plan.parts.map((part) => engine.storage(part.manifest, part.bytes, wasm));
  for (const [from, length, part, to] of plan.pieces) {
    new Uint8Array(stores[part].buf, stores[part].base + to, length).set(src.subarray(from, from + length));
  }
  const shards = plan.parts.slice(1).map((part, i) => new engine.Shard(part.manifest, stores[i + 1]));
  const peers = shards.map((shard) => ({ call: (m) => Promise.resolve(structuredClone(m)).then((c) => structuredClone(shard.handle(c))) }));
  const model = new engine.Model(plan.parts[0].manifest, stores[0], { peers });
  return { model, plan, shards };
}

// Every float of a result as bytes: equal means bit-identical (NaN and -0 included).
function bits(out) {
  const parts = [];
  const add = (a) => parts.push(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
  for (const k of ["logits", "final"]) if (out[k]) add(out[k]);
  for (const k of ["residuals", "heads", "lens"]) if (out[k]) out[k].forEach(add);
  return Buffer.concat(parts);
}

module.exports = { bits, engine, randomLlama, randomLlamaData, splitModel };
