"""Races judged by reaction, not by arrival (docs/protocol.md, *Races across unequal connections*).

A race (Lungo's swat and token race) goes to the player who answered first. Judged by arrival at the server,
a player on a slow connection loses every close race: they see the race later and their answer travels
longer. Here each websocket's round trip is measured all the time from the protocol's own ping frames (a
browser answers them by itself, not its page's code), and an answer's *reaction* is estimated as

    reaction = arrival - sent - min(round trip, ROUND_TRIP_CAP)

where `sent` is when the server sent that connection the position the answer was chosen on: the player saw
it half a round trip after `sent`, and answered half a round trip before `arrival`. No time the client
claims is read. The first answer opens a short commit window (`Settings.race_commit_seconds`); the answers
that arrive within it are applied in the order of their reactions, so the first one closes the race and the
others are refused as they would have been had they arrived later.

What a client gains by delaying its pongs: a larger measured round trip, so up to ROUND_TRIP_CAP less
counted against its reaction, and never more (a client with a true round trip of 20 ms that delays its
pongs to look like 150 ms gains at most 130 ms). The cap bounds that gain; the commit window bounds how late
an answer may arrive and still be judged (an answer later than the window is refused as before).
"""

from __future__ import annotations

import statistics
from collections import deque

ROUND_TRIP_CAP = 0.150  # seconds of round trip an answer is credited with, at most
SAMPLES = 5  # recent pings whose median is the round trip (one slow ping does not move it)
SHOWN_KEPT = 8  # positions whose sending time a connection remembers


class RoundTrip:
    """One websocket's round trip, from the ping frames the server sends it and the pongs it returns."""

    def __init__(self) -> None:
        self.samples: deque[float] = deque(maxlen=SAMPLES)

    def measured(self, seconds: float) -> None:
        self.samples.append(max(0.0, seconds))

    @property
    def seconds(self) -> float | None:
        return statistics.median(self.samples) if self.samples else None


def reaction(arrived: float, sent: float | None, round_trip: float | None) -> float | None:
    """The estimated time the player took to answer after seeing the position; None when it cannot be told
    (no position was sent to this connection, e.g. a REST client): such an answer is judged by arrival."""
    if sent is None:
        return None
    return arrived - sent - min(round_trip or 0.0, ROUND_TRIP_CAP)


def remember_sent(shown: dict[int, float], version: int, at: float) -> None:
    """The first time a position (its version) was sent to a connection, the few most recent kept."""
    if version not in shown:
        shown[version] = at
        while len(shown) > SHOWN_KEPT:
            del shown[min(shown)]
