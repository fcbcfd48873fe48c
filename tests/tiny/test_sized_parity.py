"""The reader's model sized by its corpus: the browser (corpus.js, trainer.js) against Python and PyTorch.

Five corpora are drawn here from a seeded word list (other vocabularies, other contexts); for each,
the merges equal scripts/tiny/sizing.py's learner, the starting weights are the same bits, the step-1
gradients equal PyTorch float64 autograd to 1e-9 and 50 Adam steps to 1e-7.
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest

pytestmark = pytest.mark.slow  # PyTorch references (torch imported at the top)
torch = pytest.importorskip("torch")

from scripts.core.io import CONFIG, ROOT, read_json  # noqa: E402
from scripts.tiny import sizing  # noqa: E402
from scripts.tiny.checkpoint import make_batch  # noqa: E402
from scripts.tiny.model import TinyConfig, TinyGPT, state_from_nested  # noqa: E402
from scripts.tiny.references import loss_of  # noqa: E402
from scripts.tiny.tokenizer import Tokenizer, learn_bpe, read_corpus  # noqa: E402

GRAD_TOL = 1e-9
ADAM_TOL = 1e-7
STEPS = 50
WORDS = ("the a my one big red old owl fox hen frog cow cat dog bird barn pond den mat rug hill tree "
         "ran sat ate saw flew jumped hid slept over in on to by under near").split()
ISSUE = [["a fox ran.", "the fox ate a hen.", "a hen ran to the den."], ["Hello World!"], ["to be or not to be."]]


def draw_corpora(n: int, seed: int = 7) -> list[list[str]]:
    """n corpora of 3-14 sentences of 2 to 3-13 words, each from its own subset of WORDS, with punctuation."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        words = rnd.sample(WORDS, rnd.randint(6, len(WORDS)))
        longest = rnd.randint(3, 13)
        lines = [" ".join(rnd.choice(words) for _ in range(rnd.randint(2, longest))) + rnd.choice(".!?")
                 for _ in range(rnd.randint(3, 14))]
        out.append(lines)
    return out


def reference(lines: list[str], built: dict, tcfg: dict) -> dict:
    bpe = sizing.learn_until_merged(lines, sizing.VOCAB_CAP)
    tok = Tokenizer(bpe["chars"], bpe["merges"])
    n_ctx = max(len(tok.encode(line)) + 1 for line in lines)
    cfg_d = sizing.model_sizes(built, len(tok.vocab), n_ctx)
    init = sizing.seeded_weights(cfg_d, tcfg["seed"], tcfg["init_std"])
    cfg = TinyConfig(**cfg_d)
    x, y = make_batch(tok, lines, cfg.n_ctx)

    def model() -> TinyGPT:
        m = TinyGPT(cfg).double()
        m.load_state_dict(state_from_nested(init, torch.float64), strict=False)
        return m

    g = model()
    loss = loss_of(g, x, y)
    loss.backward()
    grads = torch.cat([p.grad.reshape(-1) for _, p in g.named_parameters()])
    torch.set_num_threads(1)
    m = model()
    opt = torch.optim.Adam(m.parameters(), lr=tcfg["lr"], betas=tuple(tcfg["betas"]))
    losses = []
    for _ in range(STEPS):
        step_loss = loss_of(m, x, y)
        losses.append(step_loss.item())
        opt.zero_grad(set_to_none=True)
        step_loss.backward()
        opt.step()
    with torch.no_grad():
        losses.append(loss_of(m, x, y).item())
    weights = torch.cat([p.detach().reshape(-1) for _, p in m.named_parameters()])
    return {"bpe": bpe, "cfg": cfg_d, "init": init, "n_params": sum(p.numel() for p in m.parameters()),
            "loss": loss.item(), "grads": grads.tolist(), "losses": losses, "weights": weights.tolist()}


def flat(tree) -> list[float]:
    if isinstance(tree, dict):
        return [v for k in tree for v in flat(tree[k])]
    if isinstance(tree, list):
        return [v for x in tree for v in flat(x)]
    return [tree]


@pytest.fixture(scope="module")
def replay(tmp_path_factory):
    if not shutil.which("node"):
        pytest.skip("node is not installed")
    config = read_json(CONFIG / "tiny.json")
    built, tcfg = config["model"], config["training"]
    corpora = draw_corpora(5) + ISSUE
    job = {"corpora": corpora, "caps": {"vocab": sizing.VOCAB_CAP, "ctx": sizing.CTX_CAP}, "seed": tcfg["seed"],
           "init_std": tcfg["init_std"], "lr": tcfg["lr"], "betas": tcfg["betas"], "eps": 1e-8, "steps": STEPS}
    path = tmp_path_factory.mktemp("sized") / "job.json"
    path.write_text(json.dumps(job), encoding="utf-8")
    run = subprocess.run(["node", str(ROOT / "tests/helpers/sized_replay.js"), str(path)],
                         capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr
    js = json.loads(run.stdout)
    assert js["caps"] == job["caps"], "corpus.js's CAPS differ from sizing.py's"
    js = js["corpora"]
    return corpora, js, [reference(lines, built, tcfg) for lines in corpora]


def test_drawn_corpora_differ_in_vocabulary_and_context(replay):
    corpora, js, ref = replay
    drawn = ref[:5]
    assert len({r["cfg"]["vocab_size"] for r in drawn}) >= 4
    assert len({r["cfg"]["n_ctx"] for r in drawn}) >= 3
    assert all(r["cfg"]["n_ctx"] <= sizing.CTX_CAP and r["cfg"]["vocab_size"] <= sizing.VOCAB_CAP for r in ref)
    print("sizes (vocab, ctx):", [(r["cfg"]["vocab_size"], r["cfg"]["n_ctx"]) for r in ref])


def test_merges_and_sizes_equal_pythons(replay):
    _, js, ref = replay
    for j, r in zip(js, ref):
        assert "error" not in j, j.get("error")
        assert j["chars"] == r["bpe"]["chars"]
        assert j["merges"] == [list(m) for m in r["bpe"]["merges"]]
        assert j["capped"] == r["bpe"]["capped"]
        assert (j["vocab_size"], j["n_ctx"], j["n_params"]) == (r["cfg"]["vocab_size"], r["cfg"]["n_ctx"], r["n_params"])


def test_starting_weights_are_the_same_bits(replay):
    _, js, ref = replay
    for j, r in zip(js, ref):
        py = flat(r["init"])
        assert len(j["init"]) == len(py) == r["n_params"]
        assert all(a == b for a, b in zip(j["init"], py))


def test_step_one_gradients_equal_pytorch_float64(replay):
    _, js, ref = replay
    worst = 0.0
    for j, r in zip(js, ref):
        assert abs(j["loss"] - r["loss"]) <= GRAD_TOL
        assert len(j["grad"]) == len(r["grads"])
        worst = max(worst, max(abs(a - b) for a, b in zip(j["grad"], r["grads"])))
    print(f"step-1 gradients: largest |diff| {worst:.2e} over {len(ref)} corpora")
    assert worst <= GRAD_TOL


def test_fifty_adam_steps_equal_pytorchs(replay):
    _, js, ref = replay
    worst = 0.0
    for j, r in zip(js, ref):
        worst = max(worst, max(abs(a - b) for a, b in zip(j["losses"], r["losses"])),
                    max(abs(a - b) for a, b in zip(j["weights"], r["weights"])))
    print(f"{STEPS} Adam steps: largest |diff| {worst:.2e} over {len(ref)} corpora")
    assert worst <= ADAM_TOL


def test_the_learner_is_learn_bpes_rule_on_the_build_corpus():
    lines = read_corpus()
    bpe = sizing.learn_until_merged(lines)
    chars, merges = learn_bpe(lines, 1 + len(bpe["chars"]) + len(bpe["merges"]))
    assert (chars, merges) == (bpe["chars"], bpe["merges"]) and not bpe["capped"]
    capped = sizing.learn_until_merged(lines, 30)
    assert capped["capped"] and 1 + len(capped["chars"]) + len(capped["merges"]) == 30
    assert capped["merges"] == merges[:len(capped["merges"])]


def test_the_generator_is_seeded_and_roughly_normal():
    a = [sizing.Mulberry32(24).normal() for _ in range(1)]
    rng = sizing.Mulberry32(24)
    xs = [rng.normal() for _ in range(4000)]
    assert xs[0] == a[0] and xs != [sizing.Mulberry32(25).normal() for _ in range(4000)]
    mean = sum(xs) / len(xs)
    var = sum((x - mean) ** 2 for x in xs) / len(xs)
    assert abs(mean) < 0.05 and abs(var - 1) < 0.08
