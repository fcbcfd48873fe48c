// Demo: tokenization of an unseen word, merge by merge, from the single characters (merge 0) on.
// Words are taken as mid-sentence words (with their leading space, drawn ·) unless "start of text" is
// ticked. Beside it, the learned merges in rank order (ranked from 0, as the page counts them), the
// ones this text uses marked as they are applied.
nexttoken.define("demos.tokenize", ["ui", "runtime.active", "runtime.prompts", "ui.permalink"], function (ui, active, prompts, permalink) {
  "use strict";

  ui.start("tokenize", function (root, live) {
    var t = active.tiny();
    // The page's word is the built model's; a reader's model starts from the longest word of its
    // first sentence when it cannot read that one.
    function startText(text) {
      if (!active.data.yours || t.tk.encode(" " + text).ok) return text;
      var words = (t.config.corpus[0] || "").split(/[^A-Za-z]+/).filter(Boolean);
      return words.reduce(function (a, b) { return b.length > a.length ? b : a; }, "") || text;
    }
    var msg = ui.message();
    var startOfText = false;
    var input = ui.textInput("Word or text", startText(root.getAttribute("data-text") || "cats"), function () { prepare(); },
      { hint: "Try cats, dogs, bats or a sentence.", role: "text" });
    var sot = ui.checkbox("start of text (no leading space)", false, function (v) { startOfText = v; prepare(); });
    var stepSlider = ui.slider("Merges applied", 0, 0, 1, 0, function (v) { show(v); }, function (v) { return String(v); });
    var prev = ui.button("Previous merge", function () { show(cur - 1); });
    var next = ui.button("Next merge", function () { show(cur + 1); }, { primary: true });
    var all = ui.button("All merges", function () { show(total); });
    var out = ui.el("div", { class: "nt-output", "aria-live": "polite" });
    var marker = active.data.tokenizer.space_marker || "·";
    var merges = (active.data.tokenizer.merges || []).map(function (m) { return [m[0].split(" ").join(marker), m[1].split(" ").join(marker)]; });
    var rankList = ui.el("ol", { class: "nt-merge-list", start: "0", "aria-label": "the learned merges, lowest rank first" });
    var rankItems = merges.map(function (m, r) {
      var li = ui.el("li", { class: "nt-merge", "data-rank": r }, [ui.el("span", { class: "nt-merge-rank", text: String(r) }),
        ui.el("code", { text: m[0] }), "+", ui.el("code", { text: m[1] }), ui.el("span", { class: "nt-sr" })]);
      rankList.appendChild(li);
      return li;
    });
    var rankWrap = ui.el("details", { class: "nt-merge-ranks", open: true }, [
      ui.el("summary", { text: "The " + merges.length + " learned merges, by rank (tried lowest first; this text's are marked)" }),
      ui.el("div", { class: "nt-scroll nt-merge-scroll", tabindex: "0", role: "region", "aria-label": "learned merges by rank" }, [rankList])]);
    live.appendChild(ui.el("div", { class: "nt-controls" }, [input.wrap, sot.wrap]));
    live.appendChild(ui.el("div", { class: "nt-controls nt-buttons" }, [stepSlider.wrap, prev, next, all]));
    live.appendChild(msg.node);
    live.appendChild(out);
    live.appendChild(rankWrap);
    if (active.data.yours) {
      live.appendChild(ui.el("p", { class: "nt-small", text: "Your model's vocabulary: " + t.tk.vocab.length + " tokens, in the order they were learned." }));
      live.appendChild(ui.el("div", { class: "nt-vocab", "data-role": "vocab" }, t.tk.vocab.map(function (_, id) { return ui.chip(t.tk.show(id), String(id)); })));
    }

    var chunks = [], total = 0, cur = 0, final = null;

    function prepare() {
      msg.clear();
      chunks = []; total = 0; final = null;
      var raw = input.input.value;
      if (raw.length > prompts.MAX_CHARS) { fail("That is " + raw.length + " characters; this demo takes at most " + prompts.MAX_CHARS + "."); return; }
      var lowered = t.tk.encode(raw).ok ? raw : raw.toLowerCase();  // fold only what the vocabulary lacks
      if (!lowered.trim()) { fail("Type a word first."); return; }
      if (lowered !== raw) msg.show("Folded to lower case: the tiny model has no capital letters.", "info");
      var text = startOfText ? lowered.replace(/^\s+/, "") : (/^\s/.test(lowered) ? lowered : " " + lowered);
      // the tokenizer counts in `text`; the reader counts in what they typed (a space added or taken off the front)
      var shift = startOfText ? Array.from(lowered.match(/^\s*/)[0]).length : (text === lowered ? 0 : -1);
      var r = t.tk.mergeSteps(text);
      if (!r.ok) {
        var e = r.error || {};
        fail(e.kind === "unknown_char"
          ? "The tiny vocabulary has no “" + e.char + "” (character " + ((e.index || 0) + 1 + shift) + "): it has only the characters of its training sentences, and no byte fallback."
          : (e.message || "This text cannot be tokenized."));
        return;
      }
      chunks = r.chunks;
      chunks.forEach(function (c) { total += c.steps.length - 1; });
      var enc = t.tk.encode(text);
      final = enc.ok ? enc : null;
      stepSlider.input.max = String(total);
      show(0);
    }

    function fail(text) {
      msg.show(text, "error");
      ui.clear(out);
      markRanks([], null);
      stepSlider.input.max = "0";
      stepSlider.set(0);
      ui.setDisabled(prev, "");
      prev.disabled = true;  // the error message above says why; the note under Next repeats it
      ui.setDisabled(next, "Nothing to merge: fix the text first.");
      all.disabled = true;
      all.setAttribute("aria-describedby", next.getAttribute("aria-describedby"));
    }

    function show(n) {
      cur = Math.max(0, Math.min(total, n));
      stepSlider.set(cur);
      // A disabled button says why (next and all share one note: they stop together).
      ui.setDisabled(prev, cur === 0 ? "No earlier step: this is the text split into single characters." : "");
      ui.setDisabled(next, cur === total ? "No more merges apply: these are the final tokens." : "");
      all.disabled = cur === total;
      all.setAttribute("aria-describedby", next.getAttribute("aria-describedby"));
      ui.clear(out);
      var left = cur, applied = [];
      var row = ui.el("div", { class: "nt-tokens nt-merge-row" });
      chunks.forEach(function (c) {
        var k = Math.min(left, c.steps.length - 1);
        left -= k;
        for (var i = 1; i <= k; i++) applied.push(c.steps[i]);
        c.steps[k].symbols.forEach(function (s) { row.appendChild(ui.chip(s, null, "nt-symbol")); });
        row.appendChild(ui.el("span", { class: "nt-chunk-gap", "aria-hidden": "true" }));
      });
      out.appendChild(ui.el("p", { class: "nt-small", text: "Symbols after " + cur + " of " + total + " merges:" }));
      out.appendChild(row);
      var coming = upcoming();
      if (applied.length) {
        var last = applied[applied.length - 1];
        out.appendChild(ui.el("p", { class: "nt-small nt-merge-last", "data-rank": last.rank }, ["Last merge: ", ui.el("code", { text: last.merge[0] }), " + ",
          ui.el("code", { text: last.merge[1] }), " (rank " + last.rank + ")"]));
      } else {
        out.appendChild(ui.el("p", { class: "nt-small", text: "Start (merge 0 of " + total + "): every character is its own symbol." }));
      }
      if (coming) out.appendChild(ui.el("p", { class: "nt-small nt-hint" }, ["Next: ", ui.el("code", { text: coming.merge[0] }), " + ",
        ui.el("code", { text: coming.merge[1] }), " (rank " + coming.rank + ", the lowest-ranked pair now side by side)"]));
      markRanks(applied.map(function (a) { return a.rank; }), coming ? coming.rank : null);
      if (cur === total && final) {
        var res = ui.el("p", { class: "nt-result" }, ["Tokens: "]);
        final.ids.forEach(function (id, i) {
          if (i) res.appendChild(document.createTextNode(" + "));
          res.appendChild(ui.el("code", { class: "nt-final-token", "data-id": id, text: t.tk.show(id) }));
        });
        res.appendChild(document.createTextNode("  (ids " + final.ids.join(", ") + ")"));
        out.appendChild(res);
      }
    }

    // the step after `cur`, or null at the end
    function upcoming() {
      var left = cur;
      for (var i = 0; i < chunks.length; i++) {
        var n = chunks[i].steps.length - 1;
        if (left < n) return chunks[i].steps[left + 1];
        left -= n;
      }
      return null;
    }

    // every merge this text uses is marked; those applied so far are done, the next one is current
    function markRanks(done, next) {
      var uses = {};
      chunks.forEach(function (c) { c.steps.slice(1).forEach(function (st) { uses[st.rank] = true; }); });
      rankItems.forEach(function (li, r) {
        li.classList.toggle("nt-merge-uses", !!uses[r]);
        li.classList.toggle("nt-merge-done", done.indexOf(r) >= 0);
        if (r === next) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
        li.lastChild.textContent = done.indexOf(r) >= 0 ? " (applied)" : r === next ? " (next)" : uses[r] ? " (this text uses it)" : "";
      });
    }

    prepare();

    // Its text, start-of-text and merge step in the page's link; the final tokens as a download (js/ui/permalink.js).
    permalink.join(root, live, { model: active,
      fields: { text: permalink.text(ui.INPUT_MAX), sot: permalink.flag(), merges: permalink.int(0, 100000) },
      get: function () { return { text: input.input.value, sot: startOfText ? "1" : "0", merges: cur }; },
      set: function (s) {
        if (s.text !== undefined) input.input.value = s.text;
        if (s.sot !== undefined) { startOfText = s.sot === "1"; sot.input.checked = startOfText; }
        prepare();
        if (s.merges) show(s.merges);
      },
      tables: function () {
        if (!final) throw new Error("the text gives no tokens to export (fix it first)");
        return [{ name: "tokens", columns: ["position", "id", "token"], rows: final.ids.map(function (id, i) { return [i, id, t.tk.show(id)]; }) }];
      } });
  });
});
