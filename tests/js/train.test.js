// Training in the browser against PyTorch, as llm.c checks its C: the BPE learner's merges, the
// gradients of every parameter at step 1 (float64 autograd), and 50 Adam steps, from the build's
// own initial weights (site_data/parity/, written by scripts/tiny/references.py).
"use strict";
const test = require("node:test");
const assert = require("node:assert");
const fs = require("node:fs");
const path = require("node:path");
const { ROOT, runtime, data, maxDiff } = require("./load.js");
require(path.join(ROOT, "docs/js/runtime/corpus.js"));
require(path.join(ROOT, "docs/js/runtime/trainer.js"));

const parity = (name) => JSON.parse(fs.readFileSync(path.join(ROOT, "site_data", "parity", name + ".json"), "utf8"));
const init = parity("init");
const mc = data["tiny-model"].config.model;
const tcfg = data["tiny-model"].config.training;
const corpus = data["tiny-model"].config.corpus;
const GRAD_TOL = 1e-9;
const ADAM_TOL = 1e-7;

function trainer() {
  const tk = runtime.tokenizer.create(data["tiny-model"].tokenizer);
  return runtime.trainer.createTrainer(mc, init.weights, runtime.corpus.makeBatch(tk, corpus, mc.n_ctx), tcfg);
}

test("the BPE learner gives Python's merges, in order, on the build corpus and every edited one", () => {
  const ref = parity("bpe");
  assert.ok(ref.cases.length >= 6);
  let compared = 0;
  for (const c of ref.cases) {
    if (c.error) {
      assert.throws(() => runtime.corpus.learnBPE(c.corpus, ref.vocab_size), (e) => e.message === c.error, c.name);
    } else {
      const js = runtime.corpus.learnBPE(c.corpus, ref.vocab_size);
      assert.deepStrictEqual(js.chars, c.chars, `${c.name}: characters`);
      assert.deepStrictEqual(js.merges, c.merges, `${c.name}: merges`);
      compared += c.merges.length;
    }
  }
  console.log(`# BPE: ${ref.cases.length} corpora, ${compared} merges compared, all equal`);
});

test("the learned tokenizer on the build corpus is the build's tokenizer", () => {
  const js = runtime.corpus.learnBPE(corpus, mc.vocab_size);
  const tj = runtime.corpus.tokenizerJson(js.chars, js.merges, data["tiny-model"].tokenizer);
  assert.deepStrictEqual(tj.vocab, data["tiny-model"].tokenizer.vocab);
});

test("step-1 gradients of every parameter equal PyTorch float64 autograd", () => {
  const ref = parity("grads");
  const tr = trainer();
  const loss = tr.lossAndGrad();
  const g = runtime.trainer.flatten(ref.grads);
  assert.strictEqual(g.length, tr.size);
  const worst = maxDiff(Array.from(tr.grad), g, "grad");
  console.log(`# step-1 loss: JS ${loss} vs PyTorch ${ref.loss} (|diff| ${Math.abs(loss - ref.loss).toExponential(2)}); ` +
    `gradients, ${g.length} parameters: largest |diff| ${worst.toExponential(2)} (tolerance ${GRAD_TOL})`);
  assert.ok(Math.abs(loss - ref.loss) <= GRAD_TOL);
  assert.ok(worst <= GRAD_TOL);
});

test("50 Adam steps equal PyTorch's in every loss and weight", () => {
  const ref = parity("adam");
  const tr = runtime.trainer.createTrainer(mc, init.weights, runtime.corpus.makeBatch(runtime.tokenizer.create(data["tiny-model"].tokenizer), corpus, mc.n_ctx),
    { lr: ref.lr, betas: ref.betas, eps: ref.eps });
  const losses = [];
  for (let i = 0; i < ref.steps; i++) losses.push(tr.step());
  losses.push(tr.lossAndGrad());
  const lossDiff = maxDiff(losses, ref.losses, "loss");
  const wDiff = maxDiff(Array.from(tr.params), runtime.trainer.flatten(ref.weights), "weights");
  console.log(`# ${ref.steps} Adam steps: largest |diff| in loss ${lossDiff.toExponential(2)}, in weights ${wDiff.toExponential(2)} (tolerance ${ADAM_TOL})`);
  assert.ok(lossDiff <= ADAM_TOL);
  assert.ok(wDiff <= ADAM_TOL);
});

test("the same seed and corpus give the same model twice, bit for bit", () => {
  const a = trainer(), b = trainer();
  for (let i = 0; i < 200; i++) { a.step(); b.step(); }
  assert.ok(a.params.every((x, i) => Object.is(x, b.params[i])));
  assert.ok(a.params.some((x, i) => x !== runtime.trainer.flatten(init.weights)[i]));  // and it did move
});

test("widths that are not multiples of 8 (the kernels' one-at-a-time rest) give the gradient of the loss", () => {
  // Central differences on every weight of a model of width 6 and MLP 12 (all of a row goes through
  // the rest loop, and 8 + 4 of the MLP's input); the sizes the page trains are multiples of 8.
  const cfg = { vocab_size: 7, n_ctx: 4, n_embd: 6, n_layer: 2, n_head: 2, d_mlp: 12, ln_eps: mc.ln_eps };
  const rows = [{ x: [0, 3, 5], y: [3, 5, 1] }, { x: [2, 6, 4, 1], y: [6, 4, 1, 0] }];
  const tr = runtime.trainer.createTrainer(cfg, runtime.trainer.seededWeights(cfg, 5, 0.5), rows, tcfg);
  tr.lossAndGrad();
  const grad = Float64Array.from(tr.grad), h = 1e-6;
  let worst = 0;
  for (let i = 0; i < tr.size; i++) {
    const keep = tr.params[i];
    tr.params[i] = keep + h; const up = tr.lossAndGrad();
    tr.params[i] = keep - h; const down = tr.lossAndGrad();
    tr.params[i] = keep;
    worst = Math.max(worst, Math.abs((up - down) / (2 * h) - grad[i]));
  }
  console.log(`# width 6, MLP 12, two layers: ${tr.size} weights, largest |analytic - central difference| ${worst.toExponential(2)}`);
  assert.ok(worst < 1e-7, String(worst));
});

test("the trained weights come back in the nested layout the model reads", () => {
  const tr = trainer();
  tr.step();
  const m = runtime.model.create({ config: data["tiny-model"].config, weights: tr.weights() });
  assert.strictEqual(m.forward([1, 2]).probs.length, 2);
});

test("bad corpora are refused with one line and nothing learned", () => {
  const limits = { maxSentences: 60, builtSentences: 12, maxChars: 60, nCtx: mc.n_ctx };
  const bad = ["", "  \n\n", "the cat 😀 sat.", "the cat sat on the <b>mat</b>.", "der Kater saß.",
    Array.from({ length: 500 }, (_, i) => "the cat sat " + i + ".").join("\n")];
  for (const text of bad) {
    const r = runtime.corpus.checkCorpus(text, limits);
    assert.strictEqual(r.ok, false, JSON.stringify(text.slice(0, 30)));
    assert.ok(r.message && !r.message.includes("\n"));
  }
  assert.ok(runtime.corpus.checkCorpus(corpus.join("\n"), limits).ok);
  const many = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  assert.throws(() => runtime.corpus.learnBPE([many], mc.vocab_size), /different characters/);
});
