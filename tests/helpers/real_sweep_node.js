// Runs docs/js/real/sweep.js over docs/js/real/engine.js in Node on a model's browser copy, for the
// parity tests of the ablations against transformers (tests/real/test_ablation_smollm2.py):
//   node tests/helpers/real_sweep_node.js FOLDER MODEL REQUESTS.json OUT.json [js|wasm]
// REQUESTS.json: {means: the shipped means record (or null), runs: [{ids, target, specs, source_ids,
// direct_targets, kinds, pattern}]}: each run's sweep (real.sweep's run: the plain pass, then each
// spec; a patch copies from source_ids' capture), and when asked the direct shares of each target
// token's logit, the heads' kinds and one head's pattern. OUT.json holds the numbers.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");
const { open } = require("./real_node.js");

const ROOT = path.resolve(__dirname, "..", "..");
function defined(file) {
  let made = null;
  const nexttoken = { define: (name, needs, make) => { made = make(); } };
  vm.runInNewContext(fs.readFileSync(path.join(ROOT, file), "utf8"), { nexttoken, atob: globalThis.atob }, { filename: file });
  return made;
}
const sweep = defined("docs/js/real/sweep.js");

async function main() {
  const [folder, model, requests, outFile, kernels = "js"] = process.argv.slice(2);
  const { model: m } = await open(folder, model, kernels, 1);
  const req = JSON.parse(fs.readFileSync(requests, "utf8"));
  const means = req.means ? sweep.means(req.means) : null;
  const out = [];
  for (const r of req.runs) {
    const source = r.source_ids ? await sweep.capture(m, r.source_ids) : null;
    const got = await sweep.run(m, { ids: r.ids, specs: r.specs, target: r.target, means, source }).done;
    const res = { base: got.base, rows: got.rows.map((x) => x.metric) };
    if (r.direct_targets || r.kinds || r.pattern) {
      const p = await m.prefill(r.ids, { direct: !!r.direct_targets, kinds: !!r.kinds, pattern: r.pattern || null });
      if (r.direct_targets) {
        const d = p.direct, C = m.config.n_embd, H = m.config.n_head;
        res.direct = [];
        for (const id of r.direct_targets) {
          const row = await m.outputRow(id);
          const share = (v, o) => { let s = 0; for (let i = 0; i < C; i++) s += v[o + i] * d.gamma[i] * d.scale * row[i]; return s; };
          res.direct.push({ embedding: share(d.embedding, 0), heads: d.heads.map((a) => Array.from({ length: H }, (_, h) => share(a, h * C))),
            mlp: d.mlp.map((a) => share(a, 0)), logit: p.logits[id] });
        }
      }
      if (r.kinds) res.kinds = p.kinds.map((a) => Array.from(a));
      if (r.pattern) res.pattern = Array.from(p.pattern);
    }
    out.push(res);
  }
  fs.writeFileSync(outFile, JSON.stringify({ kernels: m.kernels, runs: out }));
}

main().catch((err) => { console.error("error: " + (err && err.message)); process.exit(1); });
