"""`bestiary tune` and `bestiary skill`: searching parameters for a balance target, and skill against luck."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Annotated

import typer

from bestiary.analysis.backends import default_jobs
from bestiary.analysis.report import html_page
from bestiary.analysis.skill import LADDER, skill_trace
from bestiary.analysis.sweep import parse_parameter
from bestiary.analysis.tune import TARGETS, parse_target, tune
from bestiary.cli.analysis import (
    AgentsOption,
    CardsOption,
    GameArgument,
    JobsOption,
    OptionOption,
    PlayersOption,
    SeedOption,
    build_spec,
    progress_bar,
    show_markdown,
)
from bestiary.cli.main import console, fail, game_class_or_fail, parse_options
from bestiary.core.chance import fresh_seed
from bestiary.core.errors import BestiaryError

HtmlOption = Annotated[Path | None, typer.Option(help="write the table and plot as an HTML page")]
MarkdownOption = Annotated[Path | None, typer.Option(help="write the table as Markdown")]
PlotOption = Annotated[Path | None, typer.Option(help="save the plot (PNG)")]


def tune_command(
    game: GameArgument,
    param: Annotated[list[str], typer.Option(
        help="NAME=v1,v2,...: a game option or a card field (card.<card id>.<field>); give several")],
    target: Annotated[str, typer.Option(help=f"what to aim for: {', '.join(TARGETS)} (N decisions)")],
    iterations: Annotated[int, typer.Option(help="settings the search evaluates")] = 30,
    games: Annotated[int, typer.Option("--games", "-g", help="games an evaluation plays")] = 40,
    final_games: Annotated[int, typer.Option(help="games measuring the best setting and the game's own")] = 400,
    players: PlayersOption = None,
    agents: AgentsOption = "heuristic",
    seed: SeedOption = None,
    jobs: JobsOption = None,
    markdown: MarkdownOption = None,
    option: OptionOption = None,
    cards: CardsOption = None,
) -> None:
    """Search several parameters at once for a balance target (N-Tuple Bandit Evolutionary Algorithm)."""
    spec = build_spec(game, players, agents, seed, option, cards)
    try:
        parameters = [parse_parameter(text) for text in param]
        aim = parse_target(target)
    except BestiaryError as error:
        raise fail(str(error)) from None
    workers = jobs or default_jobs()
    total = iterations * games + 2 * final_games
    console.print(f"Tuning {', '.join(p.name for p in parameters)} of {game} for {aim.describe()}: {iterations} "
                  f"evaluations of {games} games, then {final_games} games twice (seed {spec.seed})")
    try:
        with progress_bar(total, "games") as advance:
            result = tune(spec, parameters, aim, iterations, games, final_games, workers, advance)
    except BestiaryError as error:
        raise fail(str(error)) from None
    text = result.markdown()
    show_markdown(text)
    if markdown is not None:
        try:
            markdown.write_text(text, encoding="utf-8")
        except OSError as error:
            raise fail(f"cannot write: {error}") from None
        console.print(f"Wrote {markdown}")


def skill_command(
    game: GameArgument,
    games: Annotated[int, typer.Option("--games", "-n", help="games each rung of the ladder plays")] = 100,
    players: Annotated[int | None, typer.Option(
        "--players", "-p", help="number of players (default: the game's smallest standard count)")] = None,
    ladder: Annotated[str, typer.Option(help="agents from weakest to strongest, comma-separated")] = ",".join(LADDER),
    reference: Annotated[str, typer.Option(help="the agent every rung plays against")] = "random",
    self_play: Annotated[str | None, typer.Option(
        help="the agent that plays itself to show the seat's own edge (default: the best rung)")] = None,
    seed: SeedOption = None,
    jobs: JobsOption = None,
    option: OptionOption = None,
    plot: PlotOption = None,
    html: HtmlOption = None,
    markdown: MarkdownOption = None,
    json_out: Annotated[Path | None, typer.Option(
        "--json", help="write the measured figures as JSON, for `bestiary report RESULTS --skill FILE`")] = None,
) -> None:
    """Skill against luck: a ladder of agents against a fixed reference, and one skill share for the game."""
    options = parse_options(option or [])
    count = players or int(options.pop("players", min(game_class_or_fail(game).info.player_counts)))
    rungs = [name.strip() for name in ladder.split(",") if name.strip()]
    master = fresh_seed() if seed is None else seed
    workers = jobs or default_jobs()
    console.print(f"Skill trace of {game} ({count} players): {', '.join(rungs)} against {reference}, {games} games "
                  f"a rung (seed {master}; {workers} jobs)")
    try:
        with progress_bar(games * (len(rungs) + 1), "games") as advance:
            trace = skill_trace(game, count, games, master, rungs, reference, workers, options, advance,
                                self_play)
    except BestiaryError as error:
        raise fail(str(error)) from None
    text = trace.markdown()
    show_markdown(text)
    try:
        if markdown is not None:
            markdown.write_text(text, encoding="utf-8")
            console.print(f"Wrote {markdown}")
        if json_out is not None:
            json_out.write_text(json.dumps(trace.to_json(), indent=1) + "\n", encoding="utf-8")
            console.print(f"Wrote {json_out}")
        if plot is None and html is None:
            return
        buffer = io.BytesIO()
        trace.figure().savefig(buffer, format="png", dpi=110)
        if plot is not None:
            plot.write_bytes(buffer.getvalue())
            console.print(f"Wrote {plot}")
        if html is not None:
            notes = {"skill": (trace.caption(), trace.says())}
            html.write_text(html_page(f"Skill against luck: {game}", text, {"skill": buffer.getvalue()}, notes),
                            encoding="utf-8")
            console.print(f"Wrote {html}")
    except OSError as error:
        raise fail(f"cannot write: {error}") from None


def register(app: typer.Typer) -> None:
    app.command(name="tune")(tune_command)
    app.command(name="skill")(skill_command)
