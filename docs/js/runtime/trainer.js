// The reader's training of the tiny model in the browser: full-batch Adam with the backward pass
// written out by hand, on the rows of corpus.js. Loaded only on the training page, when the reader
// presses Train.
//
// trainer.createTrainer(modelCfg, initWeights, rows, tcfg) -> tr:
//   tr.lossAndGrad() -> loss (tr.grad filled), tr.step() -> loss before the step, tr.weights() (nested)
//   tr.params / tr.grad are flat Float64Arrays in the order of the nested weights (depth first)
// trainer.seededWeights(modelCfg, seed, std) -> nested starting weights for any size, bit for bit those
//   of scripts/tiny/sizing.py's seeded_weights (the reader's models start there; the built model keeps its own)
// trainer.run(tr, steps, {onProgress, onDone, budgetMs}) trains in slices of at most budgetMs,
//   yielding between them so the page stays responsive; returns {cancel}.
nexttoken.define("runtime.trainer", ["runtime.kernels"], function (kernels) {
  "use strict";
  var root = typeof window !== "undefined" ? window : globalThis;

  // ---- parameters: one flat vector, in the depth-first order of the nested weights ----------
  function flatten(tree, out) {
    if (Array.isArray(tree) || ArrayBuffer.isView(tree)) { for (var i = 0; i < tree.length; i++) flatten(tree[i], out); }
    else if (tree && typeof tree === "object") Object.keys(tree).forEach(function (k) { flatten(tree[k], out); });
    else out.push(tree);
    return out;
  }
  function refill(template, flat) {
    var pos = 0;
    function fill(t) {
      if (Array.isArray(t)) return t.map(fill);
      if (t && typeof t === "object") { var o = {}; Object.keys(t).forEach(function (k) { o[k] = fill(t[k]); }); return o; }
      return flat[pos++];
    }
    return fill(template);
  }

  // mulberry32 in unsigned 32-bit integer steps, the same as sizing.py's Mulberry32; a normal is the
  // sum of 12 uniforms k / 2^32 minus 6, exact in float64, so only the final * std rounds.
  function seededWeights(mc, seed, std) {
    var state = seed >>> 0;
    function u32() {
      state = (state + 0x6D2B79F5) >>> 0;
      var z = state;
      z = Math.imul(z ^ (z >>> 15), z | 1) >>> 0;
      z = (z ^ ((z + (Math.imul(z ^ (z >>> 7), z | 61) >>> 0)) >>> 0)) >>> 0;
      return (z ^ (z >>> 14)) >>> 0;
    }
    function normal() {
      var s = 0;
      for (var i = 0; i < 12; i++) s += u32() / 4294967296;
      return s - 6;
    }
    var C = mc.n_embd, F = mc.d_mlp;
    function matrix(rows, cols) {
      var out = [];
      for (var r = 0; r < rows; r++) { var row = []; for (var c = 0; c < cols; c++) row.push(std * normal()); out.push(row); }
      return out;
    }
    function fill(n, v) { var a = []; for (var i = 0; i < n; i++) a.push(v); return a; }
    function linear(nOut, nIn) { return { weight: matrix(nOut, nIn), bias: fill(nOut, 0) }; }
    function norm() { return { weight: fill(C, 1), bias: fill(C, 0) }; }
    var wte = matrix(mc.vocab_size, C), wpe = matrix(mc.n_ctx, C), h = [];
    for (var l = 0; l < mc.n_layer; l++) {
      var ln1 = norm(), attn = { c_attn: linear(3 * C, C), c_proj: linear(C, C) }, ln2 = norm();
      h.push({ ln_1: ln1, attn: attn, ln_2: ln2, mlp: { c_fc: linear(F, C), c_proj: linear(C, F) } });
    }
    return { wte: wte, wpe: wpe, h: h, ln_f: norm() };
  }

  function createTrainer(mc, initWeights, rows, tcfg) {
    var V = mc.vocab_size, C = mc.n_embd, NL = mc.n_layer, H = mc.n_head, hs = C / H, F = mc.d_mlp, NC = mc.n_ctx;
    var eps = mc.ln_eps, scale = 1 / Math.sqrt(hs);
    var init = flatten(initWeights, []);
    // Offsets of each tensor in the flat vector, the same walk as flatten().
    var off = {}, k = 0;
    function take(name, n) { off[name] = k; k += n; }
    take("wte", V * C); take("wpe", NC * C);
    var blocks = [];  // per block, the offset of each tensor, by its JSON name
    for (var l = 0; l < NL; l++) {
      var o = {};
      [["ln_1.weight", C], ["ln_1.bias", C], ["attn.c_attn.weight", 3 * C * C], ["attn.c_attn.bias", 3 * C],
       ["attn.c_proj.weight", C * C], ["attn.c_proj.bias", C], ["ln_2.weight", C], ["ln_2.bias", C],
       ["mlp.c_fc.weight", F * C], ["mlp.c_fc.bias", F], ["mlp.c_proj.weight", C * F], ["mlp.c_proj.bias", C]].forEach(function (e) { o[e[0]] = k; k += e[1]; });
      blocks.push(o);
    }
    take("ln_f.weight", C); take("ln_f.bias", C);
    if (k !== init.length) throw new Error("the initial weights have " + init.length + " numbers; the config needs " + k);
    var P = Float64Array.from(init), G = new Float64Array(k), M = new Float64Array(k), S = new Float64Array(k);
    var nTargets = 0;
    rows.forEach(function (r) { nTargets += r.y.length; });
    if (!nTargets) throw new Error("nothing to train on");

    // Activations for one row (T <= n_ctx), allocated once.
    function buf(n) { return new Float64Array(n); }
    var A = {
      x0: buf(NC * C), lnfX: buf(NC * C), lnfR: buf(NC), lnfO: buf(NC * C), probs: buf(NC * V),
      dx: buf(NC * C), dlnf: buf(NC * C), dlog: buf(V), l: []
    };
    for (l = 0; l < NL; l++) {
      A.l.push({
        ln1X: buf(NC * C), ln1R: buf(NC), h1: buf(NC * C), qkv: buf(NC * 3 * C), att: buf(H * NC * NC), y: buf(NC * C),
        x1: buf(NC * C), ln2X: buf(NC * C), ln2R: buf(NC), h2: buf(NC * C), pre: buf(NC * F), act: buf(NC * F), x2: buf(NC * C),
        dh: buf(NC * C), dqkv: buf(NC * 3 * C), dy: buf(NC * C), th: buf(NC * F), dpre: buf(NC * F), datt: buf(NC)
      });
    }

    // LayerNorm forward for T rows: keeps x-hat and 1/std for the backward pass.
    function lnForward(x, w, b, xhat, rstd, out, T) {
      for (var t = 0; t < T; t++) rstd[t] = kernels.layerNorm(x, t * C, C, P, w, P, b, eps, out, t * C, xhat);
    }
    // dout -> dx (added into dx), dw, db.
    function lnBackward(dout, xhat, rstd, w, b, dx, T) {
      for (var t = 0; t < T; t++) {
        var o = t * C, m1 = 0, m2 = 0, c;
        for (c = 0; c < C; c++) {
          var dxh = dout[o + c] * P[w + c];
          m1 += dxh; m2 += dxh * xhat[o + c];
          G[w + c] += dout[o + c] * xhat[o + c]; G[b + c] += dout[o + c];
        }
        m1 /= C; m2 /= C;
        for (c = 0; c < C; c++) dx[o + c] += rstd[t] * (dout[o + c] * P[w + c] - m1 - xhat[o + c] * m2);
      }
    }
    // The two mat-vec kernels every layer shares (the tied unembedding too). The input is read eight
    // numbers at a time into locals, which stay in registers across the loop over outputs (the
    // model's widths are multiples of 8; any rest goes one at a time). Each output still adds its
    // terms one by one in input order, so the sums are the plain loop's, bit for bit.
    // y[yo + o] += sum_i W[o, i] x[xo + i], W (nOut, nIn) row-major at offset w of P.
    function matvec(w, nOut, nIn, x, xo, y, yo) {
      var i = 0, o, r, s;
      for (; i + 8 <= nIn; i += 8) {
        var j = xo + i, x0 = x[j], x1 = x[j + 1], x2 = x[j + 2], x3 = x[j + 3], x4 = x[j + 4], x5 = x[j + 5], x6 = x[j + 6], x7 = x[j + 7];
        for (o = 0, r = w + i; o < nOut; o++, r += nIn) {
          s = y[yo + o];
          s += P[r] * x0; s += P[r + 1] * x1; s += P[r + 2] * x2; s += P[r + 3] * x3;
          s += P[r + 4] * x4; s += P[r + 5] * x5; s += P[r + 6] * x6; s += P[r + 7] * x7;
          y[yo + o] = s;
        }
      }
      for (; i < nIn; i++) { var xi = x[xo + i]; for (o = 0, r = w + i; o < nOut; o++, r += nIn) y[yo + o] += P[r] * xi; }
    }
    // Its backward for one position: G[W] += g x^T, dx[dxo + i] = sum_o g[o] W[o, i] (overwritten).
    function matvecBack(w, nOut, nIn, g, go, x, xo, dx, dxo) {
      var i = 0, o, r, gv;
      for (; i + 8 <= nIn; i += 8) {
        var j = xo + i, x0 = x[j], x1 = x[j + 1], x2 = x[j + 2], x3 = x[j + 3], x4 = x[j + 4], x5 = x[j + 5], x6 = x[j + 6], x7 = x[j + 7];
        var d0 = 0, d1 = 0, d2 = 0, d3 = 0, d4 = 0, d5 = 0, d6 = 0, d7 = 0;
        for (o = 0, r = w + i; o < nOut; o++, r += nIn) {
          gv = g[go + o];
          G[r] += gv * x0; G[r + 1] += gv * x1; G[r + 2] += gv * x2; G[r + 3] += gv * x3;
          G[r + 4] += gv * x4; G[r + 5] += gv * x5; G[r + 6] += gv * x6; G[r + 7] += gv * x7;
          d0 += gv * P[r]; d1 += gv * P[r + 1]; d2 += gv * P[r + 2]; d3 += gv * P[r + 3];
          d4 += gv * P[r + 4]; d5 += gv * P[r + 5]; d6 += gv * P[r + 6]; d7 += gv * P[r + 7];
        }
        j = dxo + i;
        dx[j] = d0; dx[j + 1] = d1; dx[j + 2] = d2; dx[j + 3] = d3; dx[j + 4] = d4; dx[j + 5] = d5; dx[j + 6] = d6; dx[j + 7] = d7;
      }
      for (; i < nIn; i++) {
        var xi = x[xo + i], d = 0;
        for (o = 0, r = w + i; o < nOut; o++, r += nIn) { gv = g[go + o]; G[r] += gv * xi; d += gv * P[r]; }
        dx[dxo + i] = d;
      }
    }
    // y[t] = W x[t] + b, W (nOut, nIn) at offset w.
    function linForward(x, nIn, w, b, nOut, y, T) {
      for (var t = 0; t < T; t++) {
        var yo = t * nOut;
        for (var o = 0; o < nOut; o++) y[yo + o] = P[b + o];
        matvec(w, nOut, nIn, x, t * nIn, y, yo);
      }
    }
    // dy -> dW, db (added into G) and dx (overwritten).
    function linBackward(dy, x, nIn, w, b, nOut, dx, T) {
      for (var t = 0; t < T; t++) {
        var yo = t * nOut;
        for (var o = 0; o < nOut; o++) G[b + o] += dy[yo + o];
        matvecBack(w, nOut, nIn, dy, yo, x, t * nIn, dx, t * nIn);
      }
    }

    // Attention forward for one block: softmax(q k^T / sqrt(hs)) over positions 0..i, times v.
    function attnForward(a, T) {
      var qkv = a.qkv, att = a.att, y = a.y, C3 = 3 * C;
      for (var h = 0; h < H; h++) {
        var qo = h * hs, ko = C + h * hs, vo = 2 * C + h * hs, ab = h * NC * NC;
        for (var i = 0; i < T; i++) {
          var j, d, r = ab + i * NC;
          for (j = 0; j <= i; j++) {
            var s = 0;
            for (d = 0; d < hs; d++) s += qkv[i * C3 + qo + d] * qkv[j * C3 + ko + d];
            att[r + j] = s * scale;
          }
          kernels.softmax(att, r, i + 1, att, r);
          for (d = 0; d < hs; d++) {
            var acc = 0;
            for (j = 0; j <= i; j++) acc += att[r + j] * qkv[j * C3 + vo + d];
            y[i * C + qo + d] = acc;
          }
        }
      }
    }
    function attnBackward(a, T) {
      var qkv = a.qkv, att = a.att, dy = a.dy, dqkv = a.dqkv, datt = a.datt, C3 = 3 * C;
      dqkv.fill(0, 0, T * C3);
      for (var h = 0; h < H; h++) {
        var qo = h * hs, ko = C + h * hs, vo = 2 * C + h * hs, ab = h * NC * NC;
        for (var i = 0; i < T; i++) {
          var dot = 0, j, d, r = ab + i * NC;
          for (j = 0; j <= i; j++) {
            var w = att[r + j], s2 = 0;
            for (d = 0; d < hs; d++) {
              var gy = dy[i * C + qo + d];
              s2 += gy * qkv[j * C3 + vo + d];
              dqkv[j * C3 + vo + d] += w * gy;
            }
            datt[j] = s2;
            dot += w * s2;
          }
          for (j = 0; j <= i; j++) {
            var ds = att[r + j] * (datt[j] - dot) * scale;  // softmax backward, then the 1/sqrt(hs)
            for (d = 0; d < hs; d++) {
              dqkv[i * C3 + qo + d] += ds * qkv[j * C3 + ko + d];
              dqkv[j * C3 + ko + d] += ds * qkv[i * C3 + qo + d];
            }
          }
        }
      }
    }
    // GELU (tanh form) forward, keeping tanh for the backward pass.
    function geluForward(a, T) {
      var pre = a.pre, act = a.act, th = a.th;
      for (var i = 0; i < T * F; i++) {
        var u = pre[i], t = kernels.geluTanh(u);
        th[i] = t;
        act[i] = 0.5 * u * (1 + t);  // gelu(u), from the tanh kept for the backward pass
      }
    }
    function geluBackward(a, T) {
      var pre = a.pre, th = a.th, dpre = a.dpre;
      for (var i = 0; i < T * F; i++) dpre[i] *= kernels.geluGrad(pre[i], th[i]);
    }
    // Tied unembedding, softmax and cross-entropy for T positions, in one pass over the vocabulary
    // each way; writes dL/d(ln_f output). The softmax is kernels.softmax's arithmetic at temperature 1.
    function logitsLoss(hf, tg, dlnf, T) {
      var inv = 1 / nTargets, loss = 0, z = A.dlog, E = off.wte, v;
      for (var t = 0; t < T; t++) {
        var o = t * C, y = tg[t], mx = -Infinity, sum = 0;
        z.fill(0);
        matvec(E, V, C, hf, o, z, 0);
        for (v = 0; v < V; v++) if (z[v] > mx) mx = z[v];
        for (v = 0; v < V; v++) { var e = Math.exp(z[v] - mx); z[v] = e; sum += e; }
        loss -= Math.log(z[y] / sum);
        for (v = 0; v < V; v++) z[v] = (z[v] / sum) * inv - (v === y ? inv : 0);  // dL/dlogit: (softmax - one-hot) / nTargets
        matvecBack(E, V, C, z, 0, hf, o, dlnf, o);
      }
      return loss;
    }

    // Forward and backward for one row; adds d(sum of its losses)/d(weights) / nTargets into G.
    function row(ids, tg) {
      var T = ids.length, t, c, i, l, a, B;
      var x = A.x0, E = off.wte, W = off.wpe;
      for (t = 0; t < T; t++) for (c = 0; c < C; c++) x[t * C + c] = P[E + ids[t] * C + c] + P[W + t * C + c];
      for (l = 0; l < NL; l++) {
        B = blocks[l]; a = A.l[l];
        lnForward(x, B["ln_1.weight"], B["ln_1.bias"], a.ln1X, a.ln1R, a.h1, T);
        linForward(a.h1, C, B["attn.c_attn.weight"], B["attn.c_attn.bias"], 3 * C, a.qkv, T);
        attnForward(a, T);
        linForward(a.y, C, B["attn.c_proj.weight"], B["attn.c_proj.bias"], C, a.x1, T);
        for (i = 0; i < T * C; i++) a.x1[i] += x[i];
        lnForward(a.x1, B["ln_2.weight"], B["ln_2.bias"], a.ln2X, a.ln2R, a.h2, T);
        linForward(a.h2, C, B["mlp.c_fc.weight"], B["mlp.c_fc.bias"], F, a.pre, T);
        geluForward(a, T);
        linForward(a.act, F, B["mlp.c_proj.weight"], B["mlp.c_proj.bias"], C, a.x2, T);
        for (i = 0; i < T * C; i++) a.x2[i] += a.x1[i];
        x = a.x2;
      }
      lnForward(x, off["ln_f.weight"], off["ln_f.bias"], A.lnfX, A.lnfR, A.lnfO, T);
      var loss = logitsLoss(A.lnfO, tg, A.dlnf, T);
      var dx = A.dx;  // the gradient at the residual stream, walking back; each branch adds into it
      dx.fill(0, 0, T * C);
      lnBackward(A.dlnf, A.lnfX, A.lnfR, off["ln_f.weight"], off["ln_f.bias"], dx, T);
      for (l = NL - 1; l >= 0; l--) {
        B = blocks[l]; a = A.l[l];
        linBackward(dx, a.act, F, B["mlp.c_proj.weight"], B["mlp.c_proj.bias"], C, a.dpre, T);
        geluBackward(a, T);
        linBackward(a.dpre, a.h2, C, B["mlp.c_fc.weight"], B["mlp.c_fc.bias"], F, a.dh, T);
        lnBackward(a.dh, a.ln2X, a.ln2R, B["ln_2.weight"], B["ln_2.bias"], dx, T);  // dx: now the gradient at x1
        linBackward(dx, a.y, C, B["attn.c_proj.weight"], B["attn.c_proj.bias"], C, a.dy, T);
        attnBackward(a, T);
        linBackward(a.dqkv, a.h1, C, B["attn.c_attn.weight"], B["attn.c_attn.bias"], 3 * C, a.dh, T);
        lnBackward(a.dh, a.ln1X, a.ln1R, B["ln_1.weight"], B["ln_1.bias"], dx, T);  // dx: now the gradient at the block's input
      }
      for (t = 0; t < T; t++) {
        for (c = 0; c < C; c++) { G[E + ids[t] * C + c] += dx[t * C + c]; G[W + t * C + c] += dx[t * C + c]; }
      }
      return loss;
    }

    function lossAndGrad() {
      G.fill(0);
      var total = 0;
      for (var r = 0; r < rows.length; r++) total += row(rows[r].x, rows[r].y);
      return total / nTargets;  // mean over every target, as cross_entropy's default
    }

    // torch.optim.Adam (no weight decay, no amsgrad), the same formula as its single-tensor path.
    var b1 = tcfg.betas[0], b2 = tcfg.betas[1], lr = tcfg.lr, adamEps = tcfg.eps === undefined ? 1e-8 : tcfg.eps, t = 0;
    function step() {
      var loss = lossAndGrad();
      t += 1;
      var bc1 = 1 - Math.pow(b1, t), bc2 = 1 - Math.pow(b2, t), stepSize = lr / bc1, bc2s = Math.sqrt(bc2);
      for (var i = 0; i < k; i++) {
        var g = G[i];
        M[i] = b1 * M[i] + (1 - b1) * g;
        S[i] = b2 * S[i] + (1 - b2) * g * g;
        P[i] -= stepSize * M[i] / (Math.sqrt(S[i]) / bc2s + adamEps);
      }
      return loss;
    }

    return {
      params: P, grad: G, size: k, nTargets: nTargets,
      lossAndGrad: lossAndGrad, step: step,
      stepsDone: function () { return t; },
      weights: function () { return refill(initWeights, P); }
    };
  }

  // Train in slices, each at most budgetMs, yielding to the page between them (a MessageChannel
  // message runs sooner than setTimeout's clamped 4 ms). The loss of every step is reported.
  function run(tr, steps, opts) {
    opts = opts || {};
    var budget = opts.budgetMs || 25, losses = [], cancelled = false, done = 0;
    var now = (root.performance && root.performance.now) ? function () { return root.performance.now(); } : Date.now;
    var chan = typeof MessageChannel === "function" ? new MessageChannel() : null;
    function later(fn) {
      if (chan) { chan.port1.onmessage = fn; chan.port2.postMessage(0); } else setTimeout(fn, 0);
    }
    function slice() {
      if (cancelled) return;
      var t0 = now();
      while (done < steps && now() - t0 < budget) { losses.push(tr.step()); done += 1; }
      if (done < steps) {
        if (opts.onProgress) opts.onProgress(done, steps, losses);
        later(slice);
      } else {
        losses.push(tr.lossAndGrad());  // the loss after the last step, as checkpoint.py records it
        if (chan) chan.port1.close();
        if (opts.onProgress) opts.onProgress(done, steps, losses);
        if (opts.onDone) opts.onDone(losses);
      }
    }
    later(slice);
    return { cancel: function () { cancelled = true; if (chan) chan.port1.close(); } };
  }

  return { createTrainer: createTrainer, seededWeights: seededWeights, run: run, flatten: function (t) { return flatten(t, []); } };
});
