"""Cube Creatures cards: the schema of a card file and the checks across a whole deck."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field, field_validator

from bestiary.core.cards import CardModel, CardSet, load_card_set
from bestiary.core.effects import Effect
from bestiary.core.errors import CardFileError
from bestiary.games.cube.effects import EFFECTS, check_effect, needs_choice

CARD_TYPES = ("creature", "upgrade", "action", "reaction")
UPGRADE_KINDS = ("weapon", "armor")
STARTER_DECK = Path(__file__).parent / "cards" / "starter.toml"
MIN_CREATURES = 12  # enough for five players to open with two creatures each, with spares


class CubeCard(CardModel):
    """One card. Creatures: attack, health and an optional power; upgrades: kind and bonus;
    actions and reactions: an effect (reactions also say what they answer)."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    type: Literal["creature", "upgrade", "action", "reaction"]
    foil: bool = False
    attack: int | None = Field(None, ge=0, le=20)
    health: int | None = Field(None, ge=1, le=30)
    power: str = ""
    power_effect: Effect | None = None
    kind: Literal["weapon", "armor"] | None = None
    bonus: int | None = Field(None, ge=1, le=10)
    effect: Effect | None = None
    responds_to: Literal["attack", "action", "power"] | None = None

    @field_validator("effect", "power_effect", mode="before")
    @classmethod
    def _parse_effect(cls, raw: Any) -> Effect | None:
        if raw is None:
            return None
        effect = EFFECTS.parse(raw)
        check_effect(effect)
        return effect


# Which fields each card type needs, and which it must leave out.
NEEDS = {"creature": ("attack", "health"), "upgrade": ("kind", "bonus"), "action": ("effect",),
         "reaction": ("effect", "responds_to")}
FORBIDS = {"creature": ("kind", "bonus", "effect", "responds_to"),
           "upgrade": ("attack", "health", "power_effect", "effect", "responds_to"),
           "action": ("attack", "health", "power_effect", "kind", "bonus", "responds_to"),
           "reaction": ("attack", "health", "power_effect", "kind", "bonus")}
# Effects that only make sense in one place: answering an attack, or answering an action card or power.
ATTACK_ONLY = {"prevent-attack", "reduce-damage"}
EFFECT_ONLY = {"cancel-effect"}
REACTION_TARGETS = {"attacker", "defender"}


def check_card(card: CubeCard, fail: Callable[..., CardFileError]) -> None:
    for field in FORBIDS[card.type]:
        if getattr(card, field) is not None:
            raise fail(f"a {card.type} card has no '{field}'", card=card.id, field=field)
    for field in NEEDS[card.type]:
        if getattr(card, field) is None:
            raise fail(f"a {card.type} card needs '{field}'", card=card.id, field=field)
    if card.type != "creature" and card.power:
        raise fail(f"a {card.type} card has no creature power", card=card.id, field="power")
    if card.power_effect is not None and not card.power:
        raise fail("a creature power effect needs its 'power' text", card=card.id, field="power")
    placed = [("power_effect", card.power_effect), ("effect", card.effect)]
    for field, effect in placed:
        if effect is None:
            continue
        keyword = effect.keyword
        target = effect.params.get("target")
        answering_attack = card.type == "reaction" and card.responds_to == "attack"
        answering_effect = card.type == "reaction" and card.responds_to in ("action", "power")
        if keyword in ATTACK_ONLY and not answering_attack:
            raise fail(f"effect '{keyword}' only answers an attack (a reaction with responds_to = \"attack\")",
                       card=card.id, field=field)
        if keyword in EFFECT_ONLY and not answering_effect:
            raise fail(f"effect '{keyword}' only answers an action card or a creature power",
                       card=card.id, field=field)
        if target in REACTION_TARGETS and not answering_attack:
            raise fail(f"target '{target}' exists only while answering an attack", card=card.id, field=field)
        if card.type == "reaction" and needs_choice(effect):
            raise fail(f"a reaction cannot ask for a target ('{target}'): it is played at once",
                       card=card.id, field=field)
        if target == "self" and field != "power_effect":
            raise fail("target 'self' is only for creature powers", card=card.id, field=field)
        if keyword in ("boost-attack", "attack-any") and card.type == "reaction":
            raise fail(f"effect '{keyword}' changes your own attack: not a reaction", card=card.id, field=field)


def check_deck(cards: Sequence[CubeCard], fail: Callable[..., CardFileError]) -> None:
    """Each card on its own (CUBE-4 to CUBE-8), then the deck as a whole (CUBE-3)."""
    for card in cards:
        check_card(card, fail)
    creatures = sum(1 for c in cards if c.type == "creature")
    if creatures < MIN_CREATURES:
        last = next((c.id for c in reversed(cards)), None)
        raise fail(f"a deck needs at least {MIN_CREATURES} creature cards, this file has {creatures}",
                   card=last, field="type")


def load_deck(path: str | Path) -> CardSet[CubeCard]:
    return load_card_set(path, CubeCard, check_deck)
