// A demo's state in the page's URL fragment, and the row of share controls under it (Copy link, Embed,
// Download CSV / JSON). A demo joins with a few lines at the end of its build:
//
//   permalink.join(root, live, { fields: {prompt: permalink.text(200), T: permalink.num(0, 2)},
//     get: function () { return {prompt: ..., T: ...}; },   // the state on show
//     set: function (s) { ... },                            // apply a checked state (any subset of fields)
//     model: active,                                        // optional: the tiny model in use (built | yours)
//     tables: function () { return [{name, columns, rows}]; } });  // optional: what the downloads hold
//
// The fragment reads #nt=1&d=<demo>[&n=<index>]&v=<site version>&<field>=<value>...: one demo's state at
// a time, the last one the reader changed, written with replaceState (no history entries) a moment after
// any input, change or click inside the demo. A link is read once, as its demo builds: anything off (too
// long, a field not declared, a value out of range, another link format) leaves the defaults on show
// with one line saying why; values reach the page only through the demo's own setters, never as code.
// The downloads' code (js/ui/export.js) loads when first asked for.
nexttoken.define("ui.permalink", ["ui", "later:ui.export"], function (ui, loadExport) {
  "use strict";

  var FORMAT = "1", MAX = 2000, KEY = /^[a-zA-Z][a-zA-Z0-9]{0,15}$/, WAIT_MS = 300;
  var meta = document.querySelector('meta[name="nt-version"]');
  var VERSION = meta ? meta.getAttribute("content") : "";

  // Field kinds: each checks a string and returns the value, or throws a short reason.
  function num(lo, hi) {
    return { read: function (s) {
      var v = Number(s);
      if (!/^-?\d+(\.\d+)?$/.test(s) || !(v >= lo && v <= hi)) throw new Error("a number from " + lo + " to " + hi);
      return v;
    }, write: function (v) { return String(Number(Number(v).toFixed(6))); } };
  }
  function int(lo, hi) {
    return { read: function (s) {
      var v = Number(s);
      if (!/^-?\d+$/.test(s) || !(v >= lo && v <= hi)) throw new Error("a whole number from " + lo + " to " + hi);
      return v;
    }, write: String };
  }
  function text(most) {
    return { read: function (s) {
      if (s.length > most) throw new Error("text of at most " + most + " characters");
      return s;
    }, write: String };
  }
  function one(choices) {
    return { read: function (s) {
      if (choices.indexOf(s) < 0) throw new Error("one of " + choices.join(", "));
      return s;
    }, write: String };
  }
  function flag() { return one(["0", "1"]); }
  // A list of whole numbers lo..hi ("1.3.4"; "" for none).
  function ints(lo, hi, most) {
    return { read: function (s) {
      if (s === "") return [];
      var parts = s.split(".");
      if (parts.length > most) throw new Error("at most " + most + " numbers");
      return parts.map(function (p) { return int(lo, hi).read(p); });
    }, write: function (a) { return a.join("."); } };
  }

  // The fragment as {d, n, v, values: {key: raw}}, null when it is not a demo's (a heading's anchor), or
  // {error} when it is one but malformed.
  function parse(hash) {
    var raw = hash.charAt(0) === "#" ? hash.slice(1) : hash;
    if (raw.indexOf("nt=") !== 0) return null;
    if (raw.length > MAX) return { error: "it is " + raw.length + " characters long, more than a demo's state needs (" + MAX + ")" };
    var out = { values: {} }, seen = {};
    var pairs = raw.split("&");
    for (var i = 0; i < pairs.length; i++) {
      var eq = pairs[i].indexOf("="), k = eq < 0 ? pairs[i] : pairs[i].slice(0, eq), v;
      if (eq < 0 || !KEY.test(k)) return { error: "\"" + k.slice(0, 20) + "\" is not a setting's name" };
      if (seen[k]) return { error: "it names \"" + k + "\" twice" };
      seen[k] = true;
      try { v = decodeURIComponent(pairs[i].slice(eq + 1).replace(/\+/g, " ")); } catch (e) { return { error: "\"" + k + "\" is not readable text" }; }
      if (k === "nt") out.nt = v; else if (k === "d") out.d = v; else if (k === "n") out.n = v; else if (k === "v") out.v = v;
      else out.values[k] = v;
    }
    if (out.nt !== FORMAT) return { error: "it is in another link format (nt=" + String(out.nt).slice(0, 8) + "; this site reads nt=" + FORMAT + ")" };
    if (!out.d || !/^[a-z0-9-]{1,40}$/.test(out.d)) return { error: "it names no demo" };
    if (out.n !== undefined && !/^\d{1,2}$/.test(out.n)) return { error: "its index is not a small whole number" };
    out.n = Number(out.n || 0);
    return out;
  }

  function indexOf(root) {
    var same = document.querySelectorAll('.nt-demo[data-demo="' + root.getAttribute("data-demo") + '"]');
    return Array.prototype.indexOf.call(same, root);
  }

  function fragment(root, spec) {
    var s = spec.get(), n = indexOf(root), parts = ["nt=" + FORMAT, "d=" + root.getAttribute("data-demo")];
    if (n > 0) parts.push("n=" + n);
    if (VERSION) parts.push("v=" + VERSION);
    if (spec.model) parts.push("m=" + spec.model.which);
    Object.keys(spec.fields).forEach(function (k) {
      if (s[k] !== undefined && s[k] !== null) parts.push(k + "=" + encodeURIComponent(spec.fields[k].write(s[k])));
    });
    return parts.join("&");
  }

  function link(root, spec) { return location.href.split("#")[0] + "#" + fragment(root, spec); }

  // The page's address with this demo's own page of embed/<demo>.html in the site's folder.
  function embedLink(root, spec) {
    var tag = document.querySelector('script[src*="js/nexttoken.js"]');
    var site = tag ? tag.src.replace(/js\/nexttoken\.js(\?.*)?$/, "") : "";
    return site + "embed/" + root.getAttribute("data-demo") + ".html#" + fragment(root, spec);
  }

  // Check a parsed link against the demo's fields: the values, or a reason.
  function check(got, spec) {
    var state = {};
    var keys = Object.keys(got.values);
    for (var i = 0; i < keys.length; i++) {
      var k = keys[i];
      if (k === "m" && spec.model) continue;
      var f = spec.fields[k];
      if (!f) return { error: "this demo has no setting \"" + k + "\"" };
      try { state[k] = f.read(got.values[k]); } catch (e) { return { error: "\"" + k + "\" must be " + e.message }; }
    }
    return { state: state };
  }

  // The model a link was made with, against the one this page uses (js/runtime/active.js).
  function modelNote(want, active) {
    if (!want || want === active.which) return "";
    if (want === "yours" && !active.yours) return "This link was made with a model its author trained, which this browser does not have: it shows the built model.";
    if (want === "yours") return "This link was made with a trained model: this page uses the built one (switch in the bar at the top).";
    if (want === "built") return "This link was made with the built model: this page uses yours (switch in the bar at the top).";
    return "This link names an unknown model: it shows the " + active.which + " one.";
  }

  function copy(textValue, say) {
    function fallback() {  // no clipboard here (an iframe without permission, file:// in some browsers): select it
      say(textValue, "info", true);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(textValue).then(function () { say("Copied to the clipboard.", "info"); }, fallback);
    } else fallback();
  }

  var pending = location.hash;  // the link the page was opened with; each demo reads its own part once
  var opened = parse(pending);
  var taken = false;

  // The demo a link names is brought on screen, so it builds first (js/ui.js builds demos near the view);
  // a link to a demo this page lacks is said by the first demo that builds.
  if (opened && !opened.error) {
    var target = document.querySelectorAll('.nt-demo[data-demo="' + opened.d + '"]')[opened.n];
    if (target && target.scrollIntoView) target.scrollIntoView();
    else if (!target) opened = { error: "it names a demo, " + opened.d + (opened.n ? " " + (opened.n + 1) : "") + ", that is not on this page" };
  }

  function join(root, live, spec) {
    var note = ui.message();
    var picked = ui.el("input", { type: "text", readonly: "", class: "nt-input nt-share-text", "aria-label": "The text to copy", hidden: true });
    var say = function (t, kind, select) {
      note.show(select ? "Select and copy it:" : t, kind);
      picked.hidden = !select;
      if (select) { picked.value = t; picked.focus(); picked.select(); }
    };
    var tools = ui.el("div", { class: "nt-share", role: "group", "aria-label": "Share this demo" }, [
      ui.button("Copy link", function () { copy(link(root, spec), say); }),
      ui.button("Embed", function () {
        copy('<iframe src="' + embedLink(root, spec) + '" title="nexttoken: the ' + root.getAttribute("data-demo") +
          ' demo" width="100%" height="720" style="border:0" loading="lazy"></iframe>', say);
      }),
      spec.tables ? ui.button("Download CSV", function () { download("csv"); }) : null,
      spec.tables ? ui.button("Download JSON", function () { download("json"); }) : null]);
    live.appendChild(tools);
    live.appendChild(note.node);
    live.appendChild(picked);
    note.clear();
    var top = ui.message();
    live.insertBefore(top.node, live.firstChild);
    top.clear();

    function download(kind) {
      loadExport().then(function (ex) { ex.save(kind, root, spec, say); },
        function (err) { say("The download could not start (" + err.message + ").", "error"); });
    }

    var timer = null;
    function write() {
      clearTimeout(timer);
      try { history.replaceState(history.state, "", "#" + fragment(root, spec)); } catch (e) { /* a sandboxed frame: the link still copies */ }
    }
    function later(e) {
      if (tools.contains(e.target) || picked === e.target) return;
      clearTimeout(timer);
      timer = setTimeout(write, WAIT_MS);
    }
    ["input", "change", "click", "keyup"].forEach(function (ev) { live.addEventListener(ev, later); });

    // The link the page was opened with, if it names this container.
    if (opened && !taken) {
      var mine = opened.error || (opened.d === root.getAttribute("data-demo") && opened.n === indexOf(root));
      if (mine) {
        taken = true;
        var got = opened.error ? opened : check(opened, spec);
        if (got.error) top.show("This link's settings were not used (" + got.error + "): the demo shows its defaults.", "warn");
        else {
          var lines = [];
          if (opened.v && VERSION && opened.v !== VERSION) lines.push("This link was made on another version of the site (" + opened.v.slice(0, 12) + "; this is " + VERSION + "): its settings apply, its numbers may differ.");
          if (spec.model) { var m = modelNote(opened.values.m, spec.model); if (m) lines.push(m); }
          try {
            var said = spec.set(got.state);
            if (typeof said === "string" && said) lines.push(said);
          } catch (err) {
            lines.push("This link's settings could not all be shown (" + (err && err.message ? err.message : err) + ").");
          }
          if (lines.length) top.show(lines.join(" "), "info");
        }
      }
    }
    return { changed: function () { clearTimeout(timer); timer = setTimeout(write, WAIT_MS); }, say: say, link: function () { return link(root, spec); } };
  }

  return { join: join, parse: parse, num: num, int: int, text: text, one: one, flag: flag, ints: ints, VERSION: VERSION };
});
