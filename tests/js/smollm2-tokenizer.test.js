// docs/js/real/tokenizer.js on its own: the cap, empty and non-text input, lone surrogates, bytes the
// vocabulary lacks, special tokens, the chat template, pieces and decode. Parity with transformers
// on held-out strings is tests/real/test_smollm2_tokenizer.py (it drives tests/helpers/smollm2_tokenize.js).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const ROOT = path.resolve(__dirname, "..", "..");
const BOOT = path.join(ROOT, "docs/js/nexttoken.js");
const DATA_JS = path.join(ROOT, "docs/js/data/smollm2-tokenizer.js");
const SRC = path.join(ROOT, "docs/js/real/tokenizer.js");

// The two scripts in a fresh global, as a page runs them; returns the global too.
function load() {
  assert.ok(fs.existsSync(DATA_JS), `${DATA_JS} is missing: run .venv/bin/python -m scripts.site.smollm2_tokenizer_js (make site does)`);
  const sandbox = { TextEncoder, TextDecoder, Uint8Array };
  sandbox.window = sandbox;
  vm.createContext(sandbox);
  vm.runInContext(fs.readFileSync(BOOT, "utf8"), sandbox, { filename: BOOT });
  vm.runInContext(fs.readFileSync(DATA_JS, "utf8"), sandbox, { filename: DATA_JS });
  vm.runInContext(fs.readFileSync(SRC, "utf8"), sandbox, { filename: SRC });
  const api = sandbox.nexttoken.real.tokenizer;
  const data = sandbox.nexttoken.data["smollm2-tokenizer"];
  return { sandbox, api, data, tok: api.create(data) };
}

const { sandbox, api, data, tok } = load();
const ids = (r) => Array.from(r.ids);
const oneLine = (e) => typeof e.message === "string" && e.message.length > 0 && !/\n/.test(e.message);

test("the scripts add one global, nexttoken, declare themselves in it, and export the cap", () => {
  const added = Object.keys(sandbox).filter((k) => !["TextEncoder", "TextDecoder", "Uint8Array", "window"].includes(k));
  assert.deepStrictEqual(added, ["nexttoken"]);
  assert.strictEqual(api.MAX_TOKENS, 1024);
  assert.strictEqual(tok.maxTokens, api.MAX_TOKENS);
  globalThis.nexttoken = require(BOOT);  // node's module.exports, the same API
  assert.strictEqual(require(SRC).MAX_TOKENS, 1024);
  delete globalThis.nexttoken;
});

test("empty and non-text prompts give one line, never a throw", () => {
  for (const bad of ["", undefined, null, 42, {}, ["a"]]) {
    const r = tok.encode(bad);
    assert.strictEqual(r.ok, false);
    assert.ok(["empty", "not_text"].includes(r.error.kind), r.error.kind);
    assert.ok(oneLine(r.error));
  }
  assert.strictEqual(tok.encode("", { chat: true }).error.kind, "empty");
  assert.strictEqual(tok.encode("hi", { chat: true, system: 7 }).error.kind, "not_text");
  // A prompt of bytes the vocabulary has no token for encodes to nothing: said so, not an empty run.
  const r = tok.encode("\x04\x06");
  assert.strictEqual(r.ok, false);
  assert.strictEqual(r.error.kind, "empty");
  assert.strictEqual(r.error.dropped, 2);
});

test("the cap counts tokens, template included: at the cap it encodes, one over it says so", () => {
  const unit = tok.encode(" a").ids.length;
  assert.strictEqual(unit, 1);
  const at = tok.encode("a" + " a".repeat(api.MAX_TOKENS - 1));
  assert.strictEqual(at.ok, true);
  assert.strictEqual(at.ids.length, api.MAX_TOKENS);
  const over = tok.encode("a" + " a".repeat(api.MAX_TOKENS));
  assert.strictEqual(over.ok, false);
  assert.strictEqual(over.error.kind, "too_long");
  assert.strictEqual(over.error.count, api.MAX_TOKENS + 1);
  assert.ok(oneLine(over.error) && over.error.message.includes("1,024"));
  // A pasted book stops being counted at 8 times the cap.
  const huge = tok.encode("a".concat(" a".repeat(200000)));
  assert.strictEqual(huge.error.kind, "too_long");
  assert.strictEqual(huge.error.count, null);
  assert.ok(oneLine(huge.error) && huge.error.message.includes("over 8,192"));
  assert.strictEqual(tok.encode("a" + " a".repeat(8 * api.MAX_TOKENS - 1)).error.count, 8 * api.MAX_TOKENS);
  const unread = tok.encode("\x04".repeat(1000001));
  assert.strictEqual(unread.error.kind, "too_long");
  assert.ok(oneLine(unread.error) && unread.error.message.includes("1,000,000 characters"));
  const template = tok.encode("a", { chat: true }).ids.length - 1;
  assert.strictEqual(tok.encode("a" + " a".repeat(api.MAX_TOKENS - template)).ok, true);
  assert.strictEqual(tok.encode("a" + " a".repeat(api.MAX_TOKENS - template), { chat: true }).error.kind, "too_long");
});

test("lone surrogates are read as U+FFFD, as TextEncoder writes them, and counted", () => {
  const cases = [["a\uD800b", "a\uFFFDb", 1], ["\uDC00\uDC00", "\uFFFD\uFFFD", 2], ["x\uD83D", "x\uFFFD", 1],
    ["\uDE00\uD83D\uDE00\uD83D", "\uFFFD\uD83D\uDE00\uFFFD", 2], ["😀", "😀", 0]];
  for (const [text, same, n] of cases) {
    const r = tok.encode(text);
    assert.strictEqual(r.ok, true);
    assert.deepStrictEqual(ids(r), ids(tok.encode(same)));
    assert.strictEqual(r.replaced, n);
    assert.deepStrictEqual(Array.from(new TextEncoder().encode(text)), Array.from(new TextEncoder().encode(same)));
  }
});

test("bytes the vocabulary lacks are dropped, as transformers drops them, and counted", () => {
  const lacking = [];
  const present = new Set(data.tokens);
  for (let b = 0; b < 32; b++) {
    const r = tok.encode("a" + String.fromCharCode(b) + "b");
    if (r.dropped) lacking.push(b);
  }
  assert.ok(lacking.length > 0 && lacking.length < 32, `control bytes dropped: ${lacking}`);
  const r = tok.encode("a" + String.fromCharCode(lacking[0]) + "b");
  assert.deepStrictEqual(ids(r), ids(tok.encode("a")).concat(ids(tok.encode("b"))));
  assert.ok(present.has("a") && present.has("b"));
});

test("special tokens written in the text stay whole; their neighbours encode as ordinary text", () => {
  const start = data.special["<|im_start|>"];
  const end = data.special["<|im_end|>"];
  const r = tok.encode("<|im_start|>user\nhi<|im_end|>");
  assert.strictEqual(r.ids[0], start);
  assert.strictEqual(r.ids[r.ids.length - 1], end);
  assert.deepStrictEqual(ids(r).slice(1, -1), ids(tok.encode("user\nhi")));
  assert.ok(r.pieces[0].special && !r.pieces[1].special);
  // A broken special token is ordinary text.
  assert.ok(!ids(tok.encode("<|im_start|")).includes(start));
  assert.strictEqual(tok.decode(ids(r)), "<|im_start|>user\nhi<|im_end|>");
});

test("the chat prompt is the template's text around the messages, ending in the generation prompt", () => {
  const parts = data.chat.system_user;
  const withSystem = tok.encode("What is 2+2?", { chat: true, system: "Be brief." });
  assert.strictEqual(withSystem.text, parts[0] + "Be brief." + parts[1] + "What is 2+2?" + parts[2]);
  assert.deepStrictEqual(ids(withSystem), ids(tok.encode(withSystem.text)));
  const alone = tok.encode("What is 2+2?", { chat: true });
  assert.strictEqual(alone.text, data.chat.user.join("What is 2+2?"));
  assert.ok(alone.text.length > withSystem.text.length - "Be brief.".length, "the template's own system message");
  assert.strictEqual(tok.decode(ids(alone)), alone.text);
});

test("pieces show each token's bytes; part of a character is labelled by its bytes, not drawn", () => {
  const r = tok.encode("\u200b\u2603 \u{1F99C}");
  const joined = [].concat(...r.pieces.map((p) => p.bytes));
  assert.deepStrictEqual(joined, Array.from(new TextEncoder().encode("\u200b\u2603 \u{1F99C}")));
  for (const p of r.pieces) {
    if (p.text === null) assert.match(p.label, /^0x[0-9A-F]{2}( 0x[0-9A-F]{2})*$/);
    else assert.strictEqual(p.label, p.text);
  }
  assert.ok(r.pieces.some((p) => p.text === null), "a character split over tokens");
});

test("decode inverts encode on assorted text, and a bad id is a RangeError", () => {
  for (const text of ["The capital of France is the city of", "def f(x):\n\treturn x**2", "東京 👨‍👩‍👧 שלום",
    "e\u0301 \u00a0\u3000  \n\n", "1234567890", "<|endoftext|><file_sep>x"]) {
    assert.strictEqual(tok.decode(ids(tok.encode(text))), text);
  }
  // The scripts run in their own realm (vm), so the class is checked by name.
  const range = { name: "RangeError", message: /is not in the vocabulary/ };
  assert.throws(() => tok.decode([data.tokens.length]), range);
  assert.throws(() => tok.decode([-1]), range);
  assert.throws(() => tok.pieces([1.5]), range);
});

test("create refuses data that is not the tokenizer's", () => {
  assert.throws(() => api.create({}), /expected \{tokens, merges, classes\}/);
});
