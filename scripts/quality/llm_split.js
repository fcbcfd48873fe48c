// Does splitting the matrix rows over several workers pay? bench_llm.py adds this script to the
// harness page (after engine.js) and calls nexttokenSplitBench(config, counts, tokens).
//
// Without SharedArrayBuffer (file:// and GitHub Pages give no cross-origin isolation) each worker
// holds only its share of every matrix's rows, and every product of a one-token step is a round
// trip: the page sends x to each worker and waits for every share of y. A step has four products
// per block (q/k/v, the attention's c_proj, gate/up, the MLP's c_proj) and the unembedding. The
// weights are random blocks of SmolLM2's shapes and types; the kernels are engine.js's own.
//   workers 0: the whole step inside one worker, no messages (what the engine does now)
//   workers N: the same products split over N workers, the page waiting on each round trip
// Returns {workers: ms per step (median), ...} and the round trip alone (an empty product).
(function (root) {
  "use strict";

  function workerMain(factory) {
    var engine = factory(), mats = [];
    function make(spec) {  // random blocks with sane float16 scales (d 0.01, m -0.08)
      var bb = spec.type === "Q4_1" ? 20 : 34, nb = spec.cols / 32, buf = new ArrayBuffer(spec.rows * nb * bb);
      var u32 = new Uint32Array(buf, 0, buf.byteLength >> 2), u8 = new Uint8Array(buf), s = spec.seed | 1, i;
      for (i = 0; i < u32.length; i++) { s ^= s << 13; s ^= s >>> 17; s ^= s << 5; u32[i] = s; }
      for (var p = 0; p < u8.length; p += bb) {
        u8[p] = 0x1f; u8[p + 1] = 0x21;
        if (bb === 20) { u8[p + 2] = 0x1f; u8[p + 3] = 0xad; }
      }
      return { name: spec.name, type: spec.type, rows: spec.rows, cols: spec.cols, off: 0, u8: u8, i8: new Int8Array(buf), u32: u32 };
    }
    function product(list, x) {
      return list.map(function (k) { var w = mats[k], y = new Float32Array(w.rows); engine.matmul(w, x, 1, y); return y; });
    }
    self.onmessage = function (e) {
      var m = e.data;
      if (m.op === "init") { mats = m.specs.map(make); self.postMessage({ id: m.id }); return; }
      if (m.op === "step") {  // a whole step here: every phase in order, as one worker does it
        var t0 = performance.now();
        m.phases.forEach(function (ph) { product(ph.mats, new Float32Array(ph.cols)); });
        self.postMessage({ id: m.id, ms: performance.now() - t0 });
        return;
      }
      var ys = product(m.mats, m.x);
      self.postMessage({ id: m.id, ys: ys }, ys.map(function (y) { return y.buffer; }));
    };
  }

  // The matrices of one step, in the order a step uses them, grouped by the input they share.
  function phases(c) {
    var C = c.n_embd, kv = C / c.n_head * c.n_kv_head, F = c.n_inner, out = [], specs = [];
    function add(list, cols) {
      out.push({ cols: cols, mats: list.map(function (m) { specs.push({ name: m[0], rows: m[1], cols: cols, type: m[2] || "Q4_1" }); return specs.length - 1; }) });
    }
    for (var l = 0; l < c.n_layer; l++) {
      add([["q", C], ["k", kv], ["v", kv]], C);
      add([["o", C]], C);
      add([["gate", F], ["up", F]], C);
      add([["down", C]], F);
    }
    add([["lm_head", c.vocab_size, "Q8_0"]], C);
    return { phases: out, specs: specs };
  }

  function start(src, n, specs, part) {
    var url = URL.createObjectURL(new Blob([src], { type: "text/javascript" })), ws = [];
    for (var i = 0; i < n; i++) ws.push(new Worker(url));
    var next = 1, pending = {};
    ws.forEach(function (w) { w.onmessage = function (e) { var p = pending[e.data.id]; delete pending[e.data.id]; p(e.data); }; });
    function call(w, msg, transfer) {
      return new Promise(function (resolve) { msg.id = next++; pending[msg.id] = resolve; w.postMessage(msg, transfer || []); });
    }
    var inits = ws.map(function (w, i) {
      return call(w, { op: "init", specs: specs.map(function (s, k) {
        var r0 = Math.floor(s.rows * i / n / 4) * 4, r1 = i === n - 1 ? s.rows : Math.floor(s.rows * (i + 1) / n / 4) * 4;
        return { name: s.name, type: s.type, cols: s.cols, rows: part ? r1 - r0 : s.rows, seed: 7919 * k + i + 1 };
      }) });
    });
    return Promise.all(inits).then(function () { return { ws: ws, call: call, close: function () { ws.forEach(function (w) { w.terminate(); }); URL.revokeObjectURL(url); } }; });
  }

  var med = function (a) { return a.slice().sort(function (x, y) { return x - y; })[a.length >> 1]; };

  root.nexttokenSplitBench = async function (config, counts, tokens) {
    var src = "var factory = " + root.nexttoken.llm.engineFactory.toString() + ";\n(" + workerMain.toString() + ")(factory);\n";
    var plan = phases(config), out = { steps: tokens, round_trips_per_step: plan.phases.length };
    var one = await start(src, 1, plan.specs, false), times = [];
    for (var t = 0; t <= tokens; t++) {  // the first step warms the kernels up
      var a = performance.now();
      await one.call(one.ws[0], { op: "step", phases: plan.phases });
      if (t) times.push(performance.now() - a);
    }
    one.close();
    out.workers_0 = med(times);
    for (var ci = 0; ci < counts.length; ci++) {
      var n = counts[ci], pool = await start(src, n, plan.specs, true), trip = [];
      times = [];
      for (t = 0; t <= tokens; t++) {
        a = performance.now();
        for (var p = 0; p < plan.phases.length; p++) {
          var ph = plan.phases[p], x = new Float32Array(ph.cols);
          await Promise.all(pool.ws.map(function (w) { return pool.call(w, { op: "product", mats: ph.mats, x: x }); }));
        }
        if (t) times.push(performance.now() - a);
        a = performance.now();
        await Promise.all(pool.ws.map(function (w) { return pool.call(w, { op: "product", mats: [], x: new Float32Array(config.n_embd) }); }));
        trip.push(performance.now() - a);
      }
      pool.close();
      out["workers_" + n] = med(times);
      out["round_trip_" + n] = med(trip);
    }
    return out;
  };
})(typeof self !== "undefined" ? self : globalThis);
