"""Army files: the Titan, ten creatures and five items a player brings, the King and the equipment.

An army is TOML (see armies/*.toml). `read_army` refuses an illegal army with a message naming the file and
the rule it breaks (ids from docs/rules/crits-creatures.md).
"""

from __future__ import annotations

import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from bestiary.core.cards import CardSet
from bestiary.core.errors import BestiaryError
from bestiary.games.crits.cards import CritsCard
from bestiary.games.crits.effects import EFFECTS

PRESET_DIR = Path(__file__).parent / "armies"
CREATURES_PER_ARMY = 10
ITEMS_PER_ARMY = 5
MAX_COPIES = 3


class ArmyError(BestiaryError, ValueError):
    """An army file that cannot be read or breaks an army-building rule."""


class _ArmyTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    titan: str
    king: str
    creatures: list[str]
    items: list[str]


class _Equip(BaseModel):
    model_config = ConfigDict(extra="forbid")
    item: str
    creature: str


class _ArmyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    army: _ArmyTable
    equip: list[_Equip] = []


@dataclass(frozen=True)
class Army:
    """A checked army: card ids in order; `king` and `equips` index into `creatures` and `items`."""

    name: str
    titan: str
    creatures: tuple[str, ...]
    items: tuple[str, ...]
    king: int
    equips: tuple[tuple[int, int], ...]  # (item slot, creature slot)


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.toml"))


def army_path(name_or_path: str) -> Path:
    """A preset army by name (e.g. "grave-legion"), or a path to an army file."""
    preset = PRESET_DIR / f"{name_or_path}.toml"
    return preset if preset.is_file() else Path(name_or_path)


def read_army(name_or_path: str, cards: CardSet[CritsCard]) -> Army:
    path = army_path(name_or_path)
    where = str(path) if path.parent != PRESET_DIR else f"preset army '{path.stem}'"
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        known = ", ".join(preset_names())
        raise ArmyError(f"{where}: cannot read: {error.strerror or error} (preset armies: {known})") from None
    except tomllib.TOMLDecodeError as error:
        raise ArmyError(f"{where}: not valid TOML: {error}") from None
    try:
        parsed = _ArmyFile(**raw)
    except ValidationError as error:
        problem = error.errors()[0]
        field = ".".join(str(p) for p in problem["loc"])
        message = "unknown field" if problem["type"] == "extra_forbidden" else problem["msg"]
        raise ArmyError(f"{where}: field '{field}': {message}") from None
    return check_army(parsed, cards, where)


def check_army(parsed: _ArmyFile, cards: CardSet[CritsCard], where: str) -> Army:
    by_id = {card.id: card for card in cards.cards}
    table = parsed.army

    def card(card_id: str, kind: str, field: str) -> CritsCard:
        found = by_id.get(card_id)
        if found is None:
            raise ArmyError(f"{where}: {field}: no card '{card_id}' in the card set '{cards.id}'")
        if found.kind != kind:
            raise ArmyError(f"{where}: {field}: '{card_id}' is a {found.kind}, not a {kind}")
        return found

    # CRITS-42, CRITS-14, CRITS-61: one Titan, ten creatures, five items.
    card(table.titan, "titan", "army.titan")
    if len(table.creatures) != CREATURES_PER_ARMY:
        raise ArmyError(f"{where}: an army brings {CREATURES_PER_ARMY} creatures (CRITS-42), this one "
                        f"{len(table.creatures)}")
    if len(table.items) != ITEMS_PER_ARMY:
        raise ArmyError(f"{where}: an army brings {ITEMS_PER_ARMY} items (CRITS-42), this one {len(table.items)}")
    for card_id in table.creatures:
        card(card_id, "creature", "army.creatures")
    for card_id in table.items:
        card(card_id, "item", "army.items")
    counts = Counter([table.titan, *table.creatures, *table.items])
    for card_id, count in counts.items():
        c = by_id[card_id]
        # CRITS-53: a starred card at most once; CRITS-58, CRITS-29: three copies unless Unlimited.
        if c.star and count > 1:
            raise ArmyError(f"{where}: '{card_id}' has a star: one copy at most (CRITS-53), this army has {count}")
        unlimited = next((e for e in c.effects if e["keyword"] == "unlimited"), None)
        if count > MAX_COPIES and not (unlimited and EFFECTS.run(EFFECTS.parse(unlimited), None, -1)):
            raise ArmyError(f"{where}: at most {MAX_COPIES} copies of '{card_id}' unless it is Unlimited "
                            f"(CRITS-58), this army has {count}")
    # CRITS-38, CRITS-39, CRITS-43: the King is one of the army's Royal creatures.
    if table.king not in table.creatures:
        raise ArmyError(f"{where}: army.king: '{table.king}' is not one of the army's creatures")
    if not by_id[table.king].royal:
        raise ArmyError(f"{where}: army.king: '{table.king}' has an X, not the crown: it cannot be King (CRITS-39)")
    if "split-second" in by_id[table.king].keywords():
        raise ArmyError(f"{where}: army.king: '{table.king}' has Split Second and starts off the board (CRITS-46)")
    equips: list[tuple[int, int]] = []
    used_items: set[int] = set()
    holders: set[int] = set()
    for number, entry in enumerate(parsed.equip, start=1):
        field = f"equip[{number}]"
        item_slot = next((i for i, c in enumerate(table.items) if c == entry.item and i not in used_items), None)
        if item_slot is None:
            raise ArmyError(f"{where}: {field}: no unequipped '{entry.item}' among the army's items")
        slot = next((i for i, c in enumerate(table.creatures) if c == entry.creature and i not in holders), None)
        if slot is None:
            raise ArmyError(f"{where}: {field}: no '{entry.creature}' without an item among the army's creatures "
                            "(a creature holds one item)")
        item, holder = by_id[entry.item], by_id[entry.creature]
        if not holder.royal:  # CRITS-34, CRITS-57
            raise ArmyError(f"{where}: {field}: '{entry.creature}' has an X and cannot equip items (CRITS-34)")
        if item.type != holder.type:  # CRITS-20
            raise ArmyError(f"{where}: {field}: '{entry.item}' is a {item.type} item and '{entry.creature}' a "
                            f"{holder.type} creature: items only fit their own type (CRITS-20)")
        if "split-second" in item.keywords():
            raise ArmyError(f"{where}: {field}: '{entry.item}' has Split Second: it stays off the board (CRITS-46)")
        used_items.add(item_slot)
        holders.add(slot)
        equips.append((item_slot, slot))
    return Army(table.name, table.titan, tuple(table.creatures), tuple(table.items),
                table.creatures.index(table.king), tuple(equips))
