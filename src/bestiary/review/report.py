"""A review in words and as a page: each player's summary, the verdict on luck against play, the win-probability
graph (inline SVG) with the errors and the luckiest events marked, and the costliest decisions explained."""

from __future__ import annotations

import html
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text

from bestiary.agents.search import heuristic_rollout_policy
from bestiary.core.api import Event, State
from bestiary.core.chance import sample_chance
from bestiary.core.record import GameRecord, replay
from bestiary.review.review import Decision, Review

LUCK_OVER_PLAY = 2.0  # luck "weighs more than play" when chance moved the chances this many times the errors
MARKED = ("inaccuracy", "mistake", "blunder")
COLOURS = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2")
CLASS_COLOURS = {"inaccuracy": "#eab308", "mistake": "#f97316", "blunder": "#dc2626"}


def seat_name(player: int) -> str:
    return f"P{player + 1}"


def number(value: float | None, digits: int = 3, signed: bool = False) -> str:
    if value is None or not math.isfinite(value):
        return "n/a"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


@dataclass(frozen=True)
class Verdict:
    luck_moved: float  # the sum over chance events of the players' absolute net luck, halved (what changed hands)
    errors_cost: float  # the sum of every decision's loss
    sentences: list[str]

    @property
    def luck_weighs_more(self) -> bool:
        return self.luck_moved > LUCK_OVER_PLAY * self.errors_cost


def verdict(review: Review) -> Verdict:
    """What decided the game, in words: luck against play, from the review's own figures."""
    luck_moved = math.fsum(abs(x) for event in review.chance for x in event.luck) / 2
    errors = [math.fsum(d.loss for d in review.decisions if d.player == p.player) for p in review.players]
    errors_cost = math.fsum(errors)
    sentences = []
    if luck_moved > LUCK_OVER_PLAY * errors_cost:
        sentences.append(f"Luck decides this game more than play: chance events moved the players' chances by "
                         f"{luck_moved:.2f} of the point in all, their errors cost {errors_cost:.2f}. The errors "
                         "below are small beside the dice and the draws.")
    elif errors_cost > LUCK_OVER_PLAY * luck_moved:
        sentences.append(f"Play decides this game more than luck: errors cost {errors_cost:.2f} of the point in "
                         f"all, chance events moved the chances by {luck_moved:.2f}.")
    else:
        sentences.append(f"Luck and play both weighed: chance events moved the players' chances by "
                         f"{luck_moved:.2f} of the point in all, errors cost {errors_cost:.2f}.")
    results = [p.result for p in review.players]
    if all(r is not None for r in results):
        best = max(r for r in results if r is not None)
        winners = [p for p in review.players if p.result == best]
        if len(winners) == 1:
            winner = winners[0]
            adjusted = [p.luck_adjusted for p in review.players if p.luck_adjusted is not None]
            if winner.luck_adjusted is not None and winner.luck_adjusted < max(adjusted) - 1e-9:
                ahead = max(review.players, key=lambda p: p.luck_adjusted or 0.0)
                sentences.append(f"{seat_name(winner.player)} won with luck {winner.luck:+.2f}; without it "
                                 f"{seat_name(ahead.player)} comes out ahead (luck-adjusted "
                                 f"{number(ahead.luck_adjusted, 2)} against {number(winner.luck_adjusted, 2)}).")
            else:
                sentences.append(f"{seat_name(winner.player)} won, and stays ahead with the luck taken out "
                                 f"(luck-adjusted {number(winner.luck_adjusted, 2)}).")
    return Verdict(luck_moved, errors_cost, sentences)


def summary_lines(review: Review) -> list[str]:
    lines = []
    for p in review.players:
        counts = ", ".join(f"{p.counts.get(kind, 0)} {kind}" for kind in ("inaccuracy", "mistake", "blunder"))
        lines.append(f"{seat_name(p.player)}: {p.decisions} decisions ({p.unforced} not forced), error rate "
                     f"{number(p.error_rate, 4)} of the point a decision ({counts}); luck {number(p.luck, 2, True)}; "
                     f"result {number(p.result, 2)}, luck-adjusted {number(p.luck_adjusted, 2)}")
    return lines


def costliest(review: Review, count: int = 5) -> list[Decision]:
    return sorted((d for d in review.decisions if d.loss > 0), key=lambda d: (-d.loss, d.step))[:count]


# -- the page ---------------------------------------------------------------------------------------------

def position_words(state: State, player: int, recent: int = 6) -> tuple[list[str], str]:
    """What `player` had last seen happen, and the table as it saw it (the terminal's picture, plain)."""
    events = [e.text for e in state.events(player)][-recent:]
    picture = Text.from_markup(state.game.render(state.observation(player))).plain
    return events, picture


def what_followed(state: State, player: int, action_text: str, seed: int, steps: int = 10) -> list[Event]:
    """The events `player` would see in the next `steps` steps after playing `action_text`, on one sample of
    what it could not see, everyone playing the game's heuristic."""
    rng = random.Random(seed)
    sampled = state.determinize(player, rng)
    policy = heuristic_rollout_policy(state.game)
    start = len(sampled.all_events())
    sampled.apply_action(sampled.parse_action(action_text), player=player)
    for _ in range(steps):
        if sampled.is_terminal():
            break
        if sampled.is_chance_node():
            sampled.apply_action(sample_chance(sampled, rng))
            continue
        actor = sampled.players_to_act()[0]
        sampled.apply_action(policy(sampled, actor, sampled.legal_actions(actor), rng), player=actor)
    return [e for e in sampled.all_events()[start:] if e.visible_to(player)]


def event_line(event: Event) -> str:
    rules: Sequence[str] = getattr(event, "rules", ()) or ()
    ids = f" <span class=rules>({html.escape(', '.join(rules))})</span>" if rules else ""
    return f"<li>{html.escape(event.text)}{ids}</li>"


def win_probability_svg(review: Review, width: int = 900, height: int = 260) -> str:
    rows = review.win_probability
    players = len(review.players)
    if not rows:
        return "<p>No steps to draw.</p>"
    pad = 30
    steps = len(rows)

    def x(step: float) -> float:
        return pad + (width - 2 * pad) * (step + 1) / max(1, steps)

    def y(value: float) -> float:
        return height - pad - (height - 2 * pad) * value

    parts = [f'<svg viewBox="0 0 {width} {height}" role="img" aria-label="win probability after every step" '
             f'class=graph xmlns="http://www.w3.org/2000/svg">',
             f'<line x1="{pad}" y1="{y(0.5):.1f}" x2="{width - pad}" y2="{y(0.5):.1f}" class=even />',
             f'<rect x="{pad}" y="{pad}" width="{width - 2 * pad}" height="{height - 2 * pad}" class=frame />',
             f'<text x="4" y="{y(1) + 4:.1f}">1</text><text x="4" y="{y(0) + 4:.1f}">0</text>']
    for player in range(players):
        points = " ".join(f"{x(step):.1f},{y(row[player]):.1f}" for step, row in enumerate(rows))
        start = f"{pad:.1f},{y(1 / players):.1f} "
        parts.append(f'<polyline points="{start}{points}" fill="none" stroke="{COLOURS[player % len(COLOURS)]}" '
                     f'stroke-width="1.6"><title>{seat_name(player)}</title></polyline>')
    for d in review.decisions:
        if d.kind in MARKED:
            value = rows[d.step][d.player]
            parts.append(f'<circle cx="{x(d.step):.1f}" cy="{y(value):.1f}" r="{3 + 4 * min(1.0, d.loss * 5):.1f}" '
                         f'fill="{CLASS_COLOURS[d.kind]}" data-step="{d.step}"><title>step {d.step}: '
                         f'{seat_name(d.player)} {html.escape(d.action)} - {d.kind}, lost {d.loss:.3f} '
                         f'(best: {html.escape(d.best)})</title></circle>')
    luckiest = sorted(review.chance, key=lambda e: -max(abs(v) for v in e.luck))[:5]
    for event in luckiest:
        lucky = max(range(players), key=lambda p: event.luck[p])
        cx, cy = x(event.step), y(rows[event.step][lucky])
        parts.append(f'<path d="M{cx:.1f},{cy - 7:.1f} L{cx - 6:.1f},{cy + 5:.1f} L{cx + 6:.1f},{cy + 5:.1f} Z" '
                     f'fill="#111827" data-step="{event.step}"><title>step {event.step}: '
                     f'{html.escape(event.outcome)} - luck {seat_name(lucky)} {event.luck[lucky]:+.3f}</title></path>')
    parts.append("</svg>")
    return "".join(parts)


STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; max-width: 960px; margin: 1.5em auto; padding: 0 1em; color: #111827 }
.graph { width: 100%; height: auto; background: #fff } .graph text { font-size: 11px; fill: #6b7280 }
.graph .even { stroke: #d1d5db; stroke-dasharray: 4 4 } .graph .frame { fill: none; stroke: #e5e7eb }
table { border-collapse: collapse } .wide { overflow-x: auto }
td, th { padding: .2em .6em; border-bottom: 1px solid #e5e7eb; text-align: left }
pre { background: #f3f4f6; padding: .6em; overflow-x: auto; font-size: 12px }
.rules { color: #6b7280; font-size: 12px } .legend span { margin-right: 1.2em }
section.decision { border-top: 1px solid #d1d5db; margin-top: 1.2em }
"""


def review_html(review: Review, record: GameRecord, cards: str | None = None, explain: int = 5) -> str:
    """The review as a standalone page."""
    v = verdict(review)
    seats = record.seats or [seat_name(p) for p in range(len(review.players))]
    out = [f"<!doctype html><html lang=en><meta charset=utf-8><title>Review of a {html.escape(review.game)} game"
           f"</title><style>{STYLE}</style><h1>Review: {html.escape(review.game)}</h1>",
           "<p>" + " ".join(html.escape(s) for s in v.sentences) + "</p>",
           "<h2>Win probability</h2><p class=legend>"
           + "".join(f'<span style="color:{COLOURS[p % len(COLOURS)]}">&#9632; {seat_name(p)} '
                     f'({html.escape(seats[p])})</span>' for p in range(len(review.players)))
           + "<span>&#9679; an error (size: what it cost)</span><span>&#9650; a lucky event</span></p>",
           win_probability_svg(review),
           "<p>Each player's chance to win after every step, as that player could see the game.</p>",
           "<h2>Players</h2><div class=wide><table><tr><th>seat</th><th>decisions</th><th>not forced</th>"
           "<th>error rate</th>"
           "<th>inaccuracies</th><th>mistakes</th><th>blunders</th><th>luck</th><th>result</th>"
           "<th>luck-adjusted</th></tr>"]
    for p in review.players:
        out.append(f"<tr><td>{seat_name(p.player)} {html.escape(seats[p.player])}</td><td>{p.decisions}</td>"
                   f"<td>{p.unforced}</td><td>{number(p.error_rate, 4)}</td><td>{p.counts.get('inaccuracy', 0)}</td>"
                   f"<td>{p.counts.get('mistake', 0)}</td><td>{p.counts.get('blunder', 0)}</td>"
                   f"<td>{number(p.luck, 3, True)}</td><td>{number(p.result, 2)}</td>"
                   f"<td>{number(p.luck_adjusted, 2)}</td></tr>")
    out.append("</table></div><p>Error rate: the mean share of the point lost per decision that was not forced. Luck: "
               "the sum of the player's net luck over the chance events. Luck-adjusted: the result less the luck."
               "</p><h2>The costliest decisions</h2>")
    worst = costliest(review, explain)
    if not worst:
        out.append("<p>No decision lost anything the review could measure.</p>")
    for d in worst:
        before = replay(record, cards=cards, upto=d.step)
        events, picture = position_words(before, d.player)
        seed = d.step * 7919 + review.seed
        played = what_followed(before, d.player, d.action, seed)
        best = what_followed(before, d.player, d.best, seed)
        out.append(f"<section class=decision><h3>Step {d.step}: {seat_name(d.player)}, {d.kind} "
                   f"(lost {d.loss:.3f} of the point)</h3>"
                   f"<p>Played <b>{html.escape(d.action)}</b> (worth {d.value_chosen:.3f}); best was "
                   f"<b>{html.escape(d.best)}</b> (worth {d.value_best:.3f}).</p>"
                   "<p>What had just happened:</p><ul>" + "".join(f"<li>{html.escape(e)}</li>" for e in events)
                   + f"</ul><pre>{html.escape(picture)}</pre>"
                   "<p>Why, on one sample of what the player could not see, everyone then playing the game's "
                   "heuristic: after the move played</p><ul>" + "".join(event_line(e) for e in played[:8])
                   + "</ul><p>after the best move</p><ul>" + "".join(event_line(e) for e in best[:8])
                   + "</ul></section>")
    out.append("<h2>The luckiest events</h2><div class=wide><table><tr><th>step</th><th>outcome</th>"
               + "".join(f"<th>{seat_name(p)}</th>" for p in range(len(review.players))) + "</tr>")
    for event in sorted(review.chance, key=lambda e: -max(abs(x) for x in e.luck))[:10]:
        out.append(f"<tr><td>{event.step}</td><td>{html.escape(event.outcome)}</td>"
                   + "".join(f"<td>{x:+.3f}</td>" for x in event.luck) + "</tr>")
    out.append("</table></div>")
    settings = review.settings_json()
    out.append("<p class=rules>Settings: " + html.escape(", ".join(f"{k}={v}" for k, v in settings.items()))
               + ". Values are each player's expected share of the point (docs/review.md).</p></html>")
    return "\n".join(out)

