"""The tiny stage's settings (scripts/config/tiny.json and corpus.txt), validated before any work.

Every rule failure is one line naming the file, the field and the rule, for example
"scripts/config/tiny.json: model.n_head 3 must divide model.n_embd 8". The corpus is checked
against the vocabulary budget by learning the tokenizer here (it takes milliseconds), so a
sentence that no longer fits, or a word that no longer ends as one token, says why: how many
characters the corpus has and how few merges that leaves. The corpus takes the characters the
training page takes (docs/js/runtime/corpus.js, checkCorpus), so the page can train on it.

`python3 -m scripts.tiny.settings` runs the check alone (standard library only, before any install).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from scripts.core.io import CONFIG, StageError, read_json, rel, run_main
from scripts.tiny.tokenizer import Tokenizer, build_tokenizer, chunks, read_corpus, show

PATH = CONFIG / "tiny.json"
CORPUS = CONFIG / "corpus.txt"
MODEL_KEYS = ("vocab_size", "n_ctx", "n_embd", "n_layer", "n_head", "d_mlp")
TRAINING_KEYS = ("seed", "steps", "lr", "betas", "init_std", "n_snapshots")


@dataclass(frozen=True)
class Settings:
    raw: dict              # tiny.json as read (the export copies parts of it into site_data)
    model: dict
    training: dict
    corpus: list[str]
    tokenizer: Tokenizer   # learned from the corpus, to check that everything fits


def _fail(field: str, rule: str, path=PATH) -> StageError:
    return StageError(f"{rel(path)}: {field} {rule}")


def _int(section: dict, key: str, where: str, minimum: int) -> int:
    v = section.get(key)
    if isinstance(v, bool) or not isinstance(v, int):
        raise _fail(f"{where}.{key}", f"must be a whole number, not {v!r}")
    if v < minimum:
        raise _fail(f"{where}.{key}", f"{v} must be at least {minimum}")
    return v


def _number(section: dict, key: str, where: str) -> float:
    v = section.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _fail(f"{where}.{key}", f"must be a finite number, not {v!r}")
    return float(v)


def _section(raw: dict, key: str, keys: tuple[str, ...]) -> dict:
    section = raw.get(key)
    if not isinstance(section, dict):
        raise _fail(key, "must be an object")
    unknown = sorted(set(section) - set(keys))
    if unknown:
        raise _fail(f"{key}.{unknown[0]}", f"is not a setting (known: {', '.join(keys)})")
    missing = [k for k in keys if k not in section]
    if missing:
        raise _fail(f"{key}.{missing[0]}", "is missing")
    return section


def check_model(m: dict) -> None:
    for key in MODEL_KEYS:
        _int(m, key, "model", 1)
    if m["vocab_size"] < 2:
        raise _fail("model.vocab_size", f"{m['vocab_size']} must be at least 2 (end-of-text and one character)")
    if m["n_embd"] % m["n_head"]:
        raise _fail("model.n_head", f"{m['n_head']} must divide model.n_embd {m['n_embd']}")


def check_training(t: dict) -> None:
    _int(t, "seed", "training", 0)
    steps = _int(t, "steps", "training", 1)
    if _number(t, "lr", "training") <= 0:
        raise _fail("training.lr", f"{t['lr']} must be above 0")
    if _number(t, "init_std", "training") <= 0:
        raise _fail("training.init_std", f"{t['init_std']} must be above 0")
    betas = t["betas"]
    if not (isinstance(betas, list) and len(betas) == 2
            and all(not isinstance(b, bool) and isinstance(b, (int, float)) and 0 <= b < 1 for b in betas)):
        raise _fail("training.betas", f"{betas!r} must be two numbers from 0 up to (not including) 1")
    n = _int(t, "n_snapshots", "training", 2)
    if n > steps + 1:
        raise _fail("training.n_snapshots", f"{n} must be at most training.steps + 1 = {steps + 1}")


def _needs(tok: Tokenizer, text: str) -> int:
    return len(tok.encode(text)) + 1  # the sentence and its end-of-text marker


def check_fit(m: dict, corpus: list[str], tok: Tokenizer) -> None:
    """Every sentence, with its end marker, fits n_ctx; if not, say what the vocabulary left for merges."""
    for line in corpus:
        n = _needs(tok, line)
        if n > m["n_ctx"]:
            raise StageError(
                f"{rel(CORPUS)}: the corpus has {len(tok.chars)} characters, so {m['vocab_size']} tokens leave "
                f"{len(tok.merges)} merges; {line!r} then needs {n} tokens with its end marker, over model.n_ctx "
                f"{m['n_ctx']} (raise vocab_size or n_ctx, or shorten the sentence)")


def check_chars(corpus: list[str]) -> None:
    """The training page's character rule: printable ASCII (space to tilde) without < and >."""
    for n, line in enumerate(corpus, 1):
        for ch in line:
            if ch in "<>":
                raise StageError(f"{rel(CORPUS)}: line {n} has {ch!r}, which the training page refuses as markup: "
                                 "write plain sentences only")
            if not " " <= ch <= "~":
                raise StageError(f"{rel(CORPUS)}: line {n} has {ch!r} (U+{ord(ch):04X}); the corpus takes printable "
                                 "ASCII only (letters, digits, spaces, punctuation), as the training page does")


def check_words(m: dict, corpus: list[str], tok: Tokenizer) -> None:
    """Every word of the corpus ends as one token: the pages' facts (·cat, ·mat) rely on it."""
    for n, line in enumerate(corpus, 1):
        for chunk in chunks(line):
            parts = tok.encode_chunk(chunk)
            if len(parts) > 1:
                raise StageError(
                    f"{rel(CORPUS)}: line {n}: {show(chunk)!r} no longer ends as one token "
                    f"({' '.join(show(t) for t in parts)}): the corpus has {len(tok.chars)} characters, so "
                    f"{m['vocab_size']} tokens leave {len(tok.merges)} merges, too few for every word "
                    "(raise model.vocab_size, or use fewer different characters or words)")


def check_texts(raw: dict, m: dict, tok: Tokenizer, corpus: list[str]) -> None:
    """Prompts and the other texts the export traces: known characters, and within n_ctx where they must be."""
    prompts = raw.get("prompts")
    if not (isinstance(prompts, list) and prompts and all(isinstance(p, str) and p for p in prompts)):
        raise _fail("prompts", "must be a list of at least one non-empty text")
    texts = {f"prompts[{i}]": p for i, p in enumerate(prompts)}
    unseen = raw.get("unseen_sentences")
    if not (isinstance(unseen, list) and all(isinstance(s, str) and s for s in unseen)):
        raise _fail("unseen_sentences", "must be a list of non-empty texts")
    texts |= {f"unseen_sentences[{i}]": s for i, s in enumerate(unseen)}
    for key in ("sliding_prompt",):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise _fail(key, "must be a non-empty text")
        texts[key] = raw[key]
    roles = raw.get("roles")
    if not isinstance(roles, dict):
        raise _fail("roles", "must be an object naming which prompts the pages' facts come from")
    for key in ("subject", "verbs", "greedy", "unseen_word"):
        if key not in roles:
            raise _fail(f"roles.{key}", "is missing")
    subject, verbs, greedy = roles["subject"], roles["verbs"], roles["greedy"]
    if not (isinstance(subject, list) and len(subject) == 2):
        raise _fail("roles.subject", "must be two prompts that differ only in their subject")
    for i, p in enumerate([*subject, verbs]):
        if p not in prompts:
            raise _fail("roles.subject" if i < 2 else "roles.verbs", f"{p!r} must be one of prompts")
    if not (isinstance(greedy, list) and greedy and all(isinstance(g, str) and g for g in greedy)):
        raise _fail("roles.greedy", "must be a list of at least one non-empty text")
    texts |= {f"roles.greedy[{i}]": g for i, g in enumerate(greedy)}
    word = roles["unseen_word"]
    if not (isinstance(word, str) and word.isalpha()):
        raise _fail("roles.unseen_word", f"{word!r} must be one word of letters")
    if any(word in line.split() or f" {word}." in f" {line}" for line in corpus):
        raise _fail("roles.unseen_word", f"{word!r} must not occur in the corpus (the demo shows an unseen word)")
    texts["roles.unseen_word"] = " " + word
    for field, text in texts.items():
        try:
            n = len(tok.encode(text))
        except ValueError as exc:
            raise _fail(field, f"{text!r}: {exc}") from None
        if field.startswith("prompts") and n > m["n_ctx"]:
            raise _fail(field, f"{text!r} is {n} tokens, over model.n_ctx {m['n_ctx']}")
    a, b = (tok.encode(p) for p in subject)
    diff = [i for i, (x, y) in enumerate(zip(a, b)) if x != y]
    if len(a) != len(b) or len(diff) != 1:
        raise _fail("roles.subject", f"{subject!r} must have the same length and differ in exactly one token")
    toy = raw.get("toy_softmax")
    if not (isinstance(toy, dict) and isinstance(toy.get("scores"), list) and len(toy["scores"]) >= 2
            and isinstance(toy.get("temperatures"), list) and toy["temperatures"]):
        raise _fail("toy_softmax", "must hold scores (two or more numbers) and temperatures")
    for i, t in enumerate(toy["temperatures"]):
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not t > 0:
            raise _fail(f"toy_softmax.temperatures[{i}]", f"{t!r} must be above 0")


def subject_position(raw: dict, tok: Tokenizer) -> int:
    """The one position where the two subject prompts differ (·cat against ·dog)."""
    a, b = (tok.encode(p) for p in raw["roles"]["subject"])
    return next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)


def load() -> Settings:
    raw = read_json(PATH)
    if not isinstance(raw, dict):
        raise StageError(f"{rel(PATH)}: must hold a JSON object")
    model = _section(raw, "model", MODEL_KEYS)
    training = _section(raw, "training", TRAINING_KEYS)
    check_model(model)
    check_training(training)
    corpus = read_corpus(CORPUS)
    check_chars(corpus)
    chars = sorted({ch for line in corpus for ch in line})
    if 1 + len(chars) > model["vocab_size"]:
        raise StageError(f"{rel(CORPUS)}: the corpus has {len(chars)} characters, more than model.vocab_size "
                         f"{model['vocab_size']} leaves after end-of-text ({model['vocab_size'] - 1})")
    tok = build_tokenizer(corpus, model["vocab_size"])
    check_fit(model, corpus, tok)
    check_words(model, corpus, tok)
    check_texts(raw, model, tok, corpus)
    return Settings(raw, model, training, corpus, tok)


def main() -> None:
    load()


if __name__ == "__main__":
    run_main(main)
