"""The games Bestiary ships; importing this package registers them."""

import bestiary.games.lungo  # noqa: F401
from bestiary.games import critters

__all__ = ["critters"]
