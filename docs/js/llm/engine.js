// The real-model forward pass in plain JS: llama (SmolLM2) and GPT-2 blocks, float32 storage,
// matrix products straight from the GGUF's quantised blocks (Q4_1, Q8_0) and F32 tensors.
//
// The whole engine is one self-contained function, nexttokenLlmEngine(), so that runtime.js can
// start it inside a Web Worker from a Blob URL made of its source text (fetch and importScripts of
// local files are blocked from file://). Node's tests call it directly.
//
// engine.Model(manifest, buffer): manifest from scripts/site/llm_js.py, buffer its bytes.
//   m.prefill(ids, opts, tick)   forget the cache, run the prompt; m.decode(id, opts, tick) one step
//   opts.residuals: the residual after every block at the last position (for the logit lens)
//   opts.lens: ln_f and the unembedding applied to each of those residuals (logits per block)
//   opts.heads: every head's attention weights from the last position ([layer] -> n_head x T)
//   opts.final: the last position's residual after ln_f, the vector the unembedding multiplies
//   opts.knockout = {heads: [[layer, head], ...], mlp: [layer, ...]}, set at prefill and kept by the
//     cache: a head's output is zeroed before c_proj, a block's MLP adds nothing
//   tick: an async function awaited after every block; it throws to cancel (the cache rolls back)
//   m.outputRow(id): row id of the unembedding (the tied wte), dequantised: logit = final · row
// The KV cache holds up to CAP positions, allocated as the text grows.
// Returns {logits, residuals, lens, heads, final, length}: Float32Arrays.
(function (root) {
function nexttokenLlmEngine() {
  "use strict";
  var CAP = 1024;  // prompt + continuation tokens a session may hold (the KV cache's size)
  var BLOCK = 32;

  // float16 -> float32 for every bit pattern: the blocks' scales are float16.
  var F16 = new Float32Array(65536);
  (function () {
    for (var h = 0; h < 65536; h++) {
      var s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
      F16[h] = e === 0 ? s * f * Math.pow(2, -24) : e === 31 ? (f ? NaN : s * Infinity) : s * (1 + f / 1024) * Math.pow(2, e - 15);
    }
  })();

  function Cancelled() { this.message = "cancelled"; }

  function tensors(manifest, buffer) {
    var u8 = new Uint8Array(buffer), i8 = new Int8Array(buffer), out = {};
    var u32 = new Uint32Array(buffer, 0, buffer.byteLength >> 2);  // Q4_1 blocks (20 bytes) are 4-byte aligned
    manifest.tensors.forEach(function (t) {
      var rows = t.shape.length === 2 ? t.shape[0] : 1, cols = t.shape[t.shape.length - 1];
      var w = { name: t.name, type: t.type, rows: rows, cols: cols, off: t.offset, u8: u8, i8: i8, u32: u32 };
      if (t.type === "F32") w.f32 = new Float32Array(buffer, t.offset, rows * cols);
      out[t.name] = w;
    });
    return out;
  }

  // y[t, r] = sum_c W[r, c] x[t, c] (+ bias[r]) for T input rows; rows r0..r1 (all by default).
  function matmul(w, x, T, y, bias) {
    var rows = w.rows, cols = w.cols, nb = cols / BLOCK, u8 = w.u8, r, b, j, t, p, d, m, acc, s;
    var wb = new Float64Array(BLOCK), sums = new Float64Array(T);
    if (w.type === "F32") {
      var f = w.f32;
      for (r = 0; r < rows; r++) {
        for (t = 0; t < T; t++) {
          acc = 0; var xo = t * cols, fo = r * cols;
          for (j = 0; j < cols; j++) acc += f[fo + j] * x[xo + j];
          y[t * rows + r] = acc + (bias ? bias[r] : 0);
        }
      }
      return;
    }
    var q4 = w.type === "Q4_1", rowBytes = nb * (q4 ? 20 : 34), i8 = w.i8, u32 = w.u32;
    var xsum = null;
    if (q4 && T === 1) {  // one token: dot = d * sum(q x) + m * sum(x), with the block sums of x once
      xsum = new Float64Array(nb);
      for (b = 0; b < nb; b++) { s = 0; for (j = 0; j < BLOCK; j++) s += x[b * BLOCK + j]; xsum[b] = s; }
    }
    for (r = 0; r < rows; r++) {
      p = w.off + r * rowBytes;
      if (T === 1) {
        acc = 0;
        for (b = 0; b < nb; b++) {
          d = F16[u8[p] | (u8[p + 1] << 8)];
          var xo1 = b * BLOCK;
          s = 0;
          if (q4) {  // four 32-bit words of nibbles: byte j holds weights j (low) and j + 16 (high)
            var q = p >> 2, dm = u32[q];
            m = F16[dm >>> 16];
            for (j = 0; j < 4; j++) {
              var v = u32[q + 1 + j], o = xo1 + 4 * j;
              s += (v & 15) * x[o] + ((v >>> 4) & 15) * x[o + 16]
                + ((v >>> 8) & 15) * x[o + 1] + ((v >>> 12) & 15) * x[o + 17]
                + ((v >>> 16) & 15) * x[o + 2] + ((v >>> 20) & 15) * x[o + 18]
                + ((v >>> 24) & 15) * x[o + 3] + (v >>> 28) * x[o + 19];
            }
            acc += d * s + m * xsum[b];
            p += 20;
          } else {
            for (j = 0; j < BLOCK; j++) s += i8[p + 2 + j] * x[xo1 + j];
            acc += d * s;
            p += 34;
          }
        }
        y[r] = acc + (bias ? bias[r] : 0);
        continue;
      }
      for (t = 0; t < T; t++) sums[t] = 0;
      for (b = 0; b < nb; b++) {
        d = F16[u8[p] | (u8[p + 1] << 8)];
        if (q4) {
          m = F16[u8[p + 2] | (u8[p + 3] << 8)];
          for (j = 0; j < 16; j++) { var by = u8[p + 4 + j]; wb[j] = d * (by & 15) + m; wb[j + 16] = d * (by >> 4) + m; }
          p += 20;
        } else {
          for (j = 0; j < BLOCK; j++) wb[j] = d * i8[p + 2 + j];
          p += 34;
        }
        var base = b * BLOCK;
        for (t = 0; t < T; t++) {
          var xo = t * cols + base; s = 0;
          for (j = 0; j < BLOCK; j++) s += wb[j] * x[xo + j];
          sums[t] += s;
        }
      }
      for (t = 0; t < T; t++) y[t * rows + r] = sums[t] + (bias ? bias[r] : 0);
    }
  }

  // One row of a matrix as float32 (the embedding lookup).
  function row(w, r, out, o) {
    var cols = w.cols, nb = cols / BLOCK, u8 = w.u8, j, b;
    if (w.type === "F32") { for (j = 0; j < cols; j++) out[o + j] = w.f32[r * cols + j]; return; }
    var q4 = w.type === "Q4_1", p = w.off + r * nb * (q4 ? 20 : 34);
    for (b = 0; b < nb; b++) {
      var d = F16[u8[p] | (u8[p + 1] << 8)], k = o + b * BLOCK;
      if (q4) {
        var m = F16[u8[p + 2] | (u8[p + 3] << 8)];
        for (j = 0; j < 16; j++) { var by = u8[p + 4 + j]; out[k + j] = d * (by & 15) + m; out[k + j + 16] = d * (by >> 4) + m; }
        p += 20;
      } else {
        for (j = 0; j < BLOCK; j++) out[k + j] = d * w.i8[p + 2 + j];
        p += 34;
      }
    }
  }

  function rmsnorm(x, T, n, g, eps, out) {
    for (var t = 0; t < T; t++) {
      var o = t * n, ss = 0, i;
      for (i = 0; i < n; i++) ss += x[o + i] * x[o + i];
      var inv = 1 / Math.sqrt(Math.fround(ss / n) + eps);
      for (i = 0; i < n; i++) out[o + i] = g[i] * Math.fround(x[o + i] * inv);
    }
  }

  function layernorm(x, T, n, g, bias, eps, out) {
    for (var t = 0; t < T; t++) {
      var o = t * n, mu = 0, v = 0, i;
      for (i = 0; i < n; i++) mu += x[o + i];
      mu /= n;
      for (i = 0; i < n; i++) v += (x[o + i] - mu) * (x[o + i] - mu);
      var inv = 1 / Math.sqrt(v / n + eps);
      for (i = 0; i < n; i++) out[o + i] = (x[o + i] - mu) * inv * g[i] + bias[i];
    }
  }

  var GELU_C = Math.sqrt(2 / Math.PI);

  function Model(manifest, buffer) {
    var c = manifest.config;
    this.config = c;
    this.w = tensors(manifest, buffer);
    this.llama = c.arch === "llama";
    this.hd = c.n_embd / c.n_head;
    this.kvDim = this.hd * c.n_kv_head;
    this.cap = Math.min(CAP, c.n_ctx);
    var need = ["wte.weight", "ln_f.weight"];
    for (var i = 0; i < need.length; i++) if (!this.w[need[i]]) throw new Error("the model data has no tensor " + need[i]);
    if (this.llama) {  // RoPE angles as transformers computes them, in float32
      var half = this.hd / 2;
      this.invFreq = new Float64Array(half);
      for (i = 0; i < half; i++) this.invFreq[i] = Math.fround(1 / Math.fround(Math.pow(c.rope_base, Math.fround(2 * i / this.hd))));
    }
    this.kCache = []; this.vCache = [];
    this.room = 0;  // positions the cache holds now: it grows by doubling up to cap
    this.length = 0;
    this.knockout = { heads: [], mlp: [] };
  }

  Model.prototype.reset = function () { this.length = 0; };

  Model.prototype.reserve = function (n) {
    if (n <= this.room) return;
    var room = Math.min(this.cap, Math.max(64, this.room * 2, Math.pow(2, Math.ceil(Math.log2(n))))), kv = this.kvDim;
    for (var l = 0; l < this.config.n_layer; l++) {
      var k = new Float32Array(room * kv), v = new Float32Array(room * kv);
      if (this.room) { k.set(this.kCache[l].subarray(0, this.length * kv)); v.set(this.vCache[l].subarray(0, this.length * kv)); }
      this.kCache[l] = k; this.vCache[l] = v;
    }
    this.room = room;
  };

  Model.prototype.prefill = function (ids, opts, tick) {
    opts = opts || {};
    try {
      this.knockout = normaliseKnockout(opts.knockout, this.config);
    } catch (err) {
      return Promise.reject(err);
    }
    this.length = 0;
    return this.run(ids, opts, tick);
  };

  Model.prototype.decode = function (id, opts, tick) {
    if (this.length === 0) return Promise.reject(new Error("decode needs a prefilled prompt first"));
    return this.run([id], opts || {}, tick);
  };

  function normaliseKnockout(k, c) {
    k = k || {};
    var heads = (k.heads || []).map(function (lh) {
      if (!Array.isArray(lh) || !(lh[0] >= 0 && lh[0] < c.n_layer && lh[1] >= 0 && lh[1] < c.n_head) || lh[0] % 1 || lh[1] % 1) {
        throw new Error("knock-out head " + JSON.stringify(lh) + " is not [layer 0-" + (c.n_layer - 1) + ", head 0-" + (c.n_head - 1) + "]");
      }
      return lh[0] * c.n_head + lh[1];
    });
    var mlp = (k.mlp || []).map(function (l) {
      if (!(l >= 0 && l < c.n_layer) || l % 1) throw new Error("knock-out MLP " + l + " is not a block 0-" + (c.n_layer - 1));
      return l;
    });
    return { heads: heads, mlp: mlp };
  }

  Model.prototype.run = async function (ids, opts, tick) {
    var c = this.config, C = c.n_embd, T = ids.length, H = c.n_head, hd = this.hd, kvDim = this.kvDim;
    var p0 = this.length, V = c.vocab_size, w = this.w;
    if (T === 0) throw new Error("the prompt is empty: type at least one character");
    if (p0 + T > this.cap) throw new Error("the prompt and continuation are " + (p0 + T) + " tokens; the limit is " + this.cap);
    for (var i = 0; i < T; i++) {
      if (!(ids[i] >= 0 && ids[i] < V) || ids[i] % 1) throw new Error("token id " + ids[i] + " is outside the vocabulary (0-" + (V - 1) + ")");
    }
    this.reserve(p0 + T);
    var x = new Float32Array(T * C), h = new Float32Array(T * C), att = new Float32Array(T * C);
    var q = new Float32Array(T * C), k = new Float32Array(T * kvDim), v = new Float32Array(T * kvDim);
    var proj = new Float32Array(T * C), F = c.n_inner, ff = new Float32Array(T * F), up = this.llama ? new Float32Array(T * F) : null;
    var qkv = this.llama ? null : new Float32Array(T * 3 * C);
    for (var t = 0; t < T; t++) row(w["wte.weight"], ids[t], x, t * C);
    if (!this.llama) {
      var pos = new Float32Array(C);
      for (t = 0; t < T; t++) { row(w["wpe.weight"], p0 + t, pos, 0); for (i = 0; i < C; i++) x[t * C + i] += pos[i]; }
    }
    var out = { residuals: opts.residuals || opts.lens ? [] : null, heads: opts.heads ? [] : null };
    var start = this.length;
    try {
      for (var l = 0; l < c.n_layer; l++) {
        var pre = "h." + l + ".";
        var Tk = p0 + T, scale = 1 / Math.sqrt(hd), kc = this.kCache[l], vc = this.vCache[l];
        if (this.llama) {
          rmsnorm(x, T, C, w[pre + "ln_1.weight"].f32, c.rms_eps, h);
          matmul(w[pre + "attn.q.weight"], h, T, q);
          matmul(w[pre + "attn.k.weight"], h, T, k);
          matmul(w[pre + "attn.v.weight"], h, T, v);
          for (t = 0; t < T; t++) {
            this.rope(q, t * C, H, p0 + t);
            this.rope(k, t * kvDim, c.n_kv_head, p0 + t);
          }
        } else {
          layernorm(x, T, C, w[pre + "ln_1.weight"].f32, w[pre + "ln_1.bias"].f32, c.ln_eps, h);
          matmul(w[pre + "attn.c_attn.weight"], h, T, qkv, w[pre + "attn.c_attn.bias"].f32);
          for (t = 0; t < T; t++) {
            for (i = 0; i < C; i++) { q[t * C + i] = qkv[t * 3 * C + i]; k[t * C + i] = qkv[t * 3 * C + C + i]; v[t * C + i] = qkv[t * 3 * C + 2 * C + i]; }
          }
        }
        kc.set(k, p0 * kvDim); vc.set(v, p0 * kvDim);
        var group = H / c.n_kv_head, sc = new Float64Array(Tk), mix = new Float64Array(hd);
        var headsOut = out.heads ? new Float32Array(H * Tk) : null;
        for (t = 0; t < T; t++) {
          var n = p0 + t + 1;  // causal: this position sees keys 0..p0+t
          for (var hh = 0; hh < H; hh++) {
            var qo = t * C + hh * hd, ko = Math.floor(hh / group) * hd, mx = -Infinity, j, e;
            for (j = 0; j < n; j++) {
              var s = 0, kb = j * kvDim + ko;
              for (e = 0; e < hd; e++) s += q[qo + e] * kc[kb + e];
              s = Math.fround(Math.fround(s) * scale);
              sc[j] = s; if (s > mx) mx = s;
            }
            var z = 0;
            for (j = 0; j < n; j++) { sc[j] = Math.exp(sc[j] - mx); z += sc[j]; }
            for (j = 0; j < n; j++) sc[j] = Math.fround(sc[j] / z);
            if (headsOut && t === T - 1) for (j = 0; j < n; j++) headsOut[hh * Tk + j] = sc[j];
            for (e = 0; e < hd; e++) mix[e] = 0;
            if (this.knockout.heads.indexOf(l * H + hh) < 0) {
              for (j = 0; j < n; j++) {  // position by position: the cache rows are read in order
                var wj = sc[j], vb = j * kvDim + ko;
                for (e = 0; e < hd; e++) mix[e] += wj * vc[vb + e];
              }
            }
            for (e = 0; e < hd; e++) att[qo + e] = mix[e];
          }
        }
        if (headsOut) out.heads.push(headsOut);
        if (this.llama) matmul(w[pre + "attn.c_proj.weight"], att, T, proj);
        else matmul(w[pre + "attn.c_proj.weight"], att, T, proj, w[pre + "attn.c_proj.bias"].f32);
        for (i = 0; i < T * C; i++) x[i] += proj[i];
        if (this.knockout.mlp.indexOf(l) < 0) {
          if (this.llama) {
            rmsnorm(x, T, C, w[pre + "ln_2.weight"].f32, c.rms_eps, h);
            matmul(w[pre + "mlp.gate.weight"], h, T, ff);
            matmul(w[pre + "mlp.up.weight"], h, T, up);
            for (i = 0; i < T * F; i++) { var g = ff[i]; ff[i] = Math.fround(g / (1 + Math.exp(-g))) * up[i]; }
            matmul(w[pre + "mlp.c_proj.weight"], ff, T, proj);
          } else {
            layernorm(x, T, C, w[pre + "ln_2.weight"].f32, w[pre + "ln_2.bias"].f32, c.ln_eps, h);
            matmul(w[pre + "mlp.c_fc.weight"], h, T, ff, w[pre + "mlp.c_fc.bias"].f32);
            for (i = 0; i < T * F; i++) { var u = ff[i]; ff[i] = 0.5 * u * (1 + Math.tanh(GELU_C * (u + 0.044715 * u * u * u))); }
            matmul(w[pre + "mlp.c_proj.weight"], ff, T, proj, w[pre + "mlp.c_proj.bias"].f32);
          }
          for (i = 0; i < T * C; i++) x[i] += proj[i];
        }
        if (out.residuals) out.residuals.push(x.slice((T - 1) * C));
        if (tick) await tick();
      }
      out.logits = this.unembed(x.subarray((T - 1) * C), 1);
      if (opts.final) out.final = this.normed(x.subarray((T - 1) * C));
      if (opts.lens) {  // the blocks before the last in one product: the embedding's blocks are decoded once
        var below = c.n_layer - 1, stack = new Float32Array(below * C);
        for (l = 0; l < below; l++) stack.set(out.residuals[l], l * C);
        var all = this.unembed(stack, below);
        out.lens = [];
        for (l = 0; l < below; l++) out.lens.push(all.slice(l * V, (l + 1) * V));
        out.lens.push(out.logits.slice());
        if (!opts.residuals) out.residuals = null;
        if (tick) await tick();
      }
    } catch (err) {
      this.length = start;  // a cancelled or failed step leaves the cache as it was
      throw err;
    }
    this.length = p0 + T;
    out.length = this.length;
    return out;
  };

  // ln_f, then the tied unembedding (or lm_head): logits of T residual vectors, row after row.
  Model.prototype.unembed = function (x, T) {
    var c = this.config, n = new Float32Array(T * c.n_embd), logits = new Float32Array(T * c.vocab_size);
    if (this.llama) rmsnorm(x, T, c.n_embd, this.w["ln_f.weight"].f32, c.rms_eps, n);
    else layernorm(x, T, c.n_embd, this.w["ln_f.weight"].f32, this.w["ln_f.bias"].f32, c.ln_eps, n);
    matmul(this.w["lm_head.weight"] || this.w["wte.weight"], n, T, logits);
    return logits;
  };

  // ln_f of one residual vector, as unembed applies it (the arithmetic of a logit starts here).
  Model.prototype.normed = function (x) {
    var c = this.config, n = new Float32Array(c.n_embd);
    if (this.llama) rmsnorm(x, 1, c.n_embd, this.w["ln_f.weight"].f32, c.rms_eps, n);
    else layernorm(x, 1, c.n_embd, this.w["ln_f.weight"].f32, this.w["ln_f.bias"].f32, c.ln_eps, n);
    return n;
  };

  // One row of the unembedding, dequantised to float32: the weights a token's logit multiplies.
  Model.prototype.outputRow = function (id) {
    var V = this.config.vocab_size;
    if (!(id >= 0 && id < V) || id % 1) throw new Error("token id " + id + " is outside the vocabulary (0-" + (V - 1) + ")");
    var out = new Float32Array(this.config.n_embd);
    row(this.w["lm_head.weight"] || this.w["wte.weight"], id, out, 0);
    return out;
  };

  // transformers' rotate_half layout: dimension i pairs with i + hd/2.
  Model.prototype.rope = function (a, o, nHead, position) {
    var hd = this.hd, half = hd / 2;
    for (var i = 0; i < half; i++) {
      var ang = Math.fround(this.invFreq[i] * position), cs = Math.fround(Math.cos(ang)), sn = Math.fround(Math.sin(ang));
      for (var hh = 0; hh < nHead; hh++) {
        var p = o + hh * hd + i, x1 = a[p], x2 = a[p + half];
        a[p] = x1 * cs - x2 * sn;
        a[p + half] = x2 * cs + x1 * sn;
      }
    }
  };

  return { Model: Model, Cancelled: Cancelled, matmul: matmul, row: row, f16: F16, CAP: CAP };
}

  var nexttoken = root.nexttoken = root.nexttoken || {};
  nexttoken.llm = nexttoken.llm || {};
  nexttoken.llm.engineFactory = nexttokenLlmEngine;
  if (typeof module === "object" && module.exports) module.exports = nexttokenLlmEngine;
})(typeof self !== "undefined" ? self : globalThis);
