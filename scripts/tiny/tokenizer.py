"""Stage 1: the tiny tokenizer, a letter-level BPE learned from the corpus.

Produces site_data/tiny/tokenizer.json. GPT-2 starts its BPE from 256 bytes; the tiny model
starts from the letters its corpus uses, so any other character is an error, not a fallback.

Pre-tokenization follows GPT-2 in spirit: a word carries the space before it (" cat", shown as
"·cat"), punctuation stands alone, and merges never cross a chunk boundary.
"""
from __future__ import annotations

import collections
import re
from dataclasses import dataclass

from scripts.core.io import CONFIG, SCHEMA_VERSION, SITE_DATA, StageError, read_json, read_text, rel, run_main, validate, write_json_atomic

EOT = "<|endoftext|>"
SPACE_MARKER = "·"
CHUNK = re.compile(r" ?[a-z]+| ?[^ a-z]| ")


def show(token: str) -> str:
    """A token as every page, figure and demo draws it: spaces as middle dots, a newline as \\n."""
    return token.replace(" ", SPACE_MARKER).replace("\n", "\\n")


def chunks(text: str) -> list[str]:
    """Split text into pre-tokens: an optional leading space plus a run of letters, or one symbol."""
    return CHUNK.findall(text)


def read_corpus(path=CONFIG / "corpus.txt") -> list[str]:
    lines = [line.strip() for line in read_text(path).splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    if not lines:
        raise StageError(f"{rel(path)}: no sentences")
    for n, line in enumerate(lines, 1):
        if "".join(chunks(line)) != line:
            raise StageError(f"{rel(path)}: line {n} does not split into words cleanly: {line!r}")
    return lines


def _merge_pair(symbols: list[str], a: str, b: str) -> list[str]:
    out, i = [], 0
    while i < len(symbols):
        if i + 1 < len(symbols) and symbols[i] == a and symbols[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(symbols[i])
            i += 1
    return out


def learn_bpe(lines: list[str], vocab_size: int, trace: list | None = None) -> tuple[list[str], list[tuple[str, str]]]:
    """Learn merges until end-of-text + characters + merges = vocab_size.

    Each step merges the most frequent adjacent pair; a tie goes to the pair seen first in the
    corpus, so the result depends only on the corpus text. `trace`, if given, receives one entry per
    merge: the pair, how often it stood side by side, and the pre-tokens it stood in.
    """
    counts = collections.Counter(c for line in lines for c in chunks(line))
    chars = sorted({ch for chunk in counts for ch in chunk})
    words = {chunk: list(chunk) for chunk in counts}
    merges: list[tuple[str, str]] = []
    while 1 + len(chars) + len(merges) < vocab_size:
        pairs: collections.Counter = collections.Counter()
        for chunk, n in counts.items():
            symbols = words[chunk]
            for pair in zip(symbols, symbols[1:]):
                pairs[pair] += n
        if not pairs:
            raise StageError(
                f"the corpus is fully merged after {len(merges)} merges; "
                f"vocabulary {1 + len(chars) + len(merges)} < {vocab_size}: add words or lower vocab_size"
            )
        best = max(pairs.values())
        a, b = next(p for p, n in pairs.items() if n == best)
        merges.append((a, b))
        if trace is not None:
            trace.append({"pair": (a, b), "count": best,
                          "chunks": sorted(c for c, sym in words.items() if (a, b) in zip(sym, sym[1:]))})
        words = {chunk: _merge_pair(symbols, a, b) for chunk, symbols in words.items()}
    return chars, merges


@dataclass
class Tokenizer:
    chars: list[str]
    merges: list[tuple[str, str]]

    @property
    def vocab(self) -> list[str]:
        """Token strings by id: end-of-text, then characters, then merges in learned order."""
        return [EOT, *self.chars, *(a + b for a, b in self.merges)]

    @property
    def eot_id(self) -> int:
        return 0

    def merge_steps(self, chunk: str) -> list[tuple[tuple[str, str] | None, int | None, list[str]]]:
        """One pre-token through the merges: (pair, rank, symbols after it), the first entry unmerged.

        Each step applies the learned merge of lowest rank present, joining every occurrence of its
        pair left to right, as GPT-2's BPE does (the browser's tokenizer.js follows the same rule)."""
        ranks = {pair: r for r, pair in enumerate(self.merges)}
        symbols = list(chunk)
        steps: list = [(None, None, symbols)]
        while len(symbols) > 1:
            pair = min(zip(symbols, symbols[1:]), key=lambda p: ranks.get(p, len(ranks)))
            if pair not in ranks:
                break
            symbols = _merge_pair(symbols, *pair)
            steps.append((pair, ranks[pair], symbols))
        return steps

    def encode_chunk(self, chunk: str) -> list[str]:
        return self.merge_steps(chunk)[-1][2]

    def encode(self, text: str) -> list[int]:
        index = {tok: i for i, tok in enumerate(self.vocab)}
        for pos, ch in enumerate(text):
            if ch not in self.chars:
                raise ValueError(f"character {ch!r} at position {pos} is not in the tiny vocabulary")
        return [index[s] for chunk in chunks(text) for s in self.encode_chunk(chunk)]

    def decode(self, ids: list[int]) -> str:
        vocab = self.vocab
        return "".join("" if i == self.eot_id else vocab[i] for i in ids)

    def show(self, token_id: int) -> str:
        return show(self.vocab[token_id])

    def to_json(self) -> dict:
        return {
            "schema_version": SCHEMA_VERSION,
            "eot": EOT,
            "eot_id": self.eot_id,
            "space_marker": SPACE_MARKER,
            "pretokenizer": CHUNK.pattern,
            "chars": self.chars,
            "merges": [list(m) for m in self.merges],
            "vocab": self.vocab,
        }

    @classmethod
    def from_json(cls, data: dict) -> "Tokenizer":
        return cls(list(data["chars"]), [tuple(m) for m in data["merges"]])


def build_tokenizer(lines: list[str], vocab_size: int) -> Tokenizer:
    return Tokenizer(*learn_bpe(lines, vocab_size))


def load_tokenizer(path=SITE_DATA / "tiny" / "tokenizer.json") -> Tokenizer:
    data = read_json(path)
    try:
        return Tokenizer.from_json(data)
    except (KeyError, TypeError, ValueError) as exc:
        raise StageError(f"{rel(path)}: not a tokenizer file ({exc!r})") from None


def main() -> None:
    from scripts.tiny import settings  # it learns this tokenizer to check that the corpus fits

    tok = settings.load().tokenizer
    data = tok.to_json()
    validate(data, "tiny_tokenizer", "site_data/tiny/tokenizer.json")
    write_json_atomic(SITE_DATA / "tiny" / "tokenizer.json", data)
    print(f"tokenizer: {len(tok.chars)} characters + {len(tok.merges)} merges + end-of-text = {len(tok.vocab)}")


if __name__ == "__main__":
    run_main(main)
