// Microseconds per forward pass of the tiny model in Node, over n_ctx tokens (8 for the shipped
// model): the same docs/js/ files a page loads. Prints one line per path, then a JSON line.
// Usage: node scripts/quality/bench_forward.js   (after `python -m scripts.site.tiny_js`)
"use strict";
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
globalThis.window = globalThis;  // the runtime files are browser classic scripts
for (const f of ["nexttoken", "data/tiny-model", "runtime/kernels", "runtime/tokenizer", "runtime/model"]) require(path.join(ROOT, "docs/js", f + ".js"));
const { runtime, data } = globalThis.nexttoken, tiny = data["tiny-model"];

const RUNS = 7;  // report the median run, so one noisy run does not move the figure
const ITERS = 20000;

// The first n_ctx tokens of the training corpus: a real sentence, and a full window.
function benchIds(tk, m) {
  const enc = tk.encode(tiny.config.corpus.join(" "));
  if (!enc.ok) throw new Error("the corpus does not encode: " + enc.error.message);
  return enc.ids.slice(0, m.config.n_ctx);
}

function median(fn) {
  for (let i = 0; i < ITERS / 4; i++) fn();  // warm up: let the JIT compile first
  const runs = [];
  for (let r = 0; r < RUNS; r++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ITERS; i++) fn();
    runs.push(Number(process.hrtime.bigint() - t0) / 1e3 / ITERS);
  }
  return runs.sort((a, b) => a - b)[RUNS >> 1];
}

const m = runtime.model.create(tiny);
const ids = benchIds(runtime.tokenizer.create(tiny.tokenizer), m);
const out = { tokens: ids.length, js_us: median(() => m.forward(ids)) };
console.log(`JS forward with the full trace, ${ids.length} tokens: ${out.js_us.toFixed(1)} µs (median of ${RUNS} runs of ${ITERS})`);
if (typeof m.logits === "function") {
  out.js_logits_us = median(() => m.logits(ids));
  console.log(`JS forward, logits only (no trace), ${ids.length} tokens: ${out.js_logits_us.toFixed(1)} µs`);
}
console.log(JSON.stringify(out));
