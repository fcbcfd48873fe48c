// Every module of the tiny model's runtime (docs/js/runtime/) runs in Node without the page kit: none
// declares a need outside runtime/, the data and the bootstrap's services, and each one loads here, in
// its declared order, in a process where no ui script was ever loaded.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
const DIR = path.join(ROOT, "docs/js/runtime");
const DEFINE = /nexttoken\.define\(\s*"([^"]+)"\s*,\s*\[([^\]]*)\]/;

function modules() {
  return fs.readdirSync(DIR).filter((f) => f.endsWith(".js")).map((f) => {
    const m = DEFINE.exec(fs.readFileSync(path.join(DIR, f), "utf8"));
    const needs = m[2].split(",").map((s) => s.trim().replace(/^"|"$/g, "")).filter(Boolean);
    return { file: f, name: m[1], needs };
  });
}

test("no runtime module needs the page kit", () => {
  for (const m of modules()) {
    const outside = m.needs.filter((n) => !/^(later:)?(runtime\.|data\.)/.test(n) && n !== "store" && n !== "load");
    assert.deepEqual(outside, [], `${m.file} needs ${outside.join(", ")}`);
  }
});

test("every runtime module loads in node with no ui script loaded", () => {
  globalThis.window = globalThis;
  require(path.join(ROOT, "docs/js/nexttoken.js"));
  require(path.join(ROOT, "docs/js/data/tiny-model.js"));
  const left = modules();
  const loaded = new Set();
  while (left.length) {  // in an order where each comes after what it needs
    const i = left.findIndex((m) => m.needs.every((n) => n.startsWith("later:") || n.startsWith("data.") ||
      n === "store" || n === "load" || loaded.has(n)));
    assert.ok(i >= 0, `the runtime's needs form a circle: ${left.map((m) => m.name).join(", ")}`);
    const m = left.splice(i, 1)[0];
    require(path.join(DIR, m.file));
    loaded.add(m.name);
  }
  const ns = globalThis.nexttoken;
  assert.equal(ns.ui, undefined, "no ui script was loaded");
  for (const f of fs.readdirSync(DIR)) assert.ok(ns.runtime[f.replace(/\.js$/, "")], `${f} defined nothing`);
  // what used to come from the page kit: the prompt rule's limit, and the active model without a page
  assert.equal(typeof ns.runtime.prompts.MAX_CHARS, "number");
  assert.equal(ns.runtime.active.which, "built");
  const r = ns.runtime.prompts.encode("x".repeat(ns.runtime.prompts.MAX_CHARS + 1));
  assert.equal(r.ok, false);
  assert.match(r.message, /characters; the demos take at most/);
});
