"""The games Bestiary ships; importing this package registers them."""

from bestiary.games import crits as crits
from bestiary.games import critters
from bestiary.games import cube as cube

__all__ = ["critters"]
