// Three ways to write, side by side, with the real model the panel above loaded: greedy, sampling
// (the panel's temperature, top-k, top-p and seed) and beam search, each token shown as it is picked, with a
// Stop button (runtime/decoding.js does the writing). Reads the store's "real.model" ({session,
// tokenizer, config}), "real.pass" (the prompt's ids, and its knock-out) and "real.sampling" ({T, k,
// p, seed}); one status line says why it cannot write yet, what it is writing, or how it ended.
// Its state is in the page's link (js/ui/permalink.js): the length, the writers ticked, the prompt,
// the cuts and seed, and whether it wrote; a link's prompt, cuts and seed reach the bars through
// "real.writers-link" (they take them as a link to them would), and a link that wrote writes again
// once the model has run its prompt. Its downloads: each step's token and probability, the beams.
// Every written token opens its step (one tab stop per text, arrow keys between its tokens, Enter):
// the model run again on the text up to it (cache slot STEP_SLOT), that step's top 10 at temperature 1
// before any cut, the chosen token's probability and rank, the token the inside view follows
// ("real.target") at that step, and the logit lens there.
nexttoken.define("demos.real-writers", ["ui", "store", "ui.real-badge", "runtime.decoding", "real.sweep", "ui.permalink"], function (ui, store, badge, decoding, sweep, permalink) {
  "use strict";

  var el = ui.el;
  var SLOTS = { greedy: 1, sample: 2, beam: [3, 4, 5] };  // slot 0 stays the panel's own pass
  var STEP_SLOT = 6;  // a written token's step, run again (real.sweep runs in 7)
  var END_TEXTS = ["<|im_end|>", "<|endoftext|>"];
  var NAMES = { greedy: "Greedy", sample: "Sampling", beam: "Beam search" };

  function show(text) { return text.replace(/\n/g, "↵\n"); }

  // The end tokens of this tokenizer: its end-of-text id and each END_TEXTS that is one special token.
  function endIds(tok) {
    var out = tok.eosId === null || tok.eosId === undefined ? [] : [tok.eosId];
    END_TEXTS.forEach(function (t) {
      var r = tok.encode(t);
      if (r.ok && r.ids.length === 1 && r.pieces[0].special && out.indexOf(r.ids[0]) < 0) out.push(r.ids[0]);
    });
    return out;
  }

  // A continuation as spans, one per written token (tokens that end mid-character joined until the
  // text is whole), each naming its step (data-step, from 0): a token that repeats earlier text is
  // tinted, its tooltip naming what it repeats; an end token is a chip. Returned as {key, make(), end}:
  // make() builds the span, key says all that it sets (so put() can keep a span already drawn), end is
  // the index of the token after it. With `was`, an earlier call's answer for the same prompt, its
  // items that end before the first token where its ids and these differ are kept as they are: each
  // depends only on the tokens before its end, so a text that grows by a token redoes only its last.
  function spans(tok, promptIds, ids, ends, was) {
    var p = 0, keep = 0;
    if (was) {
      while (p < was.ids.length && p < ids.length && was.ids[p] === ids[p]) p++;
      while (keep < was.length && was[keep].end < p) keep++;
    }
    var out = was ? was.slice(0, keep) : [], start = keep ? out[keep - 1].end : 0, group = [], first = start, i;
    var all = promptIds.concat(ids), marks = decoding.repeats(all, promptIds.length + start);  // marks[j]: token start + j
    function flush(end) {
      if (!group.length) return;
      var text = tok.decode(group), rep = marks[first - start], at = first, attrs = { class: "nt-wtok" + (rep ? " nt-repeat" : ""), text: text, "data-step": String(first), tabindex: "-1" };
      if (rep) {  // the NGRAM tokens ending here: the text seen before
        var from = Math.max(0, promptIds.length + first - decoding.NGRAM + 1);
        attrs.title = "repeats “" + tok.decode(all.slice(from, promptIds.length + end)).replace(/\n/g, "↵") + "”, written before";
      }
      out.push({ key: [attrs.class, at, text, attrs.title || ""].join("\u0000"), make: function () { return el("span", attrs); }, end: end });
      group = [];
    }
    function chip(at, code) {
      out.push({ key: ["end", at, code].join("\u0000"), end: at + 1, make: function () {
        return el("span", { class: "nt-chip nt-end nt-wtok", title: "end of text: the writer stops here", "data-step": String(at), tabindex: "-1" }, [el("code", { text: code })]);
      } });
    }
    for (i = start; i < ids.length; i++) {
      var id = ids[i];
      if (ends.indexOf(id) >= 0) {
        flush(i);
        chip(i, tok.pieces([id])[0].token);
        continue;
      }
      if (group.length && tok.decode(group).indexOf("\uFFFD") < 0) flush(i);
      if (!group.length) first = i;
      group.push(id);
    }
    flush(ids.length);
    out.ids = ids.slice();
    return out;
  }

  // host's token spans become spans(...)'s: the ones already drawn that stay the same are kept (a new
  // token appends a span instead of redrawing the text), so the page lays out and paints only what
  // changed while the engine computes the next step. Other children (a beam's score) stay first.
  var keyOf = new WeakMap();
  function put(host, items) {
    var have = Array.prototype.filter.call(host.childNodes, function (n) { return keyOf.has(n); }), i = 0, j;
    while (i < have.length && i < items.length && keyOf.get(have[i]) === items[i].key) i++;
    for (j = have.length - 1; j >= i; j--) host.removeChild(have[j]);
    for (; i < items.length; i++) {
      var node = items[i].make();
      keyOf.set(node, items[i].key);
      host.appendChild(node);
    }
  }

  // A text of the run ctx in host: its spans, from the ones host last showed for the same run.
  var shown = new WeakMap();  // host -> {ctx, items}
  function drawText(host, ctx, ids) {
    var last = shown.get(host), items = spans(ctx.tok, ctx.ids, ids, ctx.ends, last && last.ctx === ctx ? last.items : null);
    shown.set(host, { ctx: ctx, items: items });
    put(host, items);
  }

  // How long the run of repeated tokens at the end is (a loop shows as a long one).
  function loopTail(promptIds, ids) {
    var marks = decoding.repeats(promptIds.concat(ids), promptIds.length), n = 0;
    for (var i = marks.length - 1; i >= 0 && marks[i]; i--) n++;
    return n;
  }

  var WHY = { length: "reached the length", end: "wrote an end-of-text token", stopped: "stopped", settled: "no running beam could beat the finished ones" };
  var SEARCH_WHY = { length: "it reached the length", stopped: "you pressed Stop", settled: "no running beam could beat the finished ones", end: "every beam ended" };

  ui.start("real-writers", function (root, live) {
    var msg = ui.message();
    var lengthIn = el("input", { type: "number", min: "1", max: String(decoding.CAP), step: "1", value: "16", class: "nt-input nt-input-short", "data-role": "length" });
    var lengthField = ui.field("New tokens (1 to " + decoding.CAP + ")", lengthIn);
    var picks = {};
    ["greedy", "sample", "beam"].forEach(function (n) { picks[n] = ui.checkbox(NAMES[n], true, function () {}); });
    var writeBtn = ui.button("Write", function () { start(); }, { primary: true });
    var stopBtn = ui.button("Stop", function () { if (run) run.stop(); });
    writeBtn.setAttribute("data-role", "write");
    stopBtn.setAttribute("data-role", "stop");
    var promptLine = el("p", { class: "nt-note", "data-role": "prompt" });
    var settingsLine = el("p", { class: "nt-note", "data-role": "settings" });
    var state_ = badge(), statusText = el("span", { "data-role": "status-text" });
    var status = el("p", { class: "nt-small nt-writers-status", "aria-live": "polite", "data-role": "status", id: "nt-writers-status" }, [state_.node, statusText]);
    var grid = el("div", { class: "nt-writers", hidden: true });
    var cols = {};
    ["greedy", "sample", "beam"].forEach(function (n) {
      var rule = { greedy: "the most likely token, every time", sample: "a seeded draw from the cut distribution",
        beam: decoding.BEAMS + " beams ranked by summed log-probability; the answer divides by the length" }[n];
      var c = { text: el("p", { class: "nt-wtext", "data-role": "text", role: "group", "aria-label": NAMES[n] + "'s text: each token opens its step (arrow keys, Enter)" }),
        stat: el("p", { class: "nt-hint", "data-role": "stat" }), step: el("div", { class: "nt-wstep", "data-role": "step", "aria-live": "polite" }) };
      c.box = el("section", { class: "nt-writer", "data-writer": n, "aria-label": NAMES[n] }, [
        el("h3", { text: NAMES[n] }), el("p", { class: "nt-hint", text: rule }), c.text, c.stat]);
      tokens(c, n, c.text, function () { return held[n] ? held[n].ids : []; });
      if (n === "beam") { c.beams = el("ol", { class: "nt-beams", "data-role": "beams" }); c.box.appendChild(c.beams); }
      c.box.appendChild(c.step);
      cols[n] = c;
      grid.appendChild(c.box);
    });
    live.appendChild(promptLine);
    live.appendChild(settingsLine);
    live.appendChild(el("div", { class: "nt-controls" }, [lengthField, picks.greedy.wrap, picks.sample.wrap, picks.beam.wrap]));
    live.appendChild(el("div", { class: "nt-controls nt-buttons" }, [writeBtn, stopBtn]));
    live.appendChild(status);
    live.appendChild(msg.node);
    live.appendChild(grid);
    var key = el("p", { class: "nt-hint", hidden: true }, [el("span", { class: "nt-wtok nt-repeat", text: "Tinted text" }),
      " repeats a run of " + decoding.NGRAM + " or more tokens written before it (hover it: its tooltip says what); a long tinted tail is a loop."]);
    live.appendChild(key);
    writeBtn.setAttribute("aria-describedby", status.id);
    stopBtn.hidden = true;
    var said = "";  // the last run's ending, kept until the prompt changes

    var run = null;
    var held = {}, heldCtx = null, wrote = false, pending = null;  // the last run's states; a link's run, waiting

    var panel = !!document.querySelector('.nt-demo[data-demo="real-ask"]');  // none on the embed page
    function model() { return store.get("real.model") || null; }
    function pass() { return store.get("real.pass") || null; }
    function sampling() {
      var s = store.get("real.sampling") || {};
      return { T: s.T === undefined ? 1 : s.T, k: s.k || 0, p: s.p === undefined ? 1 : s.p, seed: s.seed === undefined ? 1 : s.seed };
    }

    function tell(text) { statusText.textContent = text; }
    function refresh() {
      var m = model(), p = pass(), s = sampling();
      settingsLine.textContent = "Sampling with the panel's settings: temperature " + s.T + ", top-k " + (s.k ? s.k : "off") +
        ", top-p " + (s.p >= 1 ? "off" : s.p) + ", seed " + s.seed + ".";
      if (p) {
        var text = p.text.length > 160 ? "…" + p.text.slice(-160) : p.text;
        promptLine.textContent = "Prompt (" + p.ids.length + " tokens" + (p.knockout && ((p.knockout.heads || []).length || (p.knockout.mlp || []).length) ? ", with the panel's knock-out" : "") + "): " + show(text);
      } else promptLine.textContent = "";
      promptLine.hidden = !promptLine.textContent;
      state_.set(m && p ? badge.of(p) : null);
      stopBtn.hidden = !run;
      if (run) { writeBtn.disabled = true; return; }
      writeBtn.disabled = !m || !p;
      if (!m && !panel) tell("The writers run the model that the panel on their page loads: open the page (linked below) to write.");
      else if (!m) tell("Load the model in the panel above first: the writers run it in your browser.");
      else if (!p) tell("Run a prompt in the panel above first: the writers continue it.");
      else tell(said || "Press Write: each ticked writer continues the prompt.");
    }

    function render(name, st, ctx) {
      var c = cols[name];
      drawText(c.text, ctx, st.ids);
      rovingStart(c.text);
      var n = name === "beam" ? st.steps : st.ids.length, secs = st.ms / 1000, answer = name === "beam" && st.done && st.finished.length ? st.finished[0] : null;
      var parts = answer ? ["the answer, the beam kept: " + answer.ids.length + " token" + (answer.ids.length === 1 ? "" : "s") + ", " + (answer.why === "end" ? "ended by an end-of-text token" : "cut at the length"),
        "the search ran " + n + " step" + (n === 1 ? "" : "s") + " and stopped because " + (SEARCH_WHY[st.why] || st.why)] : [n + " token" + (n === 1 ? "" : "s")];
      if (n && secs > 0) parts.push((n / secs).toFixed(2) + " " + (name === "beam" ? "steps" : "tokens") + "/s");  // the rounds it took part in (the writers share each engine call)
      var tail = loopTail(ctx.ids, st.ids);
      if (tail >= decoding.NGRAM * 2) parts.push("the last " + tail + " tokens repeat earlier text: a loop");
      if (st.done && !answer) parts.push(WHY[st.why] || st.why);
      c.stat.textContent = parts.join(" · ") + ".";
      c.box.setAttribute("data-tokens", String(n));
      c.box.setAttribute("data-ms", st.ms.toFixed(1));
      c.box.setAttribute("data-ids", JSON.stringify(st.ids));
      if (st.probs) c.box.setAttribute("data-probs", JSON.stringify(st.probs));
      held[name] = st;
      heldCtx = ctx;
      if (st.done) c.box.setAttribute("data-why", st.why); else c.box.removeAttribute("data-why");
      if (name === "beam") renderBeams(c, st, ctx);
    }

    // The beams' list: each running beam, then each finished one. A row already drawn for a beam of
    // the same kind is kept and updated (its score, its spans by put), so only what changed is redrawn.
    var beamOf = new WeakMap();  // a row -> {kind, ids}: what it shows
    function renderBeams(c, st, ctx) {
      var rows = (st.done ? [] : st.running).map(function (b, i) {
        return { kind: "running", cls: "nt-beam", attr: "data-sum", value: b.sum.toFixed(4), ids: b.ids,
          score: "running " + (i + 1) + ": Σ log p = " + b.sum.toFixed(2).replace("-", "−") + " " };
      }).concat(st.finished.map(function (b, i) {
        var best = st.done && i === 0;
        return { kind: "finished", cls: "nt-beam nt-beam-done" + (best ? " nt-beam-best" : ""), attr: "data-score", value: b.score.toFixed(4), ids: b.ids,
          score: (best ? "answer" : "finished") + ": Σ log p = " + b.sum.toFixed(2).replace("-", "−") + ", ÷ " + b.ids.length + " tokens = " + b.score.toFixed(3).replace("-", "−") + " " };
      }));
      var drawn = Array.prototype.slice.call(c.beams.children);
      rows.forEach(function (r, i) {
        var li = drawn[i];
        if (!li || beamOf.get(li).kind !== r.kind) {
          var fresh = el("li", { class: r.cls }), mine = fresh;
          fresh.setAttribute(r.attr, r.value);
          fresh.appendChild(el("span", { class: "nt-beam-score", text: r.score }));
          tokens(c, "beam", fresh, function () { return beamOf.get(mine).ids; });
          if (li) c.beams.replaceChild(fresh, li); else c.beams.appendChild(fresh);
          li = fresh;
        } else {
          if (li.getAttribute("class") !== r.cls) li.setAttribute("class", r.cls);
          if (li.getAttribute(r.attr) !== r.value) li.setAttribute(r.attr, r.value);
          if (li.firstChild.textContent !== r.score) li.firstChild.textContent = r.score;
        }
        beamOf.set(li, { kind: r.kind, ids: r.ids });
        drawText(li, ctx, r.ids);
        rovingStart(li);
      });
      for (var i = drawn.length - 1; i >= rows.length; i--) c.beams.removeChild(drawn[i]);
    }

    // A text's tokens as one tab stop: arrow keys move between them, Enter or a click opens the step.
    // idsOf() -> the ids the text shows (a beam's own, for the beams' list).
    function tokens(c, name, host, idsOf) {
      host.addEventListener("click", function (e) {
        var t = e.target.closest ? e.target.closest("[data-step]") : null;
        if (t && host.contains(t)) { focusToken(host, t); openStep(c, name, idsOf(), Number(t.getAttribute("data-step"))); }
      });
      host.addEventListener("keydown", function (e) {
        var all = Array.prototype.slice.call(host.querySelectorAll("[data-step]")), at = all.indexOf(document.activeElement);
        if (!all.length) return;
        if (e.key === "Enter" || e.key === " ") { if (at >= 0) { e.preventDefault(); openStep(c, name, idsOf(), Number(all[at].getAttribute("data-step"))); } return; }
        var next = e.key === "ArrowRight" ? at + 1 : e.key === "ArrowLeft" ? at - 1 : e.key === "Home" ? 0 : e.key === "End" ? all.length - 1 : null;
        if (next === null) return;
        e.preventDefault();
        focusToken(host, all[Math.max(0, Math.min(all.length - 1, next))]);
      });
    }
    function focusToken(host, t) {
      Array.prototype.forEach.call(host.querySelectorAll("[data-step]"), function (x) { x.setAttribute("tabindex", "-1"); });
      t.setAttribute("tabindex", "0");
      t.focus();
    }
    function rovingStart(host) {
      var first = host.querySelector("[data-step]");
      if (first && !host.querySelector('[data-step][tabindex="0"]')) first.setAttribute("tabindex", "0");
    }
    function topOf(logits, n) {
      var mx = -Infinity, z = 0, i, best = [];
      for (i = 0; i < logits.length; i++) if (logits[i] > mx) mx = logits[i];
      for (i = 0; i < logits.length; i++) z += Math.exp(logits[i] - mx);
      for (i = 0; i < logits.length; i++) {
        if (best.length < n || logits[i] > logits[best[best.length - 1]]) {
          best.push(i);
          best.sort(function (a, b) { return logits[b] - logits[a]; });
          if (best.length > n) best.pop();
        }
      }
      return best.map(function (id) { return { id: id, prob: Math.exp(logits[id] - mx) / z }; });
    }
    // Step s of a text: the model run on the prompt and the text's first s tokens, in its own cache slot.
    var stepGen = 0;
    function openStep(c, name, ids, s) {
      var m = model(), ctx = heldCtx, p = pass();
      if (!m || !ctx || s >= ids.length) return;
      var gen = ++stepGen, chosen = ids[s], tok = ctx.tok;
      function piece(id) { return tok.decode([id]).replace(/ /g, "·").replace(/\n/g, "↵"); }
      ui.clear(c.step);
      c.step.appendChild(el("p", { class: "nt-note", text: "Step " + (s + 1) + ": running the model on the prompt and the " + s + " token" + (s === 1 ? "" : "s") + " before “" + piece(chosen) + "”…" }));
      m.session.prefill(ctx.ids.concat(ids.slice(0, s)), { slot: STEP_SLOT, lens: true, knockout: (p && p.knockout) || null }).then(function (r) {
        if (gen !== stepGen) return;
        var mine = sweep.metric(r.logits, { ids: [chosen] }), top = topOf(r.logits, 10), t = store.get("real.target");
        ui.clear(c.step);
        c.step.setAttribute("data-step", String(s));
        c.step.appendChild(el("p", { class: "nt-x-title", text: NAMES[name] + ", step " + (s + 1) + ": “" + piece(chosen) + "”" }));
        c.step.appendChild(el("p", { class: "nt-readout", "data-role": "step-chosen", "data-prob": String(mine.prob), "data-rank": String(mine.rank),
          text: "It had " + ui.pct(mine.prob, 2) + " in the model's distribution (rank " + ui.count(mine.rank) + ", at temperature 1 before any cut)" +
            (name === "sample" ? "; the sampler drew it after the panel's temperature and cuts." : name === "beam" ? "; beam search keeps sums of log-probabilities, not single picks." : ".") }));
        c.step.appendChild(ui.bars(top.map(function (x) {
          return { label: piece(x.id), value: x.prob, text: ui.pct(x.prob, 1), cls: x.id === chosen ? "nt-bar-target" : null, data: { id: x.id, prob: x.prob } };
        }), { label: "The top 10 at step " + (s + 1) }));
        if (t) {
          var tm = sweep.metric(r.logits, t), names = t.ids.map(piece);  // t.pieces are text, piece() reads ids
          c.step.appendChild(el("p", { class: "nt-readout", "data-role": "step-target", text: t.ids.length === 1 ? "Your token " + names[0] + " here: " + ui.pct(tm.prob, 2) + " (rank " + ui.count(tm.rank) + ")." :
            "Your pair " + names[0] + " − " + names[1] + " here: logit difference " + ui.fix(tm.diff, 2) + "." }));
        }
        var body = el("tbody");
        (r.lens || []).forEach(function (lg, l) {
          var b = topOf(lg, 1)[0], tr = el("tr", null, [el("th", { scope: "row", text: "block " + (l + 1) }), el("td", null, [el("code", { text: piece(b.id) }), " " + ui.pct(b.prob, 1)])]);
          tr.appendChild(el("td", { text: ui.pct(sweep.metric(lg, { ids: [chosen] }).prob, 1) }));
          body.appendChild(tr);
        });
        var det = el("details", { class: "nt-fold" }, [el("summary", { text: "The logit lens at this step" }),
          el("div", { class: "nt-table-wrap" }, [el("table", { class: "nt-table nt-lens-table" }, [el("thead", null, [el("tr", null, [el("th", { scope: "col", text: "after" }),
            el("th", { scope: "col", text: "top guess" }), el("th", { scope: "col", text: "“" + piece(chosen) + "”" })])]), body])])]);
        c.step.appendChild(det);
      }).catch(function (err) { if (gen === stepGen) { ui.clear(c.step); msg.show(err.message, "error"); } });  // a failed drawing too, not half a step
    }

    function start() {
      msg.clear();
      var m = model(), p = pass();
      if (!m || !p || run) return;
      var maxNew = Number(lengthIn.value);
      if (!(maxNew >= 1 && maxNew <= decoding.CAP) || maxNew % 1) {
        msg.show("The length must be a whole number of tokens from 1 to " + decoding.CAP + ".", "error");
        return;
      }
      var writers = ["greedy", "sample", "beam"].filter(function (n) { return picks[n].input.checked; });
      if (!writers.length) { msg.show("Tick at least one way to write.", "error"); return; }
      var ctx = { tok: m.tokenizer, ids: Array.from(p.ids), ends: endIds(m.tokenizer) };
      ["greedy", "sample", "beam"].forEach(function (n) {
        var c = cols[n];
        ui.clear(c.text);
        if (c.beams) ui.clear(c.beams);
        ["data-tokens", "data-ms", "data-ids", "data-probs", "data-why"].forEach(function (a) { c.box.removeAttribute(a); });
        c.box.hidden = writers.indexOf(n) < 0;
        c.stat.textContent = writers.indexOf(n) < 0 ? "" : "waiting for the prompt's pass…";
      });
      root.removeAttribute("data-done");
      held = {};
      wrote = true;
      grid.hidden = false;
      key.hidden = false;
      var t0 = performance.now();
      said = "";
      ["greedy", "sample", "beam"].forEach(function (n) { ui.clear(cols[n].step); });
      var started = sig(p);
      var mine = run = decoding.write(m.session, ctx.ids, {
        writers: writers, maxNew: maxNew, sampling: sampling(), ends: ctx.ends, slots: SLOTS, from: 0,  // the panel's pass is in slot 0
        knockout: p.knockout || null,
        onUpdate: function (name, st) { if (run === mine) render(name, st, ctx); },
      });
      refresh();
      tell("Writing up to " + maxNew + " tokens with " + writers.map(function (n) { return NAMES[n].toLowerCase(); }).join(", ") + "…");
      mine.done.then(function (states) {
        var secs = (performance.now() - t0) / 1000;
        if (sig(pass()) === started) said = "Done in " + secs.toFixed(1) + " s (the prompt's pass " + (states[writers[0]].prefillMs / 1000).toFixed(1) + " s).";
      }, function (err) {
        msg.show(err.message, "error");
        said = "The writers stopped: see the line below.";
      }).then(function () {
        if (run === mine) run = null;
        root.setAttribute("data-done", "");
        refresh();
      });
    }

    store.subscribe("real.model", refresh);
    store.subscribe("real.sampling", refresh);
    // A new prompt or knock-out stops the writers; the same pass run again for the inside view does not.
    var seen = null;
    function sig(p) { return p ? JSON.stringify([p.ids, p.knockout]) : ""; }
    store.subscribe("real.pass", function (p) {
      var now = sig(p), changed = now !== seen;
      seen = now;
      if (changed) {
        said = "";
        wrote = false;
        if (run) { run.stop(); msg.show("The prompt changed, so the writers stopped: press Write for the new one.", "info"); }
      }
      refresh();
      // a link that wrote: once the model has run its prompt, it writes again
      if (pending && p && model() && !run && p.text === pending.text && !!p.chat === pending.chat) { pending = null; start(); }
    });
    seen = sig(pass());
    refresh();

    var WRITERS = ["greedy", "sample", "beam"];
    permalink.join(root, live, {
      fields: { len: permalink.int(1, decoding.CAP), greedy: permalink.flag(), sample: permalink.flag(), beam: permalink.flag(),
        text: permalink.text(2000), chat: permalink.flag(), T: permalink.num(0.1, 3), k: permalink.int(0, 2000), p: permalink.num(0.05, 1),
        seed: permalink.int(0, 4294967295), wrote: permalink.flag() },
      get: function () {
        var p = pass(), sm = sampling(), n = Number(lengthIn.value), s = { T: sm.T, k: sm.k, p: sm.p, seed: sm.seed };
        if (n >= 1 && n <= decoding.CAP && n % 1 === 0) s.len = n;
        WRITERS.forEach(function (w) { s[w] = picks[w].input.checked ? "1" : "0"; });
        var prompt = p ? { text: p.text, chat: !!p.chat } : pending;
        if (prompt) { s.text = prompt.text; s.chat = prompt.chat ? "1" : "0"; }
        if (wrote || pending) s.wrote = "1";
        return s;
      },
      set: function (s) {
        if (s.len !== undefined) lengthIn.value = String(s.len);
        WRITERS.forEach(function (w) { if (s[w] !== undefined) picks[w].input.checked = s[w] === "1"; });
        var link = {};
        ["T", "k", "p", "seed"].forEach(function (f) { if (s[f] !== undefined) link[f] = s[f]; });
        if (s.text) { link.live = "1"; link.text = s.text; link.chat = s.chat; }
        store.set("real.writers-link", link);
        pending = s.wrote === "1" && s.text ? { text: s.text, chat: s.chat === "1" } : null;
        refresh();
        if (!s.text) return "";
        return badge.needsModel("writes with SmolLM2 from a prompt of its own", promptLine,
          pending ? "the writers write when it has run the prompt" : "then press Write");
      },
      tables: function () {
        var names = WRITERS.filter(function (w) { return held[w]; });
        if (!names.length || !heldCtx) throw new Error("nothing has been written yet: load the model above, run a prompt and press Write");
        var tok = heldCtx.tok, steps = [], beams = [];
        function piece(id) { return tok.decode([id]); }
        names.forEach(function (w) {
          var st = held[w];
          st.ids.forEach(function (id, i) { steps.push([w, i + 1, id, piece(id), st.probs ? st.probs[i] : null]); });
        });
        if (held.beam) {
          var b = held.beam;
          (b.done ? [] : b.running).forEach(function (x, i) { beams.push(["running", i + 1, x.sum, null, x.ids.length, tok.decode(x.ids), x.ids.join(" ")]); });
          b.finished.forEach(function (x, i) { beams.push([b.done && i === 0 ? "answer" : "finished", i + 1, x.sum, x.score, x.ids.length, tok.decode(x.ids), x.ids.join(" ")]); });
        }
        var got = [{ name: "steps", columns: ["writer", "step", "id", "token", "probability"], rows: steps },
          { name: "texts", columns: ["writer", "tokens", "ended", "text"], rows: names.map(function (w) { return [w, held[w].ids.length, held[w].done ? held[w].why : "writing", tok.decode(held[w].ids)]; }) }];
        if (beams.length) got.push({ name: "beams", columns: ["beam", "rank", "sum_log_probability", "score", "tokens", "text", "ids"], rows: beams });
        var p = pass();
        got.extra = { prompt: p ? { text: p.text, chat: !!p.chat, ids: Array.from(heldCtx.ids) } : { ids: Array.from(heldCtx.ids) },
          sampling: sampling(), knockout: p ? p.knockout || null : null,
          note: "probability: the step's token's probability in the model's own distribution, at temperature 1 before any cut (greedy and sampling; beam search keeps only sums of log-probabilities)" };
        return got;
      } });
  }, { after: ["real-ask", "real-distribution"] });  // a link's prompt and settings go to them
});
