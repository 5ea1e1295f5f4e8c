"""Pebbles: the template of a Bestiary game package, small enough to read in one sitting.

Copy this folder to start a game; docs/architecture.md (*Adding a game*) is the checklist. It is not one of the
games Bestiary ships: nothing registers it (its tests do, for their length: tests/games/test_template.py).

The rules, each with its id, as a game's rules document under docs/rules/ gives them:

- **PEBBLES-1**: 2 to 4 players sit in turn order around a pile of pebbles (15 unless agreed otherwise).
- **PEBBLES-2**: On their turn a player takes 1 or 2 pebbles, or rolls the die and takes what it shows (1 to 3,
  at most what is left).
- **PEBBLES-3**: Whoever takes the last pebble wins.
"""

from bestiary.games._template.game import PebblesGame

__all__ = ["PebblesGame"]
