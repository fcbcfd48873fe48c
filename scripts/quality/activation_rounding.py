"""What rounding the activations to integers would cost the real model's parity: SmolLM2 in
transformers (the packaged GGUF, float32), every linear layer's input rounded per block of 32 values
to signed integers of the given widths (scale: the block's largest magnitude), against the same model
unrounded, over the parity tests' 22 held-out prompts. Printed figures, no target asserted.

    python -m scripts.quality.activation_rounding            # 16 and 8 bits

This is the measurement behind DECISIONS.md "Activations stay float32": llama.cpp's integer dot
products need 8-bit activations, and the parity tests allow 2e-3 on the logits.
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("TQDM_DISABLE", "1")

from scripts.core.io import read_json, run_main  # noqa: E402
from scripts.real import loading  # noqa: E402
from scripts.site import real_js  # noqa: E402

BLOCK = 32
TOLERANCE = 2e-3  # the parity tests' bound on a logit (tests/real/test_engine_smollm2.py)


def rounded(bits: int):
    """A forward pre-hook rounding a linear layer's input per block of BLOCK to `bits`-bit integers."""
    import torch

    top = 2 ** (bits - 1) - 1

    def hook(_module, args):
        x = args[0]
        blocks = x.reshape(*x.shape[:-1], x.shape[-1] // BLOCK, BLOCK)  # (..., blocks, BLOCK)
        scale = blocks.abs().amax(-1, keepdim=True) / top
        scale = torch.where(scale == 0, torch.ones_like(scale), scale)
        return ((torch.round(blocks / scale) * scale).reshape(x.shape),)
    return hook


def worst(model, prompts, bits: int | None) -> tuple[float, float]:
    """(largest logit difference, largest KL) of the rounded model against the plain one."""
    import torch

    def run(ids):
        with torch.no_grad():
            return model(torch.tensor([ids])).logits[0].double()

    plain = [run(ids) for _, ids in prompts]
    hooks = [m.register_forward_pre_hook(rounded(bits)) for m in model.modules() if isinstance(m, torch.nn.Linear)]
    try:
        other = [run(ids) for _, ids in prompts]
    finally:
        for h in hooks:
            h.remove()
    logit = kl = 0.0
    for a, b in zip(plain, other):
        logit = max(logit, (a - b).abs().max().item())
        la, lb = torch.log_softmax(a, -1), torch.log_softmax(b, -1)
        kl = max(kl, (la.exp() * (la - lb)).sum(-1).max().item())
    return logit, kl


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bits", default="16,8", help="comma-separated integer widths (default 16,8)")
    args = ap.parse_args()
    from tests.real.test_engine_smollm2 import held_out  # the parity tests' prompts, drawn from their seed

    spec = read_json(real_js.CONFIG)["models"]["smollm2"]
    model, tok, _, _ = loading.load("smollm2", spec)
    prompts = held_out(tok)
    print(f"SmolLM2-135M, {len(prompts)} held-out prompts, every linear layer's input rounded per block of {BLOCK}")
    for bits in (int(b) for b in args.bits.split(",")):
        logit, kl = worst(model, prompts, bits)
        print(f"{bits:2d}-bit activations: largest logit difference {logit:.4f} ({logit / TOLERANCE:.1f}x the "
              f"parity tests' {TOLERANCE:g}), largest KL {kl:.2e}")


if __name__ == "__main__":
    run_main(main)
