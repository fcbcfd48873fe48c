// Which model the demos use: the built one, or one the reader trained on the training page. The
// active model's data ({config, tokenizer, weights, summary, yours}) is the store's "model"; every
// tiny-model demo needs this script. The reader's model lives in localStorage (offline and from
// file://), but it replaces the built one only on a page where the reader switches it on: that choice
// is the page's own, kept in its history entry (history.state), so it holds when that page reloads or
// is gone back to, and every other page, and every fresh visit, opens on the built model. The switch
// under the page's title is js/ui/model-switch.js (the page kit's; this file runs in node too), which
// every page loading this one loads after it.
//
// active.which ("built" | "yours"), .data (the active model's data), .built, .yours (the saved model
// or null), .save(model) (stores it; this page keeps its model until the reader switches), .use(which)
// (this page, reloaded with that model), .tiny(model?) -> {tk, config, model} made once per page (the
// model only when the runtime's model module is passed).
nexttoken.define("runtime.active", ["data.tiny-model", "store", "runtime.tokenizer"], function (built, store, tokenizer) {
  "use strict";
  var root = typeof window !== "undefined" ? window : globalThis;
  var KEY_MODEL = "nexttoken.yourModel.v1", STATE = "ntModel";  // STATE: the page's choice, in history.state
  var problem = null;

  function storage() { try { return root.localStorage || null; } catch (e) { return null; } }  // blocked storage throws

  function count(t) {
    if (Array.isArray(t)) return t.reduce(function (s, x) { return s + count(x); }, 0);
    if (t && typeof t === "object") return Object.keys(t).reduce(function (s, k) { return s + count(t[k]); }, 0);
    return typeof t === "number" && isFinite(t) ? 1 : NaN;
  }

  // Weights of a GPT-2-shaped model with tied output (scripts/core/shapes.py), from its sizes.
  function paramCount(c) {
    var C = c.n_embd, F = c.d_mlp;
    var block = 4 * C + (3 * C * C + 3 * C) + (C * C + C) + (F * C + F) + (C * F + C);
    return c.vocab_size * C + c.n_ctx * C + c.n_layer * block + 2 * C;
  }

  function whole(n) { return typeof n === "number" && n >= 2 && Math.floor(n) === n; }

  // A saved model must be the built one's shape (width, heads, MLP, layers) with its own vocabulary
  // and context, and hold exactly the weights those sizes need.
  function valid(m) {
    if (!built || !m || !m.config || !m.config.model || !m.tokenizer || !m.weights) return false;
    var a = m.config.model, b = built.config.model;
    return ["n_embd", "n_layer", "n_head", "d_mlp"].every(function (k) { return a[k] === b[k]; }) &&
      whole(a.vocab_size) && whole(a.n_ctx) && Array.isArray(m.tokenizer.vocab) && m.tokenizer.vocab.length === a.vocab_size &&
      Array.isArray(m.weights.wte) && m.weights.wte.length === a.vocab_size && Array.isArray(m.weights.wpe) &&
      m.weights.wpe.length === a.n_ctx && count(m.weights) === paramCount(a);
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

  function chosen() {
    try { var st = root.history && root.history.state; return !!st && st[STATE] === "yours"; } catch (e) { return false; }
  }

  var yours = read();
  var which = "built", data = built;
  var s0 = storage();
  if (s0) { try { s0.removeItem("nexttoken.activeModel"); } catch (e) { /* blocked */ } }  // the old site-wide choice, no longer read
  if (yours && chosen()) {
    which = "yours";
    data = { schema_version: built.schema_version, config: yours.config, tokenizer: yours.tokenizer,
             weights: yours.weights, summary: yours.summary, yours: true };
  }
  store.set("model", data);
  store.set("model.sizes", data.config.model);  // what the map of the pass says (js/ui/pass-map-sizes.js)

  function save(model) {
    var s = storage();
    if (!s) throw new Error("this browser does not allow saving (localStorage is off), so your model lasts only until you leave the page");
    s.setItem(KEY_MODEL, JSON.stringify(model));
    yours = model;
    store.set("model.yours", model);  // the switch appears (js/ui/model-switch.js); the demos keep their model
  }
  // This page, reloaded on the other model: the choice goes into the page's history entry, which a reload keeps.
  function use(w) {
    var st = {}, cur = root.history.state;
    if (cur && typeof cur === "object") Object.keys(cur).forEach(function (k) { st[k] = cur[k]; });
    st[STATE] = w === "yours" ? "yours" : "built";
    root.history.replaceState(st, "");
    root.location.reload();
  }

  var shared = null;
  function tiny(model) {
    if (!shared) shared = { tk: tokenizer.create(data.tokenizer), config: data.config, model: null };
    if (model && !shared.model) shared.model = model.create(data);
    return shared;
  }

  return { which: which, data: data, get yours() { return yours; }, built: built, save: save, use: use, valid: valid, paramCount: paramCount,
           problem: problem, tiny: tiny };
});
