"""Lungo cards: the schema of a card file, its cross-card counts, and the effect registries it names."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from bestiary.core.cards import CardModel, CardSet, load_card_set
from bestiary.core.effects import Effect, EffectRegistry
from bestiary.core.errors import CardFileError

ELEMENTS = ("fire", "water", "earth")
SPECIES = ("fish", "element", "jungle", "insect", "shell")
# LUNGO-5: fire is weak to water, water to earth, earth to fire.
WEAK_TO = {"fire": "water", "water": "earth", "earth": "fire"}
KINDS = ("creature", "mutant", "power", "gene", "action", "battle", "poison", "slime", "antidote", "goal")
GAME_PLAY_KINDS = ("power", "gene", "action", "battle", "poison", "slime", "antidote")
STARTER_CARDS = Path(__file__).parent / "cards" / "starter.toml"

# LUNGO-1: the counts of the rule book's components.
CREATURES_PER_ELEMENT = 10
CREATURES_PER_SPECIES = 6
MUTANTS = 3
GAME_PLAY_CARDS = 65
GOALS = 12

# Card effects as data (LUNGO-9, LUNGO-36): the functions live in effects.py and battles.py and register here.
ACTION_EFFECTS = EffectRegistry("creatures-of-lungo actions")
BATTLE_RULES = EffectRegistry("creatures-of-lungo battles")
WINNINGS = EffectRegistry("creatures-of-lungo winnings")



def optional_one_of(value: str | None, allowed: tuple[str, ...], what: str) -> str | None:
    """A card field that is absent or one of `allowed`."""
    if value is not None and value not in allowed:
        raise ValueError(f"{what + ' ' if what else ''}must be one of {', '.join(allowed)}, not '{value}'")
    return value

class Requirement(BaseModel):
    """One line of a goal: at least `count` cards in hand of this kind (and element or species)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    count: int = Field(ge=1, le=10)
    kind: Literal["creature", "mutant", "power", "gene", "action", "antidote", "poison"] | None = None
    element: str | None = None
    species: str | None = None

    @field_validator("element")
    @classmethod
    def _element(cls, value: str | None) -> str | None:
        return optional_one_of(value, ELEMENTS, "element")

    @field_validator("species")
    @classmethod
    def _species(cls, value: str | None) -> str | None:
        return optional_one_of(value, SPECIES, "species")


class LungoCard(CardModel):
    """Any Lungo card; which fields it needs depends on its kind."""

    kind: str
    copies: int = Field(1, ge=1, le=20)
    element: str | None = None
    species: str | None = None
    power: int | None = Field(None, ge=0, le=20)
    weakness: str | None = None
    when: Literal["own-turn", "response"] = "own-turn"
    effect: Effect | None = None
    battle: Effect | None = None
    winnings: Effect | None = None
    requires: tuple[Requirement, ...] = ()

    @field_validator("kind")
    @classmethod
    def _kind(cls, value: str) -> str:
        if value not in KINDS:
            raise ValueError(f"kind must be one of {', '.join(KINDS)}, not '{value}'")
        return value

    @field_validator("element", "weakness")
    @classmethod
    def _element(cls, value: str | None) -> str | None:
        return optional_one_of(value, ELEMENTS, "")

    @field_validator("species")
    @classmethod
    def _species(cls, value: str | None) -> str | None:
        return optional_one_of(value, SPECIES, "species")

    @field_validator("effect", mode="before")
    @classmethod
    def _effect(cls, value: Any) -> Effect | None:
        return None if value is None else ACTION_EFFECTS.parse(value)

    @field_validator("battle", mode="before")
    @classmethod
    def _battle(cls, value: Any) -> Effect | None:
        return None if value is None else BATTLE_RULES.parse(value)

    @field_validator("winnings", mode="before")
    @classmethod
    def _winnings(cls, value: Any) -> Effect | None:
        return None if value is None else WINNINGS.parse(value)

    @model_validator(mode="after")
    def _fields_of_kind(self) -> LungoCard:
        needs = {"creature": ("element", "species", "power", "weakness"), "mutant": ("species", "power"),
                 "power": ("species",), "action": ("effect",), "antidote": ("effect",),
                 "battle": ("battle", "winnings"), "goal": ("requires",)}.get(self.kind, ())
        for name in needs:
            if getattr(self, name) in (None, ()):
                raise ValueError(f"a {self.kind} card needs '{name}'")
        allowed = set(needs) | {"copies"} | ({"when"} if self.kind == "action" else set())
        for name in ("element", "species", "power", "weakness", "effect", "battle", "winnings", "requires"):
            if name not in allowed and getattr(self, name) not in (None, ()):
                raise ValueError(f"a {self.kind} card has no '{name}'")
        if self.kind == "creature" and self.element is not None and self.weakness != WEAK_TO[self.element]:
            raise ValueError(f"a {self.element} creature is weak to {WEAK_TO[self.element]} (LUNGO-5), "
                             f"not {self.weakness}")
        if self.kind == "action" and (self.when == "response") != (self.effect is not None
                                                                    and self.effect.keyword == "cancel"):
            raise ValueError("a response card (when = \"response\") has the 'cancel' effect, and only it")
        return self


def check_components(cards: Sequence[LungoCard], fail: Callable[..., CardFileError]) -> None:
    """LUNGO-1: 30 creatures (10 per element, 6 per species), 3 mutants, 65 game-play cards, 12 goals."""
    kinds: Counter[str] = Counter()
    elements: Counter[str] = Counter()
    species: Counter[str] = Counter()
    for card in cards:
        kinds[card.kind] += card.copies
        if card.kind == "creature":
            elements[card.element or ""] += card.copies
            species[card.species or ""] += card.copies

    def last(kind: str) -> str | None:
        return next((c.id for c in reversed(cards) if c.kind == kind), None)

    for element in ELEMENTS:
        if elements[element] != CREATURES_PER_ELEMENT:
            raise fail(f"the deck needs {CREATURES_PER_ELEMENT} {element} creatures, this file has "
                       f"{elements[element]}", card=last("creature"), field="element")
    for name in SPECIES:
        if species[name] != CREATURES_PER_SPECIES:
            raise fail(f"the deck needs {CREATURES_PER_SPECIES} {name} creatures, this file has "
                       f"{species[name]}", card=last("creature"), field="species")
    if kinds["mutant"] != MUTANTS:
        raise fail(f"the deck needs {MUTANTS} mutants, this file has {kinds['mutant']}", card=last("mutant"),
                   field="kind")
    play = sum(kinds[k] for k in GAME_PLAY_KINDS)
    if play != GAME_PLAY_CARDS:
        last_play = next((c.id for c in reversed(cards) if c.kind in GAME_PLAY_KINDS), None)
        raise fail(f"the deck needs {GAME_PLAY_CARDS} game-play cards (power, gene, action, battle, poison, "
                   f"slime, antidote), this file has {play}", card=last_play, field="copies")
    if kinds["goal"] != GOALS:
        raise fail(f"the deck needs {GOALS} goal cards, this file has {kinds['goal']}", card=last("goal"),
                   field="kind")
    if kinds["battle"] == 0:
        raise fail("the deck needs at least one battle card", field="kind")


def load_lungo_cards(path: str | Path) -> CardSet[LungoCard]:
    """Importing the package (bestiary.games.lungo) registers the effect functions this needs."""
    return load_card_set(path, LungoCard, check_components)
