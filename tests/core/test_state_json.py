"""States as JSON: exact round trips, and clear errors for anything malformed or inconsistent."""

from __future__ import annotations

import json

import pytest

import bestiary
from bestiary.core.conformance import play_randomly
from bestiary.core.errors import StateFormatError


def game():
    return bestiary.load_game("critter-capture", players=4)


def test_round_trip_keeps_history_and_events() -> None:
    state = play_randomly(game(), seed=4)
    again = game().state_from_json(state.to_json())
    assert again.to_json() == state.to_json()
    assert [str(a) for _, a in again.history()] == [str(a) for _, a in state.history()]
    assert [e.text for e in again.events()] == [e.text for e in state.events()]
    assert again.returns() == state.returns()


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(format="other"), "not a Bestiary state"),
    (lambda d: d.update(game="cube-creatures"), "the state is for game"),
    (lambda d: d.update(rules_version="0.1"), "rules_version"),
    (lambda d: d.update(options={**d["options"], "players": 3}), "options"),
    (lambda d: d["card_set"].update(hash="0000"), "another card set"),
    (lambda d: d["state"].update(phase="dancing"), "'phase' must be one of"),
    (lambda d: d["state"].update(round="three"), "'round' must be an integer"),
    (lambda d: (d["state"]["decks"]["mammal"].remove("coyote"), d["state"]["decks"]["fish"].append("coyote")),
     "coyote is not a fish card"),
    (lambda d: d["state"]["decks"]["fish"].append("dragon"), "no card with id 'dragon'"),
    (lambda d: d["state"]["corrals"][0].append("bluegill"), "appears twice"),
    (lambda d: d["state"]["decks"].update(fish=[]), "plays remain"),
    (lambda d: d["state"].update(corrals=[[]]), "'corrals' must be a list of 4 lists"),
    (lambda d: d.update(history=[[0, "fly away"]]), "no action reads 'fly away'"),
])
def test_bad_states_are_refused_with_a_reason(change, message: str) -> None:
    raw = json.loads(game().new_initial_state(seed=1).to_json())
    change(raw)
    with pytest.raises(StateFormatError, match=message):
        game().state_from_json(json.dumps(raw))


def test_not_json_at_all() -> None:
    with pytest.raises(StateFormatError, match="not JSON"):
        game().state_from_json("{nope")
    with pytest.raises(StateFormatError, match="not a Bestiary state"):
        game().state_from_json("[1, 2]")


def test_a_seedless_state_gets_a_recorded_seed() -> None:
    state = game().new_initial_state()
    assert isinstance(state.seed, int)
    assert json.loads(state.to_json())["seed"] == state.seed
