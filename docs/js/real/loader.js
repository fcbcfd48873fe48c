// Loads a real model's browser copy (docs/js/data/real/<model>/, written by scripts/site/real_js.py)
// as classic scripts, which works from file:// as well as served, and checks every chunk's size and
// sha256 against the manifest before anything uses it. Every fault is one line naming the file.
// The check runs everywhere: with the browser's Web Crypto where it has it, else (plain http from
// another machine is not a secure context, so no crypto.subtle) with real/sha256.js, loaded then.
//
// loader.load({base, model, onProgress, signal, into}) -> Promise<{manifest}>
//   base: URL of the folder holding <model>/manifest.js ("js/data/real/" from the site's root)
//   onProgress(done_bytes, total_bytes, file); signal: an AbortSignal (the reader left)
//   into(manifest) -> Promise<write(offset, bytes) -> Promise>: each checked chunk is handed to write
//     (with its offset in the model's bytes) and not kept: no buffer of the whole model is made here
// loader.accept(manifest, index, text, bytes, at) -> Promise: decode one chunk's base64
//   text (chunkText(what the chunk script defined)) into `bytes` at `at` (by default the chunk's own
//   offset in the model) and check it (used by load, and by Node's tests on the same files)
// loader.sha256(bytes) -> Promise<hex>; loader.checker() names the digest in use ("Web Crypto" or "JS")
nexttoken.define("real.loader", ["later:real.sha256"], function (loadSha256) {
  "use strict";
  var root = typeof self !== "undefined" ? self : globalThis;

  // The chunk scripts (data, not code) leave their text here, keyed by file, for take() to pick up.
  function files() {
    var nt = root.nexttoken;
    nt.data = nt.data || {};
    return (nt.data.realFiles = nt.data.realFiles || {});
  }

  function hex(buf) {
    var b = new Uint8Array(buf), s = "";
    for (var i = 0; i < b.length; i++) s += (b[i] < 16 ? "0" : "") + b[i].toString(16);
    return s;
  }

  function subtle() { return root.crypto && root.crypto.subtle; }
  function checker() { return subtle() ? "Web Crypto" : "JS"; }
  function sha256(view) {
    if (subtle()) return subtle().digest("SHA-256", view).then(hex);
    return loadSha256().then(function (digest) { return digest(view); }, function () {
      throw new Error("real/sha256.js could not be loaded, so the model's files cannot be checked (this browser has no Web Crypto)");
    });
  }

  // Base64 text -> bytes at bytes[offset...]; the count written, or -1 when the text is not base64.
  function decodeInto(text, bytes, offset, limit) {
    var bin;
    try { bin = root.atob(text); } catch (e) { return -1; }
    var n = Math.min(bin.length, limit);
    for (var i = 0; i < n; i++) bytes[offset + i] = bin.charCodeAt(i);
    return bin.length;
  }

  function chunkStart(manifest, index) {
    var s = 0;
    for (var i = 0; i < index; i++) s += manifest.chunks[i].bytes;
    return s;
  }

  function accept(manifest, index, text, bytes, at) {
    var chunk = manifest.chunks[index], name = manifest.model + "/" + chunk.file;
    if (typeof text !== "string") return Promise.reject(new Error(name + " is damaged (it holds no model data)"));
    var start = at === undefined ? chunkStart(manifest, index) : at;
    var n = decodeInto(text, bytes, start, chunk.bytes);
    if (n < 0) return Promise.reject(new Error(name + " is damaged (not base64)"));
    if (n !== chunk.bytes) return Promise.reject(new Error(name + " is truncated or altered: " + n + " bytes, the manifest says " + chunk.bytes));
    return sha256(bytes.subarray(start, start + chunk.bytes)).then(function (got) {
      if (got !== chunk.sha256) throw new Error(name + " is altered: its sha256 does not match the manifest");
    });
  }

  // One classic script; resolves when it ran, rejects with one line when it cannot be read.
  function script(url, name, signal) {
    return new Promise(function (resolve, reject) {
      if (signal && signal.aborted) { reject(new Error("loading the model was cancelled")); return; }
      var el = document.createElement("script");
      function done(err) {
        el.onload = el.onerror = null;
        el.remove();
        if (signal) signal.removeEventListener("abort", onAbort);
        if (err) reject(err); else resolve();
      }
      function onAbort() { done(new Error("loading the model was cancelled")); }
      el.onload = function () { done(null); };
      el.onerror = function () { done(new Error(name + " could not be loaded (missing, or the browser blocked it)")); };
      if (signal) signal.addEventListener("abort", onAbort);
      el.src = url;
      document.head.appendChild(el);
    });
  }

  function take(key) {
    var f = files(), v = f[key];
    delete f[key];  // the page keeps the decoded bytes, not the 20 MB of text
    return v;
  }

  // A chunk is function () {/*BASE64*/}: its text read back from the script's own source, which
  // the browser keeps anyway (a string literal would be a second copy).
  function chunkText(v) {
    if (typeof v !== "function") return v;
    var src = Function.prototype.toString.call(v), a = src.indexOf("/*"), b = src.lastIndexOf("*/");
    return a < 0 || b < a ? undefined : src.slice(a + 2, b);
  }

  async function load(opts) {
    var base = opts.base.replace(/\/?$/, "/"), model = opts.model, signal = opts.signal;
    var key = model + "/manifest.js";
    await script(base + key, key, signal);
    var manifest = take(key);
    if (!manifest || !Array.isArray(manifest.chunks) || !Array.isArray(manifest.tensors)) {
      throw new Error(key + " is damaged (it holds no manifest)");
    }
    var write = await opts.into(manifest), bytes, i;
    try {  // room for the largest chunk only, reused
      bytes = new Uint8Array(Math.max.apply(null, manifest.chunks.map(function (c) { return c.bytes; }).concat([0])));
    } catch (e) {
      throw new Error("the browser refused the " + Math.round(manifest.total_bytes / 1e6) + " MB the model needs: close other tabs and retry");
    }
    var done = 0;
    for (i = 0; i < manifest.chunks.length; i++) {
      var name = model + "/" + manifest.chunks[i].file;
      await script(base + name, name, signal);
      await accept(manifest, i, chunkText(take(name)), bytes, 0);
      await write(done, bytes.subarray(0, manifest.chunks[i].bytes));
      done += manifest.chunks[i].bytes;
      if (opts.onProgress) opts.onProgress(done, manifest.total_bytes, name);
    }
    return { manifest: manifest };
  }

  return { load: load, accept: accept, chunkText: chunkText, sha256: sha256, checker: checker };
});
