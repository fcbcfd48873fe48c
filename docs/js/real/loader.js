// Loads a real model's browser copy (docs/js/data/real/<model>/, written by scripts/site/real_js.py)
// and checks every chunk's size and sha256 against the manifest before anything uses it. The manifest
// is a classic script; each chunk is an HTML page opened in a hidden iframe, whose own short script
// decodes the base64 it holds as text and posts the bytes here. Both work from file:// as well as
// served, and the data is never compiled: Chromium keeps a script's source for the page's life (its
// compilation cache), which kept every chunk script whole. Every fault is one line naming the file.
// The check runs everywhere: with the browser's Web Crypto where it has it, else (plain http from
// another machine is not a secure context, so no crypto.subtle) with real/sha256.js, loaded then.
//
// loader.load({base, model, onProgress, signal, into}) -> Promise<{manifest}>
//   base: URL of the folder holding <model>/manifest.js ("js/data/real/" from the site's root)
//   onProgress(done_bytes, total_bytes, file); signal: an AbortSignal (the reader left)
//   into(manifest) -> Promise<write(offset, bytes) -> Promise>: each checked chunk is handed to write
//     (with its offset in the model's bytes) and not kept: no buffer of the whole model is made here
// loader.check(manifest, index, bytes) -> Promise: one chunk's decoded bytes against its size and sha256
// loader.accept(manifest, index, text, bytes, at) -> Promise: decode one chunk's base64 text
//   (chunkText(the chunk page's source)) into `bytes` at `at` (by default the chunk's own offset in
//   the model) and check it (Node's tests read the same files this way)
// loader.sha256(bytes) -> Promise<hex>; loader.checker() names the digest in use ("Web Crypto" or "JS")
nexttoken.define("real.loader", ["later:real.sha256"], function (loadSha256) {
  "use strict";
  var root = typeof self !== "undefined" ? self : globalThis;

  // The manifest script leaves its object here, keyed by file, for take() to pick up.
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

  function name(manifest, index) { return manifest.model + "/" + manifest.chunks[index].file; }

  function check(manifest, index, view) {
    var chunk = manifest.chunks[index];
    if (view.length !== chunk.bytes) return Promise.reject(new Error(name(manifest, index) + " is truncated or altered: " + view.length + " bytes, the manifest says " + chunk.bytes));
    return sha256(view).then(function (got) {
      if (got !== chunk.sha256) throw new Error(name(manifest, index) + " is altered: its sha256 does not match the manifest");
    });
  }

  function accept(manifest, index, text, bytes, at) {
    var chunk = manifest.chunks[index];
    if (typeof text !== "string") return Promise.reject(new Error(name(manifest, index) + " is damaged (it holds no model data)"));
    var start = at === undefined ? chunkStart(manifest, index) : at;
    var n = decodeInto(text, bytes, start, chunk.bytes);
    if (n < 0) return Promise.reject(new Error(name(manifest, index) + " is damaged (not base64)"));
    if (n !== chunk.bytes) return Promise.reject(new Error(name(manifest, index) + " is truncated or altered: " + n + " bytes, the manifest says " + chunk.bytes));
    return check(manifest, index, bytes.subarray(start, start + chunk.bytes));
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

  // One chunk page in a hidden iframe; resolves with its bytes, rejects with one line. A missing
  // file shows the browser's error page, which posts nothing: when the frame has loaded, a message
  // this page posts to itself comes after the chunk's own (posted earlier, to the same window), so
  // its arrival with no chunk's message before it means there is none.
  function frame(url, file, signal) {
    return new Promise(function (resolve, reject) {
      if (signal && signal.aborted) { reject(new Error("loading the model was cancelled")); return; }
      var el = document.createElement("iframe"), ping = "nexttoken: " + file + " has loaded";
      function done(err, bytes) {
        root.removeEventListener("message", onMessage);
        el.onload = null;
        el.remove();  // its document, and the text it held, go with it
        if (signal) signal.removeEventListener("abort", onAbort);
        if (err) reject(err); else resolve(bytes);
      }
      function onMessage(e) {
        var d = e.data;
        if (e.source === el.contentWindow && d && d.nexttoken === "chunk") {
          if (d.bytes instanceof ArrayBuffer) done(null, new Uint8Array(d.bytes));
          else done(new Error(file + " is damaged (" + (d.error === "not base64" ? "not base64" : "it holds no model data") + ")"));
        } else if (e.source === root && d === ping) {
          done(new Error(file + " could not be loaded (missing, or the browser blocked it)"));
        }
      }
      function onAbort() { done(new Error("loading the model was cancelled")); }
      root.addEventListener("message", onMessage);
      if (signal) signal.addEventListener("abort", onAbort);
      el.onload = function () { root.postMessage(ping, "*"); };
      el.hidden = true;
      el.tabIndex = -1;
      el.setAttribute("aria-hidden", "true");
      el.title = file;
      el.src = url;
      document.body.appendChild(el);
    });
  }

  function take(key) {
    var f = files(), v = f[key];
    delete f[key];
    return v;
  }

  // A chunk page's base64: the text of its <script type="text/plain" id="b64"> (for Node's readers).
  function chunkText(page) {
    var open = '<script type="text/plain" id="b64">', a = page.indexOf(open), b = a < 0 ? -1 : page.indexOf("</script>", a);
    return b < 0 ? undefined : page.slice(a + open.length, b);
  }

  async function load(opts) {
    var base = opts.base.replace(/\/?$/, "/"), model = opts.model, signal = opts.signal;
    var key = model + "/manifest.js";
    await script(base + key, key, signal);
    var manifest = take(key);
    if (!manifest || !Array.isArray(manifest.chunks) || !Array.isArray(manifest.tensors)) {
      throw new Error(key + " is damaged (it holds no manifest)");
    }
    var write = await opts.into(manifest), done = 0;
    for (var i = 0; i < manifest.chunks.length; i++) {
      var file = name(manifest, i), bytes = await frame(base + file, file, signal);
      await check(manifest, i, bytes);
      await write(done, bytes);
      done += manifest.chunks[i].bytes;
      if (opts.onProgress) opts.onProgress(done, manifest.total_bytes, file);
    }
    return { manifest: manifest };
  }

  return { load: load, check: check, accept: accept, chunkText: chunkText, sha256: sha256, checker: checker };
});
