// Which model the demos use: the built one, or one the reader trained on the training page. The
// active model's data ({config, tokenizer, weights, summary, yours}) is the store's "model"; every
// tiny-model demo needs this script, so every such page follows the reader's choice and shows the
// switch. The choice and the model live in localStorage, which works offline and from file://. A bar
// at the top of the page says which model is active and switches (the page reloads, so every demo
// starts again with the other model).
//
// active.which ("built" | "yours"), .data (the active model's data), .built, .yours (the saved model
// or null), .save(model), .use(which), .tiny(model?) -> {tk, config, model} made once per page (the
// model only when the runtime's model module is passed), .encodePrompt(text, opts).
nexttoken.define("runtime.active", ["data.tiny-model", "store", "runtime.tokenizer", "ui"], function (built, store, tokenizer, ui) {
  "use strict";
  var root = window;
  var KEY_MODEL = "nexttoken.yourModel.v1", KEY_WHICH = "nexttoken.activeModel";
  var problem = null;

  function storage() { try { return root.localStorage || null; } catch (e) { return null; } }  // blocked storage throws

  function count(t) {
    if (Array.isArray(t)) return t.reduce(function (s, x) { return s + count(x); }, 0);
    if (t && typeof t === "object") return Object.keys(t).reduce(function (s, k) { return s + count(t[k]); }, 0);
    return typeof t === "number" && isFinite(t) ? 1 : NaN;
  }

  // A saved model must fit the built one's shapes: same sizes, same number of weights, a full vocabulary.
  function valid(m) {
    if (!built || !m || !m.config || !m.config.model || !m.tokenizer || !m.weights) return false;
    var a = m.config.model, b = built.config.model;
    return ["vocab_size", "n_ctx", "n_embd", "n_layer", "n_head", "d_mlp"].every(function (k) { return a[k] === b[k]; }) &&
      Array.isArray(m.tokenizer.vocab) && m.tokenizer.vocab.length === b.vocab_size &&
      count(m.weights) === count(built.weights);
  }

  function read() {
    var s = storage();
    if (!s) return null;
    var raw = s.getItem(KEY_MODEL);
    if (!raw) return null;
    try {
      var m = JSON.parse(raw);
      if (valid(m)) return m;
    } catch (e) { /* reported below */ }
    problem = "Your saved model could not be read (it does not fit this site's model); the demos use the built model.";
    return null;
  }

  var yours = read();
  var which = "built", data = built;
  var s0 = storage();
  if (yours && s0 && s0.getItem(KEY_WHICH) === "yours") {
    which = "yours";
    data = { schema_version: built.schema_version, config: yours.config, tokenizer: yours.tokenizer,
             weights: yours.weights, summary: yours.summary, yours: true };
  }
  store.set("model", data);

  function save(model) {
    var s = storage();
    if (!s) throw new Error("this browser does not allow saving (localStorage is off), so your model lasts only until you leave the page");
    s.setItem(KEY_MODEL, JSON.stringify(model));
    s.setItem(KEY_WHICH, "yours");
  }
  function use(w) {
    var s = storage();
    if (s) s.setItem(KEY_WHICH, w === "yours" ? "yours" : "built");
    root.location.reload();
  }

  var shared = null;
  function tiny(model) {
    if (!shared) shared = { tk: tokenizer.create(data.tokenizer), config: data.config, model: null };
    if (model && !shared.model) shared.model = model.create(data);
    return shared;
  }

  // Text from a reader -> ids, or a reader-facing message. Upper case is folded (the tiny
  // vocabulary has only lower-case letters); everything else outside it is reported by name.
  function encodePrompt(text, opts) {
    opts = opts || {};
    var t = tiny(), MAX_CHARS = ui.MAX_CHARS;
    var nCtx = t.config.model.n_ctx;
    var maxTokens = opts.maxTokens || nCtx;
    var raw = String(text);
    if (raw.length > MAX_CHARS) {
      return { ok: false, message: "That is " + raw.length + " characters; the demos take at most " + MAX_CHARS + " (the model's window is only " + nCtx + " tokens)." };
    }
    var lowered = raw.toLowerCase();
    var note = lowered !== raw ? "Folded to lower case: the tiny model only knows lower-case letters." : "";
    if (!lowered.trim()) return { ok: false, message: "Type a prompt first: the model needs at least one token." };
    var r = t.tk.encode(lowered);
    if (!r.ok) {
      var e = r.error || {};
      if (e.kind === "empty") return { ok: false, message: "Type a prompt first: the model needs at least one token." };
      var ch = e.char !== undefined ? e.char : "?";
      var code = ch && ch.codePointAt ? "U+" + ch.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") : "";
      return { ok: false, message: "The tiny model's vocabulary has no “" + ch + "” (" + code + ", at character " + ((e.index || 0) + 1) + "). It knows only the lower-case letters, spaces and “.” of its training sentences." };
    }
    if (r.ids.length > maxTokens) {
      return { ok: false, message: "That is " + r.ids.length + " tokens; this demo takes at most " + maxTokens + " (the model's context window is " + nCtx + ")." };
    }
    return { ok: true, ids: r.ids, tokens: r.ids.map(function (id) { return t.tk.show(id); }), note: note, text: lowered };
  }

  // The bar: only where there is a choice (a saved model) or a problem to report.
  function bar() {
    var doc = root.document;
    var host = doc && doc.querySelector(".md-content__inner");
    if (!host || (!yours && !problem)) return;
    var box = doc.createElement("div");
    box.className = "nt-model-switch";
    box.setAttribute("data-active-model", which);
    if (problem) {
      var p = doc.createElement("p");
      p.className = "nt-msg nt-warn";
      p.setAttribute("role", "status");
      p.textContent = problem;
      box.appendChild(p);
    }
    if (yours) {
      var fs = doc.createElement("fieldset");
      var lg = doc.createElement("legend");
      lg.textContent = "The demos on every page use";
      fs.appendChild(lg);
      [["built", "the built model (trained by the build, described in the text)"],
       ["yours", "your model (trained in this browser on your " + yours.config.corpus.length + " sentences)"]].forEach(function (o) {
        var id = "nt-model-" + o[0];
        var input = doc.createElement("input");
        input.type = "radio"; input.name = "nt-model"; input.id = id; input.value = o[0];
        input.checked = which === o[0];
        input.addEventListener("change", function () { if (input.checked) use(o[0]); });
        var label = doc.createElement("label");
        label.setAttribute("for", id);
        label.textContent = o[1];
        var span = doc.createElement("span");
        span.className = "nt-radio";
        span.appendChild(input); span.appendChild(label);
        fs.appendChild(span);
      });
      box.appendChild(fs);
      if (which === "yours") {
        var note = doc.createElement("p");
        note.className = "nt-small";
        note.textContent = "Your model is active: the demos' numbers are your model's; the numbers in the text are the built model's.";
        box.appendChild(note);
      }
    }
    host.insertBefore(box, host.firstChild);
  }
  bar();

  return { which: which, data: data, yours: yours, built: built, save: save, use: use, valid: valid, problem: problem,
           tiny: tiny, encodePrompt: encodePrompt };
});
