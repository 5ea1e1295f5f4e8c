"""The compiled turn's legal actions (games/crits/_turn.c) and observation tensor body (games/crits/_tensor.c)
against their Python twins, at every step of seeded random games on every board shape the options allow, and
the compiled modules' refusals of bad input.

Where the module was not built (no C compiler at install) these tests skip, unless BESTIARY_REQUIRE_COMPILED is
set (as CI sets it): then a missing module fails.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import bestiary
from bestiary.core.compiled import compiled
from bestiary.games.crits import flow, rules, tensor
from bestiary.games.crits.game import CritsCreatures
from bestiary.games.crits.state import CritsState
from tests.games.crits.test_move_generation import fight_biased_game

REQUIRED = bool(os.environ.get("BESTIARY_REQUIRE_COMPILED"))
turn = compiled("bestiary.games.crits._turn")
if turn is None and not REQUIRED:
    pytest.skip("the compiled turn module was not built (no C compiler at install)", allow_module_level=True)

BOARDS = [
    {},
    {"allies_block": False},
    {"width": 8, "length": 12, "start_depth": 2},  # armies meet within a few turns
    {"width": 8, "length": 12, "start_depth": 2, "allies_block": False, "counter_reach": "any",
     "titan_moves": "free", "root_turn": "current"},
    {"width": 4, "length": 10, "start_depth": 4},  # the narrowest board: moves wider than a row
    {"width": 26, "length": 60, "start_depth": 1},  # the largest: rows that straddle 64-bit words
    {"width": 13, "length": 14, "start_depth": 2, "placement": "manual", "kingless_turns": "with-fall"},
]


def test_the_compiled_modules_are_built_and_used() -> None:
    assert turn is not None, "BESTIARY_REQUIRE_COMPILED is set, and bestiary.games.crits._turn is not built"
    assert compiled("bestiary.games.crits._tensor") is not None, "bestiary.games.crits._tensor is not built"
    game = bestiary.load_game("crits-creatures")
    assert isinstance(game, CritsCreatures)
    assert game.turn_tables is not None
    assert tensor.tables(game).compiled is not None


def same_tensor_body(state: CritsState) -> None:
    """The compiled pieces and board fields equal the Python ones, number for number, for both seats."""
    body = tensor.tables(state.game).compiled
    assert body is not None
    for viewer in (0, 1):
        whole = state.observation_tensor(viewer)  # through the compiled body
        start = tensor.tables(state.game).at["pieces"]
        python = np.full(len(whole) - start, np.nan, np.float32)
        current = state.current
        fighting = bool(current) and state.phase in (rules.ROLL, rules.COUNTER)
        tensor.python_body(state, viewer, python, current[0] if fighting else -1, current[1] if fighting else -1,
                           rules.next_to_place(state) if state.phase == rules.PLACE else -1)
        assert np.array_equal(whole[start:], python)


def same_turn_actions(state: CritsState) -> None:
    """The compiled list holds the very action objects of the Python list, in the same order."""
    tables = state.game.turn_tables
    assert tables is not None
    fast = tables.turn_actions(state, flow.deploys_held_back(state, state.player))
    slow = flow.python_turn_actions(state)
    assert [str(a) for a in fast] == [str(a) for a in slow]
    assert all(a is b for a, b in zip(fast, slow, strict=True))


def play(game: CritsCreatures, seed: int, fights: float = 0.5) -> int:
    """A seeded random game with fights favoured, checked at every turn step and at a determinization of it for
    the other seat. Returns the turn steps checked."""
    guesses = random.Random(seed)
    checked = 0
    for state in fight_biased_game(game, seed, fights):
        same_tensor_body(state)
        if state.phase == rules.TURN:
            same_turn_actions(state)
            same_turn_actions(state.determinize(1 - state.player, guesses))
            checked += 1
    return checked


@pytest.mark.parametrize("options", BOARDS)
def test_compiled_and_python_turn_actions_agree_at_every_step(options: dict[str, object]) -> None:
    # CRITS-5, CRITS-6, CRITS-7, CRITS-37, CRITS-40, CRITS-46, CRITS-51, CRITS-52, CRITS-54, CRITS-62, CRITS-63,
    # CRITS-65: every rule the turn's list is made of, compiled and interpreted, on the same positions.
    game = bestiary.load_game("crits-creatures", **options)
    assert isinstance(game, CritsCreatures)
    assert sum(play(game, seed) for seed in range(5)) > 50


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), board=st.sampled_from(BOARDS[:5]), fights=st.sampled_from([0.0, 0.5, 0.9]))
def test_compiled_and_python_turn_actions_agree_on_any_seed(seed: int, board: dict[str, object],
                                                           fights: float) -> None:
    game = bestiary.load_game("crits-creatures", **board)
    assert isinstance(game, CritsCreatures)
    play(game, seed, fights)


def test_the_compiled_tables_refuse_what_they_cannot_read() -> None:
    assert turn is not None
    game = bestiary.load_game("crits-creatures")
    assert isinstance(game, CritsCreatures)
    spec = game._turn_tables()
    with pytest.raises(KeyError, match="rays"):
        turn.TurnTables({k: v for k, v in spec.items() if k != "rays"})
    with pytest.raises(ValueError, match="moves_out"):
        turn.TurnTables({**spec, "moves_out": spec["moves_out"][:-1]})
    with pytest.raises(ValueError, match="larger than"):
        turn.TurnTables({**spec, "width": 100, "length": 100})
    state = game.new_initial_state(seed=0)
    tables = game.turn_tables
    assert tables is not None
    with pytest.raises(TypeError, match="deploys"):
        tables.turn_actions(state, [])
    broken = state.clone()
    broken.pos = broken.pos[:-1]  # a list of the wrong length
    with pytest.raises(TypeError, match="pos"):
        tables.turn_actions(broken, ())
    for field, value in (("card", len(game.cards)), ("side", 2), ("pos", -7), ("holder", 40)):
        broken = state.clone()
        setattr(broken, field, [value] * 32)  # no such card, side, tile or piece: refused, never read past
        with pytest.raises(ValueError, match=field):
            tables.turn_actions(broken, ())
    broken = state.clone()
    broken.king = [99, -1]
    with pytest.raises(ValueError, match="King"):
        tables.turn_actions(broken, ())


def test_the_compiled_tensor_refuses_what_it_cannot_write_or_read() -> None:
    game = bestiary.load_game("crits-creatures")
    assert isinstance(game, CritsCreatures)
    t = tensor.tables(game)
    assert t.compiled is not None
    state = game.new_initial_state(seed=0)
    size = len(state.observation_tensor(0)) - t.at["pieces"]
    for out in (np.zeros(size - 1, np.float32), np.zeros(size, np.float64), np.zeros((size, 2), np.float32)[:, 0]):
        with pytest.raises((ValueError, BufferError)):
            t.compiled.body(state, 0, out, -1, -1, -1)
    with pytest.raises(BufferError):
        t.compiled.body(state, 0, b"\0" * 4 * size, -1, -1, -1)  # read-only
    out = np.zeros(size, np.float32)
    with pytest.raises(ValueError, match="viewer"):
        t.compiled.body(state, 2, out, -1, -1, -1)
    with pytest.raises(ValueError, match="pieces or -1"):
        t.compiled.body(state, 0, out, 40, -1, -1)
    broken = state.clone()
    broken.aims = [game.tiles]
    with pytest.raises(ValueError, match="aims"):
        t.compiled.body(broken, 0, out, -1, -1, -1)
    broken = state.clone()
    broken.combats = [[0, 99, 1, 0]]
    with pytest.raises(ValueError, match="combats"):
        t.compiled.body(broken, 0, out, -1, -1, -1)


def test_pure_python_can_be_asked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    from bestiary.core import compiled as compiled_module

    monkeypatch.setenv(compiled_module.PURE_PYTHON, "1")
    monkeypatch.setattr(compiled_module, "_loaded", {})
    game = CritsCreatures(CritsCreatures.Options())
    assert game.turn_tables is None
    assert tensor.tables(game).compiled is None
    state = game.new_initial_state(seed=3)
    state.apply_action(state.chance_outcomes()[0][0])
    state.apply_action(state.chance_outcomes()[0][0])
    assert state.phase == rules.TURN and state.legal_actions() == flow.python_turn_actions(state)
