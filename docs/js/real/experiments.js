// The arithmetic of the experiments page (docs/real-experiments.md), apart from any drawing, so Node's
// tests run it (tests/js/real-experiments.test.js): the same seeded choices as the build's stage
// (scripts/real/experiments.py: mulberry32, the token pool, the random heads, the shuffle), a pass's
// per-token losses from the engine's opts.every summary, perplexity, multiply-adds, and the rules
// the stage states (the first lens row where the answer leads, the question whose steps help most).
// Positions count from 0; losses[t] is the loss of token t + 1 (-ln p, in nats).
nexttoken.define("real.experiments", ["runtime.sampling"], function (sampling) {
  "use strict";
  var mulberry32 = sampling.mulberry32;

  // The ids whose stored token (byte-level, "Ġ" for a space) matches the stage's pattern, in id order.
  function pool(tokens, pattern) {
    var rx = new RegExp(pattern), out = [];
    for (var i = 0; i < tokens.length; i++) if (rx.test(tokens[i])) out.push(i);
    return out;
  }

  function sequence(ids, seed, n) {
    var r = mulberry32(seed), out = [];
    for (var i = 0; i < n; i++) out.push(ids[Math.floor(r() * ids.length)]);
    return out;
  }

  // The copying prompt: the start token, then the sequence twice. Its copies' scored positions (each
  // copy's first token cannot be guessed): losses[first] and losses[second].
  function copyPrompt(start, seq) { return [start].concat(seq, seq); }
  function copySlices(n) { return { first: [1, n], second: [n + 1, 2 * n] }; }

  // k distinct heads drawn with mulberry32(seed), none of `skip` ([[layer, head]...]), sorted block-major.
  function randomHeads(seed, k, nLayer, nHead, skip) {
    var r = mulberry32(seed), taken = {}, out = [];
    (skip || []).forEach(function (lh) { taken[lh[0] * nHead + lh[1]] = true; });
    if (k > nLayer * nHead - Object.keys(taken).length) throw new Error("cannot draw " + k + " heads outside the " + Object.keys(taken).length + " switched off");
    while (out.length < k) {
      var i = Math.floor(r() * nLayer * nHead);
      if (!taken[i]) { taken[i] = true; out.push([Math.floor(i / nHead), i % nHead]); }
    }
    return out.sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
  }

  // The text's words (split at spaces) in a Fisher-Yates order drawn with mulberry32(seed).
  function shuffleWords(text, seed) {
    var words = text.split(/\s+/).filter(Boolean), r = mulberry32(seed);
    for (var i = words.length - 1; i > 0; i--) {
      var j = Math.floor(r() * (i + 1)), w = words[i];
      words[i] = words[j]; words[j] = w;
    }
    return words.join(" ");
  }

  // The engine's every-position summary (engine.js opts.every) as losses and what was expected:
  // {losses: [T - 1], expected: [T] [{id, prob}...]} (k tokens each, most likely first).
  function perToken(every, T) {
    var k = every.top.length / T, losses = [], expected = [];
    for (var t = 0; t < T; t++) {
      if (t + 1 < T) losses.push(every.lse[t] - every.next[t]);
      var row = [];
      for (var i = 0; i < k; i++) row.push({ id: every.top[t * k + i], prob: Math.exp(every.topLogits[t * k + i] - every.lse[t]) });
      expected.push(row);
    }
    return { losses: losses, expected: expected };
  }

  function mean(xs, from, to) {
    from = from || 0; to = to === undefined ? xs.length : to;
    var s = 0;
    for (var i = from; i < to; i++) s += xs[i];
    return s / (to - from);
  }

  function perplexity(losses) { return Math.exp(mean(losses)); }

  // The positions (from 0) of the k largest losses, largest first (ties: the earlier first).
  function worst(losses, k) {
    return losses.map(function (l, i) { return i; }).sort(function (a, b) { return losses[b] - losses[a] || a - b; }).slice(0, k);
  }

  // Multiply-adds of reading T tokens: every matrix once per token, and each token's attention over
  // itself and the tokens before it (perKey per block, heads and layers together).
  function macs(T, cost) { return T * cost.matrices + cost.attention_per_key * T * (T + 1) / 2; }

  // The first lens row where the answer is the most likely token, or null.
  function leads(rows) {
    for (var i = 0; i < rows.length; i++) if (rows[i].rank === 1) return rows[i].layer;
    return null;
  }

  // The answer's rank among logits (1: the most likely).
  function rank(logits, id) {
    var n = 1;
    for (var i = 0; i < logits.length; i++) if (logits[i] > logits[id]) n++;
    return n;
  }

  function softmaxAt(logits, id) {
    var mx = -Infinity, z = 0, i;
    for (i = 0; i < logits.length; i++) if (logits[i] > mx) mx = logits[i];
    for (i = 0; i < logits.length; i++) z += Math.exp(logits[i] - mx);
    return Math.exp(logits[id] - mx) / z;
  }

  function argmax(logits) {
    var best = 0;
    for (var i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
    return best;
  }

  // How many times a letter stands in a word (the truth the model's answer is checked against).
  function count(word, letter) {
    if (!letter) return 0;
    return word.split(letter).length - 1;
  }

  return { pool: pool, sequence: sequence, copyPrompt: copyPrompt, copySlices: copySlices, randomHeads: randomHeads,
           shuffleWords: shuffleWords, perToken: perToken, mean: mean, perplexity: perplexity, worst: worst, macs: macs,
           leads: leads, rank: rank, softmaxAt: softmaxAt, argmax: argmax, count: count };
});
