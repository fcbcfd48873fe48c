"""The tiny model's forward pass in numpy: the start of every "reproduce it" snippet the tiny model's demos
offer (docs/js/explain/pass.js). Run as it is, it replays the pass over the final weights for one prompt
and prints the most likely next token's id; a demo writes its own inputs (the prompt's ids, the weights
file it ran, the knock-outs) and ends with the line that prints the number you opened.

What lies between the "end of inputs" and "end of the pass" lines is used as written (scripts/site/snippets_js.py
copies it into docs/js/data/snippets.js); the demo writes the lines above it and the line below it.
"""
import json

import numpy as np

W = json.load(open("nexttoken-tiny-weights.json"))["weights"]  # the final weights (download from a demo)
ids = [0]  # the prompt's token ids
ln_eps, C, H = 1e-05, len(W["wte"][0]), 2  # LayerNorm's epsilon, the width and the heads (config.json)
off_heads, off_mlp = [], False  # knock-outs (heads from 0)
# ---- end of inputs ----
A = lambda a: np.array(a, dtype=np.float64)
ln = lambda x, p: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + ln_eps) * A(p["weight"]) + A(p["bias"])
lin = lambda x, p: x @ A(p["weight"]).T + A(p["bias"])
gelu = lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a**3)))
T = len(ids); hs = C // H
x = A(W["wte"])[ids] + A(W["wpe"])[:T]; tr = {"x": x.copy(), "h": []}
for p in W["h"]:
    b = {"ln_1": ln(x, p["ln_1"])}; q, k, v = np.split(lin(b["ln_1"], p["attn"]["c_attn"]), 3, axis=-1)
    b["q"], b["k"], b["v"], b["scores"], b["attn_weights"], b["head_out"] = [], [], [], [], [], []
    for h in range(H):
        qh, kh, vh = (m[:, h * hs:(h + 1) * hs] for m in (q, k, v))
        s = qh @ kh.T / np.sqrt(hs); w = np.exp(s - s.max(-1, keepdims=True)) * np.tri(T)
        w /= w.sum(-1, keepdims=True)
        for key, val in zip(("q", "k", "v", "scores", "attn_weights", "head_out"), (qh, kh, vh, s, w, (h not in off_heads) * (w @ vh))): b[key].append(val)
    b["attn_out"] = lin(np.concatenate(b["head_out"], -1), p["attn"]["c_proj"]); x = x + b["attn_out"]; b["resid_mid"] = x
    b["ln_2"] = ln(x, p["ln_2"]); b["mlp_pre"] = lin(b["ln_2"], p["mlp"]["c_fc"]); b["mlp_hidden"] = gelu(b["mlp_pre"])
    b["mlp_out"] = (not off_mlp) * lin(b["mlp_hidden"], p["mlp"]["c_proj"]); x = x + b["mlp_out"]; b["resid_post"] = x; tr["h"].append(b)
tr["ln_f"] = ln(x, W["ln_f"]); tr["logits"] = tr["ln_f"] @ A(W["wte"]).T
# ---- end of the pass ----
if __name__ == "__main__":
    print(int(tr["logits"][-1].argmax()))
