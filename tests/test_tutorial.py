"""The guided first game (bestiary/tutorial.py) and each game's teaching.toml: the words are checked against the
rule books, every rule the tutorial deal brings up is explained in plain words the first time, and following
the suggestions finishes a short game."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

import bestiary
from bestiary.core.errors import BestiaryError, IllegalActionError
from bestiary.core.registry import game_class
from bestiary.core.rulebook import rule_index
from bestiary.tutorial import LEVELS, TeachingFileError, Tutorial, teaching_of, teaching_path

GAMES = bestiary.list_games()
SHORT = 60  # the learner's moves a tutorial game may take at most: a first game is short


def followed(game: str) -> Tutorial:
    """The tutorial played to the end by taking every suggestion."""
    tutorial = Tutorial(game)
    while not tutorial.finished:
        assert len(tutorial.moves) < SHORT, f"{game}: the tutorial game is not short"
        suggestion = tutorial.suggestion()
        assert suggestion in tutorial.legal()
        tutorial.play(suggestion)
    return tutorial


@pytest.mark.parametrize("game", GAMES)
def test_a_games_teaching_names_real_rules_agents_and_a_deal_that_loads(game: str) -> None:
    teaching = teaching_of(game)
    rules = rule_index(game_class(game).info.rules_doc)
    assert set(teaching.lessons) <= set(rules)
    assert sorted(teaching.computers) == sorted(LEVELS)
    assert teaching.lessons and teaching.moves and teaching.welcome
    # short sentences for children: at most three of at most 20 words each, no rule id, no code word
    for rule, words in teaching.lessons.items():
        sentences = [s for s in re.split(r"[.!?](?:\s|$)", words) if s.strip()]
        assert len(sentences) <= 3 and all(len(s.split()) <= 20 for s in sentences), (rule, words)
        assert not re.search(r"[A-Z]+-\d|`|_", words), (rule, words)


@pytest.mark.parametrize("game", GAMES)
def test_following_the_suggestions_finishes_a_short_game_and_every_rule_that_comes_up_is_explained_once(
        game: str) -> None:
    tutorial = followed(game)
    teaching = tutorial.teaching
    named = [rule for told in tutorial.told for rule in told.rules]
    assert named, f"{game}: the tutorial's events name no rule"
    # each rule an event names is told in plain words, at the first event that names it, and never again
    taught = [lesson.rule for told in tutorial.told for lesson in told.lessons]
    assert taught == list(dict.fromkeys(named)), f"{game}: rules without plain words: " \
        f"{sorted(set(named) - set(teaching.lessons))}"
    for told in tutorial.told:
        for lesson in told.lessons:
            assert lesson.rule in told.rules and lesson.words == teaching.lessons[lesson.rule]
    # every move suggested has words that say what it does
    replayed = Tutorial(game)
    for move in tutorial.moves:
        assert teaching.move_words(move), f"{game}: no words for the move '{move}'"
        replayed.play(move)
    assert tutorial.result()


@pytest.mark.parametrize("game", GAMES)
def test_the_same_moves_give_the_same_game(game: str) -> None:
    first = Tutorial(game)
    for _ in range(3):
        first.play(first.suggestion() or "")
    again = Tutorial.replayed(game, first.moves)
    assert again.state.to_json() == first.state.to_json()
    assert [told.to_dict() for told in again.told] == [told.to_dict() for told in first.told]


def test_a_refused_move_changes_nothing_and_names_its_rule() -> None:
    tutorial = Tutorial("cube-creatures")
    before = tutorial.state.to_json()
    with pytest.raises(IllegalActionError) as refused:
        tutorial.play("end turn")  # CUBE-20: a player with an empty battlefield must play a creature first
    assert refused.value.rules
    assert tutorial.state.to_json() == before and tutorial.moves == []
    with pytest.raises(BestiaryError, match="move 1 of the tutorial"):
        Tutorial.replayed("cube-creatures", ["fly to the moon"])


def test_why_explains_the_latest_rules_in_plain_words_and_the_book_s() -> None:
    tutorial = Tutorial("critter-capture")
    tutorial.play(tutorial.suggestion() or "")
    tutorial.play(tutorial.suggestion() or "")
    why = tutorial.why()
    assert why
    latest = tutorial.told[-1].rules
    assert why[0].rule in latest
    for explanation in why:
        rule = rule_index("critter-capture.md")[explanation.rule]
        assert (explanation.text, explanation.reading) == (rule.text, rule.reading)
        assert explanation.words == tutorial.teaching.lessons.get(rule.id, rule.reading or rule.text)


def test_move_words_fill_in_the_moves_own_words() -> None:
    teaching = replace(teaching_of("crits-creatures"), moves={"move": "From {1} to {2}.", "end turn": "Done."})
    assert teaching.move_words("move B3 C5") == "From B3 to C5."
    assert teaching.move_words("end turn") == "Done."
    assert teaching.move_words("attack B3 C5") is None


def test_a_broken_teaching_file_is_refused_naming_the_file_and_the_problem(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    good = teaching_path("cube-creatures").read_text(encoding="utf-8")
    broken = tmp_path / "teaching.toml"
    monkeypatch.setattr("bestiary.tutorial.teaching_path", lambda game: broken)
    for change, message in [(("CUBE-1 =", "CUBE-999 ="), "CUBE-999"),
                            (('easy = "random"', 'easy = "wizard"'), "no agent named 'wizard'"),
                            (("win_at = 2", "win_at = 0"), "win_at"),
                            (("[moves]", "[mooves]"), "unknown tables: mooves"),
                            (('more_options = ["response_windows"]', 'more_options = ["colour"]'),
                             "none named colour")]:
        broken.write_text(good.replace(*change), encoding="utf-8")
        teaching_of.cache_clear()
        with pytest.raises(TeachingFileError, match=re.escape(str(broken))) as refused:
            teaching_of("cube-creatures")
        assert message in str(refused.value)
    teaching_of.cache_clear()
