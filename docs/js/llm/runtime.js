// A real model running in a Web Worker, so the page never freezes while it computes.
//
// Load order (classic scripts, loaded only when the reader asks for the model):
//   js/llm/engine.js, js/llm/kernels-wasm.js (optional: the SIMD kernels), js/llm/loader.js, js/llm/runtime.js
//
// nexttoken.llm.open({base, model, onProgress, signal, kernels}) -> Promise<session>
//   loads and checks the model's files (loader.js), then hands their bytes to a worker started from
//   a Blob URL made of engine.js's own source (a worker script file cannot be loaded from file://),
//   kernels: "wasm" runs the SIMD kernels of kernels-wasm.js (about twice as fast, but the worker
//   then holds a second copy of the blocks while it starts: ~450 MB at peak against ~335), "js" (the
//   default) the plain ones; session.kernels says which run ("js" where the browser has no SIMD)
// session.prefill(ids, opts), session.decode(id, opts) -> Promise<result> (see engine.js); calls run
//   one at a time, in order; opts.slot picks one of the engine's independent caches (0 by default)
// session.row(id) -> Promise<Float32Array>: the unembedding's row id, dequantised (engine outputRow)
// session.copySlot(from, to) -> Promise<{length}>: cache slot `to` becomes a copy of slot `from`
// session.cancel()  the running call rejects with "cancelled" at the next block; the cache is kept
// session.close()   stops the worker; session.config is the model's shape
// Every failure is an Error with a one-line message; after "the model's worker stopped", open again.
(function (root) {
  "use strict";
  var nexttoken = root.nexttoken = root.nexttoken || {};
  nexttoken.llm = nexttoken.llm || {};

  // Runs inside the worker: the engine, one model, a cancel flag checked after every block.
  function workerMain(factory) {
    var engine = factory(), model = null, cancelled = false, wake = null;
    var ch = new MessageChannel();  // a zero-delay yield, so a cancel message is read mid-run
    ch.port1.onmessage = function () { var w = wake; wake = null; if (w) w(); };
    function tick() {
      return new Promise(function (resolve, reject) {
        wake = function () { if (cancelled) reject(new engine.Cancelled()); else resolve(); };
        ch.port2.postMessage(0);
      });
    }
    function buffers(out) {
      var list = [out.logits.buffer];
      if (out.final) list.push(out.final.buffer);
      ["residuals", "heads", "lens"].forEach(function (k) { if (out[k]) out[k].forEach(function (a) { list.push(a.buffer); }); });
      return list.filter(function (b, i) { return list.indexOf(b) === i; });
    }
    self.onmessage = function (e) {
      var m = e.data;
      if (m.op === "cancel") { cancelled = true; return; }
      if (m.op === "init") {
        try {
          model = new engine.Model(m.manifest, m.buffer, { wasm: m.wasm });
          m.buffer = null;  // with the WebAssembly kernels the model holds a copy: let this one go
          self.postMessage({ id: m.id, result: { ok: true, kernels: model.kernels } });
        } catch (err) {
          self.postMessage({ id: m.id, error: err instanceof RangeError ? "the browser refused the memory the model needs: close other tabs and retry" : String(err.message || err) });
        }
        return;
      }
      if (m.op === "row") {
        try {
          var r = model.outputRow(m.ids[0]);
          self.postMessage({ id: m.id, result: r }, [r.buffer]);
        } catch (err) {
          self.postMessage({ id: m.id, error: String(err.message || err) });
        }
        return;
      }
      cancelled = false;
      var run;
      try {
        if (m.op === "copy") run = Promise.resolve(model.copySlot(m.from, m.to));
        else run = m.op === "prefill" ? model.prefill(m.ids, m.opts, tick) : model.decode(m.ids[0], m.opts, tick);
      } catch (err) {
        run = Promise.reject(err);
      }
      run.then(function (out) {
        self.postMessage({ id: m.id, result: out }, out.logits ? buffers(out) : []);
      }, function (err) {
        self.postMessage({ id: m.id, error: err instanceof engine.Cancelled ? "cancelled" : String(err.message || err) });
      });
    };
  }

  // The browser's own Worker. From file://, the site's offline plugin replaces window.Worker with an
  // iframe shim (for the search) that loads its script at URL + "?time", which no Blob URL survives;
  // a blank frame of this page still has the real one (kept in the page: its workers live with it).
  var frame = null;
  function workerClass() {
    if (!root.IFrameWorker || root.Worker !== root.IFrameWorker || !root.document) return root.Worker;
    if (!frame) {
      frame = root.document.createElement("iframe");
      frame.hidden = true;
      frame.setAttribute("aria-hidden", "true");
      frame.setAttribute("tabindex", "-1");
      frame.title = "the model's worker";
      root.document.body.appendChild(frame);
    }
    return frame.contentWindow.Worker;
  }

  var workerUrl = null;
  function makeWorker() {
    if (!workerUrl) {
      var src = "var factory = " + nexttoken.llm.engineFactory.toString() + ";\n(" + workerMain.toString() + ")(factory);\n";
      workerUrl = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
    }
    var W = workerClass();
    return new W(workerUrl);
  }

  async function open(opts) {
    if (!nexttoken.llm.engineFactory || !nexttoken.llm.loader) throw new Error("the model's scripts are not loaded (engine.js, loader.js)");
    var loaded = await nexttoken.llm.loader.load(opts);
    var wasm = null;
    if (opts.kernels === "wasm" && typeof nexttoken.llm.kernelsWasm === "string") {
      var bin = root.atob(nexttoken.llm.kernelsWasm);
      wasm = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) wasm[i] = bin.charCodeAt(i);
    }
    var worker;
    try {
      worker = makeWorker();
    } catch (e) {
      throw new Error("this browser cannot start the model's worker (" + (e.message || e) + ")");
    }
    var pending = {}, nextId = 1, dead = null, chain = Promise.resolve();
    function fail(err) {
      dead = err;
      worker.terminate();
      Object.keys(pending).forEach(function (id) { pending[id].reject(err); delete pending[id]; });
    }
    worker.onmessage = function (e) {
      var p = pending[e.data.id];
      if (!p) return;
      delete pending[e.data.id];
      if (e.data.error) p.reject(new Error(e.data.error)); else p.resolve(e.data.result);
    };
    worker.onerror = function (e) {
      if (e.preventDefault) e.preventDefault();
      fail(new Error("the model's worker stopped (" + (e.message || "it crashed") + "): load the model again to retry"));
    };
    function call(msg, transfer) {
      if (dead) return Promise.reject(dead);
      return new Promise(function (resolve, reject) {
        msg.id = nextId++;
        pending[msg.id] = { resolve: resolve, reject: reject };
        worker.postMessage(msg, transfer || []);
      });
    }
    function queued(fn) {
      var p = chain.then(fn);
      chain = p.catch(function () {});
      return p;
    }
    function onAbort() { fail(new Error("loading the model was cancelled")); }
    if (opts.signal) opts.signal.addEventListener("abort", onAbort);
    var ready;
    try {
      ready = await call({ op: "init", manifest: loaded.manifest, buffer: loaded.buffer, wasm: wasm }, [loaded.buffer]);
    } finally {
      if (opts.signal) opts.signal.removeEventListener("abort", onAbort);
    }
    return {
      config: loaded.manifest.config,
      manifest: loaded.manifest,
      kernels: ready.kernels,
      prefill: function (ids, o) { return queued(function () { return call({ op: "prefill", ids: Array.from(ids), opts: o || {} }); }); },
      decode: function (id, o) { return queued(function () { return call({ op: "decode", ids: [id], opts: o || {} }); }); },
      row: function (id) { return queued(function () { return call({ op: "row", ids: [id] }); }); },
      copySlot: function (from, to) { return queued(function () { return call({ op: "copy", from: from, to: to }); }); },
      cancel: function () { if (!dead) worker.postMessage({ op: "cancel" }); },
      close: function () { if (!dead) fail(new Error("the model was closed")); },
    };
  }

  nexttoken.llm.open = open;
  if (nexttoken.define) nexttoken.define("llm.runtime", [], function () { return { open: open }; });
})(typeof self !== "undefined" ? self : globalThis);
