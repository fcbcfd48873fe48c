// Demo: speculative decoding's accept/reject, on the tiny model. The container's data-spec holds the
// build's target p and draft q over the whole vocabulary (scripts/site/costs.py's speculative). Each
// draft draws x from q, keeps it with probability min(1, p(x)/q(x)), else draws from max(0, p - q)
// renormalised; the tally of what comes out is set against p. Draws use a seeded generator, so a
// reload replays the same run.
nexttoken.define("demos.spec-decode", ["ui", "ui.permalink"], function (ui, permalink) {
  "use strict";

  var SHOWN = 4;  // the tokens drawn as bars; the rest are summed into one row

  function rng(seed) {  // mulberry32
    return function () {
      seed |= 0; seed = seed + 0x6D2B79F5 | 0;
      var t = Math.imul(seed ^ seed >>> 15, 1 | seed);
      t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t;
      return ((t ^ t >>> 14) >>> 0) / 4294967296;
    };
  }

  function draw(dist, u) {
    var acc = 0;
    for (var i = 0; i < dist.length; i++) { acc += dist[i]; if (u < acc) return i; }
    return dist.length - 1;
  }

  ui.start("spec-decode", function (root, live) {
    var d = JSON.parse(root.getAttribute("data-spec"));
    var p = d.p, q = d.q, n = p.length;
    var excess = p.map(function (a, i) { return Math.max(0, a - q[i]); });
    var exSum = excess.reduce(function (a, b) { return a + b; }, 0);
    var resid = excess.map(function (e) { return e / exSum; });
    var order = p.map(function (x, i) { return i; }).sort(function (a, b) { return p[b] - p[a]; });
    var shown = order.slice(0, SHOWN);
    var seed = Number(root.getAttribute("data-seed") || 1), random = rng(seed);
    var tally = [], kept = 0, total = 0;
    for (var i = 0; i < n; i++) tally.push(0);

    var last = ui.el("p", { class: "nt-spec-last", "aria-live": "polite", text: "No draft yet: press Draft one token." });
    var table = ui.el("div", { class: "nt-spec-rows" });
    var summary = ui.el("p", { class: "nt-small nt-spec-sum" });

    function one() {
      var x = draw(q, random()), u = random(), keep = Math.min(1, p[x] / q[x]), out = x, ok = u < keep;
      if (!ok) out = draw(resid, random());
      tally[out] += 1; total += 1; if (ok) kept += 1;
      return { x: x, u: u, keep: keep, ok: ok, out: out };
    }

    function tok(i) { return d.tokens[i]; }

    function show(r) {
      if (r) {
        ui.clear(last);
        last.appendChild(document.createTextNode("Draft "));
        last.appendChild(ui.el("code", { text: tok(r.x) }));
        last.appendChild(document.createTextNode(": p/q = " + ui.fix(p[r.x] / q[r.x], 3) + ", kept if u < " + ui.fix(r.keep, 3) +
          "; u = " + ui.fix(r.u, 3) + (r.ok ? ": kept." : ": rejected, redrawn from p beyond q: ")));
        if (!r.ok) last.appendChild(ui.el("code", { text: tok(r.out) }));
        last.setAttribute("data-kept", r.ok ? "1" : "0");
      }
      ui.clear(table);
      var rest = { p: 0, q: 0, n: 0 };
      order.slice(SHOWN).forEach(function (i) { rest.p += p[i]; rest.q += q[i]; rest.n += tally[i]; });
      var rows = shown.map(function (i) { return { label: tok(i), p: p[i], q: q[i], n: tally[i], i: i }; });
      rows.push({ label: "the other " + (n - SHOWN), p: rest.p, q: rest.q, n: rest.n, i: -1 });
      table.appendChild(ui.bars([].concat.apply([], rows.map(function (r) {
        var got = total ? r.n / total : 0;
        return [
          { label: r.label + " p", value: r.p, cls: "nt-spec-p", text: ui.pct(r.p), data: { token: r.i, kind: "p", value: r.p } },
          { label: r.label + " q", value: r.q, cls: "nt-spec-q", text: ui.pct(r.q), data: { token: r.i, kind: "q", value: r.q } },
          { label: r.label + " out", value: got, cls: "nt-spec-out", rowCls: "nt-spec-gap", text: total ? ui.pct(got) : "none yet", data: { token: r.i, kind: "out", value: got } }
        ];
      })), { label: "target p, draft q and the tokens that came out" }));
      summary.textContent = total ? ui.count(total) + " drafts, " + ui.count(kept) + " kept (" + ui.pct(kept / total) + "; the rule's rate is " +
        ui.pct(d.accept) + "). The tokens that came out follow p, not q." : "The rule keeps a draft " + ui.pct(d.accept) + " of the time: the sum of min(p, q).";
      summary.setAttribute("data-total", String(total));
      summary.setAttribute("data-kept", String(kept));
    }

    var step = ui.button("Draft one token", function () { show(one()); }, { primary: true });
    var many = ui.button("Draft 1,000", function () {
      var r; for (var k = 0; k < 1000; k++) r = one();
      show(r);
    });
    live.appendChild(ui.el("div", { class: "nt-controls" }, [step, many]));
    live.appendChild(last);
    live.appendChild(ui.el("p", { class: "nt-small", text: "For each token: p, the target; q, the draft; out, the share of what came out so far." }));
    live.appendChild(table);
    live.appendChild(summary);
    show(null);

    // How many drafts were made, in the page's link: the same seeded run replayed, drawn once at its end (so a
    // link's 100,000 drafts cost one picture); the tally as a download.
    permalink.join(root, live, {
      fields: { drafts: permalink.int(0, 100000) },
      get: function () { return { drafts: total }; },
      set: function (s) {
        if (s.drafts === undefined) return;
        random = rng(seed); kept = 0; total = 0;
        for (var i = 0; i < n; i++) tally[i] = 0;
        var r = null;
        for (var k = 0; k < s.drafts; k++) r = one();
        show(r);
        if (!r) last.textContent = "No draft yet: press Draft one token.";
      },
      tables: function () {
        return [{ name: "drafts", columns: ["token", "p_target", "q_draft", "came_out", "share_out"],
          rows: order.map(function (i) { return [tok(i), p[i], q[i], tally[i], total ? tally[i] / total : 0]; }) }];
      } });
  });
});
