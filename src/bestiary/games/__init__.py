"""The games Bestiary ships, one registry line each: importing this package registers them.

A game's package declares everything about it (its `GameInfo`); adding a game is its own folder under games/ and
one line here (docs/architecture.md, *Adding a game*; games/_template/ is a working example)."""

from bestiary.core.registry import register_game
from bestiary.games.crits.game import CritsCreatures
from bestiary.games.critters.game import CritterCapture
from bestiary.games.cube.game import CubeCreatures
from bestiary.games.lungo.game import CreaturesOfLungo

register_game(CritsCreatures)
register_game(CritterCapture)
register_game(CubeCreatures)
register_game(CreaturesOfLungo)

__all__ = ["CreaturesOfLungo", "CritsCreatures", "CritterCapture", "CubeCreatures"]
