// docs/js/llm/ goes through the module system: each script is one nexttoken.define of its own path's
// name with its real needs, and none writes to the global or reads another script through it (no
// nexttoken.llm.* side channel); the runtime loads the engine, the loader and the kernels as needs.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const DIR = path.resolve(__dirname, "..", "..", "docs", "js", "llm");
const files = fs.readdirSync(DIR).filter((f) => f.endsWith(".js")).sort();

test("every llm/ script defines its own name and touches the global only through define", () => {
  assert.ok(files.includes("kernels-wasm.js"), "docs/js/llm/kernels-wasm.js is missing: run `make site`");
  const needs = {};
  for (const f of files) {
    const calls = [];
    const nexttoken = { define: (name, list, make) => { calls.push(name); needs[name] = Array.from(list); assert.equal(typeof make, "function"); } };
    const sandbox = { nexttoken, module: undefined };
    sandbox.self = sandbox.window = sandbox.globalThis = sandbox;
    vm.runInNewContext(fs.readFileSync(path.join(DIR, f), "utf8"), sandbox, { filename: f });
    assert.deepEqual(calls, ["llm." + f.replace(/\.js$/, "")], f);
    assert.deepEqual(Object.keys(nexttoken), ["define"], `${f} wrote to the global nexttoken`);
    const own = Object.keys(sandbox).filter((k) => !["nexttoken", "module", "self", "window", "globalThis"].includes(k));
    assert.deepEqual(own, [], `${f} left globals: ${own.join(", ")}`);
    assert.doesNotMatch(fs.readFileSync(path.join(DIR, f), "utf8"), /nexttoken\.llm\b/, `${f} reaches another script through nexttoken.llm`);
  }
  assert.deepEqual(needs["llm.runtime"], ["later:llm.engine", "later:llm.loader", "later:llm.kernels-wasm"]);
  assert.deepEqual(needs["llm.loader"], ["later:llm.sha256"]);
});
