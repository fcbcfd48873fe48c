// The generation loop: prefill, then one token a step, with and without a KV cache.
// Keys and values of earlier tokens never change while the window stays put, so the cache keeps
// them and each step computes one new row. Past n_ctx the window slides: every position shifts,
// and with learned position embeddings every cached K and V changes, so the cache is rebuilt.
//
// `ops` counts multiply-adds, the same way in both lanes: per processed token and layer
// 3C² (q, k, v) + 2·n·C (q·k and weights × v over n rows) + C² (c_proj) + 2·C·d_mlp (MLP),
// plus V·C for the logits of the position that is predicted.
//
// kvcache.createCache(m) -> {prefill(ids), step(id), k, v, length}
// kvcache.stepWithoutCache(m, ids) -> {logits, ops, rows, k, v}
// kvcache.generate(m, promptIds, {maxNew, useCache, pick}) -> {steps, stoppedBy}; each step holds the K and V
// rows its cache held once it ran ([layer][head][pos][d]): recomputed, kept or new, as the demos draw them.
nexttoken.define("runtime.kvcache", ["runtime.sampling"], function (sampling) {
  "use strict";

  function view(m, cache) {  // cache rows as [layer][head][pos][d] arrays, for display
    var C = m.config.n_embd, hs = m.config.d_head;
    function split(buf) {
      var heads = [];
      for (var h = 0; h < m.config.n_head; h++) {
        var rows = [];
        for (var t = 0; t < cache.length; t++) rows.push(Array.prototype.slice.call(buf, t * C + h * hs, t * C + (h + 1) * hs));
        heads.push(rows);
      }
      return heads;
    }
    return { k: cache.k.map(split), v: cache.v.map(split) };
  }

  function createCache(m) {
    var raw = m.newCache(), V = m.config.vocab_size;
    var api = {
      length: 0,
      prefill: function (ids) {  // all prompt tokens at once (here one after another: same numbers)
        m.checkIds(ids);
        var ops = 0, logits = new Float64Array(V);
        for (var t = 0; t < ids.length; t++) ops += m.rowStep(ids[t], t, raw, t === ids.length - 1 ? logits : null);
        api.length = raw.length;
        refresh();
        return { logits: Array.from(logits), ops: ops, rows: ids.length };
      },
      step: function (id) {
        if (raw.length >= m.config.n_ctx) throw new RangeError("the cache is full (" + m.config.n_ctx + " rows): slide the window and prefill again");
        m.checkIds([id]);
        var logits = new Float64Array(V);
        var ops = m.rowStep(id, raw.length, raw, logits);
        api.length = raw.length;
        refresh();
        return { logits: Array.from(logits), ops: ops, rows: 1 };
      }
    };
    function refresh() { var v = view(m, raw); api.k = v.k; api.v = v.v; }
    refresh();
    return api;
  }

  // Without a cache every step recomputes K and V for every token in the window (and throws them away).
  function stepWithoutCache(m, ids) {
    var c = createCache(m), r = c.prefill(ids);
    return { logits: r.logits, ops: r.ops, rows: ids.length, k: c.k, v: c.v };
  }

  function generate(m, promptIds, opts) {
    opts = opts || {};
    var nCtx = m.config.n_ctx, eot = opts.eotId === undefined ? 0 : opts.eotId;
    var maxNew = Math.max(0, Math.floor(opts.maxNew === undefined ? nCtx : opts.maxNew));
    var pick = opts.pick || sampling.argmax;
    if (!promptIds || promptIds.length === 0) throw new RangeError("generation needs at least one prompt token");
    var ids = promptIds.slice(), steps = [], cache = null, stoppedBy = "max_new_tokens";
    for (var s = 0; s < maxNew; s++) {
      var start = Math.max(0, ids.length - nCtx), window = ids.slice(start), r, slid = s > 0 && start > 0;
      if (!opts.useCache) r = stepWithoutCache(m, window);
      else if (s === 0 || slid) { cache = createCache(m); r = cache.prefill(window); }  // prefill, or rebuild after a slide
      else r = cache.step(ids[ids.length - 1]);
      var id = pick(r.logits, s), held = opts.useCache ? cache : r;  // the cache's view is new after each call
      steps.push({ id: id, window: window, windowStart: start, slid: slid, rebuilt: !!opts.useCache && slid,
                   ops: r.ops, rows: r.rows, logits: r.logits, k: held.k, v: held.v });
      ids.push(id);
      if (id === eot) { stoppedBy = "eot"; break; }
    }
    return { steps: steps, stoppedBy: stoppedBy, ids: ids };
  }

  return { createCache: createCache, stepWithoutCache: stepWithoutCache, generate: generate };
});
