// A reader's prompt for the tiny model: text -> ids, or one reader-facing line saying what is wrong.
nexttoken.define("runtime.prompts", ["runtime.active"], function (active) {
  "use strict";
  var MAX_CHARS = 200;  // the longest prompt a tiny-model demo takes (its window is far shorter in tokens)

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
      return { ok: false, message: "The tiny model's vocabulary has no “" + ch + "” (" + code + ", at character " + ((e.index || 0) + 1) + "). It knows only the characters of its training sentences: " + t.tk.vocab.filter(function (v, i) { return i > 0 && v.length === 1; })
        .map(function (v) { return v === " " ? "space" : v; }).join(" ") + "." };
    }
    if (r.ids.length > maxTokens) {
      return { ok: false, message: "That is " + r.ids.length + " tokens; this demo takes at most " + maxTokens + " (the model's context window is " + nCtx + ")." };
    }
    note = [note, spaces(t, lowered, r.ids)].filter(Boolean).join(" ");
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

  return { encode: encode, pick: pick, MAX_CHARS: MAX_CHARS };
});
