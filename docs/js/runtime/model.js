// The tiny GPT-2-shaped model in plain JS, the same forward pass as scripts/tiny/model.py.
// Names follow PyTorch and the JSON: wte, wpe, h[i].ln_1, attn.c_attn, attn.c_proj, ln_2,
// mlp.c_fc, mlp.c_proj, ln_f; the output layer reuses wte (tied embeddings).
//
// model.create(data) with data = {config, weights} (the active model, store.get("model")) -> m:
//   m.config           sizes from the data (vocab_size, n_ctx, n_embd, n_layer, n_head, d_head, d_mlp, ln_eps)
//   m.forward(ids, opts) every intermediate, keyed and nested like site_data/tiny/traces.json;
//                      opts.knockout = {heads: [h, ...], mlp: true} zeroes those parts' contributions
//                      (a knocked-out head's output before c_proj; the whole MLP output), same trace shape
//   m.lens(ids, opts)  the logit lens: ln_f and the tied unembedding applied to the residual stream
//                      after the embeddings, after each attention and after each MLP, at every position
//   m.logits(ids)      the same logits, (T, V) in one Float64Array, without the trace (fast path)
//   m.newCache(), m.rowStep(id, pos, cache, logitsOut)   one token at a time, for kvcache.js
//   m.withWeights(w)   the same model with other weights (training snapshots)
// Sizes come only from the data; nothing here knows that n_embd is 8.
nexttoken.define("runtime.model", ["runtime.kernels"], function (kernels) {
  "use strict";

  // Nested rows -> Float64Array, row-major, after checking the shape against the config: a bad
  // weights object fails here, naming the tensor, instead of turning into NaN in a demo.
  function tensor(value, shape, name) {
    var out = new Float64Array(shape.reduce(function (a, b) { return a * b; }, 1)), k = 0;
    (function walk(v, d, where) {
      if (d === shape.length) {
        if (typeof v !== "number" || !isFinite(v)) throw new TypeError("weights." + name + where + " is " + v + ", not a finite number");
        out[k++] = v;
        return;
      }
      if (!(Array.isArray(v) || ArrayBuffer.isView(v)) || v.length !== shape[d]) {
        throw new TypeError("weights." + name + where + ": expected " + shape[d] + " entries, found " + (v && v.length !== undefined ? v.length : typeof v));
      }
      for (var i = 0; i < v.length; i++) walk(v[i], d + 1, where + "[" + i + "]");
    })(value, 0, "");
    return out;
  }
  function part(obj, key, name) {
    if (!obj || typeof obj !== "object" || !(key in obj)) throw new TypeError("weights." + name + " is missing");
    return obj[key];
  }
  function linearParams(p, nOut, nIn, name) {  // PyTorch Linear: weight (out, in), y = W x + b
    return { weight: tensor(part(p, "weight", name + ".weight"), [nOut, nIn], name + ".weight"),
             bias: tensor(part(p, "bias", name + ".bias"), [nOut], name + ".bias"), nOut: nOut, nIn: nIn };
  }
  function normParams(p, C, name) {
    return { weight: tensor(part(p, "weight", name + ".weight"), [C], name + ".weight"), bias: tensor(part(p, "bias", name + ".bias"), [C], name + ".bias") };
  }

  function prepare(weights, cfg) {
    var C = cfg.n_embd, F = cfg.d_mlp;
    var h = part(weights, "h", "h");
    if (!Array.isArray(h) || h.length !== cfg.n_layer) throw new TypeError("weights.h: expected " + cfg.n_layer + " blocks");
    return {
      wte: tensor(part(weights, "wte", "wte"), [cfg.vocab_size, C], "wte"),
      wpe: tensor(part(weights, "wpe", "wpe"), [cfg.n_ctx, C], "wpe"),
      h: h.map(function (blk, l) {
        var n = "h[" + l + "].", attn = part(blk, "attn", n + "attn"), mlp = part(blk, "mlp", n + "mlp");
        return {
          ln_1: normParams(part(blk, "ln_1", n + "ln_1"), C, n + "ln_1"), ln_2: normParams(part(blk, "ln_2", n + "ln_2"), C, n + "ln_2"),
          attn: { c_attn: linearParams(part(attn, "c_attn", n + "attn.c_attn"), 3 * C, C, n + "attn.c_attn"),
                  c_proj: linearParams(part(attn, "c_proj", n + "attn.c_proj"), C, C, n + "attn.c_proj") },
          mlp: { c_fc: linearParams(part(mlp, "c_fc", n + "mlp.c_fc"), F, C, n + "mlp.c_fc"),
                 c_proj: linearParams(part(mlp, "c_proj", n + "mlp.c_proj"), C, F, n + "mlp.c_proj") }
        };
      }),
      ln_f: normParams(part(weights, "ln_f", "ln_f"), C, "ln_f")
    };
  }

  // Sizes from the data; each must be a positive whole number and the heads must split n_embd.
  function readConfig(mc) {
    var cfg = {}, i, keys = ["vocab_size", "n_ctx", "n_embd", "n_layer", "n_head", "d_mlp"];
    for (i = 0; i < keys.length; i++) {
      if (!(Number.isInteger(mc[keys[i]]) && mc[keys[i]] > 0)) throw new TypeError("config." + keys[i] + " must be a positive whole number, found " + mc[keys[i]]);
      cfg[keys[i]] = mc[keys[i]];
    }
    if (cfg.n_embd % cfg.n_head !== 0) throw new TypeError("config.n_embd (" + cfg.n_embd + ") must split evenly into n_head (" + cfg.n_head + ") heads");
    cfg.d_head = cfg.n_embd / cfg.n_head;
    if (mc.d_head !== undefined && mc.d_head !== cfg.d_head) throw new TypeError("config.d_head is " + mc.d_head + ", but n_embd / n_head is " + cfg.d_head);
    if (!(typeof mc.ln_eps === "number" && mc.ln_eps > 0)) throw new TypeError("config.ln_eps must be a positive number, found " + mc.ln_eps);
    cfg.ln_eps = mc.ln_eps;
    return cfg;
  }

  var softmax = kernels.softmax, gelu = kernels.gelu;
  function linear(layer, x, xAt, y, yAt) { kernels.linear(layer.weight, 0, layer.bias, 0, layer.nOut, layer.nIn, x, xAt, y, yAt); }
  function layerNorm(norm, eps, x, xAt, y, yAt, C) { kernels.layerNorm(x, xAt, C, norm.weight, 0, norm.bias, 0, eps, y, yAt); }

  // buf[s..e) as a plain array. A loop, because Array.prototype.slice.call on a typed array takes
  // V8's slow generic path and made the traced forward four times slower.
  function arr(buf, s, e) {
    var out = new Array(e - s);
    for (var i = s; i < e; i++) out[i - s] = buf[i];
    return out;
  }
  function rows(buf, T, n) {  // (T*n) buffer -> T arrays of n
    var out = new Array(T);
    for (var t = 0; t < T; t++) out[t] = arr(buf, t * n, (t + 1) * n);
    return out;
  }

  function create(data) {
    if (!data || !data.config) throw new TypeError("model.create needs {config, weights} (the active model's data)");
    var cfg = readConfig(data.config.model || data.config);  // config.json nests the sizes under "model"
    var P = prepare(data.weights, cfg);
    var C = cfg.n_embd, H = cfg.n_head, hs = cfg.d_head, V = cfg.vocab_size, F = cfg.d_mlp;
    var scale = 1 / Math.sqrt(hs);

    function checkIds(ids) {
      if (!ids || ids.length === 0) throw new RangeError("forward needs at least one token");
      if (ids.length > cfg.n_ctx) throw new RangeError(ids.length + " tokens do not fit the context window of " + cfg.n_ctx);
      for (var i = 0; i < ids.length; i++) {
        if (!(ids[i] >= 0 && ids[i] < V && ids[i] === Math.floor(ids[i]))) throw new RangeError("token id " + ids[i] + " is not in the vocabulary");
      }
    }

    // Embedding: x[t] = wte[id] + wpe[pos]; positions start at `pos0` (0 except in a KV-cache step).
    function embed(id, pos, x, xo) {
      for (var c = 0; c < C; c++) x[xo + c] = P.wte[id * C + c] + P.wpe[pos * C + c];
    }

    // Block l's MLP half for one position: x += mlp(ln_2(x)).
    // Scratch rows, allocated once: typed-array allocation dominated a traced pass otherwise.
    var mH = new Float64Array(C), mPre = new Float64Array(F), mAct = new Float64Array(F), mOut = new Float64Array(C);
    function mlpRow(B, x, xo, tr, off) {
      var h2 = mH, pre = mPre, act = mAct, out = mOut;
      layerNorm(B.ln_2, cfg.ln_eps, x, xo, h2, 0, C);
      linear(B.mlp.c_fc, h2, 0, pre, 0);
      for (var f = 0; f < F; f++) act[f] = gelu(pre[f]);
      linear(B.mlp.c_proj, act, 0, out, 0);
      if (off) out.fill(0);  // knocked out: the MLP adds nothing to the residual stream
      for (var c = 0; c < C; c++) x[xo + c] += out[c];
      if (tr) { tr.ln_2.push(arr(h2, 0, C)); tr.mlp_pre.push(arr(pre, 0, F)); tr.mlp_hidden.push(arr(act, 0, F)); tr.mlp_out.push(arr(out, 0, C)); }
    }

    function logitsRow(x, xo, lnBuf, logits, lo) {
      layerNorm(P.ln_f, cfg.ln_eps, x, xo, lnBuf, 0, C);
      for (var v = 0; v < V; v++) {
        var s = 0;
        for (var c = 0; c < C; c++) s += lnBuf[c] * P.wte[v * C + c];  // tied: compare with every token's embedding
        logits[lo + v] = s;
      }
    }

    // Work buffers for up to n_ctx positions, allocated once per model: allocating typed arrays
    // on every call cost more than the arithmetic. The trace copies out of them into plain arrays.
    var N = cfg.n_ctx;
    var buf = {
      x: new Float64Array(N * C), h1: new Float64Array(N * C), qkv: new Float64Array(N * 3 * C),  // qkv: (T, 3C)
      joined: new Float64Array(N * C), ao: new Float64Array(N * C), sRow: new Float64Array(N), wRow: new Float64Array(N),
      lnf: new Float64Array(N * C), logits: new Float64Array(N * V), probs: new Float64Array(N * V), lnBuf: new Float64Array(C)
    };
    // {heads: [...], mlp} -> {heads: bool per head, mlp: bool}, rejecting what is not a part of the model.
    function readKnockout(ko) {
      var out = { heads: [], mlp: false }, hh;
      for (hh = 0; hh < H; hh++) out.heads.push(false);
      if (!ko) return out;
      (ko.heads || []).forEach(function (x) {
        if (!(Number.isInteger(x) && x >= 0 && x < H)) throw new RangeError("no head " + x + " to knock out (heads 0 to " + (H - 1) + ")");
        out.heads[x] = true;
      });
      out.mlp = !!ko.mlp;
      return out;
    }
    function forward(ids, opts) {
      checkIds(ids);
      var ko = readKnockout(opts && opts.knockout);
      var T = ids.length, t, c, h, i, j, d;
      var x = buf.x;  // (T, C) used of (n_ctx, C): the residual stream
      var tr = { wte: [], wpe: [], x: null, h: [], ln_f: null, logits: null, probs: null };
      for (t = 0; t < T; t++) {
        embed(ids[t], t, x, t * C);
        tr.wte.push(arr(P.wte, ids[t] * C, ids[t] * C + C));
        tr.wpe.push(arr(P.wpe, t * C, t * C + C));
      }
      tr.x = rows(x, T, C);
      var h1 = buf.h1, qkv = buf.qkv, joined = buf.joined, ao = buf.ao, sRow = buf.sRow, wRow = buf.wRow;
      for (var l = 0; l < cfg.n_layer; l++) {
        var B = P.h[l];
        var bt = { ln_1: null, q: [], k: [], v: [], scores: [], masked_scores: [], attn_weights: [], head_out: [], attn_out: null,
                   resid_mid: null, ln_2: [], mlp_pre: [], mlp_hidden: [], mlp_out: [], resid_post: null };
        for (t = 0; t < T; t++) { layerNorm(B.ln_1, cfg.ln_eps, x, t * C, h1, t * C, C); linear(B.attn.c_attn, h1, t * C, qkv, t * 3 * C); }
        bt.ln_1 = rows(h1, T, C);
        for (h = 0; h < H; h++) {  // qkv row = [q (C) | k (C) | v (C)], head h owns columns h*hs..(h+1)*hs of each
          var q = [], k = [], v = [], sc = [], ms = [], w = [], ho = [];
          for (t = 0; t < T; t++) {
            q.push(arr(qkv, t * 3 * C + h * hs, t * 3 * C + (h + 1) * hs));
            k.push(arr(qkv, t * 3 * C + C + h * hs, t * 3 * C + C + (h + 1) * hs));
            v.push(arr(qkv, t * 3 * C + 2 * C + h * hs, t * 3 * C + 2 * C + (h + 1) * hs));
          }
          for (i = 0; i < T; i++) {
            var srow = sRow, wrow = wRow, mrow = new Array(T);
            for (j = 0; j < T; j++) {
              var s = 0;
              for (d = 0; d < hs; d++) s += q[i][d] * k[j][d];
              srow[j] = s * scale;
              mrow[j] = j <= i ? srow[j] : null;  // causal mask: only look back (null = -inf)
            }
            softmax(srow, 0, i + 1, wrow, 0);
            var wfull = new Array(T), out = new Array(hs);
            for (j = 0; j < T; j++) wfull[j] = j <= i ? wrow[j] : 0;
            for (d = 0; d < hs; d++) {
              var acc = 0;
              if (!ko.heads[h]) for (j = 0; j <= i; j++) acc += wrow[j] * v[j][d];  // knocked out: outputs zero
              out[d] = acc;
              joined[i * C + h * hs + d] = acc;  // heads side by side: (T, H*hs) = (T, C)
            }
            sc.push(arr(srow, 0, T)); ms.push(mrow); w.push(wfull); ho.push(out);
          }
          bt.q.push(q); bt.k.push(k); bt.v.push(v); bt.scores.push(sc); bt.masked_scores.push(ms); bt.attn_weights.push(w); bt.head_out.push(ho);
        }
        for (t = 0; t < T; t++) {
          linear(B.attn.c_proj, joined, t * C, ao, t * C);
          for (c = 0; c < C; c++) x[t * C + c] += ao[t * C + c];
        }
        bt.attn_out = rows(ao, T, C);
        bt.resid_mid = rows(x, T, C);
        for (t = 0; t < T; t++) mlpRow(B, x, t * C, bt, ko.mlp);
        bt.resid_post = rows(x, T, C);
        tr.h.push(bt);
      }
      var lnf = buf.lnf, logits = buf.logits, probs = buf.probs, lnBuf = buf.lnBuf;
      for (t = 0; t < T; t++) {
        logitsRow(x, t * C, lnBuf, logits, t * V);
        lnf.set(lnBuf, t * C);
        softmax(logits, t * V, V, probs, t * V);
      }
      tr.ln_f = rows(lnf, T, C);
      tr.logits = rows(logits, T, V);
      tr.probs = rows(probs, T, V);
      tr.knockout = { heads: ko.heads.slice(), mlp: ko.mlp };
      return tr;
    }

    // What the model would answer if the residual stream stopped early: each stage's rows go
    // through ln_f and the unembedding, exactly as the last one does. With one layer the last
    // stage, after the MLP, is the real answer.
    function lens(ids, opts) {
      var tr = forward(ids, opts), T = ids.length, lnBuf = new Float64Array(C), row = new Float64Array(V);
      var rowsIn = [{ name: "embeddings", layer: null, resid: tr.x }];
      tr.h.forEach(function (bt, l) {
        rowsIn.push({ name: "attention", layer: l, resid: bt.resid_mid });
        rowsIn.push({ name: "mlp", layer: l, resid: bt.resid_post });
      });
      var flat = new Float64Array(C);
      var stages = rowsIn.map(function (st) {
        var probs = [];
        for (var t = 0; t < T; t++) {
          for (var c = 0; c < C; c++) flat[c] = st.resid[t][c];
          logitsRow(flat, 0, lnBuf, row, 0);
          var p = new Float64Array(V);
          softmax(row, 0, V, p, 0);
          probs.push(Array.from(p));
        }
        return { name: st.name, layer: st.layer, probs: probs };
      });
      return { stages: stages, probs: tr.probs, trace: tr };
    }

    // The lean path: one new token at position `pos` through every block, writing its key and
    // value rows into `cache` and attending over rows 0..pos. Running it for t = 0..T-1 is the
    // same arithmetic as the batched causal forward above, which is why a KV cache is exact.
    // Returns the multiply-adds it did: projections, q.k and weights x v over pos+1 rows, MLP,
    // and V*C for the logits when asked.
    var rowX = new Float64Array(C), rowH = new Float64Array(C), rowQKV = new Float64Array(3 * C), rowJ = new Float64Array(C),
        rowO = new Float64Array(C), rowPre = new Float64Array(F), rowW = new Float64Array(cfg.n_ctx), lnBufRow = new Float64Array(C);
    function newCache() {
      var k = [], v = [];
      for (var l = 0; l < cfg.n_layer; l++) { k.push(new Float64Array(cfg.n_ctx * C)); v.push(new Float64Array(cfg.n_ctx * C)); }
      return { k: k, v: v, length: 0 };  // k[l] rows are (n_ctx, C); head h owns columns h*hs..(h+1)*hs
    }
    function rowStep(id, pos, cache, logitsOut) {
      var c, h, j, d, f, n = pos + 1, ops = 0;
      embed(id, pos, rowX, 0);
      for (var l = 0; l < cfg.n_layer; l++) {
        var B = P.h[l], K = cache.k[l], Vc = cache.v[l];
        layerNorm(B.ln_1, cfg.ln_eps, rowX, 0, rowH, 0, C);
        linear(B.attn.c_attn, rowH, 0, rowQKV, 0);
        for (c = 0; c < C; c++) { K[pos * C + c] = rowQKV[C + c]; Vc[pos * C + c] = rowQKV[2 * C + c]; }
        for (h = 0; h < H; h++) {
          var o = h * hs;
          for (j = 0; j < n; j++) {
            var s = 0;
            for (d = 0; d < hs; d++) s += rowQKV[o + d] * K[j * C + o + d];
            rowW[j] = s * scale;
          }
          softmax(rowW, 0, n, rowW, 0);
          for (d = 0; d < hs; d++) {
            var acc = 0;
            for (j = 0; j < n; j++) acc += rowW[j] * Vc[j * C + o + d];
            rowJ[o + d] = acc;
          }
        }
        linear(B.attn.c_proj, rowJ, 0, rowO, 0);
        for (c = 0; c < C; c++) rowX[c] += rowO[c];
        layerNorm(B.ln_2, cfg.ln_eps, rowX, 0, rowH, 0, C);
        linear(B.mlp.c_fc, rowH, 0, rowPre, 0);
        for (f = 0; f < F; f++) rowPre[f] = gelu(rowPre[f]);
        linear(B.mlp.c_proj, rowPre, 0, rowO, 0);
        for (c = 0; c < C; c++) rowX[c] += rowO[c];
        ops += 3 * C * C + 2 * n * C + C * C + 2 * C * F;
      }
      cache.length = n;
      if (logitsOut) { logitsRow(rowX, 0, lnBufRow, logitsOut, 0); ops += V * C; }
      return ops;
    }
    var scratch = null;
    // All positions' logits without building a trace: (T, V) as one Float64Array.
    function logits(ids) {
      checkIds(ids);
      scratch = scratch || newCache();
      var out = new Float64Array(ids.length * V);
      for (var t = 0; t < ids.length; t++) rowStep(ids[t], t, scratch, out.subarray(t * V, (t + 1) * V));
      return out;
    }

    return {
      config: cfg,
      forward: forward,
      lens: lens,
      logits: logits,
      newCache: newCache,
      rowStep: rowStep,
      checkIds: checkIds,
      withWeights: function (w) { return create({ config: data.config, weights: w }); }
    };
  }

  return { create: create };
});
