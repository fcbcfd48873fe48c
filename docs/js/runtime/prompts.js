// A reader's prompt for the tiny model: text -> ids, or one reader-facing line saying what is wrong.
nexttoken.define("runtime.prompts", ["runtime.active"], function (active) {
  "use strict";
  var MAX_CHARS = 200;  // the longest prompt a tiny-model demo takes (its window is far shorter in tokens)
  var NEAREST = 3;      // the words it knows, named for a word it does not

  // The words of the active model's training sentences, in their first order, once each.
  function knownWords(t) {
    var seen = {}, out = [];
    (t.config.corpus || []).forEach(function (line) {
      String(line).toLowerCase().split(/\s+/).forEach(function (w) {
        w = w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
        if (w && !seen[w]) { seen[w] = true; out.push(w); }
      });
    });
    return out;
  }

  // Edits (insert, delete, replace a character) from a to b.
  function distance(a, b) {
    var row = [], i, j;
    for (j = 0; j <= b.length; j++) row.push(j);
    for (i = 1; i <= a.length; i++) {
      var diag = row[0];
      row[0] = i;
      for (j = 1; j <= b.length; j++) {
        var up = row[j];
        row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
        diag = up;
      }
    }
    return row[b.length];
  }

  // The words the model knows nearest to `word` (fewest edits; ties in the order the sentences give them).
  function nearest(t, word) {
    return knownWords(t).map(function (w, n) { return { w: w, d: distance(word, w), n: n }; })
      .sort(function (a, b) { return a.d - b.d || a.n - b.n; }).slice(0, NEAREST).map(function (x) { return x.w; });
  }

  // The reader's words the training sentences never hold, each with the nearest ones they do.
  function unknownWords(t, text) {
    var known = {};
    knownWords(t).forEach(function (w) { known[w] = true; });
    var out = [];
    text.toLowerCase().split(/\s+/).forEach(function (w) {
      w = w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "");
      if (w && !known[w] && !out.some(function (u) { return u.word === w; })) out.push({ word: w, nearest: nearest(t, w) });
    });
    return out;
  }
  function sayNearest(u) { return "the nearest words it knows to “" + u.word + "” are " + u.nearest.join(", "); }

  // Text from a reader -> ids, or a reader-facing message. Upper case is folded when the vocabulary
  // lacks it; everything else outside it is reported by name. pick(text) -> a demo's starting text.
  function encode(text, opts) {
    opts = opts || {};
    var t = active.tiny();
    var nCtx = t.config.model.n_ctx;
    var maxTokens = opts.maxTokens || nCtx;
    var raw = String(text);
    if (raw.length > MAX_CHARS) {
      return { ok: false, message: "That is " + raw.length + " characters; the demos take at most " + MAX_CHARS + " (the model's window is only " + nCtx + " tokens)." };
    }
    // Upper case is folded only when the active vocabulary cannot read it (a reader's corpus may have capitals).
    var lowered = t.tk.encode(raw).ok ? raw : raw.toLowerCase();
    var note = lowered !== raw ? "Folded to lower case: the tiny model has no capital letters." : "";
    if (!lowered.trim()) return { ok: false, message: "Type a prompt first: the model needs at least one token." };
    var r = t.tk.encode(lowered);
    if (!r.ok) {
      var e = r.error || {};
      if (e.kind === "empty") return { ok: false, message: "Type a prompt first: the model needs at least one token." };
      var ch = e.char !== undefined ? e.char : "?";
      var code = ch && ch.codePointAt ? "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") : "";
      var at = e.index || 0, word = unknownWords(t, lowered.slice(lowered.lastIndexOf(" ", at) + 1).split(/\s/)[0])[0];
      return { ok: false, message: "The tiny model's vocabulary has no “" + ch + "” (" + code + ", at character " + (at + 1) + ")" +
        (word && word.nearest.length ? "; " + sayNearest(word) : "") + ". It knows only the characters of its training sentences: " +
        t.tk.vocab.filter(function (v, i) { return i > 0 && v.length === 1; }).map(function (v) { return v === " " ? "space" : v; }).join(" ") + "." };
    }
    if (r.ids.length > maxTokens) {
      return { ok: false, message: "That is " + r.ids.length + " tokens; this demo takes at most " + maxTokens + " (the model's context window is " + nCtx + ")." };
    }
    var unknown = unknownWords(t, lowered).filter(function (u) { return u.nearest.length; });
    var strange = unknown.length ? "The training sentences never hold " + unknown.map(function (u) { return "“" + u.word + "”"; }).join(", ") +
      ", so what the model predicts after " + (unknown.length > 1 ? "them" : "it") + " is no lesson it learned: " +
      unknown.map(sayNearest).join("; ") + "." : "";
    note = [note, spaces(t, lowered, r.ids), strange].filter(Boolean).join(" ");
    return { ok: true, ids: r.ids, tokens: r.ids.map(function (id) { return t.tk.show(id); }), note: note, text: lowered };
  }

  // Spaces around a prompt are kept (they are part of the text) but said: a leading one joins the
  // first word (·the, not the), and a trailing one is a token of its own, which the training
  // sentences may never have shown the model (then what it predicts after it is no lesson it learned).
  function spaces(t, text, ids) {
    var out = [], tk = t.tk;
    if (/^\s/.test(text)) {
      var bare = tk.encode(text.replace(/^\s+/, ""));
      if (bare.ok && bare.ids.length && bare.ids[0] !== ids[0]) {
        out.push("Your prompt starts with a space, so its first token is " + tk.show(ids[0]) + ", not " + tk.show(bare.ids[0]) + ".");
      }
    }
    if (/\s$/.test(text)) {
      var last = ids[ids.length - 1], seen = (t.config.corpus || []).some(function (line) {
        var e = tk.encode(line);
        return e.ok && e.ids.indexOf(last) >= 0;
      });
      out.push("Your prompt ends in a space, which is a token of its own here (" + tk.show(last) + ")" +
        (seen ? "." : "; the training sentences never contain it, so what the model predicts after it is no lesson it learned."));
    }
    return out.join(" ");
  }

  // A demo's starting text: the page's (written for the built model) when the active model reads it
  // within its window (or opts.maxTokens, for a demo that takes longer text), otherwise the active
  // model's own first prompt.
  function pick(text, opts) {
    var t = active.tiny(), r = t.tk.encode(String(text || ""));
    var most = (opts && opts.maxTokens) || t.config.model.n_ctx;
    if (r.ok && r.ids.length && r.ids.length <= most) return text;
    return (t.config.prompts || [])[0] || "";
  }

  return { encode: encode, pick: pick, nearest: nearest, MAX_CHARS: MAX_CHARS };
});
