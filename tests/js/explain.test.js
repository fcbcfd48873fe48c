// The arithmetic panels' lines (docs/js/explain/lines.js, pass.js) read as the reader sees them: a sum
// of many terms folds the negligible ones into one counted term whose value is their sum, terms are
// named (a token, a position, an index), one notation for a table's cell (wte[28][3]), and every minus
// sign is U+2212.
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const path = require("node:path");
const { data, model, tokenizer } = require("./load.js");
for (const f of ["lines", "pass"]) require(path.join(__dirname, "..", "..", "docs", "js", "explain", f + ".js"));
const { lines, pass } = globalThis.nexttoken.explain;

const m = model(), tk = tokenizer(), w = data["tiny-model"].weights;
const ids = tk.encode("the cat sat on the").ids, last = ids.length - 1;
const tr = m.forward(ids);
const p = pass.of({ trace: tr, ids, config: m.config, weights: w, show: (id) => tk.show(id) });
const top = tr.logits[last].indexOf(Math.max(...tr.logits[last]));
const value = (t) => Number(t.replace("\u2212", "-"));

test("a softmax's sum keeps the terms that show, named by token, and folds the rest into one counted term", () => {
  const ex = p.prob(top, 1, null, last), sum = ex.lines[2];
  assert.ok(sum.fold && sum.fold.count > 1, "the 58 terms fold");
  const V = m.config.vocab_size, kept = sum.terms.length - 1;
  assert.strictEqual(kept + sum.fold.count, V, "kept + folded = every token");
  assert.strictEqual(sum.names[kept], sum.fold.count + " others");
  // the folded term is the sum of exactly the terms left out
  const es = Array.from(tr.logits[last], (z) => Math.exp(z - Math.max(...tr.logits[last])));
  const keptIds = sum.names.slice(0, kept).map((nm) => tk.vocab.findIndex((_, id) => tk.show(id) === nm));
  assert.ok(keptIds.includes(top) && keptIds.every((id) => id >= 0), "kept terms are named by their tokens");
  const rest = es.reduce((s, e, id) => (keptIds.includes(id) ? s : s + e), 0);
  assert.strictEqual(sum.terms[kept], lines.num(rest));
  keptIds.forEach((id, k) => assert.strictEqual(sum.terms[k], lines.num(es[id])));
  // kept terms all show as more than zero, largest first; at most 8
  assert.ok(kept <= 8);
  sum.terms.slice(0, kept).forEach((t, k) => {
    assert.notStrictEqual(value(t), 0);
    if (k) assert.ok(value(t) <= value(sum.terms[k - 1]));
  });
});

test("a sum of a few terms does not fold, and a fold keeps every value it read", () => {
  const few = lines.line("few", "sum", [0.00001, 0.00002, 1], 1.00003);
  assert.strictEqual(few.fold, undefined);
  assert.strictEqual(few.terms.length, 3);
  const many = Array.from({ length: 20 }, (_, k) => (k === 3 ? 2.5 : k === 7 ? -1.25 : 1e-7 * k));
  const ln = lines.line("many", "sum", many, many.reduce((a, b) => a + b, 0));
  assert.deepStrictEqual(ln.fold, { count: 18 });
  assert.deepStrictEqual(ln.terms.slice(0, 2), ["2.5000", "\u22121.2500"]);
  assert.deepStrictEqual(ln.names, ["[3]", "[7]", "18 others"]);
  assert.strictEqual(value(ln.terms[2]), Number((many.reduce((a, b) => a + b, 0) - 2.5 + 1.25).toFixed(4)));
  assert.strictEqual(ln.values.length, 20);
});

test("one notation: a table's cell is name[row][cell] in the formula and in the lines", () => {
  const ex = p.logit(last, top);
  assert.match(ex.formula, new RegExp("wte\\[" + top + "\\]\\[c\\]"));
  ex.lines.slice(0, m.config.n_embd).forEach((ln, c) => assert.strictEqual(ln.label, `final[${c}] × wte[${top}][${c}]`));
  const lens = p.lens(null, "x", last, top);
  assert.strictEqual(lens.lines[0].label, `ln_f(x)[0] × wte[${top}][0]`);
  const res = p.residual(0, "x", 1, 6);
  assert.strictEqual(res.lines[0].label, `wte[${ids[1]}][6] + wpe[1][6]`);
});

test("every number in every kind of panel uses U+2212, never a hyphen", () => {
  const all = [p.logit(last, top), p.prob(top, 0.5, [top, 3, 7, 11], last), p.score(0, 1, last, 0), p.weight(0, 0, last, 1),
    p.layerNorm("ln_f", 0, last, 3), p.residual(0, "resid_mid", last, 2), p.mlp(0, last, 4), p.mix(0, 1, last, 2), p.proj(0, last, 5),
    lines.cosine(w, ids[1], ids[0], tk.show(ids[1]), tk.show(ids[0])), p.lens(0, "resid_mid", 1, 5), p.kv(0, "k", last, 5)];
  let negatives = 0;
  all.forEach((ex) => ex.lines.forEach((ln) => ln.terms.concat([ln.eq]).forEach((t) => {
    assert.ok(!t.includes("-"), `${ex.kind}: ${t}`);
    if (t.startsWith("\u2212")) negatives += 1;
  })));
  assert.ok(negatives > 10, "the panels do show negative numbers");
});
