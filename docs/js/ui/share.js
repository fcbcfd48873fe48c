// The work behind js/ui/permalink.js, loaded when a page opens with a demo's link or a share button is
// pressed: reading and checking a link, its one-line messages, Copy link, Embed, and the downloads
// (js/ui/export.js). A link is read once, by the demo it names: anything off (too long, a setting the
// demo lacks, a value out of range, another link format, a demo not on the page) leaves the defaults
// on show with one line saying why; values reach the page only through the demo's own setter, never
// as code or markup.
nexttoken.define("ui.share", ["ui", "later:ui.export"], function (ui, loadExport) {
  "use strict";

  var FORMAT = "1", MAX = 2000, KEY = /^[a-zA-Z][a-zA-Z0-9]{0,15}$/;

  // A value checked against its field kind (js/ui/permalink.js): the value, or a thrown reason.
  function read(f, s) {
    var v = Number(s);
    if (f.kind === "num") {
      if (!/^-?\d+(\.\d+)?$/.test(s) || !(v >= f.a && v <= f.b)) throw new Error("a number from " + f.a + " to " + f.b);
      return v;
    }
    if (f.kind === "int") {
      if (!/^-?\d{1,10}$/.test(s) || !(v >= f.a && v <= f.b)) throw new Error("a whole number from " + f.a + " to " + f.b);
      return v;
    }
    if (f.kind === "text") {
      if (s.length > f.b) throw new Error("text of at most " + f.b + " characters");
      return s;
    }
    if (f.kind === "one") {
      if (f.a.indexOf(s) < 0) throw new Error("one of " + f.a.join(", "));
      return s;
    }
    if (s === "") return [];  // ints: "1.3.4"
    var parts = s.split(".");
    if (parts.length > f.most) throw new Error("at most " + f.most + " numbers");
    return parts.map(function (p) { return read({ kind: "int", a: f.a, b: f.b }, p); });
  }

  // The fragment as {nt, d, n, v, values: {key: raw}}, or {error}. Keys are looked up in maps with no
  // prototype, so "constructor" or "toString" is a name like any other, never a built-in's.
  function parse(hash) {
    var raw = hash.replace(/^#/, "");
    if (raw.length > MAX) return { error: "it is " + raw.length + " characters long, more than a demo's state needs (" + MAX + ")" };
    var out = { values: Object.create(null) }, seen = Object.create(null), pairs = raw.split("&");
    for (var i = 0; i < pairs.length; i++) {
      var eq = pairs[i].indexOf("="), k = eq < 0 ? pairs[i] : pairs[i].slice(0, eq), v;
      if (eq < 0 || !KEY.test(k)) return { error: "“" + k.slice(0, 20) + "” is not a setting's name" };
      if (seen[k]) return { error: "it names “" + k + "” twice" };
      seen[k] = true;
      try { v = decodeURIComponent(pairs[i].slice(eq + 1)); } catch (e) { return { error: "“" + k + "” is not readable text" }; }
      if (k === "nt" || k === "d" || k === "n" || k === "v" || k === "m") out[k] = v; else out.values[k] = v;
    }
    if (out.nt !== FORMAT) return { error: "it is in another link format (nt=" + String(out.nt).slice(0, 8) + "; this site reads nt=" + FORMAT + ")" };
    return out;
  }

  function own(map, k) { return Object.prototype.hasOwnProperty.call(map, k) ? map[k] : undefined; }

  function check(got, spec) {
    var state = {}, keys = Object.keys(got.values);
    for (var i = 0; i < keys.length; i++) {
      var f = own(spec.fields, keys[i]);
      if (!f) return { error: "this demo has no setting “" + keys[i] + "”" };
      try { state[keys[i]] = read(f, got.values[keys[i]]); } catch (e) { return { error: "“" + keys[i] + "” must be " + e.message }; }
    }
    return { state: state };
  }

  // The model a link was made with, against the one this page uses (js/runtime/active.js).
  function modelNote(want, active) {
    if (!want || want === active.which) return "";
    if (want === "yours" && !active.yours) return "This link was made with a model its author trained, which this browser does not have: it shows the built model.";
    if (want === "yours") return "This link was made with a trained model: this page uses the built one (switch yours on under the page's title).";
    if (want === "built") return "This link was made with the built model: this page uses yours (switch it off under the page's title).";
    return "This link names an unknown model: it shows the " + active.which + " one.";
  }

  // The two message lines of a demo: the top one for its link, the one under the share row for the buttons.
  function lines(item) {
    if (!item.top) {
      item.top = ui.message();
      item.live.insertBefore(item.top.node, item.live.firstChild);
      item.note = ui.message();
      item.picked = ui.el("textarea", { readonly: "", rows: "2", class: "nt-input nt-share-text", "aria-label": "The text to copy", hidden: true });
      item.box.parentNode.insertBefore(item.note.node, item.box.nextSibling);
      item.note.node.parentNode.insertBefore(item.picked, item.note.node.nextSibling);
      item.top.clear();
      item.note.clear();
    }
    return item;
  }
  function say(item, text, kind) { lines(item).note.show(text, kind); item.picked.hidden = true; }

  var taken = false;  // a link is read by one demo only
  function restore(item) {
    if (taken) return;
    // the demo the link names reads it; one that names no demo here is said by the first demo that builds
    if (item.target && item.target !== item.root) return;
    taken = true;
    var got = parse(item.opened);
    if (!got.error && !item.target) got = { error: "it names a demo, " + String(got.d).slice(0, 40) + ", that is not on this page" };
    var top = lines(item).top;
    var ok = got.error ? got : check(got, item.spec);
    if (ok.error) { top.show("This link's settings were not used (" + ok.error + "): the demo shows its defaults.", "warn"); return; }
    var out = [];
    if (got.v && item.VERSION && got.v !== item.VERSION) out.push("This link was made on another version of the site (" + got.v.slice(0, 12) + "; this is " + item.VERSION + "): its settings apply, its numbers may differ.");
    if (item.spec.model) { var m = modelNote(got.m, item.spec.model); if (m) out.push(m); }
    try {
      var s = item.spec.set(ok.state);
      if (typeof s === "string" && s) out.push(s);
    } catch (err) {
      out.push("This link's settings could not all be shown (" + (err && err.message ? err.message : err) + ").");
    }
    if (out.length) top.show(out.join(" "), "info");
  }

  function link(item) { return location.href.split("#")[0] + "#" + item.fragment(); }

  // Into the clipboard; where there is none (a frame without permission, some file:// pages), the text
  // shown selected, to copy by hand.
  function copy(item, text) {
    function byHand() {
      say(item, "Select and copy it:", "info");
      item.picked.hidden = false;
      item.picked.value = text;
      item.picked.focus();
      item.picked.select();
    }
    lines(item);
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).then(function () { say(item, "Copied to the clipboard.", "info"); }, byHand);
    else byHand();
  }

  function embed(item) {
    var tag = document.querySelector('script[src*="js/nexttoken.js"]');
    var site = tag ? tag.src.replace(/js\/nexttoken\.js(\?.*)?$/, "") : "";
    var demo = item.root.getAttribute("data-demo");
    copy(item, '<iframe src="' + site + "embed/" + demo + ".html#" + item.fragment() + '" title="nexttoken: the ' + demo +
      ' demo" width="100%" height="720" style="border:0" loading="lazy" allow="clipboard-write"></iframe>');
  }

  function download(kind) {
    return function (item) {
      // the file's link is this demo's own state, whichever demo last wrote the page's address
      loadExport().then(function (ex) { ex.save(kind, item.root, item.spec, function (t, k) { say(item, t, k); }, link(item)); },
        function (err) { say(item, "The download could not start (" + err.message + ").", "error"); });
    };
  }

  return { restore: restore, parse: parse, copyLink: function (item) { copy(item, link(item)); }, embed: embed,
           csv: download("csv"), json: download("json") };
});
