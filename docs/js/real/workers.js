// A real model running in Web Workers, so the page never freezes while it computes: one worker by
// default, or its matrix rows split over as many as asked.
//
// Its needs, each loaded by nexttoken's loader when open() first runs (classic scripts, so from file://
// too): real.engine, real.loader and, for the SIMD kernels, real.kernels-wasm.
//
// workers.open({base, model, onProgress, signal, kernels, fma, workers, stall}) -> Promise<session>
//   starts `workers` workers (default 1: the fastest decode, see DEFAULT below) from a
//   Blob URL made of engine.js's own source (a worker script file cannot be loaded from file://),
//   each with room for its share of the model (engine.layout: its rows of every matrix, the norms
//   with worker 0); loader.js then loads and checks the files one chunk at a time and each chunk's
//   bytes go straight to the workers holding them, so neither this thread nor any worker holds the
//   model twice, and the total does not grow with the number of workers. No SharedArrayBuffer
//   (neither file:// nor GitHub Pages gives the cross-origin isolation it needs): worker 0, the
//   leader, runs the model (norms, rotary, attention, the KV cache, its rows) and sends each
//   product's input to the others over MessageChannel ports, one message for products that share
//   an input (q/k/v, gate/up), and assembles their rows; every row's arithmetic is the same
//   wherever it runs, so the logits have the same bits on any number of workers.
//   kernels: "wasm" (the default) runs the SIMD kernels of kernels-wasm.js, each share written
//   straight into the module's memory;
//   "js" the plain ones; session.kernels says which run ("js" where the browser has no SIMD or the
//   kernels' file cannot be read); session.workers how many workers run. fma (default true): the
//   SIMD kernels with relaxed SIMD's fused multiply-add where the browser has it (session.fma says),
//   false for plain 128-bit SIMD. Each gives the same outputs on any worker count and for a prompt
//   read at once or token by token; the two differ in the last bits (fused or separate rounding).
// session.prefill(ids, opts), session.decode(id, opts) -> Promise<result> (see engine.js); calls run
//   one at a time, in order; opts.slot picks one of the engine's independent caches (0 by default)
// session.step([[slot, id], ...], opts) -> Promise<[{logits, length}]>: one token for each of several
//   slots in one pass (engine step): the writers' and beams' tokens of one step in one call, and with
//   opts.copies = [[from, to], ...] the slot copies they need, made first (a beam's forks)
// session.row(id) -> Promise<Float32Array>: the unembedding's row id, dequantised (engine outputRow)
// session.copySlot(from, to, opts) -> Promise<{length}>: cache slot `to` becomes a copy of slot `from`
// session.cancel()  the running call rejects with "cancelled" at the next block; the cache is kept
// session.close()   stops every worker; session.config is the model's shape
// open's onStop(err): called once if a loaded session stops by itself (a worker crashed or went silent),
//   so the page can offer Load again; not after close()
// Every failure is an Error with a one-line message in the reader's words; any worker stopping stops
// them all and every call says why (a fault in the engine, with its message; the browser stopping it;
// a worker gone silent): open again to retry. A worker the browser fails to start (on a busy machine
// Chromium sometimes fails to fetch a new worker's script: a plain error event, no message) is
// started again, up to STARTS times, before it holds any of the model. A worker killed without an
// event is found by a watchdog: while a call waits, one that leaves a ping unanswered for `stall` ms
// counts as stopped (open's option; 60 s by default, since a slow device on the JS kernels may spend
// tens of seconds in one block of a long prompt, when the leader cannot answer).
nexttoken.define("real.workers", ["later:real.engine", "later:real.loader", "later:real.kernels-wasm"], function (loadEngine, loadLoader, loadKernels) {
  "use strict";
  var root = typeof self !== "undefined" ? self : globalThis;

  // Runs inside each worker. Every worker first gets its share of the model's bytes (init: its part
  // of engine.layout, the room allocated; put: bytes written straight in; start); then worker 0, the
  // leader, runs the model and asks the others, over its ports, for their rows of every product.
  function workerMain(factory) {
    self.postMessage({ hello: true });  // the script runs: the page knows this worker started
    var engine = factory(), part = null, store = null, model = null, ports = [], cancelled = false, wake = null;
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
      ["residuals", "heads", "lens", "kinds"].forEach(function (k) { if (out[k]) out[k].forEach(function (a) { list.push(a.buffer); }); });
      if (out.pattern) list.push(out.pattern.buffer);
      [out.parts && out.parts.z, out.parts && out.parts.mlp, out.direct && out.direct.heads, out.direct && out.direct.mlp].forEach(function (l) {
        if (l) l.forEach(function (a) { list.push(a.buffer); });
      });
      return list.filter(function (b, i) { return list.indexOf(b) === i; });
    }
    // Both ends of a port keep the buffers the other hands back (by size, up to KEEP bytes), so
    // a step's inputs and answers cross in the same few buffers and leave no garbage behind.
    var KEEP = 8 << 20;
    function pool() {
      var free = {}, held = 0;
      return {
        take: function (n) { var l = free[n]; if (l && l.length) { held -= n; return l.pop(); } return new ArrayBuffer(n); },
        give: function (b) { if (held + b.byteLength > KEEP) return; held += b.byteLength; (free[b.byteLength] = free[b.byteLength] || []).push(b); },
      };
    }
    function peer(port) {  // the leader's end of a port to another worker: call(message) -> Promise
      var pending = {}, next = 1, bufs = pool(), spare = [];
      port.onmessage = function (e) {
        var p = pending[e.data.id];
        delete pending[e.data.id];
        if (e.data.x) bufs.give(e.data.x);
        if (e.data.error) { p.reject(new Error(e.data.error)); return; }
        spare = e.data.result.map(function (y) { return y.buffer; });  // read by the engine before its next call
        p.resolve(e.data.result);
      };
      return { call: function (msg) {
        var m = msg, moved = spare;
        spare = [];
        if (msg.x) {
          var x = new Float32Array(bufs.take(msg.x.byteLength));
          x.set(msg.x);
          m = { op: msg.op, names: msg.names, T: msg.T, x: x, gated: msg.gated };
        }
        return new Promise(function (resolve, reject) {
          var id = next++;
          pending[id] = { resolve: resolve, reject: reject };
          port.postMessage({ id: id, m: m, spare: moved }, m.x ? moved.concat([m.x.buffer]) : moved);
        });
      } };
    }
    function serve(port, shard) {  // another worker's end: the leader's products of its rows
      var bufs = pool();
      function alloc(n) { return new Float32Array(bufs.take(4 * n)); }
      port.onmessage = function (e) {
        var m = e.data.m, back = m.x ? m.x.buffer : null, ys;
        e.data.spare.forEach(bufs.give);
        try { ys = shard.handle(m, alloc, function (y) { bufs.give(y.buffer); }); } catch (err) { port.postMessage({ id: e.data.id, error: String(err.message || err), x: back }, back ? [back] : []); return; }
        var list = ys.map(function (y) { return y.buffer; });
        port.postMessage({ id: e.data.id, result: ys, x: back }, back ? list.concat([back]) : list);
      };
    }
    function answer(id, fn) {
      try {
        self.postMessage({ id: id, result: fn() });
      } catch (err) {
        self.postMessage({ id: id, error: String(err.message || err), refused: err instanceof RangeError });
      }
    }
    self.onmessage = function (e) {
      var m = e.data;
      if (m.op === "ping") { self.postMessage({ pong: true }); return; }  // the page's watchdog: this worker still runs
      if (m.op === "cancel") { cancelled = true; return; }
      if (m.op === "init") {
        answer(m.id, function () { part = m; ports = m.ports; store = engine.storage(m.manifest, m.bytes, m.wasm); return { ok: true }; });
        return;
      }
      if (m.op === "put") {  // copied in, and the buffer handed back for the next piece
        new Uint8Array(store.buf, store.base + m.at, m.length).set(new Uint8Array(m.bytes, 0, m.length));
        self.postMessage({ back: m.bytes }, [m.bytes]);
        return;
      }
      if (m.op === "start") {
        answer(m.id, function () {
          if (part.lead) model = new engine.Model(part.manifest, store, { peers: ports.map(peer) });
          else serve(ports[0], new engine.Shard(part.manifest, store));
          return { kernels: store.k ? "wasm" : "js" };
        });
        return;
      }
      cancelled = false;
      var run;
      try {
        if (m.op === "copy") run = Promise.resolve(model.copySlot(m.from, m.to, m.opts));
        else if (m.op === "row") run = model.outputRow(m.ids[0]);
        else if (m.op === "step") run = model.step(m.list, m.opts, tick);
        else run = m.op === "prefill" ? model.prefill(m.ids, m.opts, tick) : model.decode(m.ids[0], m.opts, tick);
      } catch (err) {
        run = Promise.reject(err);
      }
      run.then(function (out) {
        if (out instanceof Float32Array) self.postMessage({ id: m.id, result: out }, [out.buffer]);
        else if (Array.isArray(out)) self.postMessage({ id: m.id, result: out }, out.map(function (o) { return o.logits.buffer; }));
        else self.postMessage({ id: m.id, result: out }, out.logits ? buffers(out) : []);
      }, function (err) {
        self.postMessage({ id: m.id, error: err instanceof engine.Cancelled ? "cancelled" : String(err.message || err) });
      });
    };
  }

  // The browser's own Worker. From file://, the site's offline plugin replaces window.Worker with an
  // iframe shim (for the search) that loads its script at URL + "?time", which no Blob URL survives;
  // the page keeps the real one first as nexttokenWorker (overrides/main.html). Failing that, a blank
  // frame of this page still has it, but a worker made in a frame just inserted sometimes fails to
  // fetch its script on a busy machine (a plain error event, no message): boot() tries again.
  var frame = null;
  function workerClass() {
    if (!root.IFrameWorker || root.Worker !== root.IFrameWorker || !root.document) return root.Worker;
    if (typeof root.nexttokenWorker === "function" && root.nexttokenWorker !== root.IFrameWorker) return root.nexttokenWorker;
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
  function makeWorker(factory) {
    if (!workerUrl) {
      var src = "var factory = " + factory.toString() + ";\n(" + workerMain.toString() + ")(factory);\n";
      workerUrl = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
    }
    var W = workerClass();
    return new W(workerUrl);
  }

  // Workers a session runs: DEFAULT, or the number asked for. A split decode step makes 122 round
  // trips (~0.2 ms each on a quiet 2-core machine, far more on a loaded one) to save at most half of
  // a step's ~30 ms of SIMD arithmetic, so one worker decodes fastest (bench_real prints both and
  // says which); two pay only on long prompts. Each worker also adds 10-25 MB.
  var DEFAULT = 1;
  var STARTS = 3;  // tries at starting a worker the browser failed to start
  // Why a running worker stopped, in the reader's words: a fault in the engine (the error event has its
  // message), else the browser stopped it, without a word (in practice: it ran out of memory).
  function stopped(ev) {
    if (ev.message) return "the model's worker stopped on a fault in the engine (" + String(ev.message).replace(/^Uncaught /, "") + "): load the model again to retry";
    return "the browser stopped the model's worker (most often for lack of memory: close other tabs): load the model again to retry";
  }
  var STALL = 60000;  // ms a worker may leave the watchdog's question unanswered while a call waits (open's `stall`)
  function count(n) {
    if (n === undefined || n === null) return DEFAULT;
    if (typeof n !== "number" || n % 1 || n < 1 || n > 16) throw new Error("workers must be a whole number from 1 to 16, not " + n);
    return n;
  }

  // The SIMD kernels' script, loaded on the first open; without it (unreadable) the JS kernels run.
  var kernelsLoading = null;
  function kernelsText() {
    if (!kernelsLoading) kernelsLoading = loadKernels().then(null, function () { kernelsLoading = null; return null; });
    return kernelsLoading;
  }

  // The kernels' module (real.kernels-wasm gives {simd, fma} as base64): with relaxed SIMD's fused
  // multiply-add where the browser validates it and `fma` is not false, else plain 128-bit SIMD.
  // Returns {bytes, fma} or null (the JS kernels run).
  var kernelBytes = {}, engineHere = null;
  function wasmModule(texts, fma) {
    if (!texts || typeof texts.simd !== "string") return null;
    function bytes(key) {
      if (!kernelBytes[key]) {
        var bin = root.atob(texts[key]);
        kernelBytes[key] = new Uint8Array(bin.length);
        for (var i = 0; i < bin.length; i++) kernelBytes[key][i] = bin.charCodeAt(i);
      }
      return kernelBytes[key];
    }
    if (fma !== false && typeof texts.fma === "string" && typeof WebAssembly === "object" &&
        WebAssembly.validate(bytes("fma"))) return { bytes: bytes("fma"), fma: true };
    return { bytes: bytes("simd"), fma: false };
  }

  async function open(opts) {
    var n = count(opts.workers), kernels = opts.kernels || "wasm";
    if (kernels !== "wasm" && kernels !== "js") throw new Error("kernels must be \"wasm\" or \"js\", not " + kernels);
    var got;
    try {
      got = await Promise.all([loadEngine(), loadLoader(), kernels === "wasm" ? kernelsText() : null]);
    } catch (e) {
      throw new Error("the model's scripts could not be loaded (" + (e.message || e) + ")");
    }
    var factory = got[0], loader = got[1], module = wasmModule(got[2], opts.fma), wasm = module && module.bytes;
    if (!engineHere) engineHere = factory();
    var workers = [], pending = {}, nextId = 1, dead = null, chain = Promise.resolve(), refused = "";
    // A worker that is killed fires no event, so while a call waits every worker is asked every
    // `stall` / 4 ms whether it still runs; one that has not answered for `stall` ms stops them all.
    var stall = opts.stall || STALL, asked = [], answered = [];
    var watch = setInterval(function () {
      if (dead || !Object.keys(pending).length) { asked = []; return; }
      var now = Date.now();
      for (var i = 0; i < workers.length; i++) {
        if (asked[i] && !(answered[i] >= asked[i]) && now - asked[i] > stall) {
          fail(new Error("the model's worker stopped (it has not answered for " + Math.round(stall / 1000) + " s): load the model again to retry"));
          return;
        }
        if (!asked[i] || answered[i] >= asked[i]) { asked[i] = now; workers[i].postMessage({ op: "ping" }); }
      }
    }, Math.max(50, stall / 4));
    function fail(err) {
      if (!dead) {
        dead = err;
        if (opts.onStop && ready && !closed) setTimeout(function () { opts.onStop(err); }, 0);
      }
      clearInterval(watch);
      if (waiting) { var w = waiting; waiting = null; w(); }
      workers.forEach(function (w) { w.terminate(); });
      Object.keys(pending).forEach(function (id) { pending[id].reject(err); delete pending[id]; });
    }
    function call(worker, msg, transfer) {
      if (dead) return Promise.reject(dead);
      return new Promise(function (resolve, reject) {
        msg.id = nextId++;
        pending[msg.id] = { resolve: resolve, reject: reject };
        worker.postMessage(msg, transfer || []);
      });
    }
    // A worker is started and wired up once its script runs (its hello). An error event before then
    // is the browser failing to start it (a plain event, no message: its script did not load), which
    // is tried again, up to STARTS times; an error after it is the worker stopping (why).
    function boot(index) {
      return new Promise(function (resolve, reject) {
        var tries = 0;
        (function again() {
          var worker;
          tries += 1;
          try {
            worker = makeWorker(factory);
          } catch (e) {
            reject(new Error("this browser cannot start the model's worker (" + (e.message || e) + ")"));
            return;
          }
          workers[index] = worker;
          worker.onmessage = function (e) {
            if (!e.data.hello) return;
            wire(worker, index);
            resolve(worker);
          };
          worker.onerror = function (ev) {
            if (ev.preventDefault) ev.preventDefault();
            worker.terminate();
            if (dead) { reject(dead); return; }
            if (!ev.message && tries < STARTS) { setTimeout(again, 100 * tries); return; }
            reject(new Error(ev.message ? stopped(ev) : "the browser did not start the model's worker (tried " + tries + " times): load the model again to retry"));
          };
        })();
      });
    }
    function wire(worker, index) {
      worker.onmessage = function (e) {
        if (e.data.pong) { answered[index] = Date.now(); return; }
        if (e.data.back) { stage.push(e.data.back); if (waiting) { var w = waiting; waiting = null; w(); } return; }
        var p = pending[e.data.id];
        if (!p) return;
        delete pending[e.data.id];
        if (e.data.error) p.reject(new Error(e.data.refused ? refused : e.data.error)); else p.resolve(e.data.result);
      };
      worker.onerror = function (ev) {
        if (ev.preventDefault) ev.preventDefault();
        fail(new Error(stopped(ev)));
      };
    }
    // Once the manifest is read: the workers started, each with room for its share; then every
    // checked chunk's bytes go straight to the workers whose shares hold them (this thread keeps
    // none: one chunk at a time passes through it).
    async function into(manifest) {
      refused = "the browser refused the " + Math.round(manifest.total_bytes / 1e6) + " MB the model needs: close other tabs and retry";
      var plan = engineHere.layout(manifest, n), inits = [], p;
      for (p = 0; p < n; p++) inits.push(boot(p));
      await Promise.all(inits);
      inits = [];
      var lead = [];
      for (p = 1; p < n; p++) {
        var ch = new MessageChannel();
        lead.push(ch.port1);
        inits.push(call(workers[p], { op: "init", manifest: plan.parts[p].manifest, bytes: plan.parts[p].bytes, wasm: wasm, ports: [ch.port2] }, [ch.port2]));
      }
      inits.unshift(call(workers[0], { op: "init", lead: true, manifest: plan.parts[0].manifest, bytes: plan.parts[0].bytes, wasm: wasm, ports: lead }, lead));
      await Promise.all(inits);
      return async function (at, bytes) {
        var end = at + bytes.length;
        for (var i = 0; i < plan.pieces.length; i++) {
          var pc = plan.pieces[i], a = Math.max(pc[0], at), b = Math.min(pc[0] + pc[1], end);
          for (; a < b; a += STAGE) {
            var len = Math.min(STAGE, b - a), buf = await staged();
            new Uint8Array(buf, 0, len).set(bytes.subarray(a - at, a - at + len));
            workers[pc[2]].postMessage({ op: "put", at: pc[3] + a - pc[0], bytes: buf, length: len }, [buf]);
          }
        }
      };
    }
    // The bytes travel in a few buffers of STAGE bytes that the workers hand back once copied, so
    // the copies in flight stay a few MB and leave nothing behind for the collector.
    var STAGE = 1 << 20, stage = [], made = 0, waiting = null;
    function staged() {
      if (dead) return Promise.reject(dead);
      if (stage.length) return Promise.resolve(stage.pop());
      if (made < 8) { made++; return Promise.resolve(new ArrayBuffer(STAGE)); }
      return new Promise(function (resolve) { waiting = resolve; }).then(staged);
    }
    function queued(fn) {
      var p = chain.then(fn);
      chain = p.catch(function () {});
      return p;
    }
    function onAbort() { fail(new Error("loading the model was cancelled")); }
    if (opts.signal) opts.signal.addEventListener("abort", onAbort);
    var loaded, ready, closed = false;
    try {
      loaded = await loader.load({ base: opts.base, model: opts.model, onProgress: opts.onProgress, signal: opts.signal, into: into });
      ready = await Promise.all(workers.map(function (w) { return call(w, { op: "start" }); }));
    } catch (err) {
      fail(err);
      throw dead;
    } finally {
      if (opts.signal) opts.signal.removeEventListener("abort", onAbort);
    }
    var lead = workers[0];
    return {
      config: loaded.manifest.config,
      manifest: loaded.manifest,
      kernels: ready[0].kernels,
      fma: ready[0].kernels === "wasm" && !!module && module.fma,
      workers: n,
      prefill: function (ids, o) { return queued(function () { return call(lead, { op: "prefill", ids: Array.from(ids), opts: o || {} }); }); },
      decode: function (id, o) { return queued(function () { return call(lead, { op: "decode", ids: [id], opts: o || {} }); }); },
      step: function (list, o) { return queued(function () { return call(lead, { op: "step", list: list, opts: o || {} }); }); },
      row: function (id) { return queued(function () { return call(lead, { op: "row", ids: [id] }); }); },
      copySlot: function (from, to, o) { return queued(function () { return call(lead, { op: "copy", from: from, to: to, opts: o || {} }); }); },
      cancel: function () { if (!dead) lead.postMessage({ op: "cancel" }); },
      close: function () { closed = true; if (!dead) fail(new Error("the model was closed")); },
    };
  }

  return { open: open };
});
