"""What each connection is sent: views made once per audience (a seat, or the spectators), the event log
each audience may see, and the bounded outbox every websocket is written from (server/limits.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from bestiary.core.api import Event, EventMark, State
from bestiary.server import protocol
from bestiary.server.authority import Authority
from bestiary.server.limits import HANG_UP, Outbox

CLOSE_MOVED = 1012  # RFC 6455 "service restart": the room moved to another worker; reconnect
ViewOf = Callable[[int | None, int, "protocol.RoomInfo | None"], protocol.View]
Made = dict[tuple[int | None, int], tuple[str, int]]  # one view's JSON per audience and event count


class SeenLog:
    """The room's event log as the game goes, each event read from the state once, and each audience's
    share of it (a seat's, the spectators'): a view sends the new part of its share without reading the
    whole log again."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.events: list[Event] = []
        self.mark: EventMark = None
        self.shares: dict[int | None, list[Event]] = {}
        self.scanned: dict[int | None, int] = {}  # how much of `events` each share has been drawn from

    def share(self, state: State, seat: int | None) -> list[Event]:
        new, mark = state.events_after(self.mark)
        if new is None:  # another game, or an earlier position: read it afresh
            self.reset()
            new, mark = state.events_after(None)
            assert new is not None
        self.events.extend(new)
        self.mark = mark
        share = self.shares.setdefault(seat, [])
        share.extend(event for event in self.events[self.scanned.get(seat, 0):] if event.visible_to(seat))
        self.scanned[seat] = len(self.events)
        return share


@dataclass(eq=False)
class Connection:
    """One websocket: who it speaks for, how much of the event log it has been sent, and what waits to be
    written to it (bounded: server/limits.py)."""

    seat: int | None
    outbox: Outbox = field(default_factory=Outbox)
    events_seen: int = 0
    close_code: int | None = None  # set with HANG_UP: the writer then closes the websocket with it
    sent: dict[int, float] = field(default_factory=dict)  # version: when that position was sent (server/races.py)


def table_view(authority: Authority, seen: SeenLog, info: protocol.RoomInfo, seat: int | None, events_from: int,
               person: bool, now: float, turn_deadline: float | None) -> protocol.View:
    """What `seat` (None: a spectator) may see, with its events from `events_from` on; `person`: whether a
    person plays the seat (a computer's seat is shown no actions)."""
    state = authority.state
    playing = authority.status == "playing"
    to_act = authority.to_act()
    legal = [str(a) for a in state.legal_actions(seat)] if seat is not None and seat in to_act and person else []
    events = seen.share(state, seat)
    window = None
    if authority.window is not None:
        window = protocol.Window(kind=authority.window.kind, players=to_act,
                                 opened_at_version=authority.window.opened_at_version,
                                 seconds=authority.window_seconds,
                                 closes_in=max(0.0, authority.window.deadline - now))
    take_back = None
    if seat is not None and person and playing:
        verdict = authority.take_back_verdict(seat)
        take_back = protocol.TakeBackView(allowed=verdict.allowed, why=verdict.why)
    if events_from > len(events):  # the log was cut back by a take-back since this viewer saw it: send it whole
        events_from = 0
    return protocol.View(
        room=info, seat=seat, version=authority.version,
        decision_kind=state.decision_kind() if playing else authority.status,
        to_act=to_act, legal_actions=legal, observation=state.observation(seat),
        events=[protocol.EventView(kind=e.kind, text=e.text, data=dict(e.data), rules=list(e.rules))
                for e in events[events_from:]],
        events_from=events_from, window=window,
        turn_closes_in=None if turn_deadline is None else max(0.0, turn_deadline - now), take_back=take_back)


def send_view(connection: Connection, kind: Literal["welcome", "state"], view_of: ViewOf,
              made: Made | None = None, info: protocol.RoomInfo | None = None) -> None:
    """The connection's view, made once per audience (its seat, or spectators) and event count, and turned
    into JSON by pydantic's own serialiser (docs/reliability.md: five times json.dumps on a Crit's view)."""
    audience = (connection.seat, connection.events_seen)
    if made is not None and audience in made:
        text, connection.events_seen = made[audience]
        connection.outbox.put_nowait(text)
        return
    view = view_of(connection.seat, connection.events_seen, info)
    connection.events_seen = view.events_from + len(view.events)
    message = (protocol.Welcome(seat=connection.seat, view=view) if kind == "welcome"
               else protocol.StateMessage(view=view))
    text = message.model_dump_json()
    if made is not None:
        made[audience] = text, connection.events_seen
    connection.outbox.put_nowait(text)


def fan_out(connections: Iterable[Connection], view_of: ViewOf, info: protocol.RoomInfo | None) -> None:
    """Every connection its view, one view made for every connection of an audience."""
    made: Made = {}
    for connection in connections:
        send_view(connection, "state", view_of, made, info)


def to_everyone(connections: Iterable[Connection], message: dict[str, Any]) -> None:
    for connection in connections:
        connection.outbox.put_nowait(message)


def hang_up(connections: Iterable[Connection], close_code: int = CLOSE_MOVED) -> None:
    """Every connection closes once what waits for it is written (with 1012: the room moved; reconnect)."""
    for connection in connections:
        connection.close_code = close_code
        connection.outbox.put_nowait(HANG_UP)
