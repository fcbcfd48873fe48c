// Runs docs/js/real/engine.js in Node on a model's browser copy, for the pytest parity tests:
//   node tests/helpers/real_node.js FOLDER MODEL REQUESTS.json OUT_PREFIX [js|wasm] [WORKERS]
// js (the default): the plain-JS kernels; wasm: the SIMD kernels of docs/js/real/kernels-wasm.js.
// WORKERS (1 by default): the model split into that many shares as the page splits it over its
// workers (engine.layout), the shares answering in this thread (tests/js/random-llama.js).
// FOLDER holds MODEL/manifest.js and its chunks; the manifest script is run, and each chunk page's
// base64 is decoded and checked by loader.js's accept, as its own script does it in the page. REQUESTS.json is a list of
// {ids, opts, decode: [id, ...]}; OUT_PREFIX.json indexes the float32 arrays in OUT_PREFIX.f32 (opts.every's
// arrays as float32 too: lse rounded, the top ids exact).
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const ROOT = path.resolve(__dirname, "..", "..");
const { loader, kernelsWasm } = require(path.join(ROOT, "tests/js/real-scripts.js"));
const engine = require(path.join(ROOT, "docs/js/real/engine.js"))();
const { splitModel } = require(path.join(ROOT, "tests/js/random-llama.js"));

function runScript(file) {
  const ctx = { window: {} };
  vm.runInNewContext(fs.readFileSync(file, "utf8"), ctx, { filename: file });
  return ctx.window.nexttoken.data.realFiles;
}

const wasmBytes = () => kernelsWasm();

async function open(folder, model, kernels, workers) {
  const t0 = performance.now();
  const manifest = runScript(path.join(folder, model, "manifest.js"))[`${model}/manifest.js`];
  const bytes = new Uint8Array(manifest.total_bytes);
  for (let i = 0; i < manifest.chunks.length; i++) {
    const name = `${model}/${manifest.chunks[i].file}`;
    await loader.accept(manifest, i, loader.chunkText(fs.readFileSync(path.join(folder, name), "latin1")), bytes);
  }
  const wasm = kernels === "wasm" ? wasmBytes() : null;
  const m = workers > 1 ? splitModel(manifest, bytes.buffer, workers, wasm).model : new engine.Model(manifest, bytes.buffer, { wasm });
  if (m.kernels !== kernels) throw new Error(`the engine ran its ${m.kernels} kernels, not ${kernels}`);
  return { model: m, loadMs: performance.now() - t0 };
}

async function main() {
  const [folder, model, requests, outPrefix, kernels = "js", workers = "1"] = process.argv.slice(2);
  const { model: m, loadMs } = await open(folder, model, kernels, Number(workers));
  const parts = [], index = [];
  let offset = 0;
  const put = (a) => { parts.push(Buffer.from(a.buffer, a.byteOffset, a.byteLength)); const at = [offset, a.length]; offset += a.length; return at; };
  for (const req of JSON.parse(fs.readFileSync(requests, "utf8"))) {
    const t0 = performance.now();
    let out = await m.prefill(req.ids, req.opts || {});
    const steps = [];
    for (const id of req.decode || []) { out = await m.decode(id, req.opts || {}); steps.push(put(out.logits)); }
    index.push({
      ms: performance.now() - t0,
      logits: put(out.logits), decode: steps,
      residuals: out.residuals ? out.residuals.map(put) : null,
      heads: out.heads ? out.heads.map(put) : null,
      lens: out.lens ? out.lens.map(put) : null,
      every: out.every ? ["lse", "next", "top", "topLogits"].reduce((o, k) => Object.assign(o, { [k]: put(Float32Array.from(out.every[k])) }), {}) : null,
    });
  }
  fs.writeFileSync(outPrefix + ".f32", Buffer.concat(parts));
  fs.writeFileSync(outPrefix + ".json", JSON.stringify({ loadMs, results: index }));
}

if (require.main === module) main().catch((err) => { console.error("error: " + (err && err.message)); process.exit(1); });
module.exports = { open };
