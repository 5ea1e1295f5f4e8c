"""Balance reports for designers: a Markdown summary (also shown in the terminal) and an HTML page with
its plots embedded, from the records of one or more simulation runs."""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import mean
from typing import TYPE_CHECKING, Any

from bestiary.analysis.results import ResultsError
from bestiary.analysis.stats import Rate, mean_interval
from bestiary.analysis.summary import AGENT_GAP_WARNING, FLAG_MIN_SEATS, CardEffect, GroupSummary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from bestiary.analysis.skill import SkillTrace

CARDS_LISTED = 5  # strongest and weakest cards listed per kind in the summary
VALUE_FIELDS_MAX_DISTINCT = 12  # event fields with more distinct values are not categories
NOT_MEASURED = "n/a"


def points(value: float) -> str:
    """A difference of shares in percentage points, signed."""
    return f"{value * 100:+.1f} points"


def interval_text(low: float, high: float) -> str:
    return f"[{low * 100:+.1f}, {high * 100:+.1f}]"


def plain_event_key(key: str) -> str:
    """`compare.active` -> "compare events by active": an event kind and one of its fields, in words."""
    kind, _, name = key.partition(".")
    return f"{kind.replace('-', ' ')} events by {name.replace('_', ' ')}"


@dataclass
class Report:
    headers: list[dict[str, Any]]
    groups: dict[int, GroupSummary]
    card_kinds: Sequence[str] | None = None  # kinds to detail; default: the two most frequent
    skill: SkillTrace | None = None  # the game's skill trace (`bestiary skill --out`), shown where given
    _pngs: dict[str, bytes] | None = field(default=None, init=False, repr=False)
    _notes: dict[str, tuple[str, str]] = field(default_factory=dict, init=False, repr=False)

    def kinds_for(self, group: GroupSummary) -> list[str]:
        """The kinds asked for; by default the two most frequent that are not the score itself."""
        if self.card_kinds:
            return [kind for kind in self.card_kinds if kind in group.card_games]
        return group.card_kinds()[:2]

    def title(self) -> str:
        games = sorted({h.get("game", "?") for h in self.headers})
        return "Balance report: " + ", ".join(games)

    # -- Markdown -----------------------------------------------------------------------------
    def markdown(self) -> str:
        lines = [f"# {self.title()}", ""]
        for header in self.headers:
            labels = "".join(f"; {k} = {v}" for k, v in header.get("labels", {}).items())
            lines.append(f"- {header.get('players')} players, rules {header.get('rules_version', '')}{labels}. "
                         + provenance_line(provenance_of(header)))
        lines.append("")
        lines.append("Win rates count a shared win or a draw as a fraction (1/k to each of k winners); brackets hold "
                     "95 % intervals (Wilson for rates). "
                     f"A figure that cannot be measured shows as {NOT_MEASURED}.")
        for group in self.groups.values():
            lines += ["", f"## {group.players} players: {group.games} games", ""]
            lines += [*self._seat_lines(group), *self._rank_lines(group), *self._faction_lines(group), "",
                      *self._agent_lines(group), "", *self._length_lines(group), "", *self._decision_lines(group)]
            lines += ["", *self._exposure_lines(group, group.headline_exposure())]
            for exposure in group.side_exposures():
                lines += ["", *self._exposure_lines(group, exposure)]
            for kind in self.kinds_for(group):
                lines += ["", *self._card_lines(group, kind)]
            lines += self._value_lines(group)
        if self.skill is not None:
            lines += ["", self.skill.markdown(heading="##").rstrip("\n")]
        return "\n".join(lines) + "\n"

    def _seat_lines(self, group: GroupSummary) -> list[str]:
        fair = 1 / group.players
        lines = [f"Seat in turn order (1 = first player); a fair share is {fair:.1%}.", "",
                 "| seat | win rate [95 % CI] | vs fair |", "|---|---|---|"]
        for position, rate in enumerate(group.position_rates(), start=1):
            verdict = "above" if rate.low > fair else "below" if rate.high < fair else "within"
            lines.append(f"| {position} | {rate} | {verdict} |")
        return [*lines, "", f"What this says: {seat_says(group)}"]

    def _rank_lines(self, group: GroupSummary) -> list[str]:
        if group.players < 3:
            return []
        shares = group.rank_shares()
        means = group.mean_ranks()
        places = range(1, group.players + 1)
        lines = ["", "Finishing places by seat in turn order (1st = best; the game's own ranking where it gives "
                 "one, else by result; a fair seat finishes in each place equally often, mean place "
                 f"{(group.players + 1) / 2:.1f}).", "",
                 "| seat | mean place [95 % CI] | " + " | ".join(f"{p}{ordinal(p)}" for p in places) + " |",
                 "|---|---|" + "---|" * group.players]
        for position, (row, mean_rank) in enumerate(zip(shares, means, strict=True), start=1):
            mean_text = NOT_MEASURED if mean_rank is None else (f"{mean_rank[0]:.2f} [{mean_rank[1]:.2f}, "
                                                                f"{mean_rank[2]:.2f}]")
            lines.append(f"| {position} | {mean_text} | " + " | ".join(f"{r.rate:.1%}" for r in row) + " |")
        return lines

    def _faction_lines(self, group: GroupSummary) -> list[str]:
        rates = group.faction_rates()
        if not rates:
            return []
        fair = 1 / group.players
        lines = ["", "Win rate by army or faction, per seat played (a draw counts as a share of a win, 1/players, "
                 f"as a shared win does; fair share {fair:.1%}).",
                 "", "| faction | seats played | win rate [95 % CI] | vs fair |", "|---|---|---|---|"]
        for name, rate in rates.items():
            verdict = "above" if rate.low > fair else "below" if rate.high < fair else "within"
            lines.append(f"| {name} | {rate.games} | {rate} | {verdict} |")
        return [*lines, "", f"What this says: {faction_says(group)}"]

    def _agent_lines(self, group: GroupSummary) -> list[str]:
        effects = group.agent_effects()
        several = len(effects) > 1
        lines = ["| agent | seats played | win rate [95 % CI] | against the other agents, same seats [95 % CI] |",
                 "|---|---|---|---|"]
        for agent, rate in group.agent_rates().items():
            effect = effects.get(agent)
            versus = (f"{points(effect.value)} {interval_text(effect.low, effect.high)}"
                      if several and effect is not None else NOT_MEASURED)
            lines.append(f"| {agent} | {rate.games} | {rate} | {versus} |")
        return [*lines, "", f"What this says: {agent_says(group)}"]

    def _length_lines(self, group: GroupSummary) -> list[str]:
        stats = group.length_stats()
        drama = group.drama()
        by_value = " (by the position's value)" if group.lead_sources.get("position value") else ""
        drama_text = (f"{NOT_MEASURED}: this game's events carry no running score, so there is no lead to follow "
                      "(`simulate --value-drama` follows the position's value instead)"
                      if drama is None else
                      f"{drama[0]:.2f} [{drama[1]:.2f}, {drama[2]:.2f}] lead changes a game{by_value}")
        figures = group.length_figures()

        def mean_text(name: str, unit: str) -> str:
            value = figures[name]
            return (f"{unit}: {NOT_MEASURED}" if value is None
                    else f"{value[0]:.1f} {unit} [{value[1]:.1f}, {value[2]:.1f}]")

        rounds_note = "" if group.rounds or not group.turns else " (turns over players: one turn each a round)"
        endings = "; ".join(f"{name} {rate}" for name, rate in group.ending_rates().items())
        lines = [f"Game length, as the rule book counts it: {mean_text('turns', 'turns')}, "
                 f"{mean_text('rounds', 'rounds')}{rounds_note}. The players made "
                 f"{mean_text('decisions', 'decisions')} a game, {mean_text('forced', 'of them forced')} "
                 "(one legal action: a pass in a window with nothing to answer, say), so decisions depend on the "
                 "game's options and turns do not.",
                 f"Decisions a game: median {stats['median']:g}, 5-95 % {stats['p5']}-{stats['p95']}, range "
                 f"{stats['min']}-{stats['max']}.",
                 f"Endings: {endings}. Shared wins (some seats, not all): {group.shared_wins / group.games:.1%} of "
                 f"games. Drama: {drama_text}."]
        margin = mean_interval(group.margins)
        if margin is not None:
            close = sum(1 for m in group.margins if m < 0.1) / len(group.margins)
            lines.append(f"Decisiveness: the winner's margin over the runner-up averages {margin[0]:.1%} "
                         f"[{margin[1]:.1%}, {margin[2]:.1%}] of the winning score; {close:.1%} of games are won "
                         "by less than 10 %.")
        return lines

    def _decision_lines(self, group: GroupSummary) -> list[str]:
        if not group.decisions:
            return []
        lines = ["Decisions by agent (a forced move has one legal action; branching = legal actions at a decision).",
                 "", "| agent | decisions a game | branching mean | median | 90th pct | max | forced [95 % CI] "
                 "| time a decision |", "|---|---|---|---|---|---|---|---|"]
        for agent, decided in sorted(group.decisions.items()):
            seconds = decided.seconds_per_decision()
            lines.append(f"| {agent} | {decided.per_game():.1f} | {decided.mean_branching():.1f} | "
                         f"{decided.quantile(0.5)} | {decided.quantile(0.9)} | {max(decided.branching, default=0)} | "
                         f"{decided.forced_share()} | "
                         f"{NOT_MEASURED if seconds is None else f'{seconds * 1000:.2f} ms'} |")
        return [*lines, "", f"What this says: {decision_says(group)}"]

    def _exposure_lines(self, group: GroupSummary, exposure: str | None) -> list[str]:
        if exposure is None:
            return ["### Cards by what chance gave a seat", "",
                    f"{NOT_MEASURED}: these games deal and draw no cards (what a seat has, it chose), so only "
                    "associations can be shown."]
        effects = group.exposure_effects(exposure)
        lines = [f"### Cards by what chance gave a seat: {exposure}", "",
                 f"Each effect is the change in a seat's win rate for each copy of the card it was {exposure} "
                 "above (or below) its expected number, in place of an average card, with agent and turn "
                 "position held equal. Chance alone decides which cards a seat is given, so neither its "
                 "strategy nor the length of its game (a seat that is behind draws more) can move these "
                 f"figures. Intervals hold for all {len(effects)} cards at once (95 %, Bonferroni), so on a deck "
                 "whose cards made no difference fewer than one table in twenty would flag any card; a card "
                 f"with fewer than {FLAG_MIN_SEATS} seats with it or without it is never flagged. "
                 f"{sum(e.flagged for e in effects)} of {len(effects)} cards are flagged (*)."]
        if group.agent_gap() > AGENT_GAP_WARNING:
            lines += ["", f"The agents' win rates differ by {group.agent_gap():.0%}: the effects hold for this mix "
                      "of agents; a card may matter more or less to a stronger player."]
        return [*lines, "", *self._effect_table(effects), "", f"What this says: {card_says(group, effects)}"]

    def _card_lines(self, group: GroupSummary, kind: str) -> list[str]:
        effects = group.card_effects(kind)
        lines = [f"### Associations: cards in '{kind}' events (what a seat chose)", ""]
        if kind in group.score_kinds:
            lines += [f"**Warning: '{kind}' events are the score itself** (they add to a seat's score or scoring "
                      "pile), so the seats that have many of them win by definition: these differences measure the "
                      "scoring, not the cards.", ""]
        lines += [f"Each difference compares the seats whose '{kind}' events named the card against the seats "
                  "of the same agent in the same turn position whose events did not (Mantel-Haenszel over agent "
                  "and position). **These are associations, not effects**: a seat chooses these cards, and what "
                  "it chooses depends on how its game is going (a seat that is behind may play more creatures). "
                  f"Intervals hold for all {len(effects)} cards at once (95 %, Bonferroni); "
                  f"{sum(e.flagged for e in effects)} of {len(effects)} are flagged (*)"
                  + (f"; {group.uncomparable_cards(kind)} cannot be compared (every such seat had them, or none)"
                     if group.uncomparable_cards(kind) else "") + "."]
        if group.agent_gap() > AGENT_GAP_WARNING:
            lines += ["", f"**Warning: the agents' win rates differ by {group.agent_gap():.0%}.** A card is compared "
                      "within each agent, but what a strong agent chooses to play still marks the games it wins: "
                      "read these with care, or simulate with one agent (`--agents heuristic`)."]
        return [*lines, "", *self._effect_table(effects), "", f"What this says: {card_says(group, effects, kind)}"]

    @staticmethod
    def _effect_table(effects: Sequence[CardEffect]) -> list[str]:
        lines = ["| card | seats with | win rate with | without | effect [95 % CI, all cards at once] |",
                 "|---|---|---|---|---|"]
        shown = [e for rank, e in enumerate(effects)
                 if e.flagged or rank < CARDS_LISTED or rank >= len(effects) - CARDS_LISTED]
        for effect in shown:
            mark = " *" if effect.flagged else ""
            without = f"{effect.without.rate:.1%}" if effect.without.games else NOT_MEASURED
            lines.append(f"| {effect.card}{mark} | {effect.with_card.games} | {effect.with_card} | {without} | "
                         f"{effect.difference:+.1%} [{effect.low:+.1%}, {effect.high:+.1%}] |")
        if len(shown) < len(effects):
            lines.append(f"| ({len(effects) - len(shown)} more within chance: every card is in "
                         "`bestiary report --json`) | | | | |")
        return lines

    def _value_lines(self, group: GroupSummary) -> list[str]:
        lines = []
        for key, counts in sorted(group.event_values.items()):
            if len(counts) > VALUE_FIELDS_MAX_DISTINCT or len(counts) < 2:
                continue
            total = sum(counts.values())
            shares = ", ".join(f"{value} {count / total:.1%}" for value, count in _ordered(counts))
            lines.append(f"- {plain_event_key(key)}: {shares} (n = {total})")
        if lines:
            lines = ["", "### Event values (die faces, abilities, choices)", "", *lines]
        return lines

    # -- JSON ---------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Every figure of the report as plain data (schema in docs/balance.md, *The report as data*): the
        first player count at the top level, any others under `other_player_counts` in the same shape."""
        groups = list(self.groups.values())
        provenances = {h.get("players"): provenance_of(h) for h in self.headers}
        shaped = [{**group_json(group), "provenance": provenances.get(group.players, provenance_of(self.headers[0]))}
                  for group in groups]
        out: dict[str, Any] = {"format": REPORT_FORMAT, **shaped[0], "other_player_counts": shaped[1:]}
        if self.skill is not None:
            out["skill"] = self.skill.to_json()
        return out

    # -- HTML ---------------------------------------------------------------------------------
    def figures(self) -> dict[str, tuple[Figure, str, str]]:
        """The plots by file stem, each with its caption and a line saying what it shows."""
        groups = self.groups
        first = next(iter(groups.values()))
        figures = {"seat-advantage": (seat_figure(groups), "Win rate by seat in turn order, with 95 % intervals "
                                      "and the fair share.", " ".join(seat_says(g) for g in groups.values())),
                   "game-length": (length_figure(groups), "Share of games by length in turns (in player "
                                   "decisions where the game counts no turns).",
                                   " ".join(length_says(g) for g in groups.values()))}
        if any(g.faction_rates() for g in groups.values()):
            figures["factions"] = (faction_figure(groups), "Win rate by army or faction, per seat played, with 95 % "
                                   "intervals and the fair share.",
                                   " ".join(faction_says(g) for g in groups.values() if g.faction_rates()))
        if any(g.lead_changes or g.margins for g in groups.values()):
            figures["drama"] = (drama_figure(groups), "Lead changes per game (where the game keeps a running "
                                "score) and the winner's margin (where it scores).",
                                " ".join(drama_says(g) for g in groups.values()))
        if any(len(g.agent_seats) > 1 for g in groups.values()):
            figures["agents"] = (agent_figure(groups), "Win rate per seat played, by agent, with 95 % intervals.",
                                 " ".join(agent_says(g) for g in groups.values()))
        if any(g.decisions for g in groups.values()):
            figures["decisions"] = (decision_figure(groups), "Legal actions at each decision, by agent (left), and "
                                    "the share of forced moves (right).", decision_says(first))
        for group in groups.values():
            exposure = group.headline_exposure()
            if exposure is not None:
                effects = group.exposure_effects(exposure)
                stem = f"cards-{exposure.replace(' ', '-')}-{group.players}p"
                figures[stem] = (card_figure(group, effects), f"Effect of each card {exposure} at {group.players} "
                                 "players (same agent and seat), with intervals that hold for all cards at once.",
                                 card_says(group, effects))
            for kind in self.kinds_for(group):
                effects = group.card_effects(kind)
                stem = f"cards-{kind.replace(':', '-')}-{group.players}p"
                figures[stem] = (card_figure(group, effects), f"Association of each card in '{kind}' events "
                                 f"with winning at {group.players} players (same agent and seat): chosen cards, "
                                 "not effects.", card_says(group, effects, kind))
        if self.skill is not None:
            figures["skill"] = (self.skill.figure(), self.skill.caption(), self.skill.says())
        return figures

    def pngs(self) -> dict[str, bytes]:
        """Each plot as PNG bytes, drawn once however many outputs use it."""
        self._draw()
        assert self._pngs is not None
        return self._pngs

    def _draw(self) -> None:
        if self._pngs is not None:
            return
        self._pngs, self._notes = {}, {}
        for stem, (figure, caption, says) in self.figures().items():
            buffer = io.BytesIO()
            figure.savefig(buffer, format="png", dpi=110)
            self._pngs[stem] = buffer.getvalue()
            self._notes[stem] = (caption, says)

    def captions(self) -> dict[str, tuple[str, str]]:
        self._draw()
        return self._notes

    def save_plots(self, folder: Path) -> list[Path]:
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for stem, png in self.pngs().items():
            path = folder / f"{stem}.png"
            path.write_bytes(png)
            paths.append(path)
        return paths

    def html(self) -> str:
        return html_page(self.title(), self.markdown(), self.pngs(), self.captions())


REPORT_FORMAT = "bestiary-report/1"


def provenance_line(provenance: dict[str, Any]) -> str:
    """What reproduces a run, in one line: game, options, card file and its hash, agents, seed, version."""
    options = ", ".join(f"{k}={v}" for k, v in (provenance.get("options") or {}).items())
    digest = provenance.get("cards_sha256")
    cards = provenance.get("cards") or "none"
    return (f"Provenance: {provenance.get('game')} ({options}); cards {cards}"
            + (f" (sha256 {digest[:16]}…)" if digest else "")
            + f"; agents {', '.join(provenance.get('agents') or [])}; seed {provenance.get('seed')}; "
            f"Bestiary {provenance.get('version') or NOT_MEASURED}.")


def provenance_of(header: dict[str, Any]) -> dict[str, Any]:
    """The run's provenance; for files written before runs carried one, what their header says (the
    card file's hash and Bestiary's version then unknown: None)."""
    given = header.get("provenance")
    if isinstance(given, dict):
        return given
    card_set = header.get("card_set")
    card_set = card_set if isinstance(card_set, dict) else {}
    return {"game": header.get("game"), "options": header.get("options"), "cards": card_set.get("path"),
            "cards_sha256": None, "agents": header.get("agents"), "seed": header.get("seed"), "version": None}


def _interval(value: tuple[float, float, float] | None) -> dict[str, float] | None:
    return None if value is None else {"mean": value[0], "low": value[1], "high": value[2]}


def _rate(rate: Rate) -> dict[str, Any]:
    return {"rate": rate.rate if rate.games else None, "low": rate.low, "high": rate.high, "of": rate.games}


def group_json(group: GroupSummary) -> dict[str, Any]:
    """One player count's figures as plain data."""
    cards = [effect.to_json() for exposure in group.exposures() for effect in group.exposure_effects(exposure)]
    cards += [effect.to_json() for kind in group.card_kinds() for effect in group.card_effects(kind)]
    places = group.rank_shares()
    means = group.mean_ranks()
    seats = [{"seat": position, **_rate(rate), "mean_place": _interval(means[position - 1]),
              "places": [r.rate for r in places[position - 1]]}
             for position, rate in enumerate(group.position_rates(), start=1)]
    factions = [{"faction": name, "seats": rate.games, **_rate(rate)} for name, rate in group.faction_rates().items()]
    figures = group.length_figures()
    length: dict[str, Any] = {name: None if value is None else value[0] for name, value in figures.items()}
    length["intervals"] = {name: _interval(value) for name, value in figures.items()}
    length["rounds_counted_by"] = ("the game's rounds" if group.rounds else
                                   "turns over players" if group.turns else None)
    effects = group.agent_effects()
    agents = [{"agent": agent, "seats": rate.games, **_rate(rate),
               "versus_others": None if effects.get(agent) is None else
               {"effect": effects[agent].value, "low": effects[agent].low, "high": effects[agent].high}}  # type: ignore[union-attr]
              for agent, rate in group.agent_rates().items()]
    return {"players": group.players, "games": group.games, "headline_exposure": group.headline_exposure(),
            "cards": cards, "seats": seats, "factions": factions, "length": length,
            "endings": {name: _rate(rate) for name, rate in group.ending_rates().items()},
            "shared_wins": _rate(Rate.of(group.shared_wins, group.games)), "agents": agents,
            "lead_changes": _interval(group.drama()), "lead_changes_by": sorted(group.lead_sources),
            "winner_margin": _interval(mean_interval(group.margins))}


# -- what the numbers say ---------------------------------------------------------------------
def seat_says(group: GroupSummary) -> str:
    fair = 1 / group.players
    rates = group.position_rates()
    seat, rate = max(enumerate(rates, start=1), key=lambda item: abs(item[1].rate - fair))
    gap = rate.rate - fair
    excludes = rate.low > fair or rate.high < fair
    where = f"at {group.players} players, seat {seat}{' (first)' if seat == 1 else ''}"
    if not excludes:
        return (f"{where.capitalize()} strays furthest from a fair share, by {points(gap)}, but its interval "
                f"includes the fair {fair:.0%}: no seat advantage shows in {group.games} games.")
    return (f"{where.capitalize()} wins {abs(gap) * 100:.1f} points {'more' if gap > 0 else 'less'} than a fair share "
            f"({rate.rate:.1%} against {fair:.1%}); the interval excludes the fair share.")


def agent_says(group: GroupSummary) -> str:
    effects = group.agent_effects()
    if len(effects) < 2:
        only = next(iter(group.agent_rates()), "one agent")
        return f"Every seat was played by {only}, so there is no strategy to compare."
    measured = {agent: effect for agent, effect in effects.items() if effect is not None}
    if not measured:
        return "The agents never sat in the same positions, so they cannot be compared."
    best = max(measured, key=lambda agent: measured[agent].value)
    effect = measured[best]
    verdict = "the interval excludes 0" if effect.low > 0 or effect.high < 0 else "within chance"
    text = (f"At {group.players} players {best} wins {points(effect.value)} against the other agents in the same "
            f"seats {interval_text(effect.low, effect.high)}; {verdict}.")
    if group.agent_gap() > AGENT_GAP_WARNING:
        text += " The agents differ so much that card effects in these games are hard to read."
    return text


def ordinal(number: int) -> str:
    return {1: "st", 2: "nd", 3: "rd"}.get(number if number < 20 else number % 10, "th")


def faction_says(group: GroupSummary) -> str:
    rates = group.faction_rates()
    fair = 1 / group.players
    name, rate = max(rates.items(), key=lambda item: abs(item[1].rate - fair))
    draws = group.ending_rates()["draw"]
    drawn = (f" {draws.rate:.0%} of games are draws (each a share of a win to every seat), so a faction's edge "
             "shows in fewer games than it seems." if draws.wins else "")
    if rate.low <= fair <= rate.high:
        return (f"No army wins beyond chance: the furthest from a fair share, {name}, wins {rate.rate:.1%} "
                f"[{rate.low:.1%}, {rate.high:.1%}] of its seats.{drawn}")
    return (f"{name} wins {rate.rate:.1%} [{rate.low:.1%}, {rate.high:.1%}] of its seats against a fair "
            f"{fair:.0%}: the armies are not balanced.{drawn}")


def length_says(group: GroupSummary) -> str:
    stats = group.length_stats()
    turns = group.length_figures()["turns"]
    in_turns = "" if turns is None else f"{turns[0]:.1f} turns [{turns[1]:.1f}, {turns[2]:.1f}] and "
    return (f"At {group.players} players a game takes {in_turns}{stats['mean']:.0f} decisions on average "
            f"({stats['mean'] / group.players:.0f} a player); 90 % take {stats['p5']}-{stats['p95']} decisions.")


def drama_says(group: GroupSummary) -> str:
    drama = group.drama()
    if drama is None:
        text = f"At {group.players} players lead changes are {NOT_MEASURED} (no running score)."
    else:
        steady = sum(1 for c in group.lead_changes if c == 0) / len(group.lead_changes)
        text = (f"At {group.players} players the lead changes {drama[0]:.2f} [{drama[1]:.2f}, {drama[2]:.2f}] "
                f"times a game; {steady:.0%} of games never change leader.")
    if group.margins:
        close = sum(1 for m in group.margins if m < 0.1) / len(group.margins)
        text += f" {close:.0%} of games are won by less than 10 % of the winning score."
    return text


def decision_says(group: GroupSummary) -> str:
    parts = []
    for agent, decided in sorted(group.decisions.items()):
        parts.append(f"{agent} decides {decided.per_game():.0f} times a game from {decided.mean_branching():.1f} "
                     f"legal actions on average, {decided.forced_share().rate:.1%} of them forced")
    return f"At {group.players} players " + "; ".join(parts) + "."


def card_says(group: GroupSummary, effects: Sequence[CardEffect], kind: str | None = None) -> str:
    """The flagged cards, strongest and weakest; no card is called strongest on a figure within chance."""
    table = f"cards {effects[0].exposure}" if effects and effects[0].random else f"'{kind}' events"
    if not effects:
        return f"No card of the {table} can be compared at {group.players} players."
    flagged = [e for e in effects if e.flagged]
    verb = "changes its holder's win rate" if effects[0].random else "goes with a different win rate"
    if not flagged:
        text = (f"No card of {len(effects)} {verb} beyond chance at {group.players} players "
                f"({group.games} games); the largest figure, {effects[0].card} at {points(effects[0].difference)}, "
                "is within its interval of zero.")
    else:
        up = [e for e in flagged if e.difference > 0]
        down = [e for e in flagged if e.difference < 0]
        parts = []
        if up:
            parts.append(f"{up[0].card} adds {points(up[0].difference)} {interval_text(up[0].low, up[0].high)}"
                         + (f" (and {len(up) - 1} more)" if len(up) > 1 else ""))
        if down:
            parts.append(f"{down[-1].card} costs {points(-down[-1].difference)} "
                         f"{interval_text(down[-1].low, down[-1].high)}"
                         + (f" (and {len(down) - 1} more)" if len(down) > 1 else ""))
        text = f"{len(flagged)} of {len(effects)} cards {verb} beyond chance: " + "; ".join(parts) + "."
    if not effects[0].random:
        text += " These seats chose their cards: an association, not the card's effect."
    if kind is not None and kind in group.score_kinds:
        text += f" '{kind}' is the score itself, so this is no measure of the cards."
    return text


def html_page(title: str, markdown_text: str, pngs: dict[str, bytes],
              notes: dict[str, tuple[str, str]]) -> str:
    """A self-contained page: the Markdown as HTML, then every plot embedded as a PNG with its caption and
    a line saying what it shows (`notes`: stem -> (caption, what this says))."""
    import markdown_it

    images = "".join(f'<figure><img alt="{html.escape(notes[stem][0])}" src="data:image/png;base64,'
                     f'{base64.b64encode(png).decode()}"><figcaption><strong>{html.escape(notes[stem][0])}'
                     f'</strong> <span class="says">What this says: {html.escape(notes[stem][1])}</span>'
                     '</figcaption></figure>'
                     for stem, png in pngs.items())
    body = markdown_it.MarkdownIt("commonmark").enable("table").render(markdown_text)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>{body}<h2>Plots</h2>{images}</body></html>\n")


STYLE = ("body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}"
         "table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .6rem}"
         "th{background:#f3f3f3}figure{margin:1.5rem 0}img{max-width:100%}figcaption{color:#666}")


def _ordered(counts: dict[str, int]) -> list[tuple[str, int]]:
    def key(item: tuple[str, int]) -> tuple[int, float, str]:
        value = item[0]
        try:
            return (0, float(value), value)
        except ValueError:
            return (1, 0.0, value)

    return sorted(counts.items(), key=key)


# -- plots ------------------------------------------------------------------------------------
def new_figure(**settings: Any) -> Figure:
    """A matplotlib figure (drawn without pyplot, so no display or global state is involved)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ResultsError("plots need matplotlib: pip install 'bestiary[analysis]'") from None
    return Figure(layout="constrained", **settings)


def _error_bars(rates: Sequence[Rate]) -> tuple[list[float], list[list[float]]]:
    values = [r.rate for r in rates]
    return values, [[r.rate - r.low for r in rates], [r.high - r.rate for r in rates]]


def seat_figure(groups: dict[int, GroupSummary]) -> Figure:
    figure = new_figure(figsize=(max(6.5, 3.2 * len(groups) + 1), 3.8))
    axes = figure.subplots(1, len(groups), sharey=True, squeeze=False)[0]
    for ax, group in zip(axes, groups.values(), strict=True):
        rates = group.position_rates()
        values, errors = _error_bars(rates)
        positions = list(range(1, group.players + 1))
        fair = 1 / group.players
        colours = ["#c0392b" if r.low > fair else "#2471a3" if r.high < fair else "#7f8c8d" for r in rates]
        ax.bar(positions, values, yerr=errors, color=colours, capsize=4)
        ax.axhline(fair, color="black", linestyle="--", linewidth=1, label=f"fair share 1/{group.players}")
        ax.set_title(f"{group.players} players ({group.games} games)")
        ax.set_xticks(positions, [f"{p}" + (" (first)" if p == 1 else "") for p in positions])
        ax.set_xlabel("seat in turn order")
        ax.legend(loc="upper right", fontsize="small")
    axes[0].set_ylabel("win rate (bars: 95 % CI)")
    axes[0].yaxis.set_major_formatter("{x:.0%}")
    figure.suptitle("Seat advantage\nred: above a fair share, blue: below, grey: within chance", fontsize=10)
    return figure


def length_figure(groups: dict[int, GroupSummary]) -> Figure:
    from matplotlib.ticker import MaxNLocator

    figure = new_figure(figsize=(7, 3.6))
    ax = figure.subplots()
    by_turns = all(len(g.turns) == g.games for g in groups.values())  # turns where the rule book counts them
    lengths = {players: (g.turns if by_turns else g.lengths) for players, g in groups.items()}
    low = min(min(values) for values in lengths.values())
    high = max(max(values) for values in lengths.values())
    bins = [x - 0.5 for x in range(low, high + 2)]  # one bar per length, centred on it
    for players, values in lengths.items():
        ax.hist(values, bins=bins, histtype="step", linewidth=1.5, density=True,
                label=f"{players} players (mean {mean(values):.1f})")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("game length: turns per game, as the rule book counts them" if by_turns else
                  "game length: player decisions per game (all seats together)")
    ax.set_ylabel("share of games")
    ax.yaxis.set_major_formatter("{x:.0%}" if ax.get_ylim()[1] > 0.1 else "{x:.1%}")  # no repeated labels
    ax.set_title("Game length")
    ax.legend(fontsize="small")
    return figure


def faction_figure(groups: dict[int, GroupSummary]) -> Figure:
    shown = [g for g in groups.values() if g.faction_rates()]
    figure = new_figure(figsize=(max(5.0, 3.6 * len(shown) + 1), 3.6))
    axes = figure.subplots(1, len(shown), sharey=True, squeeze=False)[0]
    for ax, group in zip(axes, shown, strict=True):
        rates = group.faction_rates()
        fair = 1 / group.players
        values, errors = _error_bars(list(rates.values()))
        colours = ["#c0392b" if r.low > fair else "#2471a3" if r.high < fair else "#7f8c8d" for r in rates.values()]
        ax.bar(list(rates), values, yerr=errors, color=colours, capsize=4)
        ax.axhline(fair, color="black", linestyle="--", linewidth=1, label="fair share")
        ax.set_title(f"{group.players} players ({group.games} games)")
        ax.legend(fontsize="small")
    axes[0].set_ylabel("win rate per seat played (95 % CI)")
    axes[0].yaxis.set_major_formatter("{x:.0%}")
    figure.suptitle("Armies and factions\nred: above a fair share, blue: below, grey: within chance", fontsize=10)
    return figure


def drama_figure(groups: dict[int, GroupSummary]) -> Figure:
    """Lead changes where a game has a running score to follow, and margins where it scores; a game with
    neither draws no panel rather than a column of zeros."""
    from matplotlib.ticker import MaxNLocator

    with_leads = [g for g in groups.values() if g.lead_changes]
    with_margins = [g for g in groups.values() if g.margins]
    panels = int(bool(with_leads)) + int(bool(with_margins))
    figure = new_figure(figsize=(5.5 * panels + 0.5, 3.6))
    axes = list(figure.subplots(1, panels, squeeze=False)[0])
    if with_leads:
        ax = axes.pop(0)
        most = max(max(g.lead_changes) for g in with_leads)
        for group in with_leads:
            ax.hist(group.lead_changes, bins=[x - 0.5 for x in range(most + 2)], histtype="step", density=True,
                    linewidth=1.5, label=f"{group.players} players (mean {mean(group.lead_changes):.2f})")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("lead changes per game (leader: highest running score, or position value where the game "
                      "keeps no score)")
        ax.set_ylabel("share of games")
        ax.yaxis.set_major_formatter("{x:.0%}")
        ax.set_title("Drama: how often the lead changes hands", fontsize=10)
        ax.legend(fontsize="small")
    if with_margins:
        ax = axes.pop(0)
        for group in with_margins:
            ax.hist(group.margins, bins=20, range=(0, 1), histtype="step", linewidth=1.5,
                    weights=[1 / len(group.margins)] * len(group.margins), label=f"{group.players} players")
        ax.set_xlabel("winner's margin over the runner-up, share of the winning score")
        ax.set_ylabel("share of games")
        ax.yaxis.set_major_formatter("{x:.0%}")
        ax.xaxis.set_major_formatter("{x:.0%}")
        ax.set_title("Decisiveness: 0 % = photo finish", fontsize=10)
        ax.legend(fontsize="small")
    return figure


def decision_figure(groups: dict[int, GroupSummary]) -> Figure:
    """Branching factor distribution by agent and player count, and the share of forced moves."""
    from matplotlib.ticker import MaxNLocator, ScalarFormatter

    figure = new_figure(figsize=(11, 3.8))
    spread, forced = figure.subplots(1, 2)
    labels, shares = [], []
    for group in groups.values():
        for agent, decided in sorted(group.decisions.items()):
            total = sum(decided.branching.values())
            if not total:
                continue
            sizes = sorted(decided.branching)
            running, cumulative = 0, []
            for k in sizes:
                running += decided.branching[k]
                cumulative.append(running / total)
            label = f"{agent}, {group.players} players"
            spread.step(sizes, cumulative, where="post", label=f"{label} (mean {decided.mean_branching():.1f})")
            labels.append(label)
            shares.append(decided.forced_share())
    largest = max((max(d.branching, default=1) for g in groups.values() for d in g.decisions.values()), default=1)
    if largest > 30:  # a game with hundreds of moves at times: a log axis keeps the small counts readable
        spread.set_xscale("log")
        spread.xaxis.set_major_formatter(ScalarFormatter())
    else:
        spread.xaxis.set_major_locator(MaxNLocator(integer=True))
    spread.set_xlabel("legal actions at a decision")
    spread.set_ylabel("share of decisions with at most this many")
    spread.yaxis.set_major_formatter("{x:.0%}")
    spread.set_title("Branching factor", fontsize=10)
    spread.legend(fontsize="small")
    values, errors = _error_bars(shares)
    forced.barh(labels, values, xerr=errors, color="#2471a3", capsize=4)
    forced.xaxis.set_major_formatter("{x:.0%}")
    forced.set_xlim(0, max(0.05, max((r.high for r in shares), default=0.0) * 1.15))
    forced.set_xlabel("share of decisions with one legal action (95 % CI)")
    forced.set_title("Forced moves", fontsize=10)
    return figure


def agent_figure(groups: dict[int, GroupSummary]) -> Figure:
    figure = new_figure(figsize=(max(5.0, 3.2 * len(groups) + 1), 3.6))
    axes = figure.subplots(1, len(groups), sharey=True, squeeze=False)[0]
    for ax, group in zip(axes, groups.values(), strict=True):
        rates = group.agent_rates()
        values, errors = _error_bars(list(rates.values()))
        ax.bar(list(rates), values, yerr=errors, color="#2471a3", capsize=4)
        ax.axhline(1 / group.players, color="black", linestyle="--", linewidth=1, label="fair share")
        ax.set_title(f"{group.players} players")
        ax.legend(fontsize="small")
    axes[0].set_ylabel("win rate per seat played (95 % CI)")
    axes[0].yaxis.set_major_formatter("{x:.0%}")
    figure.suptitle("Win rate by agent")
    return figure


def card_figure(group: GroupSummary, ranked: Sequence[CardEffect]) -> Figure:
    effects: list[CardEffect] = list(reversed(ranked))  # strongest at the top
    what = (f"cards {effects[0].exposure}" if effects and effects[0].random
            else f"cards in '{effects[0].exposure}' events (an association)" if effects else "cards")
    figure = new_figure(figsize=(7.5, 0.22 * len(effects) + 1.6))
    ax = figure.subplots()
    rows = range(len(effects))

    def colour(effect: CardEffect) -> str:
        return ("#c0392b" if effect.difference > 0 else "#2471a3") if effect.flagged else "#7f8c8d"

    for shade in ("#c0392b", "#2471a3", "#7f8c8d"):  # one call per colour: far faster than one per card
        chosen = [(row, e) for row, e in zip(rows, effects, strict=True) if colour(e) == shade]
        if chosen:
            ax.errorbar([e.difference for _, e in chosen], [row for row, _ in chosen],
                        xerr=[[e.difference - e.low for _, e in chosen], [e.high - e.difference for _, e in chosen]],
                        fmt="o", color=shade, markersize=4, capsize=2)
    ax.axvline(0, color="black", linewidth=1)
    ax.set_yticks(list(rows), [f"{e.card} (n={e.with_card.games})" for e in effects], fontsize=7)
    ax.set_ylim(-1, len(effects))
    ax.xaxis.set_major_formatter(lambda x, _: f"{x * 100:+.0f} pts")
    ax.set_xlabel(f"change in win rate, {what}; same agent and seat\n"
                  f"(intervals hold for all {len(effects)} cards at once, 95 %)")
    ax.set_title(f"Cards, {group.players} players: red helps its holder, blue hurts, grey is within chance",
                 fontsize=10)
    return figure


def report_from_files(paths: Sequence[str | Path], card_kinds: Sequence[str] | None = None,
                      skill: str | Path | None = None) -> Report:
    """One report over one or more results files (e.g. one per player count), with the game's skill trace
    where a `bestiary skill --json` file is given."""
    from bestiary.analysis.results import read_results
    from bestiary.analysis.skill import read_skill
    from bestiary.analysis.summary import summarise

    if not paths:
        raise ResultsError("no results files given")
    headers = []
    readers = []
    for path in paths:
        header, records = read_results(path)
        headers.append(header)
        readers.append(records)
    games = {h.get("game") for h in headers}
    if len(games) > 1:
        raise ResultsError(f"the results files are for different games ({', '.join(sorted(map(str, games)))}): "
                           "report one game at a time")
    setups: dict[Any, Any] = {}
    for path, header in zip(paths, headers, strict=True):
        setup = (header.get("options"), header.get("agents"), header.get("card_set"), header.get("labels"))
        earlier = setups.setdefault(header.get("players"), (path, setup))
        if earlier[1] != setup:
            raise ResultsError(f"{earlier[0]} and {path} hold games of the same player count with different "
                               "options, agents or cards: report them separately")
    groups = summarise(record for records in readers for record in records)
    if not groups:
        raise ResultsError(f"{', '.join(map(str, paths))}: no game records")
    known = sorted({kind for group in groups.values() for kind in group.card_games})
    for kind in card_kinds or ():
        if kind not in known:
            raise ResultsError(f"no card events of kind '{kind}' in the results (kinds: {', '.join(known) or 'none'})")
    trace = None if skill is None else read_skill(skill)
    if trace is not None and trace.game not in games:
        raise ResultsError(f"{skill} is the skill trace of {trace.game}, not of {', '.join(map(str, games))}")
    return Report(headers, groups, card_kinds, trace)
