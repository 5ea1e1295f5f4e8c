"""Balance statistics from simulation records, gathered in one pass so a long run needs little memory.

Records are grouped by player count (a seat's chances differ with the number of opponents). Within a group:
win rate by seat in turn order (position 1 = the first player), by agent, game length, lead changes,
winning margins, and for every card and event kind the win rate of the seats that had the card in that
event against the seats that did not, with Benjamini-Hochberg correction over all cards of the kind.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import mean, median
from typing import Any

from bestiary.analysis.listeners import NO_PLAYER
from bestiary.analysis.stats import Rate, benjamini_hochberg, difference_interval, two_proportion_p_value

SIGNIFICANCE = 0.05  # false discovery rate for flagging a card


@dataclass(frozen=True)
class CardEffect:
    kind: str
    card: str
    with_card: Rate  # win rate of the seats that had the card in this kind of event
    without: Rate  # win rate of the other seats of the same games
    low: float  # interval for the difference with - without
    high: float
    p_value: float
    q_value: float  # after Benjamini-Hochberg over every card of this kind

    @property
    def difference(self) -> float:
        return self.with_card.rate - self.without.rate

    @property
    def significant(self) -> bool:
        return self.q_value < SIGNIFICANCE


@dataclass
class GroupSummary:
    """Everything gathered about the games of one player count."""

    players: int
    games: int = 0
    position_wins: list[float] = field(default_factory=list)
    agent_wins: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    agent_seats: Counter[str] = field(default_factory=Counter)
    lengths: list[int] = field(default_factory=list)
    lead_changes: list[int] = field(default_factory=list)
    margins: list[float] = field(default_factory=list)  # (best - runner-up) / best, where games keep scores
    shared_wins: int = 0
    card_seats: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    card_wins: dict[str, dict[str, float]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(float)))
    card_counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    event_values: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))

    def add(self, record: dict[str, Any]) -> None:
        n = self.players
        if not self.position_wins:
            self.position_wins = [0.0] * n
        self.games += 1
        winners = record["winners"]
        share = {p: 1 / len(winners) for p in winners}
        if len(winners) > 1:
            self.shared_wins += 1
        first = record.get("first_player", 0)
        for seat in range(n):
            self.position_wins[(seat - first) % n] += share.get(seat, 0.0)
        for seat, agent in enumerate(record["agents"]):
            self.agent_seats[agent] += 1
            self.agent_wins[agent] += share.get(seat, 0.0)
        self.lengths.append(int(record["length"]))
        self.lead_changes.append(int(record.get("lead_changes", 0)))
        scores = record.get("scores")
        if isinstance(scores, list) and len(scores) > 1:
            ranked = sorted(scores, reverse=True)
            if ranked[0] > 0:
                self.margins.append((ranked[0] - ranked[1]) / ranked[0])
        for kind, seats in record.get("card_events", {}).items():
            counts = self.card_counts[kind]
            for seat_key, cards in seats.items():
                counts.update(cards)
                if seat_key == NO_PLAYER:
                    continue
                won = share.get(int(seat_key), 0.0)
                for card in set(cards):
                    self.card_seats[kind][card] += 1
                    self.card_wins[kind][card] += won
        for key, values in record.get("event_values", {}).items():
            self.event_values[key].update(values)

    # -- results ------------------------------------------------------------------------------
    def position_rates(self) -> list[Rate]:
        return [Rate.of(wins, self.games) for wins in self.position_wins]

    def agent_rates(self) -> dict[str, Rate]:
        return {agent: Rate.of(self.agent_wins[agent], seats) for agent, seats in sorted(self.agent_seats.items())}

    def length_stats(self) -> dict[str, float]:
        ordered = sorted(self.lengths)
        return {"mean": mean(ordered), "median": median(ordered), "min": ordered[0], "max": ordered[-1],
                "p5": ordered[int(0.05 * (len(ordered) - 1))], "p95": ordered[int(0.95 * (len(ordered) - 1))]}

    def card_kinds(self) -> list[str]:
        """Kinds that name a seat, most frequent first."""
        return sorted(self.card_seats, key=lambda kind: -sum(self.card_counts[kind].values()))

    def card_effects(self, kind: str) -> list[CardEffect]:
        """Every card of this kind, strongest effect on its seat's win rate first."""
        seat_games = self.games * self.players
        total_wins = float(self.games)  # every game's win shares add up to one
        rows = []
        for card, seats in self.card_seats[kind].items():
            wins = self.card_wins[kind][card]
            other_seats, other_wins = seat_games - seats, max(0.0, total_wins - wins)
            if other_seats == 0:
                continue
            low, high = difference_interval(wins, seats, other_wins, other_seats)
            rows.append((card, Rate.of(wins, seats), Rate.of(other_wins, other_seats), low, high,
                         two_proportion_p_value(wins, seats, other_wins, other_seats)))
        q_values = benjamini_hochberg([row[5] for row in rows])
        effects = [CardEffect(kind, card, with_card, without, low, high, p, q)
                   for (card, with_card, without, low, high, p), q in zip(rows, q_values, strict=True)]
        return sorted(effects, key=lambda effect: -effect.difference)


def summarise(records: Iterable[dict[str, Any]]) -> dict[int, GroupSummary]:
    groups: dict[int, GroupSummary] = {}
    for record in records:
        players = int(record["players"])
        groups.setdefault(players, GroupSummary(players)).add(record)
    return dict(sorted(groups.items()))
