"""Benchmark of SmolLM2's JS tokenizer: printed figures, no targets asserted.

    python -m scripts.quality.bench_tokenizer    # needs docs/js/data/smollm2-tokenizer.js (`make site`) and node

- the data file's size, raw and gzip (what a reader downloads when asking for the real model);
- in node: reading the data script and building the tables (create), then encoding a 1,000-token
  text (the head of ARCHITECTURE.md: prose, tables and code) cold (first call, empty word cache)
  and warm (median of 20 further calls on the same tokenizer), and one long piece (3,000 CJK letters,
  nothing to split them: the merge loop's worst case).
Figures also go to build/report/bench_tokenizer.json.
"""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys

from scripts.quality.needs import require
from scripts.core.io import BUILD, ROOT, write_json_atomic

DATA_JS = ROOT / "docs" / "js" / "data" / "smollm2-tokenizer.js"
TOKENS = 1000

NODE = r"""
const fs = require("fs"), path = require("path"), vm = require("vm");
const [root, nTokens] = [process.argv[1], Number(process.argv[2])];
const now = () => Number(process.hrtime.bigint()) / 1e6;
const sandbox = { TextEncoder, TextDecoder, Uint8Array }; sandbox.window = sandbox; vm.createContext(sandbox);
let t = now();
vm.runInContext(fs.readFileSync(path.join(root, "docs/js/nexttoken.js"), "utf8"), sandbox);
vm.runInContext(fs.readFileSync(path.join(root, "docs/js/data/smollm2-tokenizer.js"), "utf8"), sandbox);
const parse = now() - t;
vm.runInContext(fs.readFileSync(path.join(root, "docs/js/real/tokenizer.js"), "utf8"), sandbox);
t = now();
const api = sandbox.nexttoken.real.tokenizer, data = sandbox.nexttoken.data["smollm2-tokenizer"];
const tok = api.create(data);
const create = now() - t;
// The text: the longest head of ARCHITECTURE.md within nTokens tokens (found by a throwaway
// tokenizer, so the timed one starts cold).
const probe = api.create(data);
const whole = fs.readFileSync(path.join(root, "ARCHITECTURE.md"), "utf8");
let [lo, hi] = [0, whole.length];
while (lo < hi) {
  const mid = Math.ceil((lo + hi) / 2), r = probe.encode(whole.slice(0, mid));
  if (r.ok && r.ids.length <= nTokens) lo = mid; else hi = mid - 1;
}
const text = whole.slice(0, lo);
t = now();
const n = tok.encode(text).ids.length;
const cold = now() - t;
const warm = [];
for (let i = 0; i < 20; i++) { t = now(); tok.encode(text); warm.push(now() - t); }
warm.sort((a, b) => a - b);
// One long piece: 3,000 CJK letters (seeded), which no space or punctuation splits.
let seed = 1;
const cjk = Array.from({ length: 3000 }, () => String.fromCodePoint(0x4E00 + ((seed = (seed * 48271) % 2147483647) % 20000))).join("");
t = now();
tok.encode(cjk);
const piece = now() - t;
console.log(JSON.stringify({ parse_ms: parse, create_ms: create, tokens: n, chars: text.length, encode_cold_ms: cold,
  encode_warm_ms: warm[10], long_piece_ms: piece }));
"""


def main() -> None:
    require("bench_tokenizer", node=True)
    if not DATA_JS.is_file():
        print(f"bench_tokenizer: {DATA_JS.relative_to(ROOT)} not found: run `make site` first", file=sys.stderr)
        raise SystemExit(2)
    node = shutil.which("node")
    raw = DATA_JS.read_bytes()
    figures = {"data_bytes": len(raw), "data_gzip_bytes": len(gzip.compress(raw, 9))}
    proc = subprocess.run([node, "-e", NODE, str(ROOT), str(TOKENS)], capture_output=True, text=True, check=False)
    if proc.returncode:
        raise SystemExit(f"error: node failed: {proc.stderr.strip().splitlines()[-1]}")
    figures.update(json.loads(proc.stdout))
    print(f"smollm2-tokenizer.js: {figures['data_bytes'] / 1e6:.2f} MB raw, {figures['data_gzip_bytes'] / 1e6:.2f} MB gzip")
    print(f"node {subprocess.run([node, '--version'], capture_output=True, text=True).stdout.strip()}: "
          f"data script {figures['parse_ms']:.0f} ms, create {figures['create_ms']:.0f} ms; "
          f"encode {figures['tokens']} tokens ({figures['chars']} characters): cold {figures['encode_cold_ms']:.1f} ms, "
          f"warm {figures['encode_warm_ms']:.1f} ms (median of 20); one piece of 3,000 CJK letters {figures['long_piece_ms']:.0f} ms")
    write_json_atomic(BUILD / "report" / "bench_tokenizer.json", figures)
    print("written to build/report/bench_tokenizer.json")


if __name__ == "__main__":
    main()
