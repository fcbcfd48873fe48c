// A demo's numbers as a file the reader downloads (js/ui/permalink.js's Download buttons load this
// on first use): CSV (the demo's first table) or JSON (all its tables), made in the page as a Blob, so
// it works offline and from disk. Every file carries its provenance: the site, its version (the build's
// content hash of site_data), the build's date, the download's date and the link to the demo's state shown.
// A CSV opens with "# " lines holding it (pandas: comment="#"; Python's csv: skip lines starting "#").
nexttoken.define("ui.export", [], function () {
  "use strict";

  function provenance(root, link) {
    var meta = document.querySelector('meta[name="nt-version"]');
    return {
      site: "nexttoken: how a language model picks its next token",
      version: meta ? meta.getAttribute("content") : "",
      built: meta ? meta.getAttribute("data-built") : "",
      downloaded: new Date().toISOString(),
      demo: root.getAttribute("data-demo"),
      link: link
    };
  }

  // One CSV field: quoted when it holds a comma, quote, line break or leading/trailing space; numbers
  // in full (shortest round-trip form), so the file reads back to the page's own values.
  function field(v) {
    if (v === null || v === undefined) return "";
    if (typeof v === "number") return isFinite(v) ? String(v) : (v > 0 ? "inf" : v < 0 ? "-inf" : "nan");
    var s = String(v);
    return /[",\r\n]|^\s|\s$|^#/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  }

  function csv(table, prov) {
    var lines = Object.keys(prov).map(function (k) { return "# " + k + ": " + String(prov[k]).replace(/[\r\n]/g, " "); });
    lines.push("# table: " + table.name);
    lines.push(table.columns.map(field).join(","));
    var rows = table.rows;
    for (var i = 0; i < rows.length; i++) lines.push(Array.prototype.map.call(rows[i], field).join(","));
    return lines.join("\n") + "\n";
  }

  function json(tables, prov, extra) {
    var out = { provenance: prov, tables: {} };
    tables.forEach(function (t) {
      out.tables[t.name] = { columns: t.columns, rows: t.rows.map(function (r) { return Array.prototype.slice.call(r); }) };
    });
    if (extra) Object.keys(extra).forEach(function (k) { out[k] = extra[k]; });
    return JSON.stringify(out);
  }

  // A table given as {name, weights: {tensor: nested arrays}}: one row per number, tensor name and flat index.
  function flatten(t) {
    if (!t.weights) return t;
    var rows = [];
    (function walk(x, name) {
      if (Array.isArray(x) && typeof x[0] !== "object") x.forEach(function (v, i) { rows.push([name, i, v]); });
      else if (Array.isArray(x) && Array.isArray(x[0]) && typeof x[0][0] === "number") {
        var n = x[0].length;
        x.forEach(function (row, i) { row.forEach(function (v, j) { rows.push([name, i * n + j, v]); }); });
      } else if (x && typeof x === "object") Object.keys(x).forEach(function (k) { walk(x[k], name ? name + "." + k : k); });
    })(t.weights, "");
    return { name: t.name, columns: ["tensor", "flat_index", "value"], rows: rows };
  }

  // link: the demo's own state as a link (js/ui/share.js), not the page's address, which names the last
  // demo the reader changed
  function save(kind, root, spec, say, link) {
    var got;
    try { got = spec.tables(); } catch (e) { got = { error: e && e.message ? e.message : String(e) }; }
    if (got && got.length && got.some(function (t) { return t.weights; })) {
      var extra = got.extra;
      got = kind === "csv" ? got.map(flatten) : got.filter(function (t) { return !t.weights; });
      got.extra = extra;
    }
    if (!got || got.error || !(kind === "csv" ? got.length : got.length || got.extra)) {
      say("Nothing to download: " + (got && got.error ? got.error : "the demo shows no numbers now") + ".", "warn");
      return null;
    }
    var prov = provenance(root, link || location.href);
    var body = kind === "csv" ? csv(got[0], prov) : json(got, prov, got.extra);
    var name = "nexttoken-" + prov.demo + "-" + (kind === "csv" ? got[0].name : got.length ? "all" : "model") + "-" + (prov.version || "local") + "." + kind;
    var blob = new Blob([body], { type: kind === "csv" ? "text/csv" : "application/json" });
    var a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    a.hidden = true;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    say("Downloaded " + name + " (" + (kind === "csv" ? got[0].rows.length + " rows" : got.length + (got.length === 1 ? " table" : " tables") + (got.extra && got.extra.model ? " and the model" : "")) + ").", "info");
    return { name: name, text: body };
  }

  return { save: save, csv: csv, json: json };
});
