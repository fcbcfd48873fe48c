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
// tags, which work from file://) and `store` (get / set / subscribe, for state several demos follow).
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
  var state = {}, listeners = {};
  var store = {
    get: function (key) { return state[key]; },
    set: function (key, value) {
      state[key] = value;
      (listeners[key] || []).slice().forEach(function (fn) { fn(value); });
    },
    subscribe: function (key, fn) {
      (listeners[key] = listeners[key] || []).push(fn);
      return function () { listeners[key] = listeners[key].filter(function (f) { return f !== fn; }); };
    }
  };

  nexttoken.define = define;
  provide("load", load);
  provide("store", store);
  if (typeof module === "object" && module.exports) module.exports = nexttoken;
})(typeof window !== "undefined" ? window : globalThis);
