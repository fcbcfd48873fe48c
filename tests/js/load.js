// Loads the generated data and the browser runtime into Node, as a page would (classic scripts
// declaring themselves to the one global, nexttoken), plus the Python reference files from site_data/.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
globalThis.window = globalThis;
require(path.join(ROOT, "docs/js/nexttoken.js"));
for (const f of ["docs/js/data/tiny-model.js", "docs/js/data/tiny-snapshots.js", "docs/js/data/snippets.js"]) {
  const p = path.join(ROOT, f);
  if (!fs.existsSync(p)) throw new Error(`${f} is missing: run \`.venv/bin/python -m scripts.site.tiny_js\` (make site does)`);
  require(p);
}
for (const f of ["kernels", "tokenizer", "model", "sampling", "kvcache", "snapshots"]) require(path.join(ROOT, "docs/js/runtime", f + ".js"));

function siteData(name) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, "site_data", "tiny", name + ".json"), "utf8"));
}

// Largest |a - b| over two nested arrays of the same shape; null must meet null.
function maxDiff(a, b, where) {
  if (a === null || b === null) {
    if (a !== b) throw new Error(`${where}: ${a} vs ${b}`);
    return 0;
  }
  if (Array.isArray(a) || ArrayBuffer.isView(a)) {
    if (!Array.isArray(b) || a.length !== b.length) throw new Error(`${where}: shape differs`);
    let worst = 0;
    for (let i = 0; i < a.length; i++) worst = Math.max(worst, maxDiff(a[i], b[i], `${where}[${i}]`));
    return worst;
  }
  if (!Number.isFinite(a)) throw new Error(`${where}: ${a} is not finite`);
  return Math.abs(a - b);
}

const { runtime, data } = globalThis.nexttoken;
const tiny = data["tiny-model"];
module.exports = {
  ROOT, runtime, data, siteData, maxDiff,
  model: () => runtime.model.create(tiny),
  tokenizer: () => runtime.tokenizer.create(tiny.tokenizer),
};
