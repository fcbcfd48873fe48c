// What the inside view reads off a pass, stored or live, besides the answer: what each head looks at,
// a head's whole pattern, each part's direct share of a token's logit. Pure functions (no page kit),
// so Node's tests run them; the rules are scripts/real/ablation.py's.
//
//   lab.KINDS: the kinds of key a head can look at, in order: first, self, previous, induction, other
//   lab.kindOf(shares) -> index into KINDS: the largest share, "other" when none reaches a third
//   lab.storedKinds(record) -> [layer][head] {shares, kind} from a stored lab record (data.smollm2-lab-*)
//   lab.liveKinds(kinds) -> the same from the engine's opts.kinds output ([layer] n_head x 5)
//   lab.pattern(record, layer, head) -> Float32Array T x T (query-major) from a stored record's patterns
//   lab.direct(direct, rows, target) -> {embedding, heads: [layer][head], mlp: [layer], total}: each part's
//     direct share of the target's logit (rows: the target's unembedding rows, one, or two for a
//     difference) from the engine's opts.direct output: part . (gamma scale row); the final norm's scale
//     is the whole pass's, held fixed, so the shares add up to the logit
nexttoken.define("real.lab", [], function () {
  "use strict";

  var KINDS = ["first", "self", "previous", "induction", "other"];

  function kindOf(shares) {
    var best = 0;
    for (var k = 1; k < KINDS.length; k++) if (shares[k] > shares[best]) best = k;
    return shares[best] < 1 / 3 ? KINDS.length - 1 : best;
  }

  function storedKinds(rec) {
    return rec.kinds.shares.map(function (layer, l) {
      return layer.map(function (s, h) { return { shares: s, kind: rec.kinds.kind[l][h] }; });
    });
  }

  function liveKinds(kinds) {
    return kinds.map(function (flat) {
      var out = [];
      for (var h = 0; h < flat.length / KINDS.length; h++) {
        var s = Array.prototype.slice.call(flat, h * KINDS.length, (h + 1) * KINDS.length);
        out.push({ shares: s, kind: kindOf(s) });
      }
      return out;
    });
  }

  var cache = { rec: null, bytes: null };
  function pattern(rec, layer, head) {
    var T = rec.ids.length, H = rec.kinds.kind[0].length, tri = T * (T + 1) / 2;
    if (cache.rec !== rec) {
      var bin = atob(rec.patterns.data), u8 = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
      cache = { rec: rec, bytes: new Uint16Array(u8.buffer) };
    }
    var q = cache.bytes, o = (layer * H + head) * tri, out = new Float32Array(T * T), scale = rec.patterns.scale;
    for (var r = 0, k = o; r < T; r++) for (var j = 0; j <= r; j++) out[r * T + j] = q[k++] / scale;
    return out;
  }

  function direct(d, rows, target) {
    var C = d.gamma.length, u = new Float64Array(C), i;
    for (i = 0; i < C; i++) u[i] = d.gamma[i] * d.scale * (rows[0][i] - (target.ids.length === 2 ? rows[1][i] : 0));
    function share(v, o) { var s = 0; for (var j = 0; j < C; j++) s += v[o + j] * u[j]; return s; }
    var out = { embedding: share(d.embedding, 0), heads: [], mlp: [] }, total = out.embedding;
    d.heads.forEach(function (a) {
      var row = [];
      for (var h = 0; h < a.length / C; h++) { var s = share(a, h * C); row.push(s); total += s; }
      out.heads.push(row);
    });
    d.mlp.forEach(function (a) { var s = share(a, 0); out.mlp.push(s); total += s; });
    out.total = total;
    return out;
  }

  return { KINDS: KINDS, kindOf: kindOf, storedKinds: storedKinds, liveKinds: liveKinds, pattern: pattern, direct: direct };
});
