// The plain-JS SHA-256 (docs/js/real/sha256.js, used where the browser has no Web Crypto) equals Web
// Crypto's digest on edge lengths and on every chunk of SmolLM2's browser copy; with and without
// Web Crypto the loader accepts every chunk and refuses a corrupted one in the same one line.
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const { webcrypto } = require("node:crypto");
const { sha256, loader } = require("./real-scripts.js");

const ROOT = path.resolve(__dirname, "..", "..");
const COPY = path.join(ROOT, "docs/js/data/real/smollm2");

async function webDigest(bytes) {
  return Buffer.from(await webcrypto.subtle.digest("SHA-256", bytes)).toString("hex");
}

// The manifest script run as a page runs it: what it leaves in nexttoken.data.realFiles under its name.
function manifestScript(file, key) {
  const ctx = { window: {} };
  vm.runInNewContext(fs.readFileSync(file, "utf8"), ctx, { filename: file });
  return ctx.window.nexttoken.data.realFiles[key];
}

// Runs fn with globalThis.crypto hidden, as in a page that is not a secure context.
async function withoutWebCrypto(fn) {
  const saved = Object.getOwnPropertyDescriptor(globalThis, "crypto");
  Object.defineProperty(globalThis, "crypto", { value: undefined, configurable: true, writable: true });
  try {
    assert.equal(loader.checker(), "JS");
    return await fn();
  } finally {
    Object.defineProperty(globalThis, "crypto", saved);
  }
}

test("the JS digest equals Web Crypto's at every length around a block's edges", async () => {
  for (const n of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 65536]) {
    const bytes = webcrypto.getRandomValues(new Uint8Array(n));
    assert.equal(sha256(bytes), await webDigest(bytes), `${n} bytes`);
  }
  assert.equal(sha256(new TextEncoder().encode("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

const manifestFile = path.join(COPY, "manifest.js");
const copy = fs.existsSync(manifestFile);
test("every chunk of SmolLM2's browser copy: the JS digest equals Web Crypto's and the manifest's", { skip: !copy && "no browser copy (make site MODEL=none)" }, async () => {
  const manifest = manifestScript(manifestFile, "smollm2/manifest.js");
  assert.ok(manifest.chunks.length > 1);
  const bytes = new Uint8Array(Math.max(...manifest.chunks.map((c) => c.bytes)));
  for (let i = 0; i < manifest.chunks.length; i++) {
    const c = manifest.chunks[i], key = `smollm2/${c.file}`;
    const text = loader.chunkText(fs.readFileSync(path.join(COPY, c.file), "latin1"));
    await loader.accept(manifest, i, text, bytes, 0);  // Web Crypto's check
    const view = bytes.subarray(0, c.bytes), js = sha256(view);
    assert.equal(js, await webDigest(view), key);
    assert.equal(js, c.sha256, key);
    await withoutWebCrypto(() => loader.accept(manifest, i, text, bytes, 0));  // the JS check
    if (i === manifest.chunks.length - 1) {  // one byte of the last chunk changed: refused, in one line, both ways
      const at = Math.floor(text.length / 2), bad = text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
      const line = { message: `${key} is altered: its sha256 does not match the manifest` };
      await assert.rejects(loader.accept(manifest, i, bad, bytes, 0), line);
      await withoutWebCrypto(() => assert.rejects(loader.accept(manifest, i, bad, bytes, 0), line));
    }
  }
});
