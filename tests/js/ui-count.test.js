// ui.count writes whole numbers with thousands commas, as toLocaleString("en") does, without starting
// the browser's locale data on a demo's first draw.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
require("./load.js");
require(path.join(__dirname, "..", "..", "docs", "js", "ui.js"));
const { ui } = globalThis.nexttoken;

test("counts read as toLocaleString('en') writes them", () => {
  for (const n of [0, 7, 58, 999, 1000, 1416, 9999, 10000, 49152, 123456, 1000000, 98765432, 1234567890]) {
    assert.strictEqual(ui.count(n), n.toLocaleString("en"), String(n));
  }
});

test("a count is whole: a fraction rounds, as the pages show steps and tokens", () => {
  assert.strictEqual(ui.count(49151.6), "49,152");
  assert.strictEqual(ui.count(0.4), "0");
});
