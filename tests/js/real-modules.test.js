// docs/js/real/ goes through the module system: each script is one nexttoken.define of its own path's
// name with its real needs, and none writes to the global or reads another script through it (no
// nexttoken.real.* side channel); workers.js loads the engine, the loader and the kernels as needs.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const DIR = path.resolve(__dirname, "..", "..", "docs", "js", "real");
const files = fs.readdirSync(DIR).filter((f) => f.endsWith(".js")).sort();

test("every real/ script defines its own name and touches the global only through define", () => {
  assert.ok(files.includes("kernels-wasm.js"), "docs/js/real/kernels-wasm.js is missing: run `make site`");
  const needs = {};
  for (const f of files) {
    const calls = [];
    const nexttoken = { define: (name, list, make) => { calls.push(name); needs[name] = Array.from(list); assert.equal(typeof make, "function"); } };
    const sandbox = { nexttoken, module: undefined };
    sandbox.self = sandbox.window = sandbox.globalThis = sandbox;
    vm.runInNewContext(fs.readFileSync(path.join(DIR, f), "utf8"), sandbox, { filename: f });
    assert.deepEqual(calls, ["real." + f.replace(/\.js$/, "")], f);
    assert.deepEqual(Object.keys(nexttoken), ["define"], `${f} wrote to the global nexttoken`);
    const own = Object.keys(sandbox).filter((k) => !["nexttoken", "module", "self", "window", "globalThis"].includes(k));
    assert.deepEqual(own, [], `${f} left globals: ${own.join(", ")}`);
    assert.doesNotMatch(fs.readFileSync(path.join(DIR, f), "utf8"), /nexttoken\.real\b/, `${f} reaches another script through nexttoken.real`);
  }
  assert.deepEqual(needs["real.workers"], ["later:real.engine", "later:real.loader", "later:real.kernels-wasm"]);
  assert.deepEqual(needs["real.loader"], ["later:real.sha256"]);
});
