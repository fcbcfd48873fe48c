// The site's one global, window.nexttoken. Every other script registers through define():
//
//   nexttoken.define("runtime.model", ["runtime.kernels"], function (kernels) { ...; return model; });
//
// The name is the script's path under js/ with "/" as "." and no ".js" (js/runtime/model.js), and the
// value is mounted there (nexttoken.runtime.model). `make` receives the values of the names in the list,
// in order; a name "later:NAME" (or "later:PREFIX*") gives instead a function that loads that script on
// demand and resolves to its value (later() or, for a prefix, later(suffix)). The build reads these calls
// (scripts/site/demos.py) and writes each page's <script> tags in dependency order, so a script only ever
// sees names that are already defined; define() still refuses one that is not, naming both.
// This script also provides the two shared services: `load` (the one script loader: classic <script>
// tags, which work from file://) and `store` (get / set / subscribe, for state several demos follow; its keys are declared below).
(function (root) {
  "use strict";
  var nexttoken = root.nexttoken = root.nexttoken || {};
  var made = {};

  function mount(name, value) {
    var parts = name.split("."), at = nexttoken;
    for (var i = 0; i < parts.length - 1; i++) at = at[parts[i]] = at[parts[i]] || {};
    at[parts[parts.length - 1]] = value;
  }

  function provide(name, value) { made[name] = value; mount(name, value); return value; }

  // Scripts are found beside this one (js/nexttoken.js), served or from disk.
  var here = root.document && root.document.currentScript ? root.document.currentScript.src : "";
  var base = here ? here.replace(/nexttoken\.js(\?.*)?$/, "") : "js/";
  var loading = {};
  function load(name) {
    if (Object.prototype.hasOwnProperty.call(made, name)) return Promise.resolve(made[name]);
    if (!loading[name]) {
      loading[name] = new Promise(function (resolve, reject) {
        var path = "js/" + name.replace(/\./g, "/") + ".js";
        var tag = root.document.createElement("script");
        tag.src = base + path.slice(3);
        tag.onload = function () {
          if (Object.prototype.hasOwnProperty.call(made, name)) resolve(made[name]);
          else reject(new Error(path + " loaded but did not define " + name));
        };
        tag.onerror = function () { delete loading[name]; reject(new Error("could not load " + path)); };
        root.document.body.appendChild(tag);
      });
    }
    return loading[name];
  }

  function later(need) {
    var name = need.slice("later:".length);
    if (name.slice(-1) === "*") return function (suffix) { return load(name.slice(0, -1) + suffix); };
    return function () { return load(name); };
  }

  function define(name, needs, make) {
    var args = needs.map(function (need) {
      if (need.indexOf("later:") === 0) return later(need);
      if (!Object.prototype.hasOwnProperty.call(made, need)) throw new Error(name + " needs " + need + ", which no script before it defined");
      return made[need];
    });
    return provide(name, make.apply(null, args));
  }

  // Shared state: store.set(key, value) tells every subscriber of key; subscribe returns its undo.
  // Every key is declared here, with its shape, its one writer and its readers; any other key is
  // refused in one line naming it (a misspelt key would otherwise be silent).
  var KEYS = {
    // the tiny model's runtime
    "model": "{config, tokenizer, weights, summary, yours}: the active tiny model. Writer runtime.active; readers runtime.model, runtime.tokenizer, explain.lines",
    "model.sizes": "the active tiny model's config.model (its sizes, for the map of the pass). Writer runtime.active; reader ui.pass-map-sizes",
    "model.yours": "the reader's model just saved ({config, tokenizer, weights, summary, trained}). Writer runtime.active; reader ui.model-switch",
    "knockout": "{heads: [[layer, head]...], mlp}: the tiny model's parts switched off. Writer demos.knockout; readers demos.attention, demos.lens, demos.two-heads",
    // the real model (SmolLM2 or GPT-2, in the page), one family: real.*
    "real.model": "null, or {session, tokenizer, config, model, name} once loaded. Writer demos.real-ask; readers demos.real-distribution, demos.real-inside, demos.real-writers",
    "real.pass": "null, or the live pass {text, chat, ids, pieces, result, knockout, model, name, ms, inside}. Writer demos.real-ask; readers demos.real-distribution, demos.real-inside, demos.real-writers",
    "real.stored": "the stored prompt on show: its whole record (key, text, chat, head, tail, lens, attention...). Writer demos.real-distribution; readers demos.real-ask, demos.real-inside",
    "real.knockout": "{heads: [[layer, head]...], mlp: [layer...]}, from zero. Writer demos.real-inside; reader demos.real-ask (reruns the pass)",
    "real.prompt": "{text, chat}: a prompt for the panel to run (the inside view's example). Writer demos.real-inside; reader demos.real-ask",
    "real.linked": "{text, chat}: a live prompt a link to the bars names; it waits in the panel's box until the model is loaded. Writer demos.real-distribution; reader demos.real-ask",
    "real.sampling": "{T, k, p, seed}: the panel's cuts and seed. Writer demos.real-distribution; reader demos.real-writers",
    "real.inside-link": "{key, live, text, chat}: the prompt a link to the inside view names, for the bars to show as a link to them would (a live one goes on to the panel's box). Writer demos.real-inside; reader demos.real-distribution",
    "real.writers-link": "{live, text, chat, T, k, p, seed}: the prompt, cuts and seed a link to the writers names, for the bars to take as a link to them would. Writer demos.real-writers; reader demos.real-distribution",
    "real.inside": "true while the inside view is built and on screen: the pass then computes the lens and heads. Writer demos.real-inside; reader demos.real-ask"
  };
  function known(key) {
    if (!Object.prototype.hasOwnProperty.call(KEYS, key)) throw new Error("store: unknown key \"" + key + "\" (the keys are declared in js/nexttoken.js)");
    return key;
  }
  var state = {}, listeners = {};
  var store = {
    keys: Object.keys(KEYS),
    get: function (key) { return state[known(key)]; },
    set: function (key, value) {
      state[known(key)] = value;
      (listeners[key] || []).slice().forEach(function (fn) { fn(value); });
    },
    subscribe: function (key, fn) {
      (listeners[known(key)] = listeners[key] || []).push(fn);
      return function () { listeners[key] = listeners[key].filter(function (f) { return f !== fn; }); };
    }
  };

  nexttoken.define = define;
  provide("load", load);
  provide("store", store);
  if (typeof module === "object" && module.exports) module.exports = nexttoken;
})(typeof window !== "undefined" ? window : globalThis);
