"""The first-minute figures' pure parts: words, sentences, build-file paragraphs, the table."""
from scripts.quality.first_minute import (
    build_file_blocks,
    figures,
    long_sentences,
    sentences,
    table,
    words,
)


def test_words_count_runs_holding_a_letter_or_digit_and_skip_symbols():
    assert words("The cat · sat → on 7.6% | the") == 6
    assert words("") == 0


def test_sentences_end_at_stops_followed_by_space_but_not_after_abbreviations_or_initials():
    text = "One sentence, e.g. with an example. Haviv et al. 2022 said so. J. Smith agrees! Does it? 7.6% stays."
    assert sentences(text) == ["One sentence, e.g. with an example.", "Haviv et al. 2022 said so.",
                               "J. Smith agrees!", "Does it?", "7.6% stays."]


def test_sentences_keep_a_closing_quote_with_their_sentence():
    assert sentences("He said “stop.” Then he left.") == ["He said “stop.”", "Then he left."]


def test_long_sentences_are_those_over_forty_words():
    forty = " ".join(["word"] * 40) + "."
    forty_one = " ".join(["word"] * 41) + "."
    assert long_sentences([forty + " " + forty_one, "Short."]) == [forty_one]


def test_build_file_paragraphs_name_site_data_paths_json_files_or_timestamps():
    blocks = ["Measured in site_data/smollm2/measurements.json.", "From config.json, as published.",
              "Built 2026-12-03T15:55:35Z on this machine.", "The model has 30 layers.", "A JSON file, 3.5 MB."]
    assert build_file_blocks(blocks) == blocks[:3]


def test_figures_turn_the_probe_into_screens_and_counts_and_say_nothing_of_a_page_without_demo():
    probe = {"top": 1200, "height": 800, "before": "Three words here", "marks": 2,
             "blocks": ["Read site_data/x.json.", " ".join(["w"] * 41) + "."]}
    assert figures(probe) == {"demo_screens": 1.5, "words_before": 3, "marks": 2, "long_sentences": 1,
                              "build_file_paragraphs": 1}
    assert figures({**probe, "top": None})["demo_screens"] is None
    assert figures({**probe, "top": None})["words_before"] is None


def test_table_shows_a_moved_figure_beside_its_earlier_value_and_totals_the_counts():
    one = {"demo_screens": 0.5, "words_before": 90, "marks": 0, "long_sentences": 1, "build_file_paragraphs": 0}
    now = {"index.html": {"1280": one, "360": {**one, "demo_screens": 1.2}}}
    old = {"index.html": {"1280": {**one, "demo_screens": 4.96, "marks": 11}, "360": {**one, "demo_screens": 1.2}}}
    lines = table(now, old)
    assert lines[2] == "| index.html | 0.50 (4.96) | 90 | 1.20 | 0 (11) | 1 | 0 |"
    assert lines[-1] == "| all pages | | | | 0 | 1 | 0 |"
