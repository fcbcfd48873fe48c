// The browser's side of tests/tiny/test_sized_parity.py: for each corpus in the JSON file named on the
// command line, the reader's sizes and tokenizer (corpus.js), the seeded starting weights, the step-1
// gradients and 50 Adam steps (trainer.js), printed as JSON for the test to compare with PyTorch.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { ROOT, runtime, data } = require("../js/load.js");
require(path.join(ROOT, "docs/js/runtime/corpus.js"));
require(path.join(ROOT, "docs/js/runtime/trainer.js"));

const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const built = data["tiny-model"];
const out = job.corpora.map((lines) => {
  const sized = runtime.corpus.size(lines, built.config.model, job.caps, built.tokenizer, runtime.tokenizer.create);
  if (!sized.ok) return { error: sized.message };
  const init = runtime.trainer.seededWeights(sized.config, job.seed, job.init_std);
  const tcfg = { lr: job.lr, betas: job.betas, eps: job.eps };
  const g = runtime.trainer.createTrainer(sized.config, init, sized.rows, tcfg);
  const loss = g.lossAndGrad();
  const tr = runtime.trainer.createTrainer(sized.config, init, sized.rows, tcfg);
  const losses = [];
  for (let i = 0; i < job.steps; i++) losses.push(tr.step());
  losses.push(tr.lossAndGrad());
  return {
    chars: sized.bpe.chars, merges: sized.bpe.merges, capped: sized.capped,
    vocab_size: sized.config.vocab_size, n_ctx: sized.config.n_ctx, n_params: g.size,
    init: runtime.trainer.flatten(init), loss, grad: Array.from(g.grad), losses, weights: Array.from(tr.params),
  };
});
process.stdout.write(JSON.stringify({ caps: runtime.corpus.CAPS, corpora: out }));
