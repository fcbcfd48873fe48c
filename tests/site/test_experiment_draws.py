"""The experiments page's seeded draws are the build's: mulberry32, the random heads and the word
shuffle of docs/js/real/experiments.js give what scripts/real/experiments.py gave for the stored
seeds (so a reroll or a link in the page replays the stored sequence, heads and shuffled text)."""
from __future__ import annotations

import json
import shutil
import subprocess

from scripts.core.io import ROOT, SITE_DATA, read_json
from scripts.real import experiments

STORED = read_json(SITE_DATA / "smollm2" / "experiments.json")

SCRIPT = """
globalThis.window = globalThis;
require("./docs/js/nexttoken.js"); require("./docs/js/runtime/kernels.js"); require("./docs/js/runtime/sampling.js"); require("./docs/js/real/experiments.js");
const { real, runtime } = globalThis.nexttoken, q = JSON.parse(require("node:fs").readFileSync(0, "utf8"));
const r = runtime.sampling.mulberry32(q.seed);
console.log(JSON.stringify({
  floats: Array.from({ length: 8 }, () => r()),
  sequence: real.experiments.sequence(q.pool, q.seed, q.n),
  heads: q.controls.map((s) => real.experiments.randomHeads(s, q.k, q.L, q.H, q.skip)),
  shuffled: q.texts.map((t) => real.experiments.shuffleWords(t[0], t[1])),
}));
"""


def test_the_page_draws_what_the_stage_drew():
    c, texts = STORED["copying"], STORED["surprise"]["texts"]
    by_key = {t["key"]: t for t in texts}
    shuffles = [(by_key[t["shuffle"]]["text"], t["seed"]) for t in texts if "shuffle" in t]
    pool = list(range(1000, 1000 + c["pool"]["size"]))  # the draw depends on the pool's size alone
    q = {"seed": c["seed"], "pool": pool, "n": c["length"], "controls": [x["seed"] for x in c["controls"]], "k": len(c["knockout"]["heads"]),
         "L": STORED["config"]["n_layer"], "H": STORED["config"]["n_head"], "skip": c["knockout"]["heads"], "texts": shuffles}
    out = subprocess.run([shutil.which("node"), "-e", SCRIPT], input=json.dumps(q), cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    js = json.loads(out.stdout)
    r = experiments.mulberry32(c["seed"])
    assert js["floats"] == [r() for _ in range(8)]
    assert js["sequence"] == experiments.random_sequence(pool, c["seed"], c["length"])
    assert js["heads"] == [x["heads"] for x in c["controls"]]
    assert js["shuffled"] == [t["text"] for t in texts if "shuffle" in t]
