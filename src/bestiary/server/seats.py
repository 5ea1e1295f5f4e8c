"""A room's seats: who sits in each (a person or a computer), the hashed token that acts for it, and the
checks made before a seat changes hands. Who is connected, and when an away seat goes to a computer, is
server/presence.py."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from bestiary.server import protocol
from bestiary.server.db import hash_token
from bestiary.server.errors import ServerError


@dataclass
class Seat:
    seat: int
    kind: Literal["human", "bot"]
    agent: str | None = None
    name: str | None = None
    token_hash: str | None = None
    person: bool = False  # a person took this seat (a computer may play it now)

    def info(self) -> protocol.SeatInfo:
        return protocol.SeatInfo(seat=self.seat, kind=self.kind, agent=self.agent, name=self.name,
                                 taken=self.kind == "bot" or self.token_hash is not None)

    def row(self) -> dict[str, Any]:
        return {"seat": self.seat, "kind": self.kind, "agent": self.agent, "name": self.name,
                "token_hash": self.token_hash, "person": self.person}


def seat_from_row(row: dict[str, Any]) -> Seat:
    return Seat(row["seat"], row["kind"], row["agent"], row["name"], row["token_hash"], bool(row["person"]))


def seat_of(seats: Iterable[Seat], token: str | None) -> int | None:
    """The seat a token acts for; None for no token (a spectator). A wrong token is refused."""
    if token is None:
        return None
    hashed = hash_token(token)
    for seat in seats:
        if seat.token_hash is not None and secrets.compare_digest(seat.token_hash, hashed):
            return seat.seat
    raise ServerError("bad-token", "this seat token is not valid for this room", 403)


def full(seats: Iterable[Seat]) -> bool:
    return all(s.kind == "bot" or s.token_hash for s in seats)


def open_seat(seats: list[Seat], number: int) -> Seat:
    """The seat a person asks to join, if it is free."""
    if not 0 <= number < len(seats):
        raise ServerError("no-seat", f"this room has seats 0 to {len(seats) - 1}", 404)
    seat = seats[number]
    if seat.kind == "bot" or seat.token_hash is not None:
        raise ServerError("seat-taken", f"seat {number + 1} is taken", 409)
    return seat


def new_token() -> tuple[str, str]:
    """A seat token and its hash (only the hash is stored)."""
    token = secrets.token_urlsafe(24)
    return token, hash_token(token)


def check_hand_over(seats: list[Seat], asker: int | None, number: int, status: str,
                    presence_of: Callable[[int], str]) -> None:
    """Whether the player at `asker` may hand seat `number` to a computer now."""
    if asker is None or seats[asker].kind != "human":
        raise ServerError("spectator", "only a player at the table can hand a seat to a computer", 403)
    if not 0 <= number < len(seats):
        raise ServerError("no-seat", f"this room has seats 1 to {len(seats)}", 404)
    if status != "playing":
        raise ServerError("not-started", "a seat can be handed to a computer only during the game", 409)
    if presence_of(number) != "away":
        raise ServerError("not-away", f"seat {number + 1} is not away: only an absent player's seat "
                                      "can be handed to a computer", 409)
