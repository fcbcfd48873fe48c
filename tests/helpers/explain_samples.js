// Prints, as JSON, a sample of every kind of explanation the demos open (docs/js/demos/explain.js),
// each with its "reproduce it" snippet and the last line's number: tests/site/test_explain_snippets.py
// runs the snippets and compares. Usage: node tests/helpers/explain_samples.js "the cat sat on the" [knock-out]
// where the knock-out is JSON as knockout.js publishes it, e.g. '{"heads": [1], "mlp": true}'.
"use strict";
const path = require("node:path");
const { data, model, tokenizer } = require(path.join(__dirname, "..", "js", "load.js"));
require(path.join(__dirname, "..", "..", "docs", "js", "demos", "explain.js"));
const X = require(path.join(__dirname, "..", "..", "docs", "js", "demos", "explain-pass.js"));  // NTX.explain, every kind

const m = model(), tk = tokenizer(), cfg = m.config, w = data["tiny-model"].weights;
const ids = tk.encode(process.argv[2] || "the cat sat on the").ids;
if (process.argv[3]) globalThis.NT.knockoutState = JSON.parse(process.argv[3]);  // as the knock-out demo sets it
const tr = m.forward(ids, { knockout: globalThis.NT.knockoutState || null }), t = ids.length - 1, B = tr.h[0];
const top = tr.logits[t].indexOf(Math.max(...tr.logits[t]));
const full = m.forward(ids);

// the generation demo's count: a prefill of the prompt (every row), with the ops the runtime counted
function opsSample() {
  const r = runtime.kvcache.createCache(m).prefill(ids);
  return X.ops(cfg, 0, ids.length - 1, r.ops);
}

function snapshotLosses(k) {
  const sm = runtime.snapshots.snapshotModel(data["tiny-model"], data["tiny-snapshots"], k), snap = { index: k, step: data["tiny-snapshots"].snapshots[k].step };
  const all = ids.concat([tk.eotId]), pl = runtime.snapshots.positionLosses(sm, all), st = sm.forward(ids);
  return [X.loss(cfg, ids, Array.from(st.logits[1]), pl[1].target, tk.show(pl[1].target), 1, snap),
          X.sentenceLoss(cfg, ids, pl.map((p) => p.loss), pl.map((p) => p.target), snap)];
}
const out = [
  X.logit(cfg, tr, ids, w, t, top, tk.show(top)),
  X.logit(cfg, tr, ids, w, 0, 5, tk.show(5)),
  X.prob(cfg, ids, tr.logits[t], top, tk.show(top), 1, null, t),
  X.prob(cfg, ids, tr.logits[t], top, tk.show(top), 0.5, [top, 3, 7, 11], t),
  X.score(cfg, tr, ids, 0, 1, t, 0),
  X.weight(cfg, tr, ids, 0, 0, t, 1),
  X.layerNorm(cfg, ids, B.resid_post[t], w.ln_f.weight, w.ln_f.bias, 3, tr.ln_f[t][3], "ln_f", `tr["ln_f"][${t}]`),
  X.layerNorm(cfg, ids, tr.x[0], w.h[0].ln_1.weight, w.h[0].ln_1.bias, 0, B.ln_1[0][0], "ln_1", `tr["h"][0]["ln_1"][0]`),
  X.residual(cfg, ids, [["x", tr.x[t]], ["attention", B.attn_out[t]]], 2, B.resid_mid[t][2], "after attention", `tr["h"][0]["resid_mid"][${t}]`),
  X.residual(cfg, ids, [["wte", tr.wte[1]], ["wpe", tr.wpe[1]]], 6, tr.x[1][6], "input", `tr["x"][1]`),
  X.mlp(cfg, tr, w, ids, 0, t, 4),
  X.mix(cfg, tr, ids, 0, 1, t, 2),
  X.proj(cfg, tr, w, ids, 0, t, 5),
  X.cosine(w, ids[1], ids[0], tk.show(ids[1]), tk.show(ids[0])),
  X.lens(cfg, w, ids, Array.from(tr.x[t]), t, top, tk.show(top), "after the embeddings", 'tr["x"]'),
  X.lens(cfg, w, ids, Array.from(B.resid_mid[1]), 1, 5, tk.show(5), "after attention", 'tr["h"][0]["resid_mid"]'),
  // the knock-out demo's full-model lane: its own pass, whatever the page's knock-outs
  X.prob(cfg, ids, Array.from(full.logits[t]), top, tk.show(top), 1, null, t, { heads: [], mlp: false }),
  // the training view: a snapshot's losses (its own weights, from the snapshots file)
  ...snapshotLosses(3),
  X.kv(cfg, tr, w, ids, 0, "k", t, 5),
  X.kv(cfg, tr, w, ids, 0, "v", 1, 2),
  opsSample(),
];
console.log(JSON.stringify(out.map((e) => ({ kind: e.kind, snippet: e.snippet, eq: e.lines[e.lines.length - 1].eq }))));
