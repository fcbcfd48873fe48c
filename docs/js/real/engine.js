// The real-model forward pass in plain JS: llama (SmolLM2) and GPT-2 blocks, float32 storage,
// matrix products straight from the GGUF's quantised blocks (Q4_1, Q8_0) and F32 tensors.
//
// The whole engine is one self-contained function, nexttokenRealEngine(), so that workers.js can
// start it inside a Web Worker from a Blob URL made of its source text (fetch and importScripts of
// local files are blocked from file://). Node's tests call it directly.
//
// engine.Model(manifest, buffer, {wasm, peers}): manifest from scripts/site/real_js.py, buffer its
//   bytes; wasm the SIMD kernels' module bytes (docs/js/real/kernels-wasm.js), optional: m.kernels says
//   which ran. Split over workers: engine.layout(manifest, count) gives each share's manifest and
//   the bytes it copies; engine.storage(share manifest, size, wasm) the room they are written into;
//   share 0 is a Model whose peers ({call(message) -> Promise}) are the other shares' engine.Shard.
//   m.prefill(ids, opts, tick)   forget the cache, run the prompt; m.decode(id, opts, tick) one step
//   m.step([[slot, id], ...], opts, tick) one step of several slots at once, their rows through the
//     prompt kernels together (the writers' and beams' tokens): each row's logits are its decode's;
//     opts.copies = [[from, to], ...]: copySlot(from, to) for each, in order, before the step reads
//     any slot (a beam that forks costs no call of its own)
//   opts.reuse (prefill): keep the slot's cached positions that start the new prompt (same tokens, same
//     knock-out) and run only the rest; at least the last token runs, and the lens position when asked.
//     The outputs are a fresh prefill's (bit for bit on the wasm kernels; see real-reuse.test.js);
//     result.reused says how many positions were kept
//   opts.residuals: the residual after every block at the last position (for the logit lens)
//   opts.lens: ln_f and the unembedding applied to each of those residuals (logits per block)
//   opts.lensAt: the prompt position (from 0) whose residuals and lens are kept, the last by default
//   opts.heads: every head's attention weights from the last position ([layer] -> n_head x T)
//   opts.final: the last position's residual after ln_f, the vector the unembedding multiplies
//   opts.every = k (1-16): every position's logits, summed up where they are made (a whole row per
//     position would be T x vocab floats): out.every = {lse, next, top, topLogits} for the positions
//     the call runs (a prefill asking for it keeps nothing: all of them): lse[t] the log of the
//     softmax's sum (float64), next[t] the logit of the token after t (NaN at the last), top (Int32)
//     and topLogits the k largest, t-major. A token's loss is lse[t] - next[t]. The last block then
//     runs at every position
//   opts.knockout = {heads: [[layer, head], ...], mlp: [layer, ...], values}, set at prefill and kept by
//     the cache: a head's output is zeroed before c_proj, a block's MLP adds nothing; values (optional)
//     gives a part something else instead: {"h.<layer>.<head>": its z (head size numbers, or that many
//     per position from 0), "m.<layer>": its MLP's output (n_embd, or per position)}: mean ablation and
//     patching (docs/js/real/sweep.js builds them)
//   opts.capture: out.parts = {z: [layer] T x n_embd (every head's output before c_proj, side by side),
//     mlp: [layer] T x n_embd}, every position of the run (the source of a patch)
//   opts.direct (llama): out.direct = {embedding, heads: [layer] n_head x n_embd (each head's output
//     through c_proj), mlp: [layer] n_embd} at the last position, with the final norm's scale (1/rms)
//     and weights (gamma): a part's direct share of a token's logit is part . (gamma scale row)
//   opts.kinds: out.kinds = [layer] n_head x 5, the shares of each head's attention on the first token,
//     itself, the previous token, the induction token and the rest (kindShares), over every query
//   opts.pattern = [layer, head]: out.pattern, that head's weights for every query, T x T
//   (capture and pattern read every block at every position: a reuse keeps no cached position for
//   them. The kinds read every query too, but a slot that keeps (opts.keep) keeps each query's sums,
//   so a reuse runs only the new queries; direct reads the last position, which always runs)
//   opts.keep (prefill): the slot keeps each block's input at every position (and the last position's
//     attention weights and lens), so that a later prefill with reuse of the same tokens under another
//     knock-out reruns only blocks L..n_layer-1, L the first block the two knock-outs treat
//     differently, from block L's kept input; the blocks before L and their cache are kept. The one
//     way to rerun a prompt with other parts switched off (the panel's knock-outs, a sweep's): the
//     outputs are a full prefill's, bit for bit (real-rerun.test.js); result.from says L. The inputs
//     take (n_layer - 1) x n_embd floats a position, in the cache's room (SmolLM2: 2.3 KB per block
//     per position, 68 MB for a 1,024-token prompt); a prefill without keep lets them go.
//   tick: an async function awaited after every block; it throws to cancel (the cache rolls back)
//   m.outputRow(id): row id of the unembedding (the tied wte), dequantised: logit = final · row
//   opts.slot: which of SLOTS independent caches the call reads and extends (0 by default), so that
//     several texts (beams, writers) continue side by side; m.copySlot(from, to, {keep}) makes `to` a
//     copy of `from` (its positions and knock-out, and with keep what it keeps for a rerun), so a beam
//     that forks needs no second prefill and a sweep of knock-outs can leave the panel's slot alone
// Each slot's KV cache holds up to CAP positions, allocated as its text grows.
// Returns {logits, residuals, lens, heads, final, length}: Float32Arrays.
(function (root) {
function nexttokenRealEngine() {
  "use strict";
  var CAP = 1024;  // prompt + continuation tokens a session may hold (the KV cache's size)
  var BLOCK = 32;
  var SLOTS = 8;   // caches a session may hold at once: the panel's and the writers' (greedy, sampling, three beams)

  // float16 -> float32 for every bit pattern: the blocks' scales are float16.
  var F16 = new Float32Array(65536);
  (function () {
    for (var h = 0; h < 65536; h++) {
      var s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, f = h & 1023;
      F16[h] = e === 0 ? s * f * Math.pow(2, -24) : e === 31 ? (f ? NaN : s * Infinity) : s * (1 + f / 1024) * Math.pow(2, e - 15);
    }
  })();

  function Cancelled() { this.message = "cancelled"; }

  // Where a model's bytes (or one worker's share of them) live: the WebAssembly kernels' memory when
  // `wasm` (the module's bytes) is given and the browser has SIMD, else a plain ArrayBuffer. The
  // bytes are then written straight in at buf[base...], so no worker holds them twice. A RangeError
  // means the browser refused the memory. Returns {buf, base, k}.
  function storage(manifest, size, wasm) {
    var k = wasm ? wasmKernels(wasm, manifest, size) : null;
    return k ? { buf: k.buf, base: k.W, k: k } : { buf: new ArrayBuffer(size), base: 0, k: null };
  }

  // The model's tensors as views of a buffer of its bytes (copied into the WebAssembly kernels'
  // memory when `wasm` is given and runs). Returns {tensors, kernels: "wasm" | "js"}.
  function tensors(manifest, buffer, wasm) {
    var k = wasm ? wasmKernels(wasm, manifest, buffer.byteLength) : null;
    if (k) new Uint8Array(k.buf, k.W, buffer.byteLength).set(new Uint8Array(buffer));
    return views(manifest, k ? { buf: k.buf, base: k.W, k: k } : { buf: buffer, base: 0, k: null });
  }

  // A split matrix (one worker's rows of it, see layout) also says its full row count, its first
  // row here and every worker's row range.
  function views(manifest, store) {
    var k = store.k, base = store.base, mem = store.buf;
    var u8 = new Uint8Array(mem), i8 = new Int8Array(mem), out = {};
    var u32 = new Uint32Array(mem, 0, mem.byteLength >> 2);  // Q4_1 blocks (20 bytes) are 4-byte aligned
    manifest.tensors.forEach(function (t) {
      var rows = t.shape.length === 2 ? t.shape[0] : 1, cols = t.shape[t.shape.length - 1];
      var w = { name: t.name, type: t.type, rows: rows, cols: cols, off: base + t.offset, u8: u8, i8: i8, u32: u32, k: null,
                full: t.parts ? t.rows : rows, lo: t.parts ? t.lo : 0, parts: t.parts || null };
      if (t.type === "F32") w.f32 = new Float32Array(mem, base + t.offset, rows * cols);
      else if (k && rows > 1) w.k = k;
      out[t.name] = w;
    });
    return { tensors: out, kernels: k ? "wasm" : "js", k: k };
  }

  var ROW_BYTES = { F32: 4, Q4_1: 20 / BLOCK, Q8_0: 34 / BLOCK };

  // How `count` workers share a model's bytes: every matrix (2-D tensor) cut into row ranges, worker
  // p taking rows [floor(p R / count), floor((p + 1) R / count)); every other byte (norms, biases) in
  // worker 0's share, the leader's. The shares hold the file once between them, whatever the count.
  // Returns {parts: [{manifest, bytes}], pieces: [[src, length, part, dst], ...] in src order}: the
  // bytes of the whole file each share copies to where. With count 1, one piece: the file as it is.
  function layout(manifest, count) {
    var parts = [], pieces = [], end = manifest.total_bytes || 0, p;
    manifest.tensors.forEach(function (t) { end = Math.max(end, t.offset + size(t)); });
    for (p = 0; p < count; p++) parts.push({ manifest: { model: manifest.model, config: manifest.config, tensors: [] }, bytes: 0 });
    function size(t) { return t.shape.reduce(function (a, b) { return a * b; }, 1) * (ROW_BYTES[t.type] || 0); }
    function split(t) { return count > 1 && t.shape.length === 2 && ROW_BYTES[t.type] > 0; }
    function put(src, len, part, mod) {  // tensors start 16-byte aligned, gaps keep their alignment
      var d = Math.ceil(parts[part].bytes / 16) * 16 + mod;
      if (len > 0) pieces.push([src, len, part, d]);
      parts[part].bytes = d + len;
      return d;
    }
    function gap(a, b) {
      if (b <= a) return;
      var d = put(a, b - a, 0, a % 16);
      manifest.tensors.forEach(function (t) {
        if (!split(t) && t.offset >= a && t.offset < b) parts[0].manifest.tensors.push(Object.assign({}, t, { offset: d + t.offset - a }));
      });
    }
    var mats = manifest.tensors.filter(split).sort(function (a, b) { return a.offset - b.offset; }), cursor = 0;
    mats.forEach(function (t) {
      gap(cursor, t.offset);
      var R = t.shape[0], rb = t.shape[1] * ROW_BYTES[t.type], bounds = [];
      for (p = 0; p < count; p++) bounds.push([Math.floor(p * R / count), Math.floor((p + 1) * R / count)]);
      for (p = 0; p < count; p++) {
        var lo = bounds[p][0], n = bounds[p][1] - lo, d = put(t.offset + lo * rb, n * rb, p, 0);
        parts[p].manifest.tensors.push({ name: t.name, type: t.type, shape: [n, t.shape[1]], offset: d, rows: R, lo: lo, parts: bounds });
      }
      cursor = t.offset + R * rb;
    });
    gap(cursor, end);
    return { parts: parts, pieces: pieces };
  }

  // The WebAssembly kernels (scripts/site/real_kernels.wat) with room for `size` bytes of blocks in
  // their memory: float16 table at 0, then a tile of TILE tokens' x, their block sums and y, two
  // widened rows (scratch), attention's room (one layer's keys and values, four queries' scores, q and
  // output; where the manifest has a config), then the blocks. Null where the browser lacks
  // WebAssembly SIMD or refuses the memory: the JS kernels run instead.
  var TILE = 128;  // a prompt's tokens per kernel call: each row is widened once per tile, and x's tile (at most 128 x 1,536 floats, 768 KB) stays in a 1-2 MB L2 cache
  function wasmKernels(bytes, manifest, size) {
    if (typeof WebAssembly !== "object" || !WebAssembly.validate(bytes)) return null;
    var cols = 32, rows = 1;
    manifest.tensors.forEach(function (t) {
      if (t.shape.length === 2) { cols = Math.max(cols, t.shape[1]); rows = Math.max(rows, t.shape[0]); }
    });
    var up = function (n) { return Math.ceil(n / 16) * 16; }, nb = cols / BLOCK;
    var yn = Math.max(6 * rows, TILE * cols);  // y's floats: six tokens of the widest matrix (a step's writers), a tile of the others
    var c = manifest.config, hd = c ? c.n_embd / c.n_head : 0, kv = c ? hd * (c.n_kv_heads || c.n_head) : 0, cap = c ? Math.min(CAP, c.n_ctx) : 0;
    if (hd % 4) kv = cap = 0;  // the attention kernels read a head in chunks of four
    var X = 4 * 65536, XS = up(X + 4 * TILE * cols), Y = up(XS + 4 * TILE * nb), S = up(Y + 4 * yn);
    var AK = up(S + 272 * nb), AV = up(AK + 4 * cap * kv), SC = up(AV + 4 * cap * kv), AQ = up(SC + 16 * cap), AO = up(AQ + 16 * hd), W = up(AO + 16 * hd);
    if (W + size > 65536 * 65536) return null;  // past a 32-bit module's 4 GiB
    try {
      var inst = new WebAssembly.Instance(new WebAssembly.Module(bytes), {}), mem = inst.exports.memory;
      mem.grow(Math.ceil((W + size) / 65536) - mem.buffer.byteLength / 65536);
    } catch (err) {
      if (err instanceof RangeError) return null;
      throw err;
    }
    var buf = mem.buffer;
    new Float32Array(buf, 0, 65536).set(F16);
    return { e: inst.exports, buf: buf, W: W, X: X, XS: XS, Y: Y, S: S, yn: yn,
             x: new Float32Array(buf, X, TILE * cols), xs: new Float32Array(buf, XS, TILE * nb), y: new Float32Array(buf, Y, yn),
             att: cap ? { K: AK, V: AV, SC: SC, Q: AQ, O: AO, cap: cap, k: new Float32Array(buf, AK, cap * kv), v: new Float32Array(buf, AV, cap * kv),
                          sc: new Float32Array(buf, SC, 4 * cap), q: new Float32Array(buf, AQ, 4 * hd), o: new Float32Array(buf, AO, 4 * hd) } : null };
  }

  // Through the WebAssembly kernels: one token by q4/q8; a prompt in tiles of up to TILE tokens (as
  // many as y's room holds), each row widened once per tile, every output summed in the same float32
  // order either way (real_kernels.wat). x's rows copied in, y's copied out. same: x is the last
  // call's x, unchanged (q, k and v, or gate and up, share theirs), so its blocks' sums are kept.
  var XSUM = new Float32Array(0), XSUM_N = 0;  // the blocks' sums of x, token-major, each rounded once to float32
  function matmulWasm(w, x, T, y, same) {
    var k = w.k, rows = w.rows, cols = w.cols, nb = cols / BLOCK, q4 = w.type === "Q4_1", t, n, b, j, i;
    var tile = T === 1 ? 1 : Math.min(TILE, Math.floor(k.yn / rows));
    if (q4 && !(same && XSUM_N === T * nb)) {
      if (XSUM.length < T * nb) XSUM = new Float32Array(T * nb);
      for (i = 0; i + 4 <= T * nb; i += 4) {  // four blocks' sums side by side (each still in order), for the adds' latency
        var s0 = 0, s1 = 0, s2 = 0, s3 = 0, o = i * BLOCK;
        for (j = o; j < o + BLOCK; j++) { s0 += x[j]; s1 += x[j + BLOCK]; s2 += x[j + 2 * BLOCK]; s3 += x[j + 3 * BLOCK]; }
        XSUM[i] = s0; XSUM[i + 1] = s1; XSUM[i + 2] = s2; XSUM[i + 3] = s3;
      }
      for (; i < T * nb; i++) { var s = 0; for (j = i * BLOCK; j < (i + 1) * BLOCK; j++) s += x[j]; XSUM[i] = s; }
      XSUM_N = T * nb;
    }
    for (t = 0; t < T; t += n) {
      n = Math.min(tile, T - t);
      // A few tokens (up to six) go straight from the blocks, each row unpacked once for all of them
      // (real_kernels.wat's $direct); each token's arithmetic is the same however many come.
      k.x.set(x.subarray(t * cols, (t + n) * cols));
      if (q4) {  // block-major for the kernels: token i's block b at b n + i
        for (i = 0; i < n; i++) for (b = 0, j = (t + i) * nb; b < nb; b++) k.xs[b * n + i] = XSUM[j + b];
      }
      if (n === 1) {
        if (q4) k.e.q4(w.off, rows, nb, k.X, k.XS, k.Y); else k.e.q8(w.off, rows, nb, k.X, k.Y);
      } else {
        (q4 ? k.e.q4t : k.e.q8t)(w.off, rows, nb, k.X, 4 * cols, n, k.XS, k.Y, 4 * rows, k.S);
      }
      y.set(k.y.subarray(0, n * rows), t * rows);
    }
  }

  // Scratch reused across calls (one model per worker): x as float64, and 4 de-quantised rows.
  var XD = new Float64Array(0), XS = new Float64Array(0), WT = new Float64Array(0);
  function xf64(x, n) {
    if (XD.length < n) XD = new Float64Array(n);
    for (var i = 0; i < n; i++) XD[i] = x[i];
    return XD;
  }

  // y[t, r] = sum_c W[r, c] x[t, c] (+ bias[r]) for T input rows, straight from the blocks. Sums are
  // float64, each output rounded once to float32. One token reads each row's blocks once, four rows
  // at a time (x's loads shared); a prompt, in tiles of tokens whose x stays in the cache, de-quantises
  // four rows once per tile and runs them against two tokens at a time.
  function matmul(w, x, T, y, bias, same) {
    var rows = w.rows, cols = w.cols, r, t;
    if (w.k) {
      matmulWasm(w, x, T, y, same);
      if (bias) for (t = 0; t < T; t++) for (r = 0; r < rows; r++) y[t * rows + r] += bias[r];
      return;
    }
    var xd = xf64(x, T * cols);
    if (w.type === "F32") {
      var f = w.f32;
      for (r = 0; r < rows; r++) {
        for (t = 0; t < T; t++) {
          var acc = 0, xo = t * cols, fo = r * cols;
          for (var j = 0; j < cols; j++) acc += f[fo + j] * xd[xo + j];
          y[t * rows + r] = acc;
        }
      }
    } else if (w.type !== "Q4_1" && w.type !== "Q8_0") {
      throw new Error("tensor " + w.name + " has type " + w.type + ", which the engine cannot read");
    } else if (T === 1) {
      if (w.type === "Q4_1") vecQ4(w, xd, y); else vecQ8(w, xd, y);
    } else {
      if (WT.length < 4 * cols) WT = new Float64Array(4 * cols);
      var tt = 2 * Math.max(1, Math.floor(16384 / cols));  // tokens a tile: their x (float64) within ~256 KB of cache
      for (var t0 = 0; t0 < T; t0 += tt) {
        for (r = 0; r < rows; r += 4) {
          var n = Math.min(4, rows - r);
          if (w.type === "Q4_1") rowsQ4(w, r, n, WT); else rowsQ8(w, r, n, WT);
          for (var k = n * cols; k < 4 * cols; k++) WT[k] = 0;  // a last partial tile multiplies zeros
          tile(WT, cols, xd, t0, Math.min(T, t0 + tt), y, rows, r, n);
        }
      }
    }
    if (bias) for (t = 0; t < T; t++) for (r = 0; r < rows; r++) y[t * rows + r] += bias[r];
  }

  // Four de-quantised rows (wt, 4 x cols) against tokens t0..t1-1, two tokens at a time.
  function tile(wt, cols, x, t0, t1, y, rows, r, n) {
    var o1 = cols, o2 = 2 * cols, o3 = 3 * cols, t = t0, c, u, v, w0, w1, w2, w3;
    for (; t < t1; t += 2) {
      var xa = t * cols, xb = t + 1 < t1 ? xa + cols : xa;  // an odd last token is computed twice
      var a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
      for (c = 0; c < cols; c++) {
        u = x[xa + c]; v = x[xb + c]; w0 = wt[c]; w1 = wt[o1 + c]; w2 = wt[o2 + c]; w3 = wt[o3 + c];
        a0 += w0 * u; a1 += w1 * u; a2 += w2 * u; a3 += w3 * u;
        b0 += w0 * v; b1 += w1 * v; b2 += w2 * v; b3 += w3 * v;
      }
      var ya = t * rows + r, yb = ya + rows;
      y[ya] = a0; if (n > 1) y[ya + 1] = a1; if (n > 2) y[ya + 2] = a2; if (n > 3) y[ya + 3] = a3;
      if (t + 1 < t1) { y[yb] = b0; if (n > 1) y[yb + 1] = b1; if (n > 2) y[yb + 2] = b2; if (n > 3) y[yb + 3] = b3; }
    }
  }

  // n rows of a Q4_1 matrix from row r0 as float64: d * q + m (byte j holds weights j and j + 16).
  function rowsQ4(w, r0, n, wt) {
    var nb = w.cols / BLOCK, u32 = w.u32, q = (w.off >> 2) + r0 * nb * 5, o = 0;
    for (var b = 0; b < n * nb; b++, q += 5, o += BLOCK) {
      var dm = u32[q], d = F16[dm & 65535], m = F16[dm >>> 16];
      for (var j = 0; j < 4; j++) {
        var v = u32[q + 1 + j], k = o + 4 * j;
        wt[k] = d * (v & 15) + m; wt[k + 16] = d * ((v >>> 4) & 15) + m;
        wt[k + 1] = d * ((v >>> 8) & 15) + m; wt[k + 17] = d * ((v >>> 12) & 15) + m;
        wt[k + 2] = d * ((v >>> 16) & 15) + m; wt[k + 18] = d * ((v >>> 20) & 15) + m;
        wt[k + 3] = d * ((v >>> 24) & 15) + m; wt[k + 19] = d * (v >>> 28) + m;
      }
    }
  }

  function rowsQ8(w, r0, n, wt) {
    var nb = w.cols / BLOCK, u8 = w.u8, i8 = w.i8, p = w.off + r0 * nb * 34, o = 0;
    for (var b = 0; b < n * nb; b++, p += 34, o += BLOCK) {
      var d = F16[u8[p] | (u8[p + 1] << 8)];
      for (var j = 0; j < BLOCK; j++) wt[o + j] = d * i8[p + 2 + j];
    }
  }

  // One token through a Q4_1 matrix: dot = d * sum(q x) + m * sum(x), x's block sums taken once;
  // four rows at a time, each 32-bit word of nibbles read once.
  function vecQ4(w, x, y) {
    var rows = w.rows, nb = w.cols / BLOCK, u32 = w.u32, stride = nb * 5, b, j, r;
    if (XS.length < nb) XS = new Float64Array(nb);
    for (b = 0; b < nb; b++) { var s = 0; for (j = 0; j < BLOCK; j++) s += x[b * BLOCK + j]; XS[b] = s; }
    for (r = 0; r < rows; r += 4) {
      var n = Math.min(4, rows - r), q0 = (w.off >> 2) + r * stride;
      var q1 = n > 1 ? q0 + stride : q0, q2 = n > 2 ? q0 + 2 * stride : q0, q3 = n > 3 ? q0 + 3 * stride : q0;
      var a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (b = 0; b < nb; b++) {
        var s0 = 0, s1 = 0, s2 = 0, s3 = 0, o = b * BLOCK, v;
        for (j = 1; j < 5; j++, o += 4) {
          var x0 = x[o], x1 = x[o + 1], x2 = x[o + 2], x3 = x[o + 3], z0 = x[o + 16], z1 = x[o + 17], z2 = x[o + 18], z3 = x[o + 19];
          v = u32[q0 + j];
          s0 += (v & 15) * x0 + ((v >>> 4) & 15) * z0 + ((v >>> 8) & 15) * x1 + ((v >>> 12) & 15) * z1 + ((v >>> 16) & 15) * x2 + ((v >>> 20) & 15) * z2 + ((v >>> 24) & 15) * x3 + (v >>> 28) * z3;
          v = u32[q1 + j];
          s1 += (v & 15) * x0 + ((v >>> 4) & 15) * z0 + ((v >>> 8) & 15) * x1 + ((v >>> 12) & 15) * z1 + ((v >>> 16) & 15) * x2 + ((v >>> 20) & 15) * z2 + ((v >>> 24) & 15) * x3 + (v >>> 28) * z3;
          v = u32[q2 + j];
          s2 += (v & 15) * x0 + ((v >>> 4) & 15) * z0 + ((v >>> 8) & 15) * x1 + ((v >>> 12) & 15) * z1 + ((v >>> 16) & 15) * x2 + ((v >>> 20) & 15) * z2 + ((v >>> 24) & 15) * x3 + (v >>> 28) * z3;
          v = u32[q3 + j];
          s3 += (v & 15) * x0 + ((v >>> 4) & 15) * z0 + ((v >>> 8) & 15) * x1 + ((v >>> 12) & 15) * z1 + ((v >>> 16) & 15) * x2 + ((v >>> 20) & 15) * z2 + ((v >>> 24) & 15) * x3 + (v >>> 28) * z3;
        }
        var xb = XS[b], dm;
        dm = u32[q0]; a0 += F16[dm & 65535] * s0 + F16[dm >>> 16] * xb;
        dm = u32[q1]; a1 += F16[dm & 65535] * s1 + F16[dm >>> 16] * xb;
        dm = u32[q2]; a2 += F16[dm & 65535] * s2 + F16[dm >>> 16] * xb;
        dm = u32[q3]; a3 += F16[dm & 65535] * s3 + F16[dm >>> 16] * xb;
        q0 += 5; q1 += 5; q2 += 5; q3 += 5;
      }
      y[r] = a0; if (n > 1) y[r + 1] = a1; if (n > 2) y[r + 2] = a2; if (n > 3) y[r + 3] = a3;
    }
  }

  // One token through a Q8_0 matrix, four rows at a time.
  function vecQ8(w, x, y) {
    var rows = w.rows, nb = w.cols / BLOCK, u8 = w.u8, i8 = w.i8, stride = nb * 34, r, b, j;
    for (r = 0; r < rows; r += 4) {
      var n = Math.min(4, rows - r), p0 = w.off + r * stride;
      var p1 = n > 1 ? p0 + stride : p0, p2 = n > 2 ? p0 + 2 * stride : p0, p3 = n > 3 ? p0 + 3 * stride : p0;
      var a0 = 0, a1 = 0, a2 = 0, a3 = 0;
      for (b = 0; b < nb; b++) {
        var s0 = 0, s1 = 0, s2 = 0, s3 = 0, o = b * BLOCK;
        for (j = 0; j < BLOCK; j++) {
          var xj = x[o + j];
          s0 += i8[p0 + 2 + j] * xj; s1 += i8[p1 + 2 + j] * xj; s2 += i8[p2 + 2 + j] * xj; s3 += i8[p3 + 2 + j] * xj;
        }
        a0 += F16[u8[p0] | (u8[p0 + 1] << 8)] * s0; a1 += F16[u8[p1] | (u8[p1 + 1] << 8)] * s1;
        a2 += F16[u8[p2] | (u8[p2 + 1] << 8)] * s2; a3 += F16[u8[p3] | (u8[p3 + 1] << 8)] * s3;
        p0 += 34; p1 += 34; p2 += 34; p3 += 34;
      }
      y[r] = a0; if (n > 1) y[r + 1] = a1; if (n > 2) y[r + 2] = a2; if (n > 3) y[r + 3] = a3;
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

  // Rotary embedding in transformers' rotate_half layout (dimension i pairs with i + hd/2) on T rows
  // of `width` values, nHead heads each; turn from Model.turns.
  function rope(a, T, width, nHead, hd, turn) {
    var half = hd / 2;
    for (var t = 0; t < T; t++) {
      var tc = t * hd;
      for (var hh = 0; hh < nHead; hh++) {
        var p = t * width + hh * hd;
        for (var i = 0; i < half; i++) {
          var cs = turn[tc + i], sn = turn[tc + half + i], x1 = a[p + i], x2 = a[p + i + half];
          a[p + i] = x1 * cs - x2 * sn;
          a[p + i + half] = x2 * cs + x1 * sn;
        }
      }
    }
  }

  // Causal grouped-query attention of T new positions (after p0 cached ones) over the cache kc/vc:
  // att gets every head's mix of values; headsOut (H x (p0 + T)) the last position's weights. A
  // knocked-out head (index l * H + head in `off`) contributes zeros. A prompt's positions go four at
  // a time, so each key and value row read from the cache serves four queries; every score, weight
  // and mix is summed in the same order as one position at a time, so the bits do not depend on T.
  var SC = new Float64Array(0), MIX = new Float64Array(0);
  function attention(q, kc, vc, T, p0, H, hd, kvDim, group, off, lH, att, headsOut, h0, h1, full) {
    var C = H * hd, Tk = p0 + T, scale = 1 / Math.sqrt(hd), i, j, e, kb, vb, x;
    if (SC.length < 4 * Tk) SC = new Float64Array(4 * Tk);
    if (MIX.length < 4 * hd) MIX = new Float64Array(4 * hd);
    var sc = SC, mix = MIX;
    for (var hh = h0 || 0; hh < (h1 === undefined ? H : h1); hh++) {
      var ko = Math.floor(hh / group) * hd, dead = off.indexOf(lH + hh) >= 0;
      for (var t = 0; t < T; t += 4) {
        var nq = Math.min(4, T - t), n0 = p0 + t + 1;  // query i (position p0 + t + i) sees keys 0..n0 + i - 1
        var qa = t * C + hh * hd, qb = qa + C, qc = qb + C, qd = qc + C;
        if (nq === 4) {
          for (j = 0; j < n0 + 3; j++) {
            var s0 = 0, s1 = 0, s2 = 0, s3 = 0;
            kb = j * kvDim + ko;
            for (e = 0; e < hd; e++) { x = kc[kb + e]; s0 += q[qa + e] * x; s1 += q[qb + e] * x; s2 += q[qc + e] * x; s3 += q[qd + e] * x; }
            sc[j] = Math.fround(Math.fround(s0) * scale); sc[Tk + j] = Math.fround(Math.fround(s1) * scale);
            sc[2 * Tk + j] = Math.fround(Math.fround(s2) * scale); sc[3 * Tk + j] = Math.fround(Math.fround(s3) * scale);
          }
        } else {
          for (i = 0; i < nq; i++) {
            var qo = qa + i * C, so = i * Tk;
            for (j = 0; j < n0 + i; j++) {
              var s = 0;
              kb = j * kvDim + ko;
              for (e = 0; e < hd; e++) s += q[qo + e] * kc[kb + e];
              sc[so + j] = Math.fround(Math.fround(s) * scale);
            }
          }
        }
        for (i = 0; i < nq; i++) {
          softmax(sc, i * Tk, n0 + i, headsOut && t + i === T - 1 ? headsOut : null, hh * Tk);
          if (full) for (j = 0; j < n0 + i; j++) full[(hh * T + t + i) * Tk + j] = sc[i * Tk + j];
        }
        for (e = 0; e < 4 * hd; e++) mix[e] = 0;
        if (!dead) {
          var all = nq === 4 ? n0 : 0;  // keys every query of a full four sees, read once for all four
          for (j = 0; j < all; j++) {
            var w0 = sc[j], w1 = sc[Tk + j], w2 = sc[2 * Tk + j], w3 = sc[3 * Tk + j];
            vb = j * kvDim + ko;
            for (e = 0; e < hd; e++) { x = vc[vb + e]; mix[e] += w0 * x; mix[hd + e] += w1 * x; mix[2 * hd + e] += w2 * x; mix[3 * hd + e] += w3 * x; }
          }
          for (i = 0; i < nq; i++) {  // position by position: the cache rows are read in order
            for (j = all; j < n0 + i; j++) {
              var wj = sc[i * Tk + j], mo = i * hd;
              vb = j * kvDim + ko;
              for (e = 0; e < hd; e++) mix[mo + e] += wj * vc[vb + e];
            }
          }
        }
        for (i = 0; i < nq; i++) for (e = 0; e < hd; e++) att[qa + i * C + e] = mix[i * hd + e];
      }
    }
  }

  // The same attention through the WebAssembly kernels (k: wasmKernels'; its att room holds the
  // layer's keys and values, copied in once a call): scores and the values' mix in float32 lanes, as
  // transformers computes them, four query positions at a time, and the softmax too (e^x by the
  // kernels' own float32 exponential, so a row's weights do not depend on how many queries came).
  function attentionWasm(k, q, src, T, p0, H, hd, kvDim, group, off, lH, att, headsOut, h0, h1, full) {
    var A = k.att, C = H * hd, Tk = p0 + T, scale = 1 / Math.sqrt(hd), i, j, e;
    load(A, src, Tk, kvDim);
    for (var hh = h0 || 0; hh < (h1 === undefined ? H : h1); hh++) {
      var ko = 4 * Math.floor(hh / group) * hd, dead = off.indexOf(lH + hh) >= 0;
      for (var t = 0; t < T; t += 4) {
        var nq = Math.min(4, T - t), n0 = p0 + t + 1;
        for (i = 0; i < nq; i++) for (e = 0, j = (t + i) * C + hh * hd; e < hd; e++) A.q[i * hd + e] = q[j + e];  // no subarray per query
        k.e.scores(A.Q, nq, A.K + ko, 4 * kvDim, n0 + nq - 1, hd, scale, A.SC, 4 * A.cap);
        for (i = 0; i < nq; i++) {
          k.e.softmax(A.SC + 4 * i * A.cap, n0 + i);
          if (headsOut && t + i === T - 1) headsOut.set(A.sc.subarray(i * A.cap, i * A.cap + n0 + i), hh * Tk);
          if (full) full.set(A.sc.subarray(i * A.cap, i * A.cap + n0 + i), (hh * T + t + i) * Tk);
        }
        var base = t * C + hh * hd;
        if (dead) { for (i = 0; i < nq; i++) for (e = 0; e < hd; e++) att[base + i * C + e] = 0; continue; }
        k.e.mix(A.SC, 4 * A.cap, nq, A.V + ko, 4 * kvDim, n0, hd, A.O);
        for (i = 0; i < nq; i++) for (e = 0; e < hd; e++) att[base + i * C + e] = A.o[i * hd + e];
      }
    }
  }

  // The keys and values of positions 0..Tk-1 into the kernels' attention room: from one array each
  // (src.k, src.v: a message's), or page by page (src.pages), skipping a page whose same version is
  // there already (the pages of a prompt that the rows of a batched step share are copied once a block).
  function load(A, src, Tk, kvDim) {
    if (!src.pages) {
      A.k.set(src.k.subarray(0, Tk * kvDim));
      A.v.set(src.v.subarray(0, Tk * kvDim));
      A.held = [];
      return;
    }
    if (!A.held) A.held = [];
    for (var i = 0; i * PAGE < Tk; i++) {
      var pg = src.pages[i], n = Math.min(PAGE, Tk - i * PAGE), h = A.held[i];
      if (h && h.page === pg && h.ver === pg.ver && h.n >= n) continue;
      A.k.set(pg.k.subarray(0, n * kvDim), i * PAGE * kvDim);
      A.v.set(pg.v.subarray(0, n * kvDim), i * PAGE * kvDim);
      A.held[i] = { page: pg, ver: pg.ver, n: n };
    }
  }

  // A gated MLP's activation: g[o..o+n) = silu(g) * u, element by element; through the WebAssembly
  // kernels k where given (float32 lanes, as transformers computes it), in pieces that fit x's room.
  function glu(g, u, o, n, k) {
    if (!k) {
      for (var i = o; i < o + n; i++) { var a = g[i]; g[i] = Math.fround(a / (1 + Math.exp(-a))) * u[i]; }
      return;
    }
    var room = (k.x.length >> 3) << 2;  // half of x's room for g, half for u, in fours
    for (var s = o; s < o + n; s += room) {
      var m = Math.min(room, o + n - s);
      k.x.set(g.subarray(s, s + m));
      k.x.set(u.subarray(s, s + m), room);
      k.e.silu(k.X, k.X + 4 * room, m);
      g.set(k.x.subarray(0, m), s);
    }
  }

  // Softmax in place of n scores from sc[o]; the weights also to out[oo...] when out is given.
  function softmax(sc, o, n, out, oo) {
    var mx = -Infinity, z = 0, j;
    for (j = 0; j < n; j++) if (sc[o + j] > mx) mx = sc[o + j];
    for (j = 0; j < n; j++) { var ex = Math.exp(sc[o + j] - mx); sc[o + j] = ex; z += ex; }
    for (j = 0; j < n; j++) sc[o + j] = Math.fround(sc[o + j] / z);
    if (out) for (j = 0; j < n; j++) out[oo + j] = sc[o + j];
  }

  var GELU_C = Math.sqrt(2 / Math.PI);

  // One worker's share of a split model (a part of layout other than 0): it answers the leader's
  // messages with the products of its rows, and with its rows of an embedding. store: storage's.
  function Shard(manifest, store) {
    var ts = views(manifest, store);
    this.config = manifest.config;
    this.w = ts.tensors;
    this.kernels = ts.kernels;
    this.att = ts.k && ts.k.att ? ts.k : null;
  }

  // {op: "mul", names, x, T} -> [y per name] (T x its rows), or with gated ([gate, up]) [silu(gate) up];
  // {op: "rows", name, ids} -> [rows]; {op: "attend", ...} -> [att, weights] of heads h0..h1-1 (see
  // Model.attend). alloc(n) -> a Float32Array of n for each answer (a new one by default); free(y)
  // takes back one not sent.
  Shard.prototype.handle = function (m, alloc, free) {
    var w = this.w, t, i;
    alloc = alloc || function (n) { return new Float32Array(n); };
    if (m.op === "attend") {
      var fl = m.full ? alloc(m.H * m.T * (m.p0 + m.T)) : null;
      if (fl) fl.fill(0);
      return heads(this, m, alloc(m.q.length), m.heads ? alloc(m.H * (m.p0 + m.T)) : null, fl);
    }
    if (m.op === "rows") {
      t = w[m.name];
      var out = alloc(m.ids.length * t.cols);
      for (i = 0; i < m.ids.length; i++) row(t, m.ids[i] - t.lo, out, i * t.cols);
      return [out];
    }
    var same = false;  // x's blocks' sums are kept from the first product that ran
    var ys = m.names.map(function (name) {
      t = w[name];
      var y = alloc(m.T * t.rows);
      if (t.rows) { matmul(t, m.x, m.T, y, null, same); same = true; }
      return y;
    });
    if (!m.gated) return ys;
    glu(ys[0], ys[1], 0, ys[0].length, w[m.names[0]].k);
    if (free) free(ys[1]);
    return [ys[0]];
  };

  // buffer: the model's bytes, or storage's {buf, base, k} already filled with this share's bytes.
  // opts.peers: where the manifest is layout's part 0, the other parts' Shards, each as
  // {call(message) -> Promise<answer>} (a port to its worker, or a direct call in Node's tests).
  function Model(manifest, buffer, opts) {
    opts = opts || {};
    var c = manifest.config, ts = buffer && buffer.buf ? views(manifest, buffer) : tensors(manifest, buffer, opts.wasm);
    this.config = c;
    this.w = ts.tensors;
    this.kernels = ts.kernels;
    this.att = ts.k && ts.k.att ? ts.k : null;  // attention through the WebAssembly kernels
    this.peers = opts.peers || [];
    this.mine = new Float32Array(0);  // this worker's rows of a several-token product, reused
    var split = manifest.tensors.filter(function (t) { return t.parts; });
    if (split.length && split[0].parts.length !== this.peers.length + 1) throw new Error("a model split " + split[0].parts.length + " ways needs " + (split[0].parts.length - 1) + " peers, not " + this.peers.length);
    this.llama = c.arch === "llama";
    this.hd = c.n_embd / c.n_head;
    this.kvDim = this.hd * c.n_kv_heads;
    this.cap = Math.min(CAP, c.n_ctx);
    var need = ["wte.weight", "ln_f.weight"];
    for (var i = 0; i < need.length; i++) if (!this.w[need[i]]) throw new Error("the model data has no tensor " + need[i]);
    if (this.llama) {  // RoPE angles as transformers computes them, in float32
      var half = this.hd / 2;
      this.invFreq = new Float64Array(half);
      for (i = 0; i < half; i++) this.invFreq[i] = Math.fround(1 / Math.fround(Math.pow(c.rope_base, Math.fround(2 * i / this.hd))));
    }
    this.slot = 0;     // the fields that fresh() makes are this slot's; the others wait in this.slots
    this.slots = [];
    Object.assign(this, this.fresh());
  }

  // An empty slot. kv: each block's keys and values in pages (see Page), of which the first `length`
  // positions hold the text `ids`, computed with `knockout`. valid: the blocks whose cache is the knock-out's
  // at every position (all but after a cancelled rerun, see run). With opts.keep (prefill): inputs,
  // each block's input at every position (block 0's, the embedding, is not kept); heads, the last
  // position's attention weights in every block; lens, the last lens ({at, rows}) or null; lab, the
  // last pass's heads' kinds, direct shares and pattern (what a rerun's unchanged blocks show) or null;
  // kindRows, every block's kind sums of the queries 0..n-1 of `ids` ({n, rows: [layer] Float64Array,
  // see kindSums}, never written in place) or null, so that a reuse asking for kinds runs only new queries.
  Model.prototype.fresh = function () {
    return { kv: [], length: 0, ids: [], knockout: { heads: [], mlp: [] }, valid: this.config.n_layer,
             inputs: null, room: 0, heads: null, lens: null, lab: null, kindRows: null };
  };
  var SLOT_FIELDS = ["kv", "length", "ids", "knockout", "valid", "inputs", "room", "heads", "lens", "lab", "kindRows"];

  // A slot's state: the current slot's is the model's own fields (see use), another's waits in slots.
  Model.prototype.state = function (slot) {
    if (slot === this.slot) return this;
    return this.slots[slot] || (this.slots[slot] = this.fresh());
  };

  Model.prototype.reset = function () { this.length = 0; };

  // Make a slot the current one: its cache, length and knock-out become the fields the pass uses.
  Model.prototype.use = function (slot) {
    slot = slot === undefined || slot === null ? 0 : slot;
    if (typeof slot !== "number" || !(slot >= 0 && slot < SLOTS) || slot % 1) throw new Error("cache slot " + slot + " is not 0-" + (SLOTS - 1));
    if (slot === this.slot) return;
    var was = {}, self = this;
    SLOT_FIELDS.forEach(function (f) { was[f] = self[f]; });
    this.slots[this.slot] = was;
    Object.assign(this, this.slots[slot] || this.fresh());
    this.slots[slot] = null;
    this.slot = slot;
  };

  // Slot `to` becomes a copy of slot `from`: the same positions (their pages shared, each slot then
  // writing into its own copies, see Page) and knock-out; with opts.keep, also what `from` keeps for a
  // rerun (see prefill, copied), so that a sweep of knock-outs can run beside the slot it starts from.
  // The current slot stays current.
  Model.prototype.copySlot = function (from, to, opts) {
    var back = this.slot, keep = !!(opts && opts.keep);
    this.use(from);
    var src = { kv: this.kv, n: this.length, knockout: this.knockout, valid: this.valid, ids: this.ids.slice(0, this.length),
                inputs: keep ? this.inputs : null, heads: keep ? this.heads : null, lens: keep ? this.lens : null, lab: keep ? this.lab : null,
                kindRows: keep ? this.kindRows : null };
    this.use(to);
    if (to !== from) {
      var n = src.n, C = this.config.n_embd, pages = Math.ceil(n / PAGE);
      this.kv.forEach(function (list) { list.forEach(function (pg) { pg.refs--; }); });
      Object.assign(this, this.fresh());
      this.kv = src.kv.map(function (list) {
        list = list.slice(0, pages);
        list.forEach(function (pg) { pg.refs++; });
        return list;
      });
      if (src.inputs) {
        this.inputs = [];
        this.reserve(n);
        for (var l = 1; l < this.config.n_layer && n; l++) this.inputs[l].set(src.inputs[l].subarray(0, n * C));
      }
      this.length = n;
      this.ids = src.ids;
      this.knockout = src.knockout;
      this.valid = src.valid;
      if (src.inputs) {
        this.heads = src.heads ? src.heads.map(function (a) { return a.slice(); }) : null;
        this.lens = src.lens ? { at: src.lens.at, rows: src.lens.rows.map(function (a) { return a.slice(); }) } : null;
        this.lab = src.lab;  // replaced, never written in place (see run), as kindRows are
        this.kindRows = src.kindRows;
      }
    }
    this.use(back);
    return { length: src.n };
  };

  // Room for n positions in the kept inputs (the cache's pages come as they are written): it grows by
  // doubling up to cap.
  Model.prototype.reserve = function (n) {
    if (!this.inputs) return;
    var C = this.config.n_embd, room = this.room;
    if (n > room) room = Math.min(this.cap, Math.max(64, room * 2, Math.pow(2, Math.ceil(Math.log2(n)))));
    for (var l = 1; l < this.config.n_layer; l++) {
      if (!(this.inputs[l] && this.inputs[l].length === room * C)) {
        var x = new Float32Array(room * C);
        if (this.inputs[l]) x.set(this.inputs[l].subarray(0, this.length * C));
        this.inputs[l] = x;
      }
    }
    this.room = room;
  };

  Model.prototype.prefill = function (ids, opts, tick) {
    opts = opts || {};
    var c = this.config, knockout, plan, at;
    try {
      this.use(opts.slot);
      knockout = normaliseKnockout(opts.knockout, c);
      if (!ids || !ids.length) throw new Error("the prompt is empty: type at least one character");
      at = opts.lensAt === undefined || opts.lensAt === null ? ids.length - 1 : opts.lensAt;
      if (!(at >= 0 && at < ids.length) || at % 1) throw new Error("lensAt " + opts.lensAt + " is not a position of the prompt (0-" + (ids.length - 1) + ")");
      if (opts.every && !(opts.every >= 1 && opts.every <= 16 && opts.every % 1 === 0)) throw new Error("every " + opts.every + " is not a whole number of top tokens from 1 to 16");
      // every position's logits are made by the positions that run: a prefill asking for them runs them all
      plan = opts.reuse && !opts.every ? this.plan(ids, knockout, opts, at) : { keep: 0, from: c.n_layer };
    } catch (err) {
      return Promise.reject(err);
    }
    if (!opts.keep) this.inputs = this.kindRows = null;
    else if (!this.inputs) { this.inputs = []; plan = { keep: 0, from: c.n_layer }; }  // nothing kept yet: the whole prompt runs
    if (plan.from === c.n_layer) {  // the kept positions, if any, are run as they were; the rest runs
      this.length = plan.keep;
      this.valid = c.n_layer;
      this.heads = opts.keep ? [] : null;
      this.lens = null;
      this.lab = null;
    }
    this.knockout = knockout;
    return this.run(Array.from(ids), plan.keep, at, opts, tick, plan.from).then(function (out) {
      if (plan.keep) out.reused = plan.keep;
      if (plan.from < c.n_layer) out.from = plan.from;
      return out;
    });
  };

  // What a prefill of `ids` may keep of the slot's cache ({keep, from}). With the same knock-out
  // (from = n_layer): the positions whose tokens start `ids`, short of the last token (its logits are
  // the answer), of the lens's position `at` (residuals and the lens are computed only for
  // positions that run) and, asking for the kinds, of the queries whose sums the slot keeps. With
  // the same tokens and a knock-out that first changes block L, in a slot that keeps each block's
  // input (opts.keep): every position of blocks 0..L-1 (from = L), and blocks L..n_layer-1 rerun
  // every position from block L's kept input. Else nothing.
  Model.prototype.plan = function (ids, knockout, opts, at) {
    var L = this.config.n_layer, none = { keep: 0, from: L }, n = 0;
    if (opts.keep && !this.inputs) return none;
    if (opts.capture) return none;  // every block at every position
    var from = Math.min(changedAt(this.knockout, knockout, this.config), this.valid), lab = this.lab, pat = opts.pattern;
    while (n < this.length && n < ids.length && this.ids[n] === ids[n]) n++;
    // the heads' kinds, the direct shares and a head's pattern read every query of every block: a rerun
    // takes those of its unchanged blocks from the last pass (kept with the inputs), a reuse cannot
    var labOk = (!opts.kinds || (lab && lab.kinds)) && (!opts.direct || (lab && lab.direct)) &&
      (!pat || pat[0] >= from || (lab && lab.pattern && lab.pattern.at[0] === pat[0] && lab.pattern.at[1] === pat[1]));
    if (from === L) {
      if (pat) return none;
      return { keep: Math.min(n, ids.length - 1, at, !opts.kinds ? Infinity : opts.keep && this.kindRows ? this.kindRows.n : 0), from: L };
    }
    if (opts.keep && this.inputs && this.heads && labOk && from > 0 && n === ids.length && n === this.length) return { keep: n, from: from };
    return none;
  };

  Model.prototype.decode = function (id, opts, tick) {
    opts = opts || {};
    try {
      this.use(opts.slot);
      if (this.length === 0) throw new Error("decode needs a prefilled prompt first" + (this.slot ? " in cache slot " + this.slot : ""));
      if (this.valid < this.config.n_layer) throw new Error("cache slot " + this.slot + " holds a pass stopped halfway: prefill it again first");
      if (opts.lensAt !== undefined && opts.lensAt !== null && opts.lensAt !== 0) throw new Error("lensAt " + opts.lensAt + " is not a position of the prompt (0-0)");
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.inputs) this.heads = [];
    this.lens = this.lab = null;
    return this.run(this.ids.slice(0, this.length).concat([id]), this.length, this.length, opts, tick, this.config.n_layer);
  };

  // One new token for each of several slots in one pass: list = [[slot, id], ...], each slot a
  // different one holding a prefilled text. Every product runs the rows together (the prompt
  // kernels read each weight once for all of them), attention runs each row over its own slot's
  // cache under its own knock-out. Each row's outputs have the bits of decode(id, {slot}) on the
  // wasm kernels (a prompt read at once has decode's bits); the plain-JS kernels sum several rows'
  // products in another order, within their rounding. Returns [{logits, length}] in list's order;
  // a cancelled or failed step leaves every slot as it was, but for its copies (opts.copies, made
  // first: a beam's fork rides with the step that reads it). The slots stop keeping inputs (see keep).
  Model.prototype.step = async function (list, opts, tick) {
    var c = this.config, C = c.n_embd, H = c.n_head, hd = this.hd, kvDim = this.kvDim, V = c.vocab_size, w = this.w, L = c.n_layer;
    var n = list && list.length, S = [], seen = {}, ids = [], pos = [], i, t, l;
    var copies = (opts && opts.copies) || [];
    function isSlot(x) { return typeof x === "number" && x >= 0 && x < SLOTS && x % 1 === 0; }
    if (!Array.isArray(copies) || !copies.every(function (cp) { return Array.isArray(cp) && cp.length === 2 && isSlot(cp[0]) && isSlot(cp[1]); })) {
      throw new Error("a step's copies are a list of [from slot, to slot], each slot 0-" + (SLOTS - 1));
    }
    for (i = 0; i < copies.length; i++) this.copySlot(copies[i][0], copies[i][1]);
    if (!Array.isArray(list) || !n) throw new Error("a step needs at least one [slot, token id]");
    for (i = 0; i < n; i++) {
      var e = list[i], slot = Array.isArray(e) ? e[0] : undefined;
      if (typeof slot !== "number" || !(slot >= 0 && slot < SLOTS) || slot % 1) throw new Error("cache slot " + slot + " is not 0-" + (SLOTS - 1));
      if (seen[slot]) throw new Error("cache slot " + slot + " is in the step twice");
      seen[slot] = true;
      var st = this.state(slot);
      if (st.length === 0) throw new Error("decode needs a prefilled prompt first" + (slot ? " in cache slot " + slot : ""));
      if (st.valid < L) throw new Error("cache slot " + slot + " holds a pass stopped halfway: prefill it again first");
      if (st.length + 1 > this.cap) throw new Error("the prompt and continuation are " + (st.length + 1) + " tokens; the limit is " + this.cap);
      if (!(e[1] >= 0 && e[1] < V) || e[1] % 1) throw new Error("token id " + e[1] + " is outside the vocabulary (0-" + (V - 1) + ")");
      S.push(st); ids.push(e[1]); pos.push(st.length);
    }
    S.forEach(function (st) { st.inputs = st.heads = st.lens = null; });
    var x = new Float32Array(n * C), h = new Float32Array(n * C), att = new Float32Array(n * C);
    var q = new Float32Array(n * C), k = new Float32Array(n * kvDim), v = new Float32Array(n * kvDim);
    var proj = new Float32Array(n * C), F = c.d_mlp, ff = new Float32Array(n * F), up = this.llama ? new Float32Array(n * F) : null;
    var qkv = this.llama ? null : new Float32Array(n * 3 * C), turn = null;
    x.set(await this.lookup("wte.weight", ids));
    if (!this.llama) { var pe = await this.lookup("wpe.weight", pos); for (i = 0; i < n * C; i++) x[i] += pe[i]; }
    if (this.llama) {
      turn = new Float64Array(n * hd);
      for (i = 0; i < n; i++) turn.set(this.turns(pos[i], 1), i * hd);
    }
    for (l = 0; l < L; l++) {
      var pre = "h." + l + ".";
      if (this.llama) {
        rmsnorm(x, n, C, w[pre + "ln_1.weight"].f32, c.rms_eps, h);
        await this.mul([[pre + "attn.q.weight", q], [pre + "attn.k.weight", k], [pre + "attn.v.weight", v]], h, n);
        rope(q, n, C, H, hd, turn);
        rope(k, n, kvDim, c.n_kv_heads, hd, turn);
      } else {
        layernorm(x, n, C, w[pre + "ln_1.weight"].f32, w[pre + "ln_1.bias"].f32, c.ln_eps, h);
        await this.mul([[pre + "attn.c_attn.weight", qkv, w[pre + "attn.c_attn.bias"].f32]], h, n);
        for (t = 0; t < n; t++) {
          for (i = 0; i < C; i++) { q[t * C + i] = qkv[t * 3 * C + i]; k[t * C + i] = qkv[t * 3 * C + C + i]; v[t * C + i] = qkv[t * 3 * C + 2 * C + i]; }
        }
      }
      for (i = 0; i < n; i++) {  // each row's key and value at its slot's next position, then its attention there
        var row = att.subarray(i * C, (i + 1) * C), vals = S[i].knockout.values || {};
        store(S[i], l, pos[i], k.subarray(i * kvDim, (i + 1) * kvDim), v.subarray(i * kvDim, (i + 1) * kvDim), 1, kvDim);
        await this.attend(S[i], q.subarray(i * C, (i + 1) * C), 1, pos[i], l, row, null);
        S[i].knockout.heads.forEach(function (idx) {  // a switched-off head's mean or patched z (see run)
          var key = "h." + l + "." + (idx % H);
          if (Math.floor(idx / H) === l && vals[key]) replace(vals[key], hd, row, C, (idx % H) * hd, pos[i], 1);
        });
      }
      await this.mul([[pre + "attn.c_proj.weight", proj, this.llama ? null : w[pre + "attn.c_proj.bias"].f32]], att, n);
      for (i = 0; i < n * C; i++) x[i] += proj[i];
      var on = S.map(function (st) { return st.knockout.mlp.indexOf(l) < 0; });
      if (on.some(Boolean)) {
        if (this.llama) {
          rmsnorm(x, n, C, w[pre + "ln_2.weight"].f32, c.rms_eps, h);
          await this.mul([[pre + "mlp.gate.weight", ff], [pre + "mlp.up.weight", up]], h, n, true);
          await this.mul([[pre + "mlp.c_proj.weight", proj]], ff, n);
        } else {
          layernorm(x, n, C, w[pre + "ln_2.weight"].f32, w[pre + "ln_2.bias"].f32, c.ln_eps, h);
          await this.mul([[pre + "mlp.c_fc.weight", ff, w[pre + "mlp.c_fc.bias"].f32]], h, n);
          for (i = 0; i < n * F; i++) { var u = ff[i]; ff[i] = 0.5 * u * (1 + Math.tanh(GELU_C * (u + 0.044715 * u * u * u))); }
          await this.mul([[pre + "mlp.c_proj.weight", proj, w[pre + "mlp.c_proj.bias"].f32]], ff, n);
        }
        for (t = 0; t < n; t++) if (on[t]) for (i = t * C; i < (t + 1) * C; i++) x[i] += proj[i];
      }
      for (t = 0; t < n; t++) {  // an MLP switched off adds nothing, or its mean or patched output
        var mv = !on[t] && S[t].knockout.values && S[t].knockout.values["m." + l];
        if (!mv) continue;
        var mo = new Float32Array(C);
        replace(mv, C, mo, C, 0, pos[t], 1);
        for (i = 0; i < C; i++) x[t * C + i] += mo[i];
      }
      if (tick) await tick();
    }
    var logits = await this.unembed(x, n), out = [];
    for (i = 0; i < n; i++) {
      S[i].ids = S[i].ids.slice(0, pos[i]).concat([ids[i]]);
      S[i].length = pos[i] + 1;
      out.push({ logits: logits.slice(i * V, (i + 1) * V), length: S[i].length });
    }
    return out;
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
    // What a switched-off part becomes instead of zeros: "h.<layer>.<head>" -> its z (head size values,
    // the same at every position, or one set per position from 0), "m.<layer>" -> its MLP's output
    // (n_embd values, or one set per position). Mean ablation and patching (docs/js/real/sweep.js).
    // sigs: a fingerprint of each part's values, for perBlock.
    var values = {}, sigs = {}, hd = c.n_embd / c.n_head;
    Object.keys(k.values || {}).sort().forEach(function (key) {
      var m = /^(h)\.(\d+)\.(\d+)$|^(m)\.(\d+)$/.exec(key), v = k.values[key];
      var listed = m && (m[1] ? heads.indexOf(Number(m[2]) * c.n_head + Number(m[3])) >= 0 : mlp.indexOf(Number(m[5])) >= 0);
      if (!listed) throw new Error("knock-out value " + key + " names no switched-off part (h.<layer>.<head> or m.<layer>)");
      var width = m[1] ? hd : c.n_embd;
      if (!(v && v.length && v.length % width === 0)) throw new Error("knock-out value " + key + " must hold a multiple of " + width + " numbers");
      var a = v instanceof Float32Array ? v : Float32Array.from(v), bits = new Uint32Array(a.buffer, a.byteOffset, a.length), h1 = 2166136261, h2 = a.length;
      for (var i = 0; i < a.length; i++) {
        if (!isFinite(a[i])) throw new Error("knock-out value " + key + " holds a number that is not finite");
        h1 = Math.imul(h1 ^ bits[i], 16777619); h2 = Math.imul(h2 + bits[i], 2654435761) ^ (h2 >>> 13);
      }
      values[key] = a;
      sigs[key] = a.length + ":" + (h1 >>> 0).toString(36) + (h2 >>> 0).toString(36);
    });
    return { heads: heads, mlp: mlp, values: values, sigs: sigs };
  }

  // A switched-off part's replacement at positions from..from+n-1 into rows of y (row width rowWidth,
  // the part's `width` values at offset `at` of each row); add: added to the rows instead.
  function replace(v, width, y, rowWidth, at, from, n, add) {
    var per = v.length > width;
    if (per && (from + n) * width > v.length) throw new Error("a patched part holds " + v.length / width + " positions; this text reaches position " + (from + n - 1));
    for (var t = 0; t < n; t++) {
      var o = per ? (from + t) * width : 0, r = t * rowWidth + at, e;
      if (add) for (e = 0; e < width; e++) y[r + e] += v[o + e];
      else for (e = 0; e < width; e++) y[r + e] = v[o + e];
    }
  }

  // What a (normalised) knock-out does to each block, one string per block, so that two knock-outs
  // compare block by block; changedAt: the first block where they differ (n_layer when none does).
  // A part switched off twice is switched off once. A new kind of change to a block adds its words here.
  function perBlock(k, c) {
    var out = [], l;
    for (l = 0; l < c.n_layer; l++) out.push([]);
    var sigs = k.sigs || {};
    k.heads.forEach(function (i) { var l = Math.floor(i / c.n_head), key = "h." + l + "." + (i % c.n_head); out[l].push("head " + (i % c.n_head) + (sigs[key] ? " = " + sigs[key] : "")); });
    k.mlp.forEach(function (l) { out[l].push("mlp" + (sigs["m." + l] ? " = " + sigs["m." + l] : "")); });
    return out.map(function (parts) { return parts.sort().filter(function (p, i) { return p !== parts[i - 1]; }).join(","); });
  }
  function changedAt(a, b, c) {
    var x = perBlock(a, c), y = perBlock(b, c);
    for (var l = 0; l < c.n_layer; l++) if (x[l] !== y[l]) return l;
    return c.n_layer;
  }

  // The slot's text `ids` (every token it holds after the call) from position p0, the positions
  // before it already cached; blocks from `from` on (from < n_layer: a rerun, see plan) run every
  // position again, from block from's kept input. at: the position of the residuals and the lens.
  Model.prototype.run = async function (ids, p0, at, opts, tick, from) {
    var c = this.config, C = c.n_embd, N = ids.length, H = c.n_head, hd = this.hd, kvDim = this.kvDim;
    var V = c.vocab_size, w = this.w, L = c.n_layer, i, t, l;
    if (N > this.cap) throw new Error("the prompt and continuation are " + N + " tokens; the limit is " + this.cap);
    for (i = p0; i < N; i++) {
      if (!(ids[i] >= 0 && ids[i] < V) || ids[i] % 1) throw new Error("token id " + ids[i] + " is outside the vocabulary (0-" + (V - 1) + ")");
    }
    this.reserve(N);
    var lo = from < L ? 0 : p0, R = N - lo;  // the first position a block runs, and the most rows one runs
    var sc = this.scratch(R), h = sc.h, att = sc.att, q = sc.q, k = sc.k, v = sc.v, proj = sc.proj, F = c.d_mlp, ff = sc.ff, up = sc.up, qkv = sc.qkv;
    var keep = this.inputs, r = p0, x = null;  // x: the residual stream at positions r..N-1
    if (r < N) x = await this.embed(ids.slice(r), r);
    var out = { residuals: opts.residuals || opts.lens ? [] : null, heads: opts.heads ? [] : null };
    var start = this.length, widened = false, done = 0, turn = this.llama ? this.turns(lo, R) : null;
    var pat = opts.pattern || null, vals = this.knockout.values || {};
    if (pat && !(Array.isArray(pat) && pat[0] >= 0 && pat[0] < L && pat[1] >= 0 && pat[1] < H && !(pat[0] % 1) && !(pat[1] % 1))) {
      throw new Error("pattern " + JSON.stringify(pat) + " is not [layer 0-" + (L - 1) + ", head 0-" + (H - 1) + "]");
    }
    if (opts.direct && !this.llama) throw new Error("direct logit attribution reads an RMSNorm model; this one normalises with LayerNorm");
    if (opts.capture) out.parts = { z: [], mlp: [] };
    // what a rerun's unchanged blocks show comes from the last pass (plan made sure it has it); a keeping
    // slot keeps this pass's for the next (a new object: a copied slot may share the last one)
    var old = this.lab || {}, lab = keep ? { kinds: opts.kinds ? [] : null, direct: opts.direct ? { heads: [], mlp: [] } : null, pattern: null } : null;
    // each block's kind sums of every query, for the next reuse: the kept queries' from the slot (plan
    // made sure it has them), the rest computed; a block a rerun keeps has them all, or none are kept
    var kr = this.kindRows, rows = opts.kinds && keep ? [] : null;
    if (opts.kinds && from === L && p0 && !(kr && kr.n >= p0)) throw new Error("the heads' kinds read every query: this cache slot keeps the sums of " + (kr ? kr.n : 0) + " of the " + p0 + " positions before the new ones (prefill the prompt with kinds)");
    if (opts.direct) out.direct = { embedding: x ? x.slice((N - 1 - r) * C, (N - r) * C) : old.direct.embedding.slice(), heads: [], mlp: [] };
    if (lab && lab.direct) lab.direct.embedding = out.direct.embedding.slice();
    if (opts.kinds) out.kinds = [];
    try {
      for (l = 0; l < L; l++) {
        var pre = "h." + l + ".";
        if (l === from && r > 0) {  // a rerun: every position from here, the kept ones from their kept input
          var all = new Float32Array(N * C);
          all.set(this.inputs[l].subarray(0, r * C));
          if (x) all.set(x, r * C);
          x = all; r = 0; widened = true;
        }
        if (r === N) {  // a block before a rerun's first: every position kept, and what it shows too
          if (out.residuals) out.residuals.push(this.inputs[l + 1].slice(at * C, (at + 1) * C));
          if (out.heads) out.heads.push(this.heads[l].slice());
          if (out.kinds) out.kinds.push(old.kinds[l].slice());
          if (rows) rows.push(kr && kr.n >= N ? kr.rows[l] : null);
          if (out.direct) { out.direct.heads.push(old.direct.heads[l].slice()); out.direct.mlp.push(old.direct.mlp[l].slice()); }
          if (pat && pat[0] === l) out.pattern = old.pattern.data.slice();
          if (lab) {
            if (lab.kinds) lab.kinds.push(old.kinds[l]);
            if (lab.direct) { lab.direct.heads.push(old.direct.heads[l]); lab.direct.mlp.push(old.direct.mlp[l]); }
            if (pat && pat[0] === l) lab.pattern = old.pattern;
          }
          done = l + 1;
          continue;
        }
        var n = N - r, hn = h.subarray(0, n * C);
        if (this.llama) {
          rmsnorm(x, n, C, w[pre + "ln_1.weight"].f32, c.rms_eps, h);
          await this.mul([[pre + "attn.q.weight", q], [pre + "attn.k.weight", k], [pre + "attn.v.weight", v]], hn, n);
          rope(q, n, C, H, hd, turn.subarray((r - lo) * hd));
          rope(k, n, kvDim, c.n_kv_heads, hd, turn.subarray((r - lo) * hd));
        } else {
          layernorm(x, n, C, w[pre + "ln_1.weight"].f32, w[pre + "ln_1.bias"].f32, c.ln_eps, h);
          await this.mul([[pre + "attn.c_attn.weight", qkv, w[pre + "attn.c_attn.bias"].f32]], hn, n);
          for (t = 0; t < n; t++) {
            for (i = 0; i < C; i++) { q[t * C + i] = qkv[t * 3 * C + i]; k[t * C + i] = qkv[t * 3 * C + C + i]; v[t * C + i] = qkv[t * 3 * C + 2 * C + i]; }
          }
        }
        store(this, l, r, k, v, n, kvDim);
        // The last block's keys and values are cached for every position, but its output is read only
        // at the last position (and at `at` for the lens): the rows before them skip the rest of it.
        // Each row's arithmetic is the same either way (see attention), so no bit changes.
        // Capturing, the heads' kinds and a head's pattern read every row (r is 0 then: see plan).
        var fullAt = opts.kinds || (pat && pat[0] === l);
        var r0 = l === L - 1 && !opts.capture && !fullAt && !opts.every ? (out.residuals ? Math.min(at, N - 1) : N - 1) : r, m = N - r0;
        var xr = x.subarray((r0 - r) * C, n * C);
        var headsOut = out.heads || keep ? new Float32Array(H * N) : null, full = fullAt ? new Float32Array(H * m * N) : null;
        await this.attend(this, q.subarray((r0 - r) * C), m, r0, l, att, headsOut, full);
        if (keep) this.heads[l] = headsOut;
        if (out.heads) out.heads.push(keep ? headsOut.slice() : headsOut);
        if (full && opts.kinds) {
          var sums = new Float64Array(N * H * KINDS);
          if (r0) sums.set(kr.rows[l].subarray(0, r0 * H * KINDS));
          kindSums(full, H, m, r0, ids, sums);
          out.kinds.push(kindShares(sums, H, N, ids));
          if (rows) rows.push(sums);
        }
        if (full && pat && pat[0] === l) out.pattern = full.slice(pat[1] * m * N, (pat[1] + 1) * m * N);
        this.knockout.heads.forEach(function (idx) {  // a switched-off head's mean or patched z, where the knock-out gives one
          var key = "h." + l + "." + (idx % H);
          if (Math.floor(idx / H) === l && vals[key]) replace(vals[key], hd, att, C, (idx % H) * hd, r0, m);
        });
        if (out.parts) out.parts.z.push(att.slice(0, m * C));
        if (out.direct) out.direct.heads.push(await this.perHead(pre, att.subarray((m - 1) * C, m * C)));
        await this.mul([[pre + "attn.c_proj.weight", proj, this.llama ? null : w[pre + "attn.c_proj.bias"].f32]], att.subarray(0, m * C), m);
        for (i = 0; i < m * C; i++) xr[i] += proj[i];
        if (this.knockout.mlp.indexOf(l) >= 0 && (out.parts || out.direct || vals["m." + l])) {  // off: zeros, or its mean or patched output
          var mo = new Float32Array(m * C);
          if (vals["m." + l]) replace(vals["m." + l], C, mo, C, 0, r0, m);
          for (i = 0; i < m * C; i++) xr[i] += mo[i];
          if (out.parts) out.parts.mlp.push(mo);
          if (out.direct) out.direct.mlp.push(mo.slice((m - 1) * C));
        }
        if (this.knockout.mlp.indexOf(l) < 0) {
          var hm = h.subarray(0, m * C);
          if (this.llama) {
            rmsnorm(xr, m, C, w[pre + "ln_2.weight"].f32, c.rms_eps, h);
            await this.mul([[pre + "mlp.gate.weight", ff], [pre + "mlp.up.weight", up]], hm, m, true);  // ff: silu(gate) up
            await this.mul([[pre + "mlp.c_proj.weight", proj]], ff.subarray(0, m * F), m);
          } else {
            layernorm(xr, m, C, w[pre + "ln_2.weight"].f32, w[pre + "ln_2.bias"].f32, c.ln_eps, h);
            await this.mul([[pre + "mlp.c_fc.weight", ff, w[pre + "mlp.c_fc.bias"].f32]], hm, m);
            for (i = 0; i < m * F; i++) { var u = ff[i]; ff[i] = 0.5 * u * (1 + Math.tanh(GELU_C * (u + 0.044715 * u * u * u))); }
            await this.mul([[pre + "mlp.c_proj.weight", proj, w[pre + "mlp.c_proj.bias"].f32]], ff.subarray(0, m * F), m);
          }
          for (i = 0; i < m * C; i++) xr[i] += proj[i];
          if (out.parts) out.parts.mlp.push(proj.slice(0, m * C));
          if (out.direct) out.direct.mlp.push(proj.slice((m - 1) * C, m * C));
        }
        if (lab) {  // this block's kinds, direct shares and pattern, for a later rerun's unchanged blocks
          if (lab.kinds) lab.kinds.push(out.kinds[l].slice());
          if (lab.direct) { lab.direct.heads.push(out.direct.heads[l].slice()); lab.direct.mlp.push(out.direct.mlp[l].slice()); }
          if (pat && pat[0] === l) lab.pattern = { at: [pat[0], pat[1]], data: out.pattern.slice() };
        }
        if (out.residuals) out.residuals.push(x.slice((at - r) * C, (at - r + 1) * C));
        if (keep && l + 1 < L) this.inputs[l + 1].set(x.subarray(0, n * C), r * C);  // the next block's input
        done = l + 1;
        if (tick) await tick();
      }
      var last = x.subarray((N - 1 - r) * C, (N - r) * C);
      out.logits = await this.unembed(last, 1);
      if (opts.every) out.every = await this.everyPosition(x, ids.slice(r), N - r, opts.every);
      if (opts.final) out.final = this.normed(last);
      if (out.direct) {  // the final norm's scale at the last position and its weights: logit share = part . (gamma scale row)
        var ss = 0;
        for (i = 0; i < C; i++) ss += last[i] * last[i];
        out.direct.scale = 1 / Math.sqrt(Math.fround(ss / C) + c.rms_eps);
        out.direct.gamma = w["ln_f.weight"].f32.slice();
      }
      if (opts.lens) {
        out.lens = await this.lensOf(out.residuals, out.logits, at === N - 1, widened && this.lens && this.lens.at === at ? from : 0);
        if (keep) this.lens = { at: at, rows: out.lens.map(function (a) { return a.slice(); }) };
        if (!opts.residuals) out.residuals = null;
        if (tick) await tick();
      } else if (keep) this.lens = null;
    } catch (err) {
      if (widened) {  // blocks before `done` hold the new knock-out's pass at every position, the rest must rerun
        this.valid = done;
        this.lens = this.kindRows = null;
        if (keep) this.lab = lab;  // its blocks before `done` are this pass's
      } else {
        this.length = start;  // a cancelled or failed step leaves the cache as it was
        if (keep) this.heads = this.lab = null;
      }
      throw err;
    }
    this.ids = ids;
    this.length = N;
    this.valid = L;
    if (keep) this.lab = lab;
    // the kind sums kept: this pass's, or the last pass's for the queries the two share (a rerun
    // changed them all)
    if (rows && rows.every(Boolean)) this.kindRows = { n: N, rows: rows };
    else if (kr) this.kindRows = from < L ? null : { n: Math.min(kr.n, p0), rows: kr.rows };
    out.length = N;
    return out;
  };

  // A pass's working rows for R positions (the residual's norm, attention's q, k, v and output, the
  // MLP's), kept by the model and remade only when a longer pass needs them: a pass leaves no garbage
  // behind, which the collector takes its time to reclaim (its buffers live outside the JS heap), so
  // a knock-out's rerun right after a pass does not hold two sets at once (bench_ask's memory).
  // Every output of a pass is a copy, never one of these.
  Model.prototype.scratch = function (R) {
    var c = this.config, C = c.n_embd, F = c.d_mlp, s = this.rows;
    if (!s || s.R < R) {
      var n = Math.min(this.cap, Math.ceil(R / 64) * 64);  // a prompt growing a token at a time does not remake them each time
      s = this.rows = { R: n, h: new Float32Array(n * C), att: new Float32Array(n * C), q: new Float32Array(n * C), k: new Float32Array(n * this.kvDim),
                        v: new Float32Array(n * this.kvDim), proj: new Float32Array(n * C), ff: new Float32Array(n * F),
                        up: this.llama ? new Float32Array(n * F) : null, qkv: this.llama ? null : new Float32Array(n * 3 * C) };
    }
    return s;
  };

  // The embedding of tokens `ids` at positions p, p + 1, ... (GPT-2 adds its learned positions).
  Model.prototype.embed = async function (ids, p) {
    var x = await this.lookup("wte.weight", ids);
    if (!this.llama) {
      var at = ids.map(function (_, t) { return p + t; }), pos = await this.lookup("wpe.weight", at);
      for (var i = 0; i < x.length; i++) x[i] += pos[i];
    }
    return x;
  };

  // The logit lens: ln_f and the unembedding applied to each block's residual (the last block's, at
  // the last position, is the logits), the blocks before the last in one product, so the embedding's
  // blocks are decoded once. Rows before `reuse` are the slot's kept lens (a rerun's unchanged blocks).
  Model.prototype.lensOf = async function (residuals, logits, last, reuse) {
    var c = this.config, C = c.n_embd, V = c.vocab_size, below = last ? c.n_layer - 1 : c.n_layer, l;
    var n = Math.max(0, below - reuse), out = [];
    for (l = 0; l < Math.min(reuse, below); l++) out.push(this.lens.rows[l].slice());
    if (n) {
      // the plain-JS products sum one token's row block by block and several tokens' whole rows, so
      // a lone row goes twice: a rerun's lens then has a full pass's bits on those kernels too
      var rows = n === 1 && !this.w[this.w["lm_head.weight"] ? "lm_head.weight" : "wte.weight"].k ? 2 : n, stack = new Float32Array(rows * C);
      for (l = 0; l < rows; l++) stack.set(residuals[reuse + Math.min(l, n - 1)], l * C);
      var all = await this.unembed(stack, rows);
      for (l = 0; l < n; l++) out.push(all.subarray(l * V, (l + 1) * V));  // views of one buffer: no second copy
    }
    if (below < c.n_layer) out.push(logits.slice());
    return out;
  };

  // Attention of heads m.h0..m.h1-1 ({q, k, v or pages, T, p0, H, off, lH}, k and v the keys and
  // values of positions 0..p0+T-1, or the pages that hold them) into att (T x n_embd) and, when given,
  // their weights for the last position and every query's (full: H x T x (p0 + T), head-major, zeros
  // right of each query).
  function heads(on, m, att, weights, full) {
    var c = on.config, hd = c.n_embd / c.n_head, kvDim = hd * c.n_kv_heads, group = c.n_head / c.n_kv_heads;
    if (on.att) attentionWasm(on.att, m.q, m, m.T, m.p0, m.H, hd, kvDim, group, m.off, m.lH, att, weights, m.h0, m.h1, full);
    else {
      var kv = m.pages ? gather(m.pages, m.p0 + m.T, kvDim, KS, VS) : m;
      if (m.pages) { KS = kv.k; VS = kv.v; }
      attention(m.q, kv.k, kv.v, m.T, m.p0, m.H, hd, kvDim, group, m.off, m.lH, att, weights, m.h0, m.h1, full);
    }
    var out = [att];
    if (weights) out.push(weights);
    if (full) out.push(full);
    return out;
  }

  // Each head's output at one position: its slice of z (the rest zero) through the output projection,
  // H rows in one product (no bias). Returns H x n_embd.
  Model.prototype.perHead = async function (pre, z) {
    var C = this.config.n_embd, H = this.config.n_head, hd = this.hd, xs = new Float32Array(H * C), ys = new Float32Array(H * C);
    for (var hh = 0; hh < H; hh++) xs.set(z.subarray(hh * hd, (hh + 1) * hd), hh * C + hh * hd);
    await this.mul([[pre + "attn.c_proj.weight", ys]], xs, H);
    return ys;
  };

  // What each head looks at (scripts/real/ablation.py's head_kinds, the same rule): the shares of its
  // attention on the first token, itself, the token before, the token after an earlier occurrence of
  // its own token (induction) and the rest, each averaged over the queries after position 0 that
  // have such a key. In two steps, so that a reuse runs only its new queries: kindSums writes each
  // query's five sums of weights into sums (N x H x 5 float64, N = p0 + T) for the queries
  // p0..N-1, from full (H x T x N weights); kindShares averages every query's, in position order as
  // one pass over them all would. ids: every position's token. Returns H x 5 (Float32Array).
  var KINDS = 5;
  function kindOf(ids, pos, j) { return j === 0 ? 0 : j === pos ? 1 : j === pos - 1 ? 2 : ids[j - 1] === ids[pos] ? 3 : 4; }
  function kindSums(full, H, T, p0, ids, sums) {
    var N = p0 + T, kind = new Uint8Array(N), s = new Float64Array(KINDS), j;
    for (var t = 0; t < T; t++) {
      var pos = p0 + t;
      for (j = 0; j <= pos; j++) kind[j] = kindOf(ids, pos, j);
      for (var hh = 0; hh < H; hh++) {
        var row = (hh * T + t) * N;
        s.fill(0);
        for (j = 0; j <= pos; j++) s[kind[j]] += full[row + j];
        sums.set(s, (pos * H + hh) * KINDS);
      }
    }
  }
  function kindShares(sums, H, N, ids) {
    var out = new Float32Array(H * KINDS), sum = new Float64Array(KINDS), seen = new Float64Array(KINDS), has = new Uint8Array(N * KINDS), pos, j, k;
    for (pos = 1; pos < N; pos++) for (j = 0; j <= pos; j++) has[pos * KINDS + kindOf(ids, pos, j)] = 1;
    for (var hh = 0; hh < H; hh++) {
      sum.fill(0); seen.fill(0);
      for (pos = 1; pos < N; pos++) {  // position 0 has only itself: no query counts it
        for (k = 0; k < KINDS; k++) if (has[pos * KINDS + k]) { sum[k] += sums[(pos * H + hh) * KINDS + k]; seen[k] += 1; }
      }
      for (k = 0; k < KINDS; k++) out[hh * KINDS + k] = seen[k] ? sum[k] / seen[k] : 0;
    }
    return out;
  }

  // A slot's keys and values, per block a list of pages of PAGE positions each. A copied slot shares
  // its source's pages (page.refs counts the slots that hold one), and a slot about to write into a
  // page that another also holds first makes its own copy of it: beams that fork share the prompt's
  // cache and copy at most a page a block. page.ver counts the writes (see load).
  var PAGE = 32;
  function Page(kvDim) { this.k = new Float32Array(PAGE * kvDim); this.v = new Float32Array(PAGE * kvDim); this.refs = 1; this.ver = 0; }

  // Keys and values k, v of n positions from p into block l's pages of slot state s.
  function store(s, l, p, k, v, n, kvDim) {
    var pages = s.kv[l] || (s.kv[l] = []);
    for (var t = 0; t < n;) {
      var at = p + t, i = Math.floor(at / PAGE), o = at - i * PAGE, m = Math.min(n - t, PAGE - o), pg = pages[i];
      if (!pg) pg = pages[i] = new Page(kvDim);
      else if (pg.refs > 1) {
        var own = new Page(kvDim);
        own.k.set(pg.k); own.v.set(pg.v);
        pg.refs--;
        pg = pages[i] = own;
      }
      pg.k.set(k.subarray(t * kvDim, (t + m) * kvDim), o * kvDim);
      pg.v.set(v.subarray(t * kvDim, (t + m) * kvDim), o * kvDim);
      pg.ver++;
      t += m;
    }
  }

  // Positions 0..Tk-1 of a block's pages as one array of keys and one of values (into k and v when
  // they are long enough, else new ones): what the plain-JS attention and the other workers read.
  var KS = new Float32Array(0), VS = new Float32Array(0);
  function gather(pages, Tk, kvDim, k, v) {
    if (!k || k.length < Tk * kvDim) { k = new Float32Array(Tk * kvDim); v = new Float32Array(Tk * kvDim); }
    for (var i = 0; i * PAGE < Tk; i++) {
      var n = Math.min(PAGE, Tk - i * PAGE);
      k.set(pages[i].k.subarray(0, n * kvDim), i * PAGE * kvDim);
      v.set(pages[i].v.subarray(0, n * kvDim), i * PAGE * kvDim);
    }
    return { k: k, v: v };
  }

  // A prompt's attention over the workers: the heads are split between them (each head's arithmetic
  // the same wherever it runs, so no bit changes); one token's, or a model on one worker, runs here.
  var SPLIT_T = 16;  // tokens from which sending q, k and v to the others pays
  // s: the slot state whose block-l pages hold the keys and values; its knock-out's heads add nothing.
  Model.prototype.attend = async function (s, q, T, p0, l, att, headsOut, full) {
    var c = this.config, H = c.n_head, n = this.peers.length + 1, Tk = p0 + T;
    var m = { op: "attend", q: q, pages: s.kv[l], T: T, p0: p0, H: H, off: s.knockout.heads, lH: l * H, h0: 0, h1: H, heads: !!headsOut, full: !!full };
    if (n === 1 || T < SPLIT_T) { heads(this, m, att, headsOut, full); return; }
    var cut = function (p) { return Math.round(p * H / n); }, asks = [], kv = gather(m.pages, Tk, this.kvDim);
    for (var p = 1; p < n; p++) {
      var ask = Object.assign({}, m, { pages: null, k: kv.k, v: kv.v, h0: cut(p), h1: cut(p + 1) });
      asks.push(this.peers[p - 1].call(ask));
    }
    heads(this, Object.assign({}, m, { h1: cut(1) }), att, headsOut, full);
    var got = await Promise.all(asks), C = c.n_embd, hd = this.hd;
    for (p = 1; p < n; p++) {
      var a = cut(p) * hd, b = cut(p + 1) * hd, y = got[p - 1];
      for (var t = 0; t < T; t++) att.set(y[0].subarray(t * C + a, t * C + b), t * C + a);
      if (headsOut) headsOut.set(y[1].subarray(cut(p) * Tk, cut(p + 1) * Tk), cut(p) * Tk);
      if (full) full.set(y[headsOut ? 2 : 1].subarray(cut(p) * T * Tk, cut(p + 1) * T * Tk), cut(p) * T * Tk);
    }
  };

  // The products of one input x (T rows) with the listed matrices, [[name, y, bias], ...] (q, k and
  // v, or gate and up, share theirs): every peer is sent x once for the whole list and computes its
  // rows while this worker computes its own; each y is then assembled range by range, and the bias
  // added to the whole. A row's arithmetic is the same wherever it runs: the split changes no bit.
  // gated: the list is [[gate, ff], [up, u]] of a gated MLP, and ff becomes silu(gate) * up, each
  // worker gating its own rows (so the others send back one product, not two, and share the work).
  Model.prototype.mul = async function (list, x, T, gated) {
    var w = this.w, asks = null, i, t, y;
    if (this.peers.length) {
      var msg = { op: "mul", names: list.map(function (e) { return e[0]; }), x: x, T: T, gated: !!gated };
      asks = Promise.all(this.peers.map(function (p) { return p.call(msg); }));
    }
    var same = false;  // x's blocks' sums are kept from the first product that ran
    for (i = 0; i < list.length; i++) {
      t = w[list[i][0]]; y = list[i][1];
      if (t.parts && !t.rows) continue;
      if (!t.parts) matmul(t, x, T, y, null, same);
      else if (T === 1) matmul(t, x, 1, y.subarray(t.lo, t.lo + t.rows), null, same);
      else {
        if (this.mine.length < T * t.rows) this.mine = new Float32Array(T * t.rows);
        var mine = this.mine.subarray(0, T * t.rows);
        matmul(t, x, T, mine, null, same);
        place(mine, y, t.lo, t.rows, t.full, T);
      }
      same = true;
    }
    if (gated) {
      t = w[list[0][0]];
      if (t.rows === t.full) glu(list[0][1], list[1][1], 0, T * t.full, t.k);
      else for (var s = 0; s < T; s++) glu(list[0][1], list[1][1], s * t.full + t.lo, t.rows, t.k);
    }
    if (asks) {
      var got = await asks;
      for (var p = 0; p < got.length; p++) {
        for (i = 0; i < (gated ? 1 : list.length); i++) { t = w[list[i][0]]; var b = t.parts[p + 1]; place(got[p][i], list[i][1], b[0], b[1] - b[0], t.full, T); }
      }
    }
    for (i = 0; i < list.length; i++) {
      var bias = list[i][2], R = w[list[i][0]].full;
      if (bias) { y = list[i][1]; for (var tt = 0; tt < T; tt++) for (var r = 0; r < R; r++) y[tt * R + r] += bias[r]; }
    }
  };

  // n rows' outputs (T x n) into y (T x R) from row lo.
  function place(src, y, lo, n, R, T) {
    if (T === 1) { y.set(src, lo); return; }
    for (var t = 0; t < T; t++) y.set(src.subarray(t * n, (t + 1) * n), t * R + lo);
  }

  // Rows `ids` of an embedding (wte, wpe) as float32, asked of the workers that hold them.
  Model.prototype.lookup = async function (name, ids) {
    var t = this.w[name], cols = t.cols, out = new Float32Array(ids.length * cols), i;
    if (!t.parts) { for (i = 0; i < ids.length; i++) row(t, ids[i], out, i * cols); return out; }
    var asks = [];
    t.parts.forEach(function (b, p) {
      var at = [], here = [];
      for (i = 0; i < ids.length; i++) if (ids[i] >= b[0] && ids[i] < b[1]) { at.push(i); here.push(ids[i]); }
      if (!at.length) return;
      if (p === 0) { at.forEach(function (k, j) { row(t, here[j], out, k * cols); }); return; }
      asks.push(this.peers[p - 1].call({ op: "rows", name: name, ids: here }).then(function (got) {
        at.forEach(function (k, j) { out.set(got[0].subarray(j * cols, (j + 1) * cols), k * cols); });
      }));
    }, this);
    await Promise.all(asks);
    return out;
  };

  // ln_f, then the tied unembedding (or lm_head): logits of T residual vectors, row after row.
  Model.prototype.unembed = async function (x, T) {
    var c = this.config, n = new Float32Array(T * c.n_embd), logits = new Float32Array(T * c.vocab_size);
    if (this.llama) rmsnorm(x, T, c.n_embd, this.w["ln_f.weight"].f32, c.rms_eps, n);
    else layernorm(x, T, c.n_embd, this.w["ln_f.weight"].f32, this.w["ln_f.bias"].f32, c.ln_eps, n);
    await this.mul([[this.w["lm_head.weight"] ? "lm_head.weight" : "wte.weight", logits]], n, T);
    return logits;
  };

  // opts.every: each position's logits made EVERY_ROWS positions at a time and summed up at once (see
  // the header). A row's logits have the bits unembed gives it alone (a prompt read at once has
  // decode's bits), so the last row's summary reads out.logits' numbers. x: the T positions' residuals,
  // ids: their tokens.
  var EVERY_ROWS = 8;
  Model.prototype.everyPosition = async function (x, ids, T, k) {
    var C = this.config.n_embd, V = this.config.vocab_size;
    var out = { lse: new Float64Array(T), next: new Float32Array(T), top: new Int32Array(T * k), topLogits: new Float32Array(T * k) };
    for (var t0 = 0; t0 < T; t0 += EVERY_ROWS) {
      var n = Math.min(EVERY_ROWS, T - t0), logits = await this.unembed(x.subarray(t0 * C, (t0 + n) * C), n);
      for (var r = 0; r < n; r++) {
        var t = t0 + r, o = r * V, mx = -Infinity, z = 0, i, best = [];
        for (i = 0; i < V; i++) {
          var v = logits[o + i];
          if (v > mx) mx = v;
          if (best.length < k || v > logits[o + best[best.length - 1]]) {  // ties keep the lower id, as a stable sort
            var at = best.length;
            while (at > 0 && v > logits[o + best[at - 1]]) at--;
            best.splice(at, 0, i);
            if (best.length > k) best.pop();
          }
        }
        for (i = 0; i < V; i++) z += Math.exp(logits[o + i] - mx);
        out.lse[t] = mx + Math.log(z);
        out.next[t] = t + 1 < T ? logits[o + ids[t + 1]] : NaN;
        for (i = 0; i < k; i++) { out.top[t * k + i] = best[i]; out.topLogits[t * k + i] = logits[o + best[i]]; }
      }
    }
    return out;
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
    if (!(id >= 0 && id < V) || id % 1) return Promise.reject(new Error("token id " + id + " is outside the vocabulary (0-" + (V - 1) + ")"));
    return this.lookup(this.w["lm_head.weight"] ? "lm_head.weight" : "wte.weight", [id]);
  };

  // cos and sin of every rotary angle for positions p0..p0+T-1, as transformers computes them in
  // float32: [cos(t, i) for i < hd/2] then [sin(t, i)] per position.
  Model.prototype.turns = function (p0, T) {
    var half = this.hd / 2, out = new Float64Array(T * 2 * half);
    for (var t = 0; t < T; t++) {
      for (var i = 0; i < half; i++) {
        var ang = Math.fround(this.invFreq[i] * (p0 + t));
        out[t * 2 * half + i] = Math.fround(Math.cos(ang));
        out[t * 2 * half + half + i] = Math.fround(Math.sin(ang));
      }
    }
    return out;
  };

  return { Model: Model, Shard: Shard, Cancelled: Cancelled, layout: layout, storage: storage, tensors: tensors, matmul: matmul, row: row, f16: F16, CAP: CAP, SLOTS: SLOTS };
}

  // A page loads it through nexttoken's loader (later:real.workers's need); Node requires it. The worker
  // runs the factory's own source (workers.js), so the engine needs nothing from the page.
  if (root.nexttoken && root.nexttoken.define) root.nexttoken.define("real.engine", [], function () { return nexttokenRealEngine; });
  if (typeof module === "object" && module.exports) module.exports = nexttokenRealEngine;
})(typeof self !== "undefined" ? self : globalThis);
