"""Which characters the SmolLM2 tokenizer's pre-tokenizer counts as letters, digits and spaces.

transformers builds SmolLM2's tokenizer from the GGUF (`tokenizer.ggml.pre` = "smollm", which its
converter maps to no split of its own) as GPT-2's: a ByteLevel pre-tokenizer whose pattern splits on
\\p{L}, \\p{N} and \\s as Oniguruma (inside `tokenizers`) defines them. A browser's own \\p{L} follows
its Unicode version and its \\s is not Unicode's White_Space, so the JS tokenizer takes these three
classes as code-point ranges from here: written by asking that very pre-tokenizer about every code
point, so they are the reference's classes, whatever Unicode version it was built with.
"""
from __future__ import annotations

from scripts.core.io import SCHEMA_VERSION, SITE_DATA, package_versions, run_main, validate, write_json_atomic

OUT = SITE_DATA / "smollm2" / "pretokenizer_classes.json"
SURROGATES = range(0xD800, 0xE000)  # no Python str reaches the tokenizer with one (the JS writes U+FFFD)


def pre_tokenizer():
    """The pre-tokenizer GPT2Tokenizer sets, which transformers keeps for a "smollm" GGUF."""
    from tokenizers import pre_tokenizers

    return pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)


def classify(split, c: str) -> str | None:
    """"letter", "number", "space" or None, from how the pattern splits a few strings around `c`.

    x c x is one piece only when c is a letter (` ?\\p{L}+`), 1 c 1 only when c is a digit; any
    other c is a space or a symbol, and ! c ! stays one run (` ?[^\\s\\p{L}\\p{N}]+`) only when c is a symbol.
    """
    if len(split("x" + c + "x")) == 1:
        return "letter"
    if len(split("1" + c + "1")) == 1:
        return "number"
    if len(split("!" + c + "!")) > 1:
        return "space"
    return None


def ranges(code_points: list[int]) -> list[list[int]]:
    out: list[list[int]] = []
    for cp in sorted(code_points):
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def classes(split) -> dict[str, list[list[int]]]:
    found: dict[str, list[int]] = {"letter": [], "number": [], "space": []}
    for cp in range(0x110000):
        if cp in SURROGATES:
            continue
        kind = classify(split, chr(cp))
        if kind:
            found[kind].append(cp)
    return {k: ranges(v) for k, v in found.items()}


def main() -> None:
    pre = pre_tokenizer()
    out = {"schema_version": SCHEMA_VERSION, "pre_tokenizer": repr(pre),
           "tokenizers": package_versions(["tokenizers"])["tokenizers"],
           **classes(lambda s: pre.pre_tokenize_str(s))}
    validate(out, "pretokenizer_classes", OUT.name)
    write_json_atomic(OUT, out)
    counts = {k: sum(b - a + 1 for a, b in out[k]) for k in ("letter", "number", "space")}
    print(f"pre-tokenizer classes: {counts} code points, {sum(len(out[k]) for k in counts)} ranges")


if __name__ == "__main__":
    run_main(main)
