// SmolLM2's stored distribution (data.smollm2-dist-<key>, scripts/site/distributions_js.py) as one logit
// per rank: real.bars.expand(d) -> Float64Array of d.vocab_size logits, most likely first. The head (the
// top ranks) is stored exactly; a tail bucket's ranks are spread evenly between its max and min logit,
// then shifted so their exp-sum matches the bucket's stored sum_exp (so T = 1 keeps each bucket's mass
// exactly; another temperature redraws the tail approximately).
nexttoken.define("real.bars", [], function () {
  "use strict";

  function expand(d) {
    var V = d.vocab_size, out = new Float64Array(V), i;
    var head = d.head.logits;
    for (i = 0; i < head.length; i++) out[i] = head[i];
    d.tail.buckets.forEach(function (b) {
      var s = 0, j, l;
      for (j = 0; j < b.count; j++) {
        l = b.count > 1 ? b.max_logit + (b.min_logit - b.max_logit) * j / (b.count - 1) : b.max_logit;
        out[b.start + j] = l;
        s += Math.exp(l - d.max_logit);
      }
      var shift = s > 0 && b.sum_exp > 0 ? Math.log(b.sum_exp / s) : 0;
      for (j = 0; j < b.count; j++) out[b.start + j] += shift;
    });
    return out;
  }

  // A token's text as the pages show it: a leading space as "·", a newline as "↵".
  function show(piece) { return piece.replace(/ /g, "·").replace(/\n/g, "↵"); }

  return { expand: expand, show: show };
});
