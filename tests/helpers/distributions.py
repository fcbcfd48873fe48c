"""The real-distribution demo's maths in numpy, shared by the data tests and the browser tests."""
from __future__ import annotations

import math

import numpy as np


def bucket_probs(rec: dict, temperature: float) -> np.ndarray:
    """The demo's reconstruction (docs/js/demos/real-distribution.js, expand + probsAt) in numpy."""
    logits = np.empty(rec["vocab_size"])
    n = len(rec["head"]["logits"])
    logits[:n] = rec["head"]["logits"]
    for b in rec["tail"]["buckets"]:
        c = b["count"]
        ls = np.linspace(b["max_logit"], b["min_logit"], c) if c > 1 else np.array([b["max_logit"]])
        s = np.exp(ls - rec["max_logit"]).sum()
        logits[b["start"]:b["start"] + c] = ls + (math.log(b["sum_exp"] / s) if s > 0 and b["sum_exp"] > 0 else 0)
    e = np.exp((logits - rec["max_logit"]) / temperature)
    return e / e.sum()
