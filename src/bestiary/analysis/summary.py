"""Balance statistics from simulation records, gathered in one pass so a long run needs little memory.

Records are grouped by player count (a seat's chances differ with the number of opponents). Within a group:
win rate by seat in turn order (position 1 = the first player), by agent, game length, lead changes,
winning margins, each agent's decisions, and two kinds of card effect:

- by random exposure (the headline): what chance gave a seat, dealt or drawn. Each copy of a card a seat was
  given above or below its expected number (its share of the deck times the cards the seat was given) is a
  coin flip no strategy and no game length can sway, so its link with winning is the card's effect
  (`stats.exposure_effect`), within agent and turn position;
- associations: what a seat chose (played, attached, used), compared with the seats of the same agent in the
  same turn position that did not (Mantel-Haenszel over those strata). A seat that is behind may play more
  creatures, so these say what goes with winning, not what causes it.

Intervals allow for the seats of one game depending on each other (cluster-robust by game). A card is flagged
when its interval, widened for the number of cards in its table (Bonferroni), excludes zero: on a deck whose
cards make no difference, the chance that any card is flagged stays under 5 %.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import mean, median
from typing import Any

import numpy as np

from bestiary.analysis.listeners import EXPOSURES, NO_PLAYER
from bestiary.analysis.stats import (
    Difference,
    Rate,
    controlled_difference,
    exposure_effect,
    exposure_influence,
    mean_interval,
)

SIGNIFICANCE = 0.05  # the chance that any card of a table is flagged though no card makes a difference
FLAG_MIN_SEATS = 20  # fewer seats with (or without) a card than this: its interval rests on too little to flag
AGENT_GAP_WARNING = 0.25  # agents whose win rates differ more than this make card effects hard to read

IN_HAND = "dealt or drawn"
StratumKey = tuple[str, int]  # (agent, position in turn order)


@dataclass(frozen=True)
class CardEffect:
    """One card's effect on its seat's win rate, in one table (`exposure`): "dealt" or "drawn" (what chance
    gave the seat: `random`), or the kind of event the seat chose (an association)."""

    exposure: str
    card: str
    with_card: Rate  # win rate of the seats that had the card in this table
    without: Rate  # win rate of the seats of the same agents and positions that did not
    effect: Difference  # the estimate, with its plain 95 % interval
    compared: int  # cards in the table: the interval is widened for this many
    random: bool  # True: chance gave the card; False: the seat chose it (an association)

    @property
    def kind(self) -> str:
        return self.exposure

    @property
    def difference(self) -> float:
        return self.effect.value

    @property
    def low(self) -> float:
        return self.effect.widened(self.compared, 1 - SIGNIFICANCE)[0]

    @property
    def high(self) -> float:
        return self.effect.widened(self.compared, 1 - SIGNIFICANCE)[1]

    @property
    def flagged(self) -> bool:
        """The interval, widened for the number of cards in the table, excludes zero, from enough seats on
        both sides for the interval to be trusted."""
        enough = min(self.with_card.games, self.without.games) >= FLAG_MIN_SEATS
        return enough and (self.low > 0 or self.high < 0)

    def to_json(self) -> dict[str, Any]:
        return {"card": self.card, "exposure": self.exposure, "random": self.random, "effect": self.difference,
                "low": self.low, "high": self.high, "flagged": self.flagged, "p_value": self.effect.p_value,
                "seats_with": self.with_card.games, "win_rate_with": _rate_or_none(self.with_card),
                "win_rate_without": _rate_or_none(self.without), "cards_compared": self.compared}


def _rate_or_none(rate: Rate) -> float | None:
    return rate.rate if rate.games else None


@dataclass
class AgentDecisions:
    """An agent's decisions over all the seats it played."""

    seats: int = 0
    count: int = 0
    branching: Counter[int] = field(default_factory=Counter)
    seconds: float = 0.0
    timed: int = 0  # decisions whose thinking time was recorded

    def add(self, seat: dict[str, Any]) -> None:
        self.seats += 1
        self.count += int(seat["count"])
        self.branching.update({int(k): int(v) for k, v in seat["branching"].items()})
        if seat.get("seconds") is not None:
            self.seconds += float(seat["seconds"])
            self.timed += int(seat["count"])

    def per_game(self) -> float:
        return self.count / self.seats if self.seats else float("nan")

    def mean_branching(self) -> float:
        total = sum(self.branching.values())
        return sum(k * v for k, v in self.branching.items()) / total if total else float("nan")

    def forced_share(self) -> Rate:
        """Decisions with one legal action (forced moves)."""
        return Rate.of(self.branching.get(1, 0), sum(self.branching.values()))

    def quantile(self, share: float) -> int | None:
        total = sum(self.branching.values())
        running = 0
        for k in sorted(self.branching):
            running += self.branching[k]
            if running >= share * total:
                return k
        return None

    def seconds_per_decision(self) -> float | None:
        """Mean thinking time, None where it was not recorded (simulate --timing)."""
        return self.seconds / self.timed if self.timed else None


@dataclass
class GroupSummary:
    """Everything gathered about the games of one player count."""

    players: int
    games: int = 0
    position_wins: list[float] = field(default_factory=list)
    agent_wins: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    agent_seats: Counter[str] = field(default_factory=Counter)
    lengths: list[int] = field(default_factory=list)
    first_shares: list[float] = field(default_factory=list)  # the first player's win share, game by game
    lead_changes: list[int] = field(default_factory=list)  # games whose events move a score only
    margins: list[float] = field(default_factory=list)  # (best - runner-up) / best, where games keep scores
    shared_wins: int = 0
    score_kinds: set[str] = field(default_factory=set)  # event kinds that are the score itself
    seat_strata: list[list[StratumKey]] = field(default_factory=list)  # game by game, seat by seat
    seat_shares: list[list[float]] = field(default_factory=list)  # each seat's win share, game by game
    card_games: dict[str, dict[str, list[tuple[int, int]]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(list)))  # kind -> card -> (game, seat)
    _arrays: tuple[int, np.ndarray, np.ndarray, list[StratumKey]] | None = field(default=None, repr=False)
    exposure_kinds: set[str] = field(default_factory=set)  # event kinds that carry what chance gave a seat
    exposure_cards: dict[str, dict[str, Counter[tuple[int, int]]]] = field(
        default_factory=lambda: defaultdict(lambda: defaultdict(Counter)))  # exposure -> card -> (game, seat) -> n
    exposure_totals: dict[str, Counter[tuple[int, int]]] = field(
        default_factory=lambda: defaultdict(Counter))  # exposure -> (game, seat) -> cards given
    card_counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    event_values: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    decisions: dict[str, AgentDecisions] = field(default_factory=lambda: defaultdict(AgentDecisions))
    turns: list[int] = field(default_factory=list)  # games whose events count turns
    rounds: list[int] = field(default_factory=list)  # games whose events count rounds
    forced: list[int] = field(default_factory=list)  # decisions with one legal action, game by game
    endings: Counter[str] = field(default_factory=Counter)  # "turn limit", "decided", ... where games say
    draws: int = 0  # games nobody won, or all seats won together
    faction_wins: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    faction_seats: Counter[str] = field(default_factory=Counter)
    ranks: list[list[int]] = field(default_factory=list)  # each turn position's finishing rank, game by game
    lead_sources: Counter[str] = field(default_factory=Counter)  # "score" or "position value", by games

    def add(self, record: dict[str, Any]) -> None:
        n = self.players
        if not self.position_wins:
            self.position_wins = [0.0] * n
        self.games += 1
        winners = record["winners"]
        share = {p: 1 / len(winners) for p in winners}
        if not winners or len(winners) == n:
            self.draws += 1
        elif len(winners) > 1:
            self.shared_wins += 1
        first = record.get("first_player", 0)
        agents = record["agents"]
        game = self.games - 1
        for seat in range(n):
            self.position_wins[(seat - first) % n] += share.get(seat, 0.0)
        self.seat_strata.append([(agents[seat], (seat - first) % n) for seat in range(n)])
        self.seat_shares.append([share.get(seat, 0.0) for seat in range(n)])
        self.first_shares.append(share.get(first, 0.0))
        for seat, agent in enumerate(agents):
            self.agent_seats[agent] += 1
            self.agent_wins[agent] += share.get(seat, 0.0)
        self.lengths.append(int(record["length"]))
        if record.get("turns") is not None:
            self.turns.append(int(record["turns"]))
        if record.get("rounds") is not None:
            self.rounds.append(int(record["rounds"]))
        if record.get("decisions"):
            self.forced.append(sum(int(seat["branching"].get("1", 0)) for seat in record["decisions"]))
        if record.get("ending") is not None:
            self.endings[str(record["ending"])] += 1
        for seat_key, faction in (record.get("factions") or {}).items():
            self.faction_seats[faction] += 1
            self.faction_wins[faction] += share.get(int(seat_key), 0.0)
        by_seat = finishing_ranks(record.get("ranking"), record.get("scores"),
                                  record.get("returns") or [share.get(seat, 0.0) for seat in range(n)], n)
        self.ranks.append([by_seat[(first + position) % n] for position in range(n)])
        if record.get("lead_changes") is not None:
            self.lead_changes.append(int(record["lead_changes"]))
            self.lead_sources[str(record.get("lead_source") or "score")] += 1
        self.score_kinds.update(record.get("score_kinds", ()))
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
                seat = int(seat_key)
                for card in set(cards):
                    self.card_games[kind][card].append((game, seat))
        self.exposure_kinds.update(record.get("exposure_kinds", ()))
        for exposure, seats in (record.get("exposures") or {}).items():
            for seat_key, cards in seats.items():
                where = (game, int(seat_key))
                self.exposure_totals[exposure][where] += len(cards)
                for card in cards:
                    self.exposure_cards[exposure][card][where] += 1
        for key, values in record.get("event_values", {}).items():
            self.event_values[key].update(values)
        for seat, decided in enumerate(record.get("decisions") or ()):
            self.decisions[agents[seat]].add(decided)

    # -- results ------------------------------------------------------------------------------
    def position_rates(self) -> list[Rate]:
        return [Rate.of(wins, self.games) for wins in self.position_wins]

    def agent_rates(self) -> dict[str, Rate]:
        return {agent: Rate.of(self.agent_wins[agent], seats) for agent, seats in sorted(self.agent_seats.items())}

    def agent_gap(self) -> float:
        """The largest difference between two agents' win rates (0 with one agent)."""
        rates = [r.rate for r in self.agent_rates().values()]
        return max(rates) - min(rates) if len(rates) > 1 else 0.0

    def arrays(self) -> tuple[np.ndarray, np.ndarray, list[StratumKey]]:
        """(stratum index, win share) as games × seats arrays, and the strata (agent, position) by index."""
        if self._arrays is None or self._arrays[0] != self.games:
            keys = sorted({key for row in self.seat_strata for key in row})
            number = {key: i for i, key in enumerate(keys)}
            strata = np.array([[number[key] for key in row] for row in self.seat_strata], dtype=np.int64)
            self._arrays = (self.games, strata.reshape(self.games, self.players),
                            np.array(self.seat_shares, dtype=float).reshape(self.games, self.players), keys)
        return self._arrays[1], self._arrays[2], self._arrays[3]

    def agent_effects(self) -> dict[str, Difference | None]:
        """Each agent's win rate against the other agents' in the same turn positions (its strategy's
        effect), Mantel-Haenszel over positions; None where it cannot be compared."""
        strata, shares, keys = self.arrays()
        agent_of = np.array([key[0] for key in keys], dtype=object)
        position_of = np.array([key[1] for key in keys], dtype=np.int64)
        out: dict[str, Difference | None] = {}
        for agent in sorted(self.agent_seats):
            exposed = agent_of[strata] == agent if keys else np.zeros_like(strata, dtype=bool)
            out[agent] = (controlled_difference(exposed, position_of[strata], shares)
                          if len(self.agent_seats) > 1 else None)
        return out

    def faction_rates(self) -> dict[str, Rate]:
        """Win rate by army or faction (where the games name one for each seat), per seat played."""
        return {name: Rate.of(self.faction_wins[name], seats) for name, seats in sorted(self.faction_seats.items())}

    def rank_shares(self) -> list[list[Rate]]:
        """For each turn position, the share of games it finished in each place (1st, 2nd, ...)."""
        return [[Rate.of(sum(1 for game in self.ranks if game[position] == place), len(self.ranks))
                 for place in range(1, self.players + 1)] for position in range(self.players)]

    def mean_ranks(self) -> list[tuple[float, float, float] | None]:
        return [mean_interval([float(game[position]) for game in self.ranks]) for position in range(self.players)]

    def length_figures(self) -> dict[str, tuple[float, float, float] | None]:
        """Mean turns, rounds, decisions and forced decisions a game, with intervals; None where the games'
        events do not count them. Rounds where a game logs none are its turns over its players (one turn
        each a round), so they are left None only where turns are unknown too."""
        rounds = ([float(r) for r in self.rounds] if self.rounds
                  else [t / self.players for t in self.turns])
        return {"turns": mean_interval([float(t) for t in self.turns]), "rounds": mean_interval(rounds),
                "decisions": mean_interval([float(n) for n in self.lengths]),
                "forced": mean_interval([float(n) for n in self.forced])}

    def ending_rates(self) -> dict[str, Rate]:
        """How games ended: every ending the games name, and draws (nobody won, or everyone)."""
        out = {ending: Rate.of(count, self.games) for ending, count in sorted(self.endings.items())}
        out["draw"] = Rate.of(self.draws, self.games)
        return out

    def drama(self) -> tuple[float, float, float] | None:
        """Mean lead changes a game with its interval; None where no game's events move a score."""
        return mean_interval([float(c) for c in self.lead_changes])

    def length_stats(self) -> dict[str, float]:
        ordered = sorted(self.lengths)
        return {"mean": mean(ordered), "median": median(ordered), "min": ordered[0], "max": ordered[-1],
                "p5": ordered[int(0.05 * (len(ordered) - 1))], "p95": ordered[int(0.95 * (len(ordered) - 1))]}

    def card_kinds(self) -> list[str]:
        """Kinds that name a seat and are not the score itself, most frequent first."""
        kinds = [kind for kind in self.card_games if kind not in self.score_kinds and kind not in self.exposure_kinds]
        return sorted(kinds, key=lambda kind: -sum(self.card_counts[kind].values()))

    def card_effects(self, kind: str) -> list[CardEffect]:
        """Every card of this kind that can be compared, strongest controlled effect first."""
        strata, shares, _ = self.arrays()
        rows = []
        for card, seen in self.card_games[kind].items():
            exposed = np.zeros(strata.shape, dtype=bool)
            games, seats = zip(*seen, strict=True)
            exposed[list(games), list(seats)] = True
            effect = controlled_difference(exposed, strata, shares)
            if effect is None:
                continue
            compared = np.isin(strata, [s for s in np.unique(strata[exposed]) if (strata[~exposed] == s).any()])
            with_card = Rate.of(float(shares[exposed & compared].sum()), int((exposed & compared).sum()))
            without = Rate.of(float(shares[~exposed & compared].sum()), int((~exposed & compared).sum()))
            rows.append((card, with_card, without, effect))
        effects = [CardEffect(kind, card, with_card, without, effect, len(rows), random=False)
                   for card, with_card, without, effect in rows]
        return sorted(effects, key=lambda e: -e.difference)

    def exposures(self) -> list[str]:
        """The random exposures these games record: "dealt", "drawn", "dealt or drawn" where both are
        (every card chance put in a seat's hand, as 17lands' "games in hand" for Magic: the headline), then
        any pile of its own (Lungo's goals)."""
        found = [exposure for exposure in EXPOSURES if self.exposure_totals.get(exposure)]
        others = sorted(exposure for exposure, given in self.exposure_totals.items()
                        if given and exposure not in EXPOSURES)
        return [*found, *([IN_HAND] if len(found) > 1 else []), *others]

    def _exposure_counts(self, exposure: str) -> tuple[Counter[tuple[int, int]], dict[str, Counter[tuple[int, int]]]]:
        if exposure != IN_HAND:
            return self.exposure_totals[exposure], self.exposure_cards[exposure]
        totals: Counter[tuple[int, int]] = Counter()
        cards: dict[str, Counter[tuple[int, int]]] = defaultdict(Counter)
        for part in EXPOSURES:
            totals.update(self.exposure_totals.get(part, {}))
            for card, seen in self.exposure_cards.get(part, {}).items():
                cards[card].update(seen)
        return totals, cards

    def exposure_effects(self, exposure: str) -> list[CardEffect]:
        """Every card chance gave seats in this way that can be measured, strongest effect first."""
        strata, shares, _ = self.arrays()
        given, by_card = self._exposure_counts(exposure)
        totals = np.zeros(strata.shape)
        for (game, seat), number in given.items():
            totals[game, seat] = number
        rows = []
        for card, seen in by_card.items():
            counts = np.zeros(strata.shape)
            for (game, seat), number in seen.items():
                counts[game, seat] = number
            effect = exposure_effect(counts, totals, float(counts.sum() / totals.sum()), strata, shares)
            if effect is None:
                continue
            exposed, others = counts > 0, (counts == 0) & (totals > 0)
            rows.append((card, Rate.of(float(shares[exposed].sum()), int(exposed.sum())),
                         Rate.of(float(shares[others].sum()), int(others.sum())), effect))
        effects = [CardEffect(exposure, card, with_card, without, effect, len(rows), random=True)
                   for card, with_card, without, effect in rows]
        return sorted(effects, key=lambda e: -e.difference)

    def exposure_influences(self, exposure: str) -> dict[str, tuple[float, np.ndarray]]:
        """Each card's effect and every game's part in its error (`stats.exposure_influence`), for pairing
        two runs of the same games."""
        strata, shares, _ = self.arrays()
        given, by_card = self._exposure_counts(exposure)
        totals = np.zeros(strata.shape)
        for (game, seat), number in given.items():
            totals[game, seat] = number
        out = {}
        for card, seen in by_card.items():
            counts = np.zeros(strata.shape)
            for (game, seat), number in seen.items():
                counts[game, seat] = number
            fitted = exposure_influence(counts, totals, float(counts.sum() / totals.sum()), strata, shares)
            if fitted is not None:
                out[card] = (fitted[0], fitted[1])
        return out

    def headline_exposure(self) -> str | None:
        """The exposure to lead with: every card chance gave a seat (the most cards, so the narrowest
        intervals); None where the games deal and draw no cards (Crit's armies are chosen)."""
        hand = [exposure for exposure in self.exposures() if exposure in (*EXPOSURES, IN_HAND)]
        return hand[-1] if hand else None

    def side_exposures(self) -> list[str]:
        """Random exposures shown apart from the headline: piles of their own (Lungo's goals)."""
        return [exposure for exposure in self.exposures() if exposure not in (*EXPOSURES, IN_HAND)]

    def headline_effects(self) -> list[CardEffect]:
        exposure = self.headline_exposure()
        return [] if exposure is None else self.exposure_effects(exposure)

    def uncomparable_cards(self, kind: str) -> int:
        """Cards of the kind that no seat of the same agent and position went without (or all did)."""
        return len(self.card_games[kind]) - len(self.card_effects(kind))


def finishing_ranks(ranking: Any, scores: list[Any] | None, returns: list[float], players: int) -> list[int]:
    """Each seat's place, 1 = best: the game's own ranking where it gives every seat one, else by final
    score where it keeps one, else by returns (equal seats share the better place)."""
    if isinstance(ranking, list) and sorted(ranking) == list(range(players)):
        return [ranking.index(seat) + 1 for seat in range(players)]
    values = scores if scores is not None and len(scores) == players and all(
        isinstance(s, int | float) for s in scores) else returns
    return [1 + sum(1 for other in values if other > mine) for mine in values]


def summarise(records: Iterable[dict[str, Any]]) -> dict[int, GroupSummary]:
    groups: dict[int, GroupSummary] = {}
    for record in records:
        players = int(record["players"])
        groups.setdefault(players, GroupSummary(players)).add(record)
    return dict(sorted(groups.items()))
