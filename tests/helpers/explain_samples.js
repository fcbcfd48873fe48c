// Prints, as JSON, a sample of every kind of explanation the demos open (docs/js/explain/lines.js and pass.js),
// each with its "reproduce it" snippet and the last line's number: tests/site/test_explain_snippets.py
// runs the snippets and compares. Usage: node tests/helpers/explain_samples.js "the cat sat on the" [knock-out]
// where the knock-out is JSON as knockout.js stores it, e.g. '{"heads": [1], "mlp": true}'.
"use strict";
const path = require("node:path");
const { runtime, data, model, tokenizer } = require(path.join(__dirname, "..", "js", "load.js"));
for (const f of ["lines", "pass"]) require(path.join(__dirname, "..", "..", "docs", "js", "explain", f + ".js"));
const { lines, pass } = globalThis.nexttoken.explain;

const m = model(), tk = tokenizer(), cfg = m.config, w = data["tiny-model"].weights, show = (id) => tk.show(id);
const ids = tk.encode(process.argv[2] || "the cat sat on the").ids;
const knockout = process.argv[3] ? JSON.parse(process.argv[3]) : null;  // as the knock-out demo stores it
const tr = m.forward(ids, { knockout }), t = ids.length - 1;
const top = tr.logits[t].indexOf(Math.max(...tr.logits[t]));
const p = pass.of({ trace: tr, ids, config: cfg, weights: w, show });
const full = pass.of({ trace: m.forward(ids), ids, config: cfg, weights: w, show });

// the generation demo's count: a prefill of the prompt (every row), with the ops the runtime counted
function opsSample() {
  const r = runtime.kvcache.createCache(m).prefill(ids);
  return pass.ops(cfg, 0, ids.length - 1, r.ops);
}

function snapshotLosses(k) {
  const sm = runtime.snapshots.snapshotModel(data["tiny-model"], data["tiny-snapshots"], k), snapshot = { index: k, step: data["tiny-snapshots"].snapshots[k].step };
  const all = ids.concat([tk.eotId]), pl = runtime.snapshots.positionLosses(sm, all);
  const sp = pass.of({ trace: sm.forward(ids), ids, config: cfg, weights: w, show, snapshot });
  return [sp.loss(1, pl[1].target), sp.sentenceLoss(pl.map((q) => q.loss), pl.map((q) => q.target))];
}
const out = [
  p.logit(t, top),
  p.logit(0, 5),
  p.prob(top, 1, null, t),
  p.prob(top, 0.5, [top, 3, 7, 11], t),
  p.score(0, 1, t, 0),
  p.weight(0, 0, t, 1),
  p.layerNorm("ln_f", 0, t, 3),
  p.layerNorm("ln_1", 0, 0, 0),
  p.residual(0, "resid_mid", t, 2),
  p.residual(0, "x", 1, 6),
  p.mlp(0, t, 4),
  p.mix(0, 1, t, 2),
  p.proj(0, t, 5),
  lines.cosine(w, ids[1], ids[0], tk.show(ids[1]), tk.show(ids[0])),
  p.lens(null, "x", t, top),
  p.lens(0, "resid_mid", 1, 5),
  // the knock-out demo's full-model lane: its own pass, whatever the page's knock-outs
  full.prob(top, 1, null, t),
  // the training view: a snapshot's losses (its own weights, from the snapshots file)
  ...snapshotLosses(3),
  p.kv(0, "k", t, 5),
  p.kv(0, "v", 1, 2),
  opsSample(),
];
console.log(JSON.stringify(out.map((e) => ({ kind: e.kind, snippet: e.snippet, eq: e.lines[e.lines.length - 1].eq }))));
