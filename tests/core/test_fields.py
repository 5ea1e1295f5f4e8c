"""State fields declared once (core/fields.py): the generated copy, JSON and equality, on a small state of its
own and on every game's state along seeded random games."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bestiary
from bestiary.core.api import State
from bestiary.core.errors import StateFormatError
from bestiary.core.fields import (
    CLEARED,
    LIST,
    LISTS,
    OBJECT,
    OPTIONAL_LIST,
    VALUE,
    StateFields,
    copy_kind,
    integer,
    read_fields,
    state_field,
)

GAMES = ("critter-capture", "cube-creatures", "creatures-of-lungo", "crits-creatures")


class Counter:
    __slots__ = ("count",)

    def __init__(self, count: int) -> None:
        self.count = count

    def copy(self) -> Counter:
        return Counter(self.count)


class Tally(StateFields, State):
    """A do-nothing state with one field of each kind."""

    round: int = state_field(0, read=integer(0, 9))
    hand: list[int] = state_field(lambda state: [1, 2])
    piles: list[list[int]] = state_field(lambda state: [[3], [4, 5]], key="stacks")
    scores: list[int] | None = state_field(None)
    counter: Counter = state_field(lambda state: Counter(state.seed), copy=OBJECT,
                                   write=lambda state, counter: counter.count,
                                   read=lambda reader, key: Counter(int(reader.raw[key])))
    cache: list[int] | None = state_field(None, key=None, copy=CLEARED)

    def current_player(self) -> int:
        return 0

    def _legal_actions(self, player: int) -> list[Any]:
        return []

    def _apply(self, action: Any, player: int) -> None:
        pass

    def returns(self) -> list[float]:
        return [0.0]

    def observation(self, player: int | None) -> dict[str, Any]:
        return {}

    def determinize(self, player: int, rng: random.Random) -> Tally:
        return self.clone()


class NoGame:
    num_players = 1


def tally(seed: int = 7) -> Tally:
    return Tally(NoGame(), seed)  # type: ignore[arg-type]


def test_the_first_values_come_from_the_declarations() -> None:
    state = tally()
    assert (state.round, state.hand, state.piles, state.scores, state.counter.count) == (0, [1, 2], [[3], [4, 5]],
                                                                                          None, 7)
    assert tally().hand is not state.hand  # a callable's value is made anew for each state


def test_a_clone_shares_nothing_mutable() -> None:
    state = tally()
    state.scores = [9]
    state.cache = [1]
    other = state.clone()
    assert other.fields_equal(state)
    assert other.cache is None  # a cleared cache starts empty in a clone, and is not compared
    for name in ("hand", "piles", "scores", "counter"):
        assert getattr(other, name) is not getattr(state, name)
    assert all(a is not b for a, b in zip(other.piles, state.piles, strict=True))
    other.hand.append(3)
    other.piles[0].append(6)
    other.scores.append(1)
    other.counter.count += 1
    assert (state.hand, state.piles, state.scores, state.counter.count) == ([1, 2], [[3], [4, 5]], [9], 7)
    assert not other.fields_equal(state)


def test_json_follows_the_declared_order_keys_and_writers() -> None:
    state = tally()
    assert list(state._to_dict().items()) == [("round", 0), ("hand", [1, 2]), ("stacks", [[3], [4, 5]]),
                                              ("scores", None), ("counter", 7)]


def test_reading_back_gives_an_equal_state_and_checks_each_field() -> None:
    state = tally()
    state.round, state.scores = 4, [2, 1]
    again = tally(seed=0)
    read_fields(again, state._to_dict())
    assert again.fields_equal(state) and again.counter.count == 7
    with pytest.raises(StateFormatError, match="'round' must be an integer from 0 to 9"):
        read_fields(tally(), {**state._to_dict(), "round": 10})


@pytest.mark.parametrize(("annotation", "kind"), [
    ("int", VALUE), ("str | None", VALUE), ("tuple[int, ...]", VALUE), ("list[int]", LIST),
    ("list[tuple[Action, ...] | None]", LIST), ("list[list[int]]", LISTS), ("list[int] | None", OPTIONAL_LIST)])
def test_how_a_field_is_copied_follows_its_annotation(annotation: str, kind: str) -> None:
    assert copy_kind(annotation) == kind


def test_a_table_or_a_set_must_say_how_it_is_copied() -> None:
    with pytest.raises(TypeError, match="give copy="):
        copy_kind("dict[str, int]")


@settings(max_examples=8, deadline=None)
@given(name=st.sampled_from(GAMES), seed=st.integers(0, 10**6))
def test_every_game_state_clones_and_reads_back_equal_along_a_game(name: str, seed: int) -> None:
    game = bestiary.load_game(name)
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    steps = 0
    while not state.is_terminal() and steps < 400:
        if steps % 7 == 0:
            clone = state.clone()
            assert clone.fields_equal(state)
            again = game.state_from_dict(state.to_dict())
            assert again.fields_equal(state), f"{name} seed {seed} step {steps}: read back differs"
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            player = rng.choice(state.players_to_act())
            state.apply_action(rng.choice(state.legal_actions(player)), player)
        steps += 1
