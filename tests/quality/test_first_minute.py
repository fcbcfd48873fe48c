"""The first-minute figures' pure parts: words, sentences, build-file paragraphs, prose figures, the table."""
from scripts.quality.first_minute import (
    build_file_blocks,
    figures,
    late_demos,
    long_sentences,
    prose_figures,
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


def test_long_sentences_are_those_over_thirty_words():
    thirty = " ".join(["word"] * 30) + "."
    thirty_one = " ".join(["word"] * 31) + "."
    assert long_sentences([thirty + " " + thirty_one, "Short."]) == [thirty_one]


def test_prose_figures_count_the_prose_its_long_sentences_and_its_talk_of_the_build():
    html = ("<article><p>The build built it. " + " ".join(["w"] * 31) + ".</p>"
            "<div class='nt-demo'><p>" + " ".join(["x"] * 50) + ".</p></div><table><tr><td>cell</td></tr></table></article>")
    assert prose_figures(html) == {"prose_words": 35, "long_sentences": 1, "build_words": 2}


def test_build_file_paragraphs_name_site_data_paths_json_files_or_timestamps():
    blocks = ["Measured in site_data/smollm2/measurements.json.", "From config.json, as published.",
              "Built 2026-12-03T15:55:35Z on this machine.", "The model has 30 layers.", "A JSON file, 3.5 MB."]
    assert build_file_blocks(blocks) == blocks[:3]


def test_figures_turn_the_probe_into_screens_and_counts_and_say_nothing_of_a_page_without_demo():
    probe = {"top": 1200, "height": 800, "before": "Three words here", "marks": 2,
             "blocks": ["Read site_data/x.json.", " ".join(["w"] * 41) + "."]}
    assert figures(probe) == {"demo_screens": 1.5, "words_before": 3, "marks": 2, "build_file_paragraphs": 1}
    assert figures({**probe, "top": None})["demo_screens"] is None
    assert figures({**probe, "top": None})["words_before"] is None


def test_table_shows_a_moved_figure_beside_its_earlier_value_and_totals_the_main_pages_and_all():
    one = {"demo_screens": 0.5, "words_before": 90, "marks": 0, "build_file_paragraphs": 0}
    text = {"prose_words": 800, "long_sentences": 1, "build_words": 1}
    now = {"index.html": {"prose": text, "1280": one, "360": {**one, "demo_screens": 1.2}},
           "sources.html": {"prose": {**text, "prose_words": 1000}, "1280": one, "360": one}}
    old = {"index.html": {"prose": {**text, "prose_words": 1239}, "1280": {**one, "demo_screens": 4.96, "marks": 11},
                          "360": {**one, "demo_screens": 1.2}},
           "sources.html": {"prose": {**text, "prose_words": 1000}, "1280": one, "360": one}}
    lines = table(now, old)
    assert lines[2] == "| index.html | 800 (1,239) | 1 | 1 | 0.50 (4.96) | 90 | 1.20 | 0 (11) | 0 |"
    assert lines[-2] == "| the 10 main pages | 800 (1,239) | 1 | 1 | | | | 0 (11) | 0 |"
    assert lines[-1] == "| all pages | 1,800 (2,239) | 2 | 2 | | | | 0 (11) | 0 |"


def test_late_demos_are_those_past_a_screen_at_1280_or_a_screen_and_a_half_at_360():
    rows = {"a.html": {"1280": {"demo_screens": 0.99}, "360": {"demo_screens": 1.5}},
            "b.html": {"1280": {"demo_screens": 1.0}, "360": {"demo_screens": 1.2}},
            "c.html": {"1280": {"demo_screens": 0.5}, "360": {"demo_screens": 1.51}},
            "d.html": {"1280": {"demo_screens": None}, "360": {"demo_screens": None}}}
    assert late_demos(rows) == ["b.html (1.00 at 1280, 1.20 at 360)", "c.html (0.50 at 1280, 1.51 at 360)"]
