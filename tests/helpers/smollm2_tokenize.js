// Reads {cases: [{text, chat, system}], decode: [[ids]...]} as JSON on stdin, runs
// docs/js/real/tokenizer.js on them as a page would (the data file first) and prints
// {encoded: [{ok, ids, error, replaced, dropped}], decoded: [text]} as JSON.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
globalThis.window = globalThis;
require(path.join(ROOT, "docs/js/nexttoken.js"));
require(path.join(ROOT, "docs/js/data/smollm2-tokenizer.js"));
require(path.join(ROOT, "docs/js/real/tokenizer.js"));
const tok = nexttoken.real.tokenizer.create(nexttoken.data["smollm2-tokenizer"]);
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const encoded = input.cases.map((c) => {
  const r = tok.encode(c.text, { chat: c.chat, system: c.system });
  return r.ok ? { ok: true, ids: r.ids, replaced: r.replaced, dropped: r.dropped } : { ok: false, error: r.error };
});
const decoded = (input.decode || []).map((ids) => tok.decode(ids));
process.stdout.write(JSON.stringify({ encoded, decoded }));
