// Three ways to write with a real model's session (real/workers.js), side by side on one prompt:
// greedy (the most likely token, every time), sampling (a seeded draw under temperature, top-k and
// top-p: runtime/sampling.js's rules, as on the tiny model's pages) and beam search.
//
// decoding.write(session, ids, opts) -> {stop(), done: Promise<states>}
//   opts.writers   which to run: any of "greedy", "sample", "beam" (all three by default)
//   opts.maxNew    new tokens per writer (1 to CAP)
//   opts.sampling  {T, k, p, seed} for the sampler
//   opts.ends      token ids that end the text (end of text, end of turn): a writer stops after one
//   opts.slots     the session's cache slots: {greedy, sample, beam: [BEAMS of them]}
//   opts.knockout  parts of the model switched off for the whole text (engine.js's knock-out)
//   opts.from      a slot whose cache may already hold the prompt (the panel's pass): copied into the
//                  first writer's slot, so that only the tokens it lacks run (the engine's opts.reuse)
//   opts.onUpdate(name, state) as soon as a writer picks a token (before the engine computes what
//                  follows it), and once more when it is done (a writer still writing shows its
//                  step's time with its next token, picked in the same task as the step's answer)
// The prompt is run once, into the first writer's slot, and copied to the others' (copySlot, which
// shares the prompt's cache). Then each round every writer still writing picks its next token (beam
// search its beams' next tokens) and one engine call, session.step, reads them all, each slot over its
// own cache: the prompt kernels read each weight once for all the rows, so three writers cost little
// more than one. The copies (the prompt's to the other writers, a beam's to its second and third
// children) ride with the step that first reads them (session.step's opts.copies, made before any row
// runs): no call of their own. stop() takes effect within one call. A writer's ms is the time of the
// rounds it took part in (what the reader waited for its tokens).
//
// Beam search follows transformers' generate(num_beams=BEAMS, do_sample=False) with its defaults,
// length_penalty = 1 and early_stopping = False: at each step the (1 + number of end tokens) x BEAMS
// best continuations by summed log-probability are ranked; among the first BEAMS of them, one ending in
// an end token (or reaching maxNew) is set aside as finished with the score sum / its new tokens'
// count; the BEAMS best that did not finish run on. The search stops at maxNew, or when BEAMS are
// finished and the best running beam's sum over its length cannot beat the worst of them. The answer
// is the finished beam with the highest score.
nexttoken.define("runtime.decoding", ["runtime.sampling"], function (sampling) {
  "use strict";

  var BEAMS = 3;
  var CAP = 64;            // new tokens a reader may ask for: three writers at about a token a second each
  var LENGTH_PENALTY = 1;  // transformers' default: a finished beam's score is its sum over its length
  var NGRAM = 4;           // a token is marked as repeating when the run of this many ending at it came before

  function now() { return typeof performance !== "undefined" ? performance.now() : Date.now(); }

  // log of the softmax's sum: a token's log-probability is logits[id] - logSum(logits)
  function logSum(logits) {
    var n = logits.length, mx = -Infinity, i, z = 0;
    for (i = 0; i < n; i++) if (logits[i] > mx) mx = logits[i];
    for (i = 0; i < n; i++) z += Math.exp(logits[i] - mx);
    return mx + Math.log(z);
  }

  function logSoftmax(logits) {
    var n = logits.length, lz = logSum(logits), out = new Float64Array(n);
    for (var i = 0; i < n; i++) out[i] = logits[i] - lz;
    return out;
  }

  // The k largest values' indices, largest first (ties: the lower index first), in one pass. With
  // `minus`, the indices of the k largest values[i] - minus, each computed as logSoftmax computes it:
  // topK(logits, k, logSum(logits)) is topK(logSoftmax(logits), k) without its 49,152-long array.
  function topK(values, k, minus) {
    var ids = [], top = [], off = minus || 0, i, j;
    for (i = 0; i < values.length; i++) {
      var v = values[i] - off;
      if (ids.length === k && v <= top[k - 1]) continue;
      for (j = ids.length; j > 0 && top[j - 1] < v; j--);
      ids.splice(j, 0, i);
      top.splice(j, 0, v);
      if (ids.length > k) { ids.pop(); top.pop(); }
    }
    return ids;
  }

  // For each of ids[from..], whether the NGRAM tokens ending there occurred earlier in ids.
  function repeats(ids, from) {
    var seen = {}, out = [], n = NGRAM;
    for (var i = n - 1; i < ids.length; i++) {
      var key = ids.slice(i - n + 1, i + 1).join(",");
      if (i >= from) out.push(Object.prototype.hasOwnProperty.call(seen, key));
      seen[key] = true;
    }
    while (out.length < ids.length - from) out.unshift(false);
    return out;
  }

  function checkOpts(opts) {
    var maxNew = Number(opts.maxNew);
    if (!(maxNew >= 1 && maxNew <= CAP) || maxNew % 1) throw new Error("the length must be a whole number of tokens from 1 to " + CAP);
    var writers = opts.writers || ["greedy", "sample", "beam"];
    if (!writers.length) throw new Error("pick at least one way to write");
    writers.forEach(function (w) { if (["greedy", "sample", "beam"].indexOf(w) < 0) throw new Error("there is no writer called " + w); });
    return { maxNew: maxNew, writers: writers };
  }

  // A writer: pick(emit, copies) -> the [slot, token] rows the engine must read next (none once it is
  // done), after emit() has put its new tokens on the page; the [from, to] slot copies they need first
  // go on `copies`. take(results) gets those rows' answers.
  // One token at a time from the top of the distribution (greedy) or a draw from it (sample).
  function single(name, slot, o, logits, ends, pick) {
    var st = { name: name, ids: [], probs: [], done: false, why: null, ms: 0 };
    return {
      state: st,
      pick: function (emit) {
        var id = pick(logits);
        st.ids.push(id);
        st.probs.push(Math.exp(logits[id] - logSum(logits)));  // logSoftmax's number, without its 49,152 others
        if (ends.indexOf(id) >= 0) { st.done = true; st.why = "end"; return []; }
        if (st.ids.length >= o.maxNew) { st.done = true; st.why = "length"; return []; }
        emit();  // the token is on the page while the engine reads it
        return [[slot, id]];
      },
      take: function (got) { logits = got[0].logits; },
    };
  }

  function beam(slots, o, logits, ends) {
    var keep = Math.max(2, 1 + ends.length) * BEAMS;
    var running = [{ ids: [], sum: 0, slot: slots[0], logits: logits }];
    var st = { name: "beam", running: [], finished: [], best: null, ids: [], done: false, why: null, ms: 0, steps: 0 };
    function publish() {
      st.running = running.map(function (b) { return { ids: b.ids.slice(), sum: b.sum }; });
      st.ids = st.finished.length && st.done ? st.finished[0].ids : running[0].ids;
    }
    publish();
    return {
      state: st,
      pick: function (emit, copies) {
        var cands = [], i;
        running.forEach(function (b, bi) {
          var lz = logSum(b.logits);  // a token's log-probability is logits[id] - lz, as logSoftmax makes it
          topK(b.logits, keep, lz).forEach(function (id) { cands.push({ parent: bi, id: id, sum: b.sum + (b.logits[id] - lz) }); });
        });
        cands.sort(function (a, b) { return b.sum - a.sum || a.parent - b.parent || a.id - b.id; });
        cands = cands.slice(0, keep);
        var len = running[0].ids.length + 1, last = len >= o.maxNew, next = [];
        cands.forEach(function (c, rank) {
          var ends1 = last || ends.indexOf(c.id) >= 0;
          var ids = running[c.parent].ids.concat([c.id]);
          if (ends1 && rank < BEAMS) {
            st.finished.push({ ids: ids, sum: c.sum, score: c.sum / Math.pow(len, LENGTH_PENALTY), why: last && ends.indexOf(c.id) < 0 ? "length" : "end" });
          } else if (!ends1 && next.length < BEAMS) next.push({ parent: c.parent, id: c.id, ids: ids, sum: c.sum });
        });
        st.finished.sort(function (a, b) { return b.score - a.score; });
        st.finished = st.finished.slice(0, BEAMS);
        st.steps = len;
        var full = st.finished.length === BEAMS;
        var hopeless = full && next.length && next[0].sum / Math.pow(len, LENGTH_PENALTY) <= st.finished[BEAMS - 1].score;
        if (last || !next.length || hopeless) {
          st.done = true;
          st.why = last ? "length" : "settled";
          st.best = st.finished[0];
          if (next.length) running = next.map(function (b) { return { ids: b.ids, sum: b.sum, slot: null, logits: null }; });
          publish();
          return [];
        }
        // The first child of a beam keeps its cache slot; a second child gets a copy in the slot of
        // a beam that had none (copied before any child decodes, so every source is still intact).
        var taken = {}, need = [];
        next.forEach(function (b) {
          var parent = running[b.parent];
          if (!taken[b.parent]) { taken[b.parent] = true; b.slot = parent.slot; } else need.push(b);
        });
        var free = slots.filter(function (s) { return !next.some(function (b) { return b.slot === s; }); });
        for (i = 0; i < need.length; i++) {
          need[i].slot = free[i];
          copies.push([running[need[i].parent].slot, free[i]]);
        }
        running = next;
        publish();
        emit();  // the new beams are on the page while the engine reads their tokens
        return next.map(function (b) { return [b.slot, b.id]; });
      },
      take: function (got) { running.forEach(function (b, j) { b.logits = got[j].logits; }); },
    };
  }

  function write(session, ids, opts) {
    opts = opts || {};
    var stopFlag = false, handle = { stop: function () { stopFlag = true; } };
    handle.done = (async function () {
      var o = checkOpts(opts), ends = opts.ends || [], slots = opts.slots || { greedy: 1, sample: 2, beam: [3, 4, 5] };
      var s = opts.sampling || {};
      var first = o.writers[0] === "beam" ? slots.beam[0] : slots[o.writers[0]];
      var t0 = now();
      if (opts.from !== undefined && opts.from !== null && opts.from !== first) await session.copySlot(opts.from, first);
      var logits = (await session.prefill(ids, { slot: first, knockout: opts.knockout || undefined, reuse: true })).logits;
      var prefillMs = now() - t0, states = {}, list = [], copies = [];
      for (var i = 0; i < o.writers.length; i++) {
        var name = o.writers[i], slot = name === "beam" ? slots.beam[0] : slots[name];
        if (slot !== first) copies.push([first, slot]);  // made with the first step, before a beam's forks
        var w;
        if (name === "greedy") w = single(name, slot, o, logits, ends, function (l) { return sampling.argmax(l); });
        else if (name === "sample") {
          var rng = sampling.mulberry32(s.seed === undefined ? 1 : s.seed);
          var cut = { temperature: s.T === undefined ? 1 : s.T, topK: s.k || 0, topP: s.p === undefined ? 1 : s.p, rng: rng };
          w = single(name, slot, o, logits, ends, function (l) { return sampling.draw(l, cut); });  // sample's id, without its full sort
        } else w = beam(slots.beam, o, logits, ends);
        w.state.prefillMs = prefillMs;
        states[name] = w.state;
        list.push(w);
      }
      while (!stopFlag && list.some(function (w) { return !w.state.done; })) {
        var t1 = now(), rows = [], took = [];
        for (i = 0; i < list.length && !stopFlag; i++) {
          if (list[i].state.done) continue;
          var st = list[i].state, emit = opts.onUpdate ? opts.onUpdate.bind(null, st.name, st) : function () {};
          var want = list[i].pick(emit, copies);
          took.push({ w: list[i], at: rows.length, n: want.length, emit: emit });
          rows = rows.concat(want);
        }
        var got = rows.length && !stopFlag ? await session.step(rows, copies.length ? { copies: copies } : {}) : [];
        var ms = now() - t1;
        copies = [];
        took.forEach(function (t) {
          if (t.n && got.length) t.w.take(got.slice(t.at, t.at + t.n));
          t.w.state.ms += ms;
          if (t.w.state.done) t.emit();  // one still writing is drawn again by its next pick, before the page paints
        });
      }
      list.forEach(function (w) {
        if (!w.state.done) { w.state.done = true; w.state.why = "stopped"; if (opts.onUpdate) opts.onUpdate(w.state.name, w.state); }
      });
      return states;
    })();
    return handle;
  }

  return { write: write, logSoftmax: logSoftmax, topK: topK, repeats: repeats, BEAMS: BEAMS, CAP: CAP, NGRAM: NGRAM, LENGTH_PENALTY: LENGTH_PENALTY };
});
