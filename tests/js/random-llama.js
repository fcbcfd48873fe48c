// A random 2-block llama with grouped-query attention (4 query heads, 2 key/value heads), F32
// tensors in the engine's own format: the model the slot and decoding tests run without any file.
"use strict";
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
const engine = require(path.join(ROOT, "docs/js/llm/engine.js"))();

function randomLlama({ vocab, seed, scale, n_ctx }) {
  const C = 64, F = 96, V = vocab, L = 2, names = [["wte.weight", [V, C]], ["ln_f.weight", [C]]];
  for (let l = 0; l < L; l++) {
    names.push([`h.${l}.ln_1.weight`, [C]], [`h.${l}.ln_2.weight`, [C]], [`h.${l}.attn.q.weight`, [C, C]],
      [`h.${l}.attn.k.weight`, [32, C]], [`h.${l}.attn.v.weight`, [32, C]], [`h.${l}.attn.c_proj.weight`, [C, C]],
      [`h.${l}.mlp.gate.weight`, [F, C]], [`h.${l}.mlp.up.weight`, [F, C]], [`h.${l}.mlp.c_proj.weight`, [C, F]]);
  }
  let off = 0;
  const tensors = names.map(([name, shape]) => { const t = { name, type: "F32", shape, offset: off }; off += 4 * shape.reduce((a, b) => a * b); return t; });
  const buf = new ArrayBuffer(off), f = new Float32Array(buf);
  let s = seed;
  for (let i = 0; i < f.length; i++) f[i] = ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648 - 0.5) * scale;
  const config = { arch: "llama", n_layer: L, n_embd: C, n_head: 4, n_kv_head: 2, n_inner: F, n_ctx, rms_eps: 1e-5, rope_base: 10000, vocab_size: V };
  return new engine.Model({ config, tensors }, buf);
}

module.exports = { engine, randomLlama };
