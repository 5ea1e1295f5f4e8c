"""`bestiary simulate`, `report` and `sweep`: the designer's workbench for balance questions."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.markdown import Markdown
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TimeRemainingColumn
from rich.text import Text

from bestiary.agents import agent_names
from bestiary.analysis.backends import BACKENDS, default_jobs, simulate
from bestiary.analysis.compare import compare_files
from bestiary.analysis.report import Report, html_page, report_from_files
from bestiary.analysis.results import check_suffix, write_results
from bestiary.analysis.simulate import SimulationSpec
from bestiary.analysis.summary import summarise
from bestiary.analysis.sweep import (
    grid,
    parse_parameter,
    run_sweep,
    sweep_figure,
    sweep_markdown,
    sweep_says,
    sweep_title,
)
from bestiary.cli.main import console, fail, game_class_or_fail, parse_options
from bestiary.cli.stopping import stoppable
from bestiary.core.chance import fresh_seed
from bestiary.core.errors import BestiaryError

GameArgument = Annotated[str, typer.Argument(help="game name, e.g. critter-capture")]
GamesOption = Annotated[int, typer.Option("--games", "-g", help="number of games to play")]
PlayersOption = Annotated[int | None, typer.Option(
    "--players", "-n", help="number of players (default: the game's smallest standard count)")]
AgentsOption = Annotated[str, typer.Option(
    help=f"agents, comma-separated ({', '.join(agent_names())}); cycled over the seats and rotated each game")]
SeedOption = Annotated[int | None, typer.Option("--seed", help="master seed; the same seed gives the same results")]
JobsOption = Annotated[int | None, typer.Option("--jobs", "-j", help="worker processes (default: every core)")]
BackendOption = Annotated[str, typer.Option(help=f"where games run: {' or '.join(BACKENDS)}")]
AddressOption = Annotated[str | None, typer.Option(help="Ray cluster address, e.g. auto (default: a local Ray)")]
OptionOption = Annotated[list[str] | None, typer.Option("--option", "-o", help="game option key=value")]
CardsOption = Annotated[Path | None, typer.Option("--cards", help="your own card file")]
OldJsonOption = Annotated[Path | None, typer.Option("--json", hidden=True, help="now --out")]


class GamesPerSecond(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.0f} games/s", style="cyan")


@contextmanager
def progress_bar(total: int, label: str) -> Iterator[Callable[[int], None]]:
    with Progress(BarColumn(), MofNCompleteColumn(), GamesPerSecond(), "ETA", TimeRemainingColumn(),
                  console=console) as bar:
        task = bar.add_task(label, total=total)
        yield lambda finished: bar.advance(task, finished)


def write_whole(path: Path, content: str | bytes) -> None:
    """Written beside its place and moved there once complete: an interrupted write leaves no half file
    and an earlier file of that name as it was."""
    partial = path.with_name(f".{path.name}.part")
    try:
        if isinstance(content, bytes):
            partial.write_bytes(content)
        else:
            partial.write_text(content, encoding="utf-8")
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def at_least_one_game(games: int, what: str = "--games") -> None:
    """Refused before any progress bar is drawn."""
    if games < 1:
        raise fail(f"{what} must be at least 1, not {games}")


def refused(old: object, spelling: str, instead: str) -> None:
    """An old flag's spelling, refused with the one that replaced it."""
    if old not in (None, False):
        raise fail(f"{spelling} is now {instead}")


def show_markdown(text: str) -> None:
    """Rendered in a terminal; piped or redirected, the Markdown itself, whole lines however wide."""
    if console.is_terminal:
        console.print(Markdown(text))
    else:
        console.print(text, markup=False, highlight=False, crop=False, overflow="ignore", end="")


def build_spec(game: str, players: int | None, agents: str, seed: int | None, option: list[str] | None,
               cards: Path | None, timing: bool = False, value_leads: bool = False) -> SimulationSpec:
    options = parse_options(option or [])
    if players is not None:
        options["players"] = players
    options.setdefault("players", min(game_class_or_fail(game).info.player_counts))
    names = tuple(a.strip() for a in agents.split(",") if a.strip())
    card_text = None
    if cards is not None:
        try:
            card_text = cards.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise fail(f"{cards}: cannot read the card file: {error}") from None
    try:
        return SimulationSpec(game, options, names, fresh_seed() if seed is None else seed, card_text,
                              card_file_name=None if cards is None else str(cards), timing=timing,
                              value_leads=value_leads)
    except BestiaryError as error:
        raise fail(str(error)) from None


def simulate_command(
    game: GameArgument,
    games: GamesOption = 1000,
    players: PlayersOption = None,
    agents: AgentsOption = "heuristic",
    seed: SeedOption = None,
    jobs: JobsOption = None,
    backend: BackendOption = "local",
    address: AddressOption = None,
    out: Annotated[Path | None, typer.Option(help="save the records: .jsonl, or .parquet")] = None,
    option: OptionOption = None,
    cards: CardsOption = None,
    timing: Annotated[bool, typer.Option(
        help="also record each agent's thinking time (then records differ from run to run)")] = False,
    value_drama: Annotated[bool, typer.Option(
        help="where a game keeps no running score, follow the lead by the searches' value of the position "
             "(lead changes and drama for every game; replays each game, several times slower)")] = False,
) -> None:
    """Play many games between agents and record each (seats, result, length, decisions, card events)."""
    at_least_one_game(games)
    spec = build_spec(game, players, agents, seed, option, cards, timing, value_drama)
    workers = jobs or default_jobs()
    console.print(f"Simulating {games} games of {game} ({spec.players} players; agents "
                  f"{', '.join(spec.agents)}; seed {spec.seed}; {workers} jobs, {backend} backend)")
    try:
        if out is not None:
            check_suffix(out)
        with stoppable(console, "the simulation"), progress_bar(games, "games") as advance:
            records = simulate(spec, games, workers, backend, address, advance)
            if out is None:
                groups = summarise(records)
            else:
                write_results(out, spec.header(), records)
    except BestiaryError as error:
        raise fail(str(error)) from None
    if out is None:
        show_markdown(Report([spec.header()], groups).markdown())
    else:
        console.print(f"Saved {games} game records to {escape(str(out))}; summarise them with: "
                      f"bestiary report {escape(str(out))}")


def report_command(
    results: Annotated[list[Path], typer.Argument(help="results files from simulate (.jsonl or .parquet)")],
    html: Annotated[Path | None, typer.Option(help="write an HTML report with its plots embedded")] = None,
    markdown: Annotated[Path | None, typer.Option(help="write the summary as Markdown")] = None,
    json_out: Annotated[Path | None, typer.Option(
        "--json", help="write every figure, every card and the run's provenance as JSON (docs/balance.md)")] = None,
    plots: Annotated[Path | None, typer.Option(help="save each plot as a PNG in this folder")] = None,
    kind: Annotated[list[str] | None, typer.Option(
        help="event kinds to detail card by card (default: the two most frequent that are not the score "
             "itself), e.g. flip")] = None,
    skill: Annotated[Path | None, typer.Option(
        help="a skill trace of the same game from `bestiary skill --json`, shown with its plot")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="do not print the summary")] = False,
) -> None:
    """Summarise simulation results: seat advantage, agents, decisions, game length, drama, card effects
    (controlled for agent and seat), and skill against luck where a skill trace is given."""
    try:
        report = report_from_files(results, kind, skill)
        text = report.markdown()
        if markdown is not None:
            write_whole(markdown, text)
        if html is not None:
            write_whole(html, report.html())
        if json_out is not None:
            write_whole(json_out, json.dumps(report.to_json(), indent=1, allow_nan=False) + "\n")
        saved = report.save_plots(plots) if plots is not None else []
    except OSError as error:
        raise fail(f"cannot write the report: {error}") from None
    except BestiaryError as error:
        raise fail(str(error)) from None
    if not quiet:
        show_markdown(text)
    for path in [p for p in (markdown, html, json_out) if p is not None] + saved:
        console.print(f"Wrote {escape(str(path))}")


def sweep_command(
    game: GameArgument,
    param: Annotated[list[str], typer.Option(
        help="NAME=v1,v2,...: a game option (e.g. rechoose_on_takeover=false,true) or a card field "
             "(card.<card id>.<field>, e.g. card.brook-trout.size=2,5,8); give several to sweep their grid")],
    games: GamesOption = 1000,
    players: PlayersOption = None,
    agents: AgentsOption = "heuristic",
    seed: SeedOption = None,
    jobs: JobsOption = None,
    backend: BackendOption = "local",
    address: AddressOption = None,
    plot: Annotated[Path | None, typer.Option(help="save the metrics-against-value plot (PNG)")] = None,
    html: Annotated[Path | None, typer.Option(help="write the table and plot as an HTML page")] = None,
    markdown: Annotated[Path | None, typer.Option(help="write the table as Markdown")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", help="a folder: also keep each setting's records (JSON Lines) there")] = None,
    option: OptionOption = None,
    cards: CardsOption = None,
    out_dir: Annotated[Path | None, typer.Option("--out-dir", hidden=True, help="now --out")] = None,
) -> None:
    """Simulate each setting of one or more rule options or card fields, on the same seeds, and compare."""
    refused(out_dir, "--out-dir", "--out")
    at_least_one_game(games)
    spec = build_spec(game, players, agents, seed, option, cards)
    try:
        parameters = [parse_parameter(text) for text in param]
        settings = len(grid(parameters))
    except BestiaryError as error:
        raise fail(str(error)) from None
    workers = jobs or default_jobs()
    swept = "; ".join(f"{p.name} over {', '.join(map(str, p.values))}" for p in parameters)
    console.print(f"Sweeping {swept} ({settings} settings): {games} games each of {game} ({spec.players} players; "
                  f"seed {spec.seed}; {workers} jobs)")
    try:
        with stoppable(console, "the sweep"), progress_bar(games * settings, "games") as advance:
            points = run_sweep(spec, parameters, games, workers, backend, address, advance, out)
    except BestiaryError as error:
        raise fail(str(error)) from None
    table = sweep_markdown(parameters, points, spec)
    show_markdown(table)
    try:
        if markdown is not None:
            write_whole(markdown, table)
            console.print(f"Wrote {escape(str(markdown))}")
        if plot is None and html is None:
            return
        buffer = io.BytesIO()
        sweep_figure(parameters, points).savefig(buffer, format="png", dpi=110)
        if plot is not None:
            write_whole(plot, buffer.getvalue())
            console.print(f"Wrote {escape(str(plot))}")
        if html is not None:
            title = f"Sweep of {sweep_title(parameters)}"
            notes = {"sweep": (f"Each metric against the setting of {sweep_title(parameters)}, with 95 % intervals.",
                               sweep_says(parameters, points))}
            page = html_page(title, f"# {title}\n\n{table}", {"sweep": buffer.getvalue()}, notes)
            write_whole(html, page)
            console.print(f"Wrote {escape(str(html))}")
    except OSError as error:
        raise fail(f"cannot write: {error}") from None


def compare_command(
    base: Annotated[Path, typer.Argument(help="the base run's results (simulate --out)")],
    variant: Annotated[Path, typer.Argument(help="the variant's results, simulated with the same --seed")],
    out: Annotated[Path | None, typer.Option("--out", help="write every paired figure and card as JSON")] = None,
    markdown: Annotated[Path | None, typer.Option(help="write the comparison as Markdown")] = None,
) -> None:
    """What a change did: two runs on the same seeds, figure by figure and card by card, as paired
    differences with their intervals."""
    try:
        comparison = compare_files(base, variant)
        text = comparison.markdown()
        if markdown is not None:
            write_whole(markdown, text)
        if out is not None:
            write_whole(out, json.dumps(comparison.to_json(), indent=1, allow_nan=False) + "\n")
    except OSError as error:
        raise fail(f"cannot write: {error}") from None
    except BestiaryError as error:
        raise fail(str(error)) from None
    show_markdown(text)
    for path in [p for p in (markdown, out) if p is not None]:
        console.print(f"Wrote {escape(str(path))}")


def register(app: typer.Typer) -> None:
    app.command(name="simulate")(simulate_command)
    app.command(name="report")(report_command)
    app.command(name="sweep")(sweep_command)
    app.command(name="compare")(compare_command)
