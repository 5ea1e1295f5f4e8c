"""The games Bestiary ships; importing this package registers them."""

from bestiary.games import critters, crits, cube, lungo

__all__ = ["critters", "crits", "cube", "lungo"]
