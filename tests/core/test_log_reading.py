"""Reading a game's logs as it goes: `history_since` and `events_after` give what the whole logs give, each
entry read once, across clones and the events whose text is made only when the log is read."""

from __future__ import annotations

import random

import pytest

import bestiary
from bestiary.core.api import Event, EventMark, State

GAMES = [("critter-capture", {"players": 3}), ("cube-creatures", {"players": 3}),
         ("creatures-of-lungo", {"players": 4}), ("crits-creatures", {})]


def random_step(state: State, rng: random.Random) -> None:
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
    else:
        player = rng.choice(state.players_to_act())
        state.apply_action(rng.choice(state.legal_actions(player)), player)


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_a_reader_that_follows_a_game_reads_every_event_once_and_in_order(name: str, options: dict[str, int]) -> None:
    rng = random.Random(7)
    state = bestiary.load_game(name, **options).new_initial_state(seed=7)
    read: list[Event] = []
    mark: EventMark = None
    steps = 0
    while not state.is_terminal() and steps < 400:
        # a copy made each step and played on, as the server does: the copy's log extends the original's
        state = state.clone()
        random_step(state, rng)
        steps += 1
        if rng.random() < 0.5:  # read now and then, so some reads cover several steps' events
            new, mark = state.events_after(mark)
            assert new is not None
            read.extend(new)
            assert read == state.all_events()
            start = rng.randrange(state.history_length() + 1)
            assert state.history_since(start) == state.history()[start:]
    new, mark = state.events_after(mark)
    assert new is not None and read + new == state.all_events()
    assert state.events_after(mark)[0] == []


def test_a_mark_from_another_game_or_a_later_position_asks_for_a_fresh_start() -> None:
    game = bestiary.load_game("creatures-of-lungo", players=3)
    rng = random.Random(3)
    earlier = game.new_initial_state(seed=3)
    later = earlier.clone()
    for _ in range(30):
        random_step(later, rng)
    _, later_mark = later.events_after(None)
    assert earlier.events_after(later_mark)[0] is None
    other = game.new_initial_state(seed=4)
    assert other.events_after(later_mark)[0] is None
    assert other.events_after(None)[0] == other.all_events()
