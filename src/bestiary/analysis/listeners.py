"""Listeners on the core's event log: what a simulation records about each game, for any game.

Every game logs `Event`s with a kind and a data mapping. The listeners here read only those conventions:
- a card is named by `data["card"]` (one id) or `data["cards"]` (a list of ids), a seat by `data["player"]`;
- `data["scores"]` (one number per seat) is a running or final score, and `data["gain"]` (a number) is what
  the event adds to its seat's score or scoring pile (cards corralled, creatures defeated into a victory pile);
  event kinds carrying either are the score itself, so their cards say nothing about a card's strength;
- `data["exposure"]` marks what chance gave the seat rather than what it chose: `"dealt"` (the opening hand)
  or `"drawn"` (a card taken from a shuffled deck or pile), which the headline card effects read together,
  or the name of a pile of its own (Lungo's secret `"goal"`), measured apart;
- a turn starts with an event of kind "turn" or one whose `data["turn"]` is the turn's number (from 1), a
  round with one whose `data["round"]` is the round's number; `data["ending"]` says how the game ended
  ("turn limit" where the limit ended it), `data["faction"]` the army or faction a seat plays;
- copies of one card carry ids `<card>#2`, `<card>#3`, ...: they are one card to the analysis;
- any other short text value (a die face, an ability, an announced attribute) is tallied by kind and field.
No listener knows a particular game, so a new game is analysed as soon as it logs its events.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any, Protocol

from bestiary.core.api import Event

NO_PLAYER = ""  # the key for card events that name no seat
TALLY_SKIP = frozenset({"player", "card", "cards", "scores", "winners", "gain", "exposure", "turn", "round",
                        "ending", "faction"})
EXPOSURES = ("dealt", "drawn")  # the cards chance puts in a seat's hand, in the order a game gives them
TALLY_MAX_LENGTH = 40  # longer text values are prose, not categories


class EventListener(Protocol):
    def on_event(self, event: Event) -> None: ...

    def summary(self) -> dict[str, Any]: ...


def feed(events: Iterable[Event], listeners: Iterable[EventListener]) -> dict[str, Any]:
    """Pass each event in order to every listener; their summaries merged into one record."""
    listeners = list(listeners)
    for event in events:
        for listener in listeners:
            listener.on_event(event)
    merged: dict[str, Any] = {}
    for listener in listeners:
        merged.update(listener.summary())
    return merged


def base_card(card_id: str) -> str:
    """The card a copy is of: `power-fish#2` -> `power-fish`."""
    card, sep, copy = card_id.rpartition("#")
    return card if sep and card and copy.isdigit() else card_id


def cards_of(event: Event) -> list[str]:
    """The cards an event names, copies named as their card."""
    cards: list[str] = []
    single = event.data.get("card")
    if isinstance(single, str):
        cards.append(base_card(single))
    several = event.data.get("cards")
    if isinstance(several, list | tuple):
        cards.extend(base_card(c) for c in several if isinstance(c, str))
    return cards


def player_of(event: Event) -> int | None:
    player = event.data.get("player")
    return player if isinstance(player, int) and not isinstance(player, bool) and player >= 0 else None


class CardEvents:
    """Which cards each seat drew, played, corralled, defeated, … : {kind: {seat: [card ids]}}.

    A `role` field splits a kind (critter capture's "flip" with role "active" also counts as "flip:active").
    """

    def __init__(self) -> None:
        self.by_kind: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))

    def on_event(self, event: Event) -> None:
        cards = cards_of(event)
        if not cards:
            return
        player = player_of(event)
        seat = NO_PLAYER if player is None else str(player)
        kinds = [event.kind]
        role = event.data.get("role")
        if isinstance(role, str):
            kinds.append(f"{event.kind}:{role}")
        for kind in kinds:
            self.by_kind[kind][seat].extend(cards)

    def summary(self) -> dict[str, Any]:
        return {"card_events": {kind: dict(seats) for kind, seats in self.by_kind.items()}}


class Exposures:
    """What chance gave each seat, by exposure: {"dealt" | "drawn": {seat: [card ids, one per copy]}}, and
    the event kinds that carried an exposure (their card tables would repeat these as associations)."""

    def __init__(self) -> None:
        self.by_exposure: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
        self.kinds: set[str] = set()

    def on_event(self, event: Event) -> None:
        exposure = event.data.get("exposure")
        player = player_of(event)
        if not isinstance(exposure, str) or not exposure or player is None:
            return
        cards = cards_of(event)
        if cards:
            self.by_exposure[exposure][str(player)].extend(cards)
            self.kinds.add(event.kind)
            role = event.data.get("role")
            if isinstance(role, str):
                self.kinds.add(f"{event.kind}:{role}")

    def summary(self) -> dict[str, Any]:
        return {"exposures": {exposure: dict(seats) for exposure, seats in self.by_exposure.items()},
                "exposure_kinds": sorted(self.kinds)}


class LeadTracker:
    """Lead changes ("drama"): who leads after each event that moves the score.

    The lead follows `scores` where events carry them, else the running total of each seat's `gain`s. A
    change is counted when a different seat becomes the sole leader. A game whose events never move a score
    has no lead to follow: its lead changes are None (unmeasurable), not 0.
    """

    def __init__(self) -> None:
        self.tally: dict[int, float] = defaultdict(float)
        self.leader: int | None = None
        self.changes = 0
        self.measured = False
        self.score_kinds: set[str] = set()

    def on_event(self, event: Event) -> None:
        scores = event.data.get("scores")
        gain = event.data.get("gain")
        player = player_of(event)
        if isinstance(scores, list | tuple) and all(isinstance(s, int | float) for s in scores):
            self.tally = defaultdict(float, enumerate(float(s) for s in scores))
        elif isinstance(gain, int | float) and not isinstance(gain, bool) and player is not None:
            self.tally[player] += gain
        else:
            return
        self.measured = True
        self.score_kinds.add(event.kind)
        best = max(self.tally.values())
        leaders = [p for p, value in self.tally.items() if value == best]
        if len(leaders) == 1 and leaders[0] != self.leader:
            if self.leader is not None:
                self.changes += 1
            self.leader = leaders[0]

    def summary(self) -> dict[str, Any]:
        return {"lead_changes": self.changes if self.measured else None, "score_kinds": sorted(self.score_kinds)}


class EventTallies:
    """Counts of each event kind, and of each short text value by kind and field (die faces, abilities)."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.values: dict[str, Counter[str]] = defaultdict(Counter)

    def on_event(self, event: Event) -> None:
        self.kinds[event.kind] += 1
        for key, value in event.data.items():
            if key in TALLY_SKIP:
                continue
            if isinstance(value, bool) or not isinstance(value, str | int):
                continue
            text = str(value)
            if len(text) <= TALLY_MAX_LENGTH:
                self.values[f"{event.kind}.{key}"][text] += 1

    def summary(self) -> dict[str, Any]:
        return {"event_counts": dict(self.kinds),
                "event_values": {field: dict(counts) for field, counts in self.values.items()}}


class Progress:
    """Turns and rounds as the rule books count them, how the game ended, and each seat's faction."""

    def __init__(self) -> None:
        self.turns = 0
        self.rounds = 0
        self.ending: str | None = None
        self.factions: dict[str, str] = {}

    def on_event(self, event: Event) -> None:
        data = event.data
        turn = data.get("turn")
        if event.kind == "turn" or (isinstance(turn, int) and not isinstance(turn, bool) and turn >= 1):
            self.turns += 1
        number = data.get("round")
        if isinstance(number, int) and not isinstance(number, bool) and number >= 1:
            self.rounds += 1
        ending = data.get("ending")
        if isinstance(ending, str):
            self.ending = ending
        faction, player = data.get("faction"), player_of(event)
        if isinstance(faction, str) and player is not None:
            self.factions[str(player)] = faction

    def summary(self) -> dict[str, Any]:
        return {"turns": self.turns or None, "rounds": self.rounds or None, "ending": self.ending,
                "factions": self.factions or None}


def standard_listeners() -> list[EventListener]:
    return [CardEvents(), Exposures(), LeadTracker(), EventTallies(), Progress()]
