"""A long game's state survives pickle and deepcopy: its logs, chained one level per entry, go as flat lists."""

from __future__ import annotations

import copy
import pickle

import bestiary
from bestiary.core.conformance import play_randomly


def long_game() -> bestiary.State:
    state = play_randomly(bestiary.load_game("critter-capture", players=5, ecoregions=5), seed=1)
    assert len(state.all_events()) > 1000  # deeper than the default recursion limit
    return state


def test_pickle_round_trip_keeps_the_whole_state() -> None:
    state = long_game()
    again = pickle.loads(pickle.dumps(state))
    assert again.to_json() == state.to_json()
    assert again.history() == state.history()


def test_deepcopy_is_equal_and_independent() -> None:
    state = long_game()
    assert copy.deepcopy(state).to_json() == state.to_json()

    game = bestiary.load_game("critter-capture", players=3)
    unfinished = game.new_initial_state(seed=5)
    for _, action in play_randomly(game, seed=5).history()[:40]:
        unfinished.apply_action(action)
    text = unfinished.to_json()
    copied = copy.deepcopy(unfinished)
    copied.apply_action(copied.chance_outcomes()[0][0] if copied.is_chance_node() else copied.legal_actions()[0])
    assert copied.to_json() != text
    assert unfinished.to_json() == text
