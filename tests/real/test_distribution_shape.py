"""What a stored distribution's bars show, described from its measured rows (scripts/real/page_variables.py)."""
from __future__ import annotations

from scripts.real.page_variables import PEAKED, SPREAD, distribution_shape


def dist(pieces, probs):
    return {"head": {"pieces": pieces, "probs": probs}}


def test_each_kind_follows_the_top_bar():
    assert distribution_shape(dist([" ", "1", "2"], [0.9, 0.05, 0.01]))["kind"] == "whitespace"
    assert distribution_shape(dist([" Paris", " the", " a"], [PEAKED, 0.1, 0.05]))["kind"] == "peaked"
    assert distribution_shape(dist([" cat", " moon", " sun"], [SPREAD - 0.01, 0.05, 0.04]))["kind"] == "spread"
    assert distribution_shape(dist(["'s", " the", " a"], [0.485, 0.058, 0.027]))["kind"] == "leaning"


def test_the_text_shows_tokens_as_the_site_does():
    s = distribution_shape(dist([" Paris", " the", " a"], [0.773, 0.065, 0.012]))
    assert s["text"] == "peaked: `·Paris` 77.3%, then `·the` 6.5%"
    assert s["plain"] == "peaked: “·Paris” 77.3%, then “·the” 6.5%"
