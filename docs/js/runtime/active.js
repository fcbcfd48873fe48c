// Which model the demos use: the built one, or one the reader trained on the training page.
// Load right after js/data/tiny-model.js and before every other runtime or demo script: when the
// reader chose their own model, it replaces NTData.tiny (the built one stays as NTData.tinyBuilt),
// so every demo runs it without knowing. The choice and the model live in localStorage, which
// works offline and from file://. A bar at the top of the page says which model is active and
// switches (the page reloads, so every demo starts again with the other model).
//
// NT.active.which ("built" | "yours"), .yours (the saved model or null), .save(model), .use(which),
// .loadScript(path under js/, onload, onerror): a classic script added on demand (file:// allows it).
(function (root) {
  "use strict";
  var NT = root.NT = root.NT || {};
  var NTData = root.NTData = root.NTData || {};
  var KEY_MODEL = "nexttoken.yourModel.v1", KEY_WHICH = "nexttoken.activeModel";
  var built = NTData.tiny;
  var problem = null;

  function store() { try { return root.localStorage || null; } catch (e) { return null; } }  // blocked storage throws

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
    var s = store();
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
  var which = "built";
  var s0 = store();
  if (yours && s0 && s0.getItem(KEY_WHICH) === "yours") {
    which = "yours";
    NTData.tinyBuilt = built;
    NTData.tiny = { schema_version: built.schema_version, config: yours.config, tokenizer: yours.tokenizer,
                    weights: yours.weights, summary: yours.summary, yours: true };
  }

  function save(model) {
    var s = store();
    if (!s) throw new Error("this browser does not allow saving (localStorage is off), so your model lasts only until you leave the page");
    s.setItem(KEY_MODEL, JSON.stringify(model));
    s.setItem(KEY_WHICH, "yours");
  }
  function use(w) {
    var s = store();
    if (s) s.setItem(KEY_WHICH, w === "yours" ? "yours" : "built");
    root.location.reload();
  }

  // Scripts are found beside this one: js/runtime/active.js -> js/<path>.
  var here = root.document && root.document.currentScript ? root.document.currentScript.src : "";
  var base = here ? here.replace(/runtime\/active\.js(\?.*)?$/, "") : "js/";
  function loadScript(path, onload, onerror) {
    var el = root.document.createElement("script");
    el.src = base + path;
    el.onload = onload;
    el.onerror = function () { if (onerror) onerror(new Error("could not load js/" + path)); };
    root.document.body.appendChild(el);
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

  NT.active = { which: which, yours: yours, built: built, save: save, use: use, loadScript: loadScript, valid: valid,
                problem: problem };
})(typeof window !== "undefined" ? window : globalThis);
