"""Critter cards: the schema of a card file and the ecoregion deck it describes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import Field, field_validator

from bestiary.core.cards import CardModel, CardSet, load_card_set
from bestiary.core.errors import CardFileError

COLOURS = ("fish", "bird", "mammal", "other")
ATTRIBUTES = ("commonness", "size")
ABILITIES = ("capture", "block", "trapped by")
CARDS_PER_COLOUR = 12  # CRITTERS-2: four colours of 12 cards each
STARTER_DECK = Path(__file__).parent / "cards" / "eastern-woodlands.toml"


class CritterCard(CardModel):
    """One critter card's face side: colour, values and challenge ability."""

    colour: str
    commonness: int = Field(ge=1, le=10)
    size: int = Field(ge=1, le=10)
    ability: str  # "<capture|block|trapped by> <colour>", e.g. "trapped by bird"

    @field_validator("colour")
    @classmethod
    def _known_colour(cls, value: str) -> str:
        if value not in COLOURS:
            raise ValueError(f"colour must be one of {', '.join(COLOURS)}, not '{value}'")
        return value

    @field_validator("ability")
    @classmethod
    def _known_ability(cls, value: str) -> str:
        words = value.split()
        kind, colour = " ".join(words[:-1]), words[-1] if words else ""
        if kind not in ABILITIES or colour not in COLOURS:
            raise ValueError("ability must read '<capture|block|trapped by> <fish|bird|mammal|other>', "
                             f"not '{value}'")
        return f"{kind} {colour}"

    @property
    def ability_kind(self) -> str:
        return self.ability.rsplit(" ", 1)[0]

    @property
    def ability_colour(self) -> str:
        return self.ability.rsplit(" ", 1)[1]


def check_ecoregion(cards: Sequence[CritterCard], fail: Callable[..., CardFileError]) -> None:
    """CRITTERS-2: an ecoregion deck is 48 cards, 12 of each colour."""
    counts = Counter(card.colour for card in cards)
    for colour in COLOURS:
        if counts[colour] != CARDS_PER_COLOUR:
            extra = next((c.id for c in reversed(cards) if c.colour == colour), None)
            raise fail(f"an ecoregion deck holds {CARDS_PER_COLOUR} {colour} cards, this file has "
                       f"{counts[colour]}", card=extra, field="colour" if extra else None)


def load_ecoregion(path: str | Path) -> CardSet[CritterCard]:
    return load_card_set(path, CritterCard, check_ecoregion)
