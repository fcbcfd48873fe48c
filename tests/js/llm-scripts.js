// The real model's loader and its plain-JS SHA-256 in Node, as a page has them: classic scripts
// declared through nexttoken.define (sha256.js defined first, so the loader's on-demand need finds it).
"use strict";
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
globalThis.window = globalThis.window || globalThis;
require(path.join(ROOT, "docs/js/nexttoken.js"));
for (const f of ["sha256", "loader"]) {
  if (!globalThis.nexttoken.llm || !globalThis.nexttoken.llm[f]) require(path.join(ROOT, "docs/js/llm", f + ".js"));
}
module.exports = globalThis.nexttoken.llm;
