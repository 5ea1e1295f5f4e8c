"""The games Bestiary ships; importing this package registers them."""

from bestiary.games import crits as crits
from bestiary.games import critters

__all__ = ["critters"]
