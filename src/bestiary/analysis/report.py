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
from bestiary.analysis.stats import Rate
from bestiary.analysis.summary import SIGNIFICANCE, CardEffect, GroupSummary

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CARDS_LISTED = 5  # strongest and weakest cards listed per kind in the summary
VALUE_FIELDS_MAX_DISTINCT = 12  # event fields with more distinct values are not categories


@dataclass
class Report:
    headers: list[dict[str, Any]]
    groups: dict[int, GroupSummary]
    card_kinds: Sequence[str] | None = None  # kinds to detail; default: the two most frequent
    _pngs: dict[str, bytes] | None = field(default=None, init=False, repr=False)

    def kinds_for(self, group: GroupSummary) -> list[str]:
        if self.card_kinds:
            return [kind for kind in self.card_kinds if kind in group.card_seats]
        return group.card_kinds()[:2]

    def title(self) -> str:
        games = sorted({h.get("game", "?") for h in self.headers})
        return "Balance report: " + ", ".join(games)

    # -- Markdown -----------------------------------------------------------------------------
    def markdown(self) -> str:
        lines = [f"# {self.title()}", ""]
        for header in self.headers:
            options = ", ".join(f"{k}={v}" for k, v in header.get("options", {}).items())
            labels = "".join(f"; {k} = {v}" for k, v in header.get("labels", {}).items())
            lines.append(f"- {header.get('game')} {header.get('rules_version', '')} ({options}); agents "
                         f"{', '.join(header.get('agents', []))}; seed {header.get('seed')}{labels}")
        lines.append("")
        lines.append("Win rates count a shared win as a fraction; brackets hold 95 % Wilson intervals.")
        for group in self.groups.values():
            lines += ["", f"## {group.players} players: {group.games} games", ""]
            lines += [*self._seat_lines(group), "", *self._agent_lines(group), "", *self._length_lines(group)]
            for kind in self.kinds_for(group):
                lines += ["", *self._card_lines(group, kind)]
            lines += self._value_lines(group)
        return "\n".join(lines) + "\n"

    def _seat_lines(self, group: GroupSummary) -> list[str]:
        fair = 1 / group.players
        lines = [f"Seat in turn order (1 = first player); a fair share is {fair:.1%}.", "",
                 "| seat | win rate [95 % CI] | vs fair |", "|---|---|---|"]
        for position, rate in enumerate(group.position_rates(), start=1):
            verdict = "above" if rate.low > fair else "below" if rate.high < fair else "within"
            lines.append(f"| {position} | {rate} | {verdict} |")
        return lines

    def _agent_lines(self, group: GroupSummary) -> list[str]:
        lines = ["| agent | seats played | win rate [95 % CI] |", "|---|---|---|"]
        for agent, rate in group.agent_rates().items():
            lines.append(f"| {agent} | {rate.games} | {rate} |")
        return lines

    def _length_lines(self, group: GroupSummary) -> list[str]:
        stats = group.length_stats()
        lines = [f"Game length (player decisions, all seats together): mean {stats['mean']:.1f} "
                 f"({stats['mean'] / group.players:.1f} per player), median {stats['median']:g}, "
                 f"5-95 % {stats['p5']}-{stats['p95']}, range {stats['min']}-{stats['max']}.",
                 f"Drama: {mean(group.lead_changes):.2f} lead changes a game on average. "
                 f"Shared wins: {group.shared_wins / group.games:.1%} of games."]
        if group.margins:
            close = sum(1 for m in group.margins if m < 0.1) / len(group.margins)
            lines.append(f"Decisiveness: the winner's margin over the runner-up averages {mean(group.margins):.1%} "
                         f"of the winning score; {close:.1%} of games are won by less than 10 %.")
        return lines

    def _card_lines(self, group: GroupSummary, kind: str) -> list[str]:
        effects = group.card_effects(kind)
        flagged = [e for e in effects if e.significant]
        lines = [f"### Cards by win contribution: '{kind}' events",
                 f"Win rate of the seats whose '{kind}' events named the card, against the other seats of the "
                 f"same games. {len(flagged)} of {len(effects)} cards differ significantly "
                 f"(Benjamini-Hochberg, false discovery rate {SIGNIFICANCE:.0%}).", "",
                 "| card | seats with | win rate with | without | difference [95 % CI] | q |",
                 "|---|---|---|---|---|---|"]
        shown = effects if len(effects) <= 2 * CARDS_LISTED else effects[:CARDS_LISTED] + effects[-CARDS_LISTED:]
        for effect in shown:
            mark = " *" if effect.significant else ""
            lines.append(f"| {effect.card}{mark} | {effect.with_card.games} | {effect.with_card} | "
                         f"{effect.without.rate:.1%} | {effect.difference:+.1%} [{effect.low:+.1%}, "
                         f"{effect.high:+.1%}] | {_q(effect.q_value)} |")
        return lines

    def _value_lines(self, group: GroupSummary) -> list[str]:
        lines = []
        for key, counts in sorted(group.event_values.items()):
            if len(counts) > VALUE_FIELDS_MAX_DISTINCT or len(counts) < 2:
                continue
            total = sum(counts.values())
            shares = ", ".join(f"{value} {count / total:.1%}" for value, count in _ordered(counts))
            lines.append(f"- {key}: {shares} (n = {total})")
        if lines:
            lines = ["", "### Event values (die faces, abilities, choices)", "", *lines]
        return lines

    # -- HTML ---------------------------------------------------------------------------------
    def figures(self) -> dict[str, Figure]:
        """The plots by file stem."""
        figures = {"seat-advantage": seat_figure(self.groups), "game-length": length_figure(self.groups),
                   "drama": drama_figure(self.groups)}
        if any(len(g.agent_seats) > 1 for g in self.groups.values()):
            figures["agents"] = agent_figure(self.groups)
        for group in self.groups.values():
            for kind in self.kinds_for(group):
                stem = f"cards-{kind.replace(':', '-')}-{group.players}p"
                figures[stem] = card_figure(group, kind)
        return figures

    def pngs(self) -> dict[str, bytes]:
        """Each plot as PNG bytes, drawn once however many outputs use it."""
        if self._pngs is None:
            self._pngs = {}
            for stem, figure in self.figures().items():
                buffer = io.BytesIO()
                figure.savefig(buffer, format="png", dpi=110)
                self._pngs[stem] = buffer.getvalue()
        return self._pngs

    def save_plots(self, folder: Path) -> list[Path]:
        folder.mkdir(parents=True, exist_ok=True)
        paths = []
        for stem, png in self.pngs().items():
            path = folder / f"{stem}.png"
            path.write_bytes(png)
            paths.append(path)
        return paths

    def html(self) -> str:
        return html_page(self.title(), self.markdown(), self.pngs())


def html_page(title: str, markdown_text: str, pngs: dict[str, bytes]) -> str:
    """A self-contained page: the Markdown as HTML, then every plot embedded as a PNG."""
    import markdown_it

    images = "".join(f'<figure><img alt="{html.escape(stem)}" src="data:image/png;base64,'
                     f'{base64.b64encode(png).decode()}"><figcaption>{html.escape(stem)}</figcaption></figure>'
                     for stem, png in pngs.items())
    body = markdown_it.MarkdownIt("commonmark").enable("table").render(markdown_text)
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>{body}<h2>Plots</h2>{images}</body></html>\n")


STYLE = ("body{font-family:system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}"
         "table{border-collapse:collapse;margin:.5rem 0}td,th{border:1px solid #ccc;padding:.2rem .6rem}"
         "th{background:#f3f3f3}figure{margin:1.5rem 0}img{max-width:100%}figcaption{color:#666}")


def _q(value: float) -> str:
    return f"{value:.2g}" if value >= 1e-12 else "< 1e-12"  # below that the normal tail is only rounding


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
    figure = new_figure(figsize=(3.2 * len(groups) + 1, 3.6))
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
    figure.suptitle("Seat advantage: red above a fair share, blue below, grey within chance")
    return figure


def length_figure(groups: dict[int, GroupSummary]) -> Figure:
    from matplotlib.ticker import MaxNLocator

    figure = new_figure(figsize=(7, 3.6))
    ax = figure.subplots()
    low = min(min(g.lengths) for g in groups.values())
    high = max(max(g.lengths) for g in groups.values())
    bins = [x - 0.5 for x in range(low, high + 2)]  # one bar per length, centred on it
    for group in groups.values():
        ax.hist(group.lengths, bins=bins, histtype="step", linewidth=1.5, density=True,
                label=f"{group.players} players (mean {mean(group.lengths):.1f})")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("game length: player decisions per game (all seats together)")
    ax.set_ylabel("share of games")
    ax.yaxis.set_major_formatter("{x:.0%}")
    ax.set_title("Game length")
    ax.legend(fontsize="small")
    return figure


def drama_figure(groups: dict[int, GroupSummary]) -> Figure:
    from matplotlib.ticker import MaxNLocator

    has_margins = any(g.margins for g in groups.values())
    figure = new_figure(figsize=(11 if has_margins else 6, 3.6))
    axes = figure.subplots(1, 2 if has_margins else 1, squeeze=False)[0]
    most = max(max(g.lead_changes) for g in groups.values())
    for group in groups.values():
        axes[0].hist(group.lead_changes, bins=[x - 0.5 for x in range(most + 2)], histtype="step", density=True,
                     linewidth=1.5, label=f"{group.players} players (mean {mean(group.lead_changes):.2f})")
    axes[0].xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].set_xlabel("lead changes per game (leader: highest running score, else most cards won)")
    axes[0].set_ylabel("share of games")
    axes[0].yaxis.set_major_formatter("{x:.0%}")
    axes[0].set_title("Drama: how often the lead changes hands")
    axes[0].legend(fontsize="small")
    if has_margins:
        for group in groups.values():
            if group.margins:
                axes[1].hist(group.margins, bins=20, range=(0, 1), histtype="step", linewidth=1.5,
                             weights=[1 / len(group.margins)] * len(group.margins),
                             label=f"{group.players} players")
        axes[1].set_xlabel("winner's margin over the runner-up, as a share of the winning score")
        axes[1].set_ylabel("share of games")
        axes[1].yaxis.set_major_formatter("{x:.0%}")
        axes[1].xaxis.set_major_formatter("{x:.0%}")
        axes[1].set_title("Decisiveness: 0 % = photo finish")
        axes[1].legend(fontsize="small")
    return figure


def agent_figure(groups: dict[int, GroupSummary]) -> Figure:
    figure = new_figure(figsize=(3.2 * len(groups) + 1, 3.6))
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


def card_figure(group: GroupSummary, kind: str) -> Figure:
    effects: list[CardEffect] = list(reversed(group.card_effects(kind)))  # strongest at the top
    figure = new_figure(figsize=(7.5, 0.22 * len(effects) + 1.6))
    ax = figure.subplots()
    rows = range(len(effects))

    def colour(effect: CardEffect) -> str:
        return ("#c0392b" if effect.difference > 0 else "#2471a3") if effect.significant else "#7f8c8d"

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
    ax.set_xlabel(f"win rate of seats with the card in a '{kind}' event minus seats without (95 % CI)")
    ax.set_title(f"Card effect, {group.players} players: red helps its holder, blue hurts, grey is within chance\n"
                 f"(significance after Benjamini-Hochberg correction, false discovery rate {SIGNIFICANCE:.0%})",
                 fontsize=10)
    return figure


def report_from_files(paths: Sequence[str | Path], card_kinds: Sequence[str] | None = None) -> Report:
    """One report over one or more results files (e.g. one per player count)."""
    from bestiary.analysis.results import read_results
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
    known = sorted({kind for group in groups.values() for kind in group.card_seats})
    for kind in card_kinds or ():
        if kind not in known:
            raise ResultsError(f"no card events of kind '{kind}' in the results (kinds: {', '.join(known) or 'none'})")
    return Report(headers, groups, card_kinds)
