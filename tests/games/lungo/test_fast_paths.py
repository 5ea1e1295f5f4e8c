"""The look-up tables the engine keeps for speed agree with the rules they stand for."""

from __future__ import annotations

import pytest

from bestiary.core.errors import IllegalActionError
from bestiary.games.lungo import rules
from bestiary.games.lungo.actions import DrawCard
from bestiary.games.lungo.game import CreaturesOfLungo
from tests.random_play import states_along_random_games


def test_possible_outcomes_are_exactly_the_listed_ones(game: CreaturesOfLungo) -> None:
    """Every chance node accepts each listed outcome and refuses every other one of the outcome table."""
    chance_nodes = [s for s in states_along_random_games(game, 4) if s.is_chance_node()]
    kinds = set()
    for state in chance_nodes:
        outcomes = state.chance_outcomes()
        listed = {action for action, _ in outcomes}
        kinds |= {type(action).__name__ for action in listed}
        assert sum(p for _, p in outcomes) == pytest.approx(1.0)
        for action in game.chance_outcome_table():
            assert state._is_possible_outcome(action) == (action in listed), (state.phase, str(action))
    assert kinds >= {"DrawCard", "DealGoal", "PickCard", "Roll", "TopCard"}


def test_an_equal_outcome_is_accepted_and_a_mismatched_one_refused(game: CreaturesOfLungo) -> None:
    state = game.new_initial_state(seed=3)
    for _ in range(game.num_players + 1):  # the top card's back (LUNGO-12), then the goals
        state.apply_action(state.chance_outcomes()[0][0])
    drawn = state.chance_outcomes()[0][0]
    assert isinstance(drawn, DrawCard)
    other_card = game.ids[(game.index_of[drawn.card] + 1) % len(game.ids)]
    before = state.to_json()
    with pytest.raises(IllegalActionError):
        state.apply_action(DrawCard(drawn.index, other_card))  # the index of one card, the id of another
    assert state.to_json() == before
    state.apply_action(DrawCard(drawn.index, drawn.card))  # an equal value, not the table's own object
    assert state.history()[-1][1] == drawn


def test_playable_table_follows_the_rule(game: CreaturesOfLungo) -> None:
    """LUNGO-9, LUNGO-30: the table of cards playable in your turn, with and without an affliction."""
    for card, kind in enumerate(game.kinds):
        effect = game.effects[card]
        for afflicted in (False, True):
            expected = kind == "poison" or (
                effect is not None and not game.is_response[card]
                and (afflicted or effect.keyword not in ("cleanse", "pass-affliction")))
            assert game.playable[afflicted][card] == expected == rules.playable(game, card, afflicted)
    assert any(game.playable[True]) and game.playable[True] != game.playable[False]


def test_goal_met_counts_the_hand_per_requirement(game: CreaturesOfLungo) -> None:
    """LUNGO-8, LUNGO-64: a goal is met when each of its requirements has its count of fitting cards."""
    answers = set()
    for state in states_along_random_games(game, 3)[::5]:
        for player in range(game.num_players):
            goal = state.goals[player]
            if goal < 0:
                assert not rules.goal_met(state, player)
                continue
            hand = state.hands[player]
            expected = all(sum(game.fits(c, r) for c in hand) >= r.count for r in game.goal_cards[goal].requires)
            assert rules.goal_met(state, player) == expected
            answers.add(expected)
    assert answers == {False, True}
