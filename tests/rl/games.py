"""The games the adapter tests run on: every shipped game (each has an observation tensor), at every standard
player count, and the toy game of
hidden_bid.py (simultaneous bids, hidden cards, a response window, a race)."""

from __future__ import annotations

import pytest

import bestiary
from bestiary.core.api import Game
from tests.conftest import game_configurations
from tests.rl.hidden_bid import HiddenBid

RL_EXTRA = "the rl extra is not installed (pip install -e '.[rl]')"


def make_game(name: str, players: int) -> Game:
    if name == HiddenBid.info.name:
        return HiddenBid.from_options(players=players)
    return bestiary.load_game(name, players=players)


def has_tensor(name: str, players: int) -> bool:
    """Adapters need a game's observation tensor; games get theirs one by one (docs/rl.md)."""
    try:
        bestiary.load_game(name, players=players).observation_tensor_shape()
    except NotImplementedError:
        return False
    return True


CONFIGURATIONS = [*(c for c in game_configurations() if has_tensor(*c)),
                  (HiddenBid.info.name, 2), (HiddenBid.info.name, 3)]
GAMES = pytest.mark.parametrize(("name", "players"), CONFIGURATIONS,
                                ids=[f"{name}-{players}p" for name, players in CONFIGURATIONS])
# The peers' suites run on the shipped games in test_peer_suites.py; these run them on the toy game too.
TOY_CONFIGURATIONS = [(HiddenBid.info.name, 2), (HiddenBid.info.name, 3)]
TOY_GAME = pytest.mark.parametrize(("name", "players"), TOY_CONFIGURATIONS,
                                   ids=[f"{name}-{players}p" for name, players in TOY_CONFIGURATIONS])
