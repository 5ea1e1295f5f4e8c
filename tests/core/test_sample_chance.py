"""State.sample_chance_outcome: one chance outcome drawn with its odds, without listing them where a game can,
applied afterwards like any listed outcome."""

from __future__ import annotations

import random
from collections import Counter

import pytest

import bestiary
from bestiary.core.api import CHANCE, State
from bestiary.core.chance import sample_chance
from bestiary.core.errors import IllegalActionError
from tests.conftest import shipped_games


def chance_nodes(name: str, seed: int = 3, count: int = 4) -> list[State]:
    """Copies of the first `count` chance nodes met in a seeded random game (fewer where it has fewer)."""
    rng = random.Random(seed)
    state = bestiary.load_game(name).new_initial_state(seed=seed)
    met: list[State] = []
    while not state.is_terminal() and len(met) < count:
        if state.is_chance_node():
            met.append(state.clone())
            state.apply_action(sample_chance(state, rng))
        else:
            player = state.players_to_act()[0]
            state.apply_action(rng.choice(state.legal_actions(player)), player)
    return met


def first_chance_node(name: str, after: int = 0) -> State:
    return chance_nodes(name, count=after + 1)[after]


def lungo_draw_node() -> State:
    # a draw of the deal (LUNGO-24); the top card's back (LUNGO-12) shows at chance nodes of its own between
    state = next(s for s in chance_nodes("creatures-of-lungo", count=20)[12:]
                 if str(s.chance_outcomes()[0][0]).startswith("draw "))
    assert all(str(outcome).startswith("draw ") for outcome, _ in state.chance_outcomes())
    return state


@pytest.mark.parametrize("name", shipped_games())
def test_a_drawn_outcome_is_listed_and_applies_as_the_listed_one_does(name: str) -> None:
    rng = random.Random(1)
    met = chance_nodes(name)
    assert met, f"{name}: no chance node in a whole game"
    for state in met:
        listed = [outcome for outcome, _ in state.chance_outcomes()]
        drawn_in = state.clone()
        drawn = drawn_in.sample_chance_outcome(rng)
        assert drawn in listed
        drawn_in.apply_action(drawn)
        applied = state.clone()
        applied.apply_action(listed[listed.index(drawn)])
        assert drawn_in.to_json() == applied.to_json()
        assert drawn_in.history()[-1] == (CHANCE, drawn)


def test_by_default_the_draw_is_that_of_sample_chance_with_the_same_generator() -> None:
    # Cube Creatures draws its die faces from the listed outcomes (they are only six).
    state = first_chance_node("cube-creatures")
    for seed in range(20):
        assert state.sample_chance_outcome(random.Random(seed)) is sample_chance(state, random.Random(seed))


def test_lungo_58_a_draw_comes_from_the_whole_pile_each_card_as_likely() -> None:
    """LUNGO-58: drawn without listing the pile, every card of it as often as the listed odds say."""
    state = lungo_draw_node()
    listed = dict(state.chance_outcomes())
    rng = random.Random(7)
    draws = 200 * len(listed)
    counts = Counter(state.sample_chance_outcome(rng) for _ in range(draws))
    assert set(counts) == set(listed)
    expected = {outcome: p * draws for outcome, p in listed.items()}
    chi_square = sum((counts[outcome] - e) ** 2 / e for outcome, e in expected.items())
    assert chi_square < 2 * len(listed)  # its mean is len(listed) - 1; a skewed draw lands far above


def test_drawing_leaves_the_state_as_it_was_and_another_outcome_may_still_be_applied() -> None:
    state = lungo_draw_node()
    before = state.to_json()
    drawn = state.sample_chance_outcome(random.Random(2))
    assert state.to_json() == before
    other = next(outcome for outcome, _ in state.chance_outcomes() if outcome != drawn)
    state.apply_action(other)
    assert state.history()[-1] == (CHANCE, other)


def test_after_a_draw_an_outcome_that_cannot_come_is_still_refused() -> None:
    state = lungo_draw_node()
    state.sample_chance_outcome(random.Random(2))
    before = state.to_json()
    not_in_pile = next(outcome for outcome in state.game.chance_outcome_table()
                       if outcome not in dict(state.chance_outcomes()))
    with pytest.raises(IllegalActionError):
        state.apply_action(not_in_pile)
    assert state.to_json() == before


@pytest.mark.parametrize("name", shipped_games())
def test_no_outcome_is_drawn_where_none_is_due(name: str) -> None:
    state = first_chance_node(name)
    rng = random.Random(0)
    state.apply_action(sample_chance(state, rng))
    while state.is_chance_node():
        state.apply_action(sample_chance(state, rng))
    before = state.to_json()
    with pytest.raises(IllegalActionError, match="no chance outcome is due"):
        state.sample_chance_outcome(rng)
    assert state.to_json() == before
