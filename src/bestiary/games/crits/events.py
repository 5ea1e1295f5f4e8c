"""What Crit's Creatures writes into the event log at its commonest steps, one function per entry.

The rules log these with `state._log_later(entry, *values)`; the text is written only when the log is read, so
the values passed never change (seats, numbers, names). Rarer entries are written at once with `state._log`.
"""

from __future__ import annotations

from bestiary.core.api import Event


def seat(player: int) -> str:
    return f"P{player + 1}"


def turn_started(player: int, turn: int) -> Event:
    return Event("turn", f"Turn {turn}: {seat(player)} to play.", None, {"player": player, "turn": turn},
                 rules=("CRITS-5",))


def rolled_off(player: int, value: int) -> Event:
    return Event("roll-off", f"{seat(player)} rolls d20 for the first turn: {value}.", None,
                 {"player": player, "value": value}, rules=("CRITS-45",))


def moved(name: str, origin: str, to: str, piece: int) -> Event:
    return Event("move", f"{name} moves {origin} to {to}.", None, {"piece": piece}, rules=("CRITS-6", "CRITS-7"))


def kingless(player: int, left: int) -> Event:
    return Event("kingless", f"{seat(player)} has no King: {left} turn(s) left to crown one.",
                 rules=("CRITS-41", "CRITS-60"))


def king_fell_this_turn(player: int, left: int) -> Event:
    return Event("kingless", f"{seat(player)}'s King fell this turn: {left} turn(s) left to crown one.",
                 rules=("CRITS-41", "CRITS-60"))


def deployed(name: str, tile: str, player: int, card: str) -> Event:
    return Event("deploy", f"{name} enters play on {tile}.", None, {"player": player, "card": card},
                 rules=("CRITS-23", "CRITS-46"))
