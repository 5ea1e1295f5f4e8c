"""What critter capture writes into the event log, one function per entry.

The rules log an entry with `state._log_later(entry, *values)`; its text is written only when someone reads
the log, so the values passed are ones that never change (seats, card indices, tuples, the game).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.core.api import Event
from bestiary.games.critters.cards import ATTRIBUTES, COLOURS

if TYPE_CHECKING:
    from bestiary.games.critters.game import CritterCapture


def seat(player: int) -> str:
    return f"P{player + 1}"


def first_player(player: int) -> Event:
    return Event("first", f"{seat(player)} is the first starting player.", None, {"player": player}, ("CRITTERS-7",))


def round_started(round_number: int, starter: int) -> Event:
    return Event("round", f"Round {round_number}: {seat(starter)} starts.", None, {"round": round_number},
                 ("CRITTERS-8", "CRITTERS-30") if round_number > 1 else ("CRITTERS-8",))


def drew(player: int, colour: int, rules: tuple[str, ...], turn: int) -> Event:
    """`turn`: the game's turn number (CRITTERS-26: a player's turn is to draw and flip a card)."""
    name = COLOURS[colour]
    article = "an" if name[0] in "aeiou" else "a"
    return Event("draw", f"{seat(player)} draws {article} {name} card.", None,
                 {"player": player, "colour": name, "turn": turn}, rules)


def announced(player: int, attribute: int, rules: tuple[str, ...]) -> Event:
    name = ATTRIBUTES[attribute]
    return Event("choose", f"{seat(player)} announces {name}.", None, {"player": player, "attribute": name},
                 rules)


def chose_for_scoring(player: int, attribute: int) -> Event:
    name = ATTRIBUTES[attribute]
    return Event("choose", f"{seat(player)} chooses {name} for scoring.", None,
                 {"player": player, "attribute": name}, ("CRITTERS-32",))


def flipped(game: CritterCapture, player: int, card: int, role: str) -> Event:
    return Event("flip", f"{seat(player)} flips {game.descriptions[card]} as the {role} card.", None,
                 {"player": player, "card": game.instance_ids[card], "role": role, "exposure": "drawn"},
                 ("CRITTERS-10", "CRITTERS-38") if role == "active" else ("CRITTERS-14", "CRITTERS-38"))


def ability_took_effect(game: CritterCapture, challenger: int, card: int, active_card: int) -> Event:
    ability = game.cards[card].ability
    return Event("ability", f"{ability} matches the active {COLOURS[game.colour[active_card]]} card and takes "
                 "effect.", None, {"player": challenger, "card": game.instance_ids[card], "ability": ability},
                 ("CRITTERS-14", "CRITTERS-26"))


def compared(attribute: int, mine: int, theirs: int) -> Event:
    name = ATTRIBUTES[attribute]
    return Event("compare", f"{name.capitalize()} {mine} against {theirs}.", None,
                 {"challenge": mine, "active": theirs, "attribute": name}, ("CRITTERS-20",))


def tied(game: CritterCapture, challenger: int, card: int, under: int) -> Event:
    return Event("tie", f"A tie: {seat(challenger)}'s card becomes the active card with {under} card(s) under it.",
                 None, {"player": challenger, "card": game.instance_ids[card]}, ("CRITTERS-23",))


def corralled(game: CritterCapture, player: int, cards: tuple[int, ...], verb: str,
              rules: tuple[str, ...]) -> Event:
    names = ", ".join([game.cards[c].name for c in cards])
    return Event("corral", f"{seat(player)} {verb} {names}.", None,
                 {"player": player, "cards": [game.instance_ids[c] for c in cards], "gain": len(cards)}, rules)


def final_choice(chooser: int) -> Event:
    return Event("final", f"All cards are played. {seat(chooser)} has the fewest cards and chooses commonness or "
                 "size for scoring.", None, {"player": chooser}, ("CRITTERS-31", "CRITTERS-32"))


def scored(attribute: int, scores: tuple[int, ...]) -> Event:
    best = max(scores)
    winners = [p for p, points in enumerate(scores) if points == best]
    totals = ", ".join(f"{seat(p)} {points}" for p, points in enumerate(scores))
    who = " and ".join(seat(p) for p in winners)
    return Event("end", f"Scores ({ATTRIBUTES[attribute]}): {totals}. {who} win{'s' if len(winners) == 1 else ''}.",
                 None, {"scores": list(scores), "winners": winners}, ("CRITTERS-33", "CRITTERS-35"))
