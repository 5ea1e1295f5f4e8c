"""Crit's Creatures cards: the schema of a card file (Titans, creatures, items) and its cross-card check."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from bestiary.core.cards import CardModel, CardSet, load_card_set
from bestiary.core.errors import CardFileError
from bestiary.games.crits.effects import EFFECTS

STARTER_CARDS = Path(__file__).parent / "cards" / "starter.toml"
DIE_SIZES = (4, 6, 8, 10, 12, 20)
DICE = re.compile(r"^\s*\(?\s*(\d+)\s*\)?\s*[dD]\s*(\d+)\s*$")


def parse_dice(text: str) -> tuple[int, ...]:
    """CRITS-8: "(2)D6" is two six-sided dice; "NA" is no attack (no dice)."""
    if text.strip().upper() == "NA":
        return ()
    match = DICE.match(text)
    if not match:
        raise ValueError(f"dice read like '(2)D6' or 'NA', not '{text}'")
    count, size = int(match.group(1)), int(match.group(2))
    if size not in DIE_SIZES:
        raise ValueError(f"a die has {', '.join(map(str, DIE_SIZES))} sides, not {size}")
    if not 1 <= count <= 6:
        raise ValueError(f"a card rolls 1 to 6 dice, not {count}")
    return (size,) * count


def dice_text(dice: Sequence[int]) -> str:
    return f"({len(dice)})D{dice[0]}" if dice else "NA"


def piece_face(card: CritsCard) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a piece's view shows of its card, which never changes: the fields before and after where it is."""
    head = {"id": card.id, "name": card.name, "kind": card.kind}
    if card.kind == "item":
        return head, {"type": card.type, "item_def": card.item_def, "attack_bonus": card.attack_bonus,
                      "defence_bonus": card.defence_bonus}
    return head, {"type": card.type, "move": card.move, "attack": dice_text(card.attack_dice),
                  "defence": dice_text(card.defence_dice), "range": card.range, "royal": card.royal}


class CritsCard(CardModel):
    """One card: a Titan, a creature or an item, with its stats and effects."""

    kind: Literal["titan", "creature", "item"]
    type: str = ""  # creature type (undead, slime, ...) of a creature or an item
    move: int = Field(0, ge=0, le=8)  # M:
    attack: str = "NA"
    defence: str | None = None  # Def:, when it differs from the attack dice
    range: int = Field(1, ge=1, le=8)  # 1: melee; more: a ranged attack along a row or column
    royal: bool = False  # the crown symbol; False is the "X"
    star: bool = False  # at most one in an army
    item_def: int = Field(0, ge=0, le=60)  # Def # of an item
    attack_bonus: int = Field(0, ge=0, le=10)  # what an equipped item adds to its holder's rolls
    defence_bonus: int = Field(0, ge=0, le=10)
    effects: list[dict[str, Any]] = Field(default_factory=list)

    @field_validator("attack")
    @classmethod
    def _attack_dice(cls, value: str) -> str:
        parse_dice(value)
        return value

    @field_validator("defence")
    @classmethod
    def _defence_dice(cls, value: str | None) -> str | None:
        if value is not None and not parse_dice(value):
            raise ValueError("a defence needs dice; leave it out to defend with the attack dice")
        if value is not None:
            parse_dice(value)
        return value

    @field_validator("effects")
    @classmethod
    def _known_effects(cls, value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        keywords = []
        for raw in value:
            keywords.append(EFFECTS.parse(raw).keyword)
        if len(set(keywords)) != len(keywords):
            raise ValueError("an effect keyword appears twice on one card")
        return value

    @model_validator(mode="after")
    def _fits_kind(self) -> CritsCard:
        if self.kind == "item":
            if self.item_def < 1:
                raise ValueError("an item needs item_def, its Def # (1 or more)")
            if not self.type:
                raise ValueError("an item needs the creature type it is made for")
            if self.move or parse_dice(self.attack) or self.royal:
                raise ValueError("an item has no move, no attack and no crown")
        else:
            if self.attack_bonus or self.defence_bonus or self.item_def:
                raise ValueError("only items have item_def, attack_bonus and defence_bonus")
            if self.kind == "titan" and (self.royal or self.type):
                raise ValueError("a Titan is not a creature: no type and no crown")
            if self.kind == "creature" and not self.type:
                raise ValueError("a creature needs its type (undead, slime, plant, ...)")
        return self

    @property
    def attack_dice(self) -> tuple[int, ...]:
        return parse_dice(self.attack)

    @property
    def defence_dice(self) -> tuple[int, ...]:
        # CRITS-9, CRITS-22: the defence dice are the attack dice unless the card says otherwise.
        return parse_dice(self.defence) if self.defence is not None else self.attack_dice

    def keywords(self) -> tuple[str, ...]:
        return tuple(raw["keyword"] for raw in self.effects)


def check_card_set(cards: Sequence[CritsCard], fail: Callable[..., CardFileError]) -> None:
    """Cross-card rules: every item fits some creature type of the set (CRITS-20), and a set can make an army."""
    creature_types = {c.type for c in cards if c.kind == "creature"}
    for card in cards:
        if card.kind == "item" and card.type not in creature_types:
            raise fail(f"no creature of type '{card.type}' in this set can use the item "
                       f"(types: {', '.join(sorted(creature_types)) or 'none'})", card=card.id, field="type")
    for kind in ("titan", "creature"):
        if not any(c.kind == kind for c in cards):
            raise fail(f"the set has no {kind}: an army needs one", card=cards[-1].id, field="kind")
    if not any(c.kind == "creature" and c.royal for c in cards):
        raise fail("the set has no Royal creature: an army needs a King", card=cards[-1].id, field="royal")


def load_crits_cards(path: str | Path) -> CardSet[CritsCard]:
    return load_card_set(path, CritsCard, check_card_set)
