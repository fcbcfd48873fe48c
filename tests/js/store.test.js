// The store's keys are declared in one place (docs/js/nexttoken.js), each with its shape, its one
// writer and its readers: a misspelt key fails in one line naming it; every key the demos use is declared.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..", "..");
globalThis.window = globalThis.window || globalThis;
require(path.join(ROOT, "docs/js/nexttoken.js"));
const { store } = globalThis.nexttoken;

test("a misspelt key is refused in one line naming it, by get, set and subscribe", () => {
  for (const call of [() => store.get("real.pas"), () => store.set("real.pas", 1), () => store.subscribe("real.pas", () => {})]) {
    assert.throws(call, (err) => err.message === 'store: unknown key "real.pas" (the keys are declared in js/nexttoken.js)' && !err.message.includes("\n"));
  }
  assert.equal(store.get("real.pass"), undefined);  // a declared key is read as usual
});

test("every key the site's scripts use is declared, and the real model's family has one prefix", () => {
  const used = new Set();
  (function walk(dir) {
    for (const f of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, f.name);
      if (f.isDirectory()) { if (f.name !== "data") walk(p); continue; }
      if (!f.name.endsWith(".js")) continue;
      for (const m of fs.readFileSync(p, "utf8").matchAll(/store\.(?:get|set|subscribe)\(\s*"([^"]+)"/g)) used.add(m[1]);
    }
  })(path.join(ROOT, "docs/js"));
  assert.ok(used.size >= 10, [...used].join(" "));
  for (const key of used) assert.ok(store.keys.includes(key), `${key} is used but not declared`);
  const text = fs.readFileSync(path.join(ROOT, "docs/js/nexttoken.js"), "utf8");
  for (const key of store.keys) {
    const line = text.split("\n").find((l) => l.includes(`"${key}": "`));
    assert.match(line, /Writer [\w.-]+;/, `${key}: one writer`);  // one writer named, then its readers
    assert.match(line, /; readers? /, `${key}: its readers`);
  }
  const real = [...used].filter((k) => /^(llm|smollm2|real)\b/.test(k));
  assert.ok(real.length >= 6 && real.every((k) => k.startsWith("real.")), real.join(" "));
});
