"""Weight counts of a GPT-2-shaped model, by part: the one formula for the tiny model and GPT-2."""
from __future__ import annotations


def gpt2_param_breakdown(vocab_size: int, n_positions: int, n_embd: int, n_layer: int, d_mlp: int) -> dict[str, int]:
    """Tied token embedding, learned positions, n_layer pre-LN blocks with biases, final LayerNorm."""
    d = n_embd
    return {
        "wte": vocab_size * d,
        "wpe": n_positions * d,
        "ln": (2 * n_layer + 1) * 2 * d,                        # ln_1, ln_2 per block, ln_f: gain and bias
        "attn": n_layer * (d * 3 * d + 3 * d + d * d + d),      # c_attn (q, k, v) and c_proj
        "mlp": n_layer * (d * d_mlp + d_mlp + d_mlp * d + d),      # c_fc and c_proj
    }
