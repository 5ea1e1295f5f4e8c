"""`bestiary tune` and `bestiary skill`: searching parameters for a balance target, and skill against luck."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Annotated

import typer

from bestiary.analysis.backends import default_jobs
from bestiary.analysis.report import html_page, provenance_line
from bestiary.analysis.skill import DOUBLINGS, FIRST_BUDGET, SEARCH, ladder, skill_trace
from bestiary.analysis.sweep import parse_parameter
from bestiary.analysis.tune import RUNS, TARGETS, parse_target, tune
from bestiary.cli.analysis import (
    AgentsOption,
    CardsOption,
    GameArgument,
    JobsOption,
    OldJsonOption,
    OptionOption,
    PlayersOption,
    SeedOption,
    at_least_one_game,
    build_spec,
    progress_bar,
    refused,
    show_markdown,
    write_whole,
)
from bestiary.cli.main import console, fail, game_class_or_fail, parse_options
from bestiary.cli.stopping import stoppable
from bestiary.cli.tournament import split_agent_specs
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
    iterations: Annotated[int, typer.Option(help="settings each search evaluates")] = 30,
    games: Annotated[int, typer.Option("--games", "-g", help="games an evaluation plays")] = 40,
    final_games: Annotated[int, typer.Option(
        help="fresh games measuring each search's best setting and the game's own")] = 400,
    runs: Annotated[int, typer.Option(help="independent searches")] = RUNS,
    players: PlayersOption = None,
    agents: AgentsOption = "heuristic",
    seed: SeedOption = None,
    jobs: JobsOption = None,
    markdown: MarkdownOption = None,
    out: Annotated[Path | None, typer.Option("--out", help="write the candidates, the game's own setting and "
                                                           "the search trace as JSON")] = None,
    option: OptionOption = None,
    cards: CardsOption = None,
) -> None:
    """Search several parameters at once for a balance target (several N-Tuple Bandit Evolutionary
    Algorithm searches), then confirm each search's best against the game's own setting on fresh games."""
    at_least_one_game(games)
    at_least_one_game(final_games, "--final-games")
    spec = build_spec(game, players, agents, seed, option, cards)
    try:
        parameters = [parse_parameter(text) for text in param]
        aim = parse_target(target)
    except BestiaryError as error:
        raise fail(str(error)) from None
    workers = jobs or default_jobs()
    total = runs * iterations * games + (1 + runs) * final_games  # at most: searches may agree
    console.print(f"Tuning {', '.join(p.name for p in parameters)} of {game} for {aim.describe()}: {runs} searches "
                  f"of {iterations} evaluations of {games} games, then {final_games} fresh games for each best "
                  f"setting and the game's own (seed {spec.seed})")
    try:
        with stoppable(console, "the tuning"), progress_bar(total, "games") as advance:
            result = tune(spec, parameters, aim, iterations, games, final_games, workers, advance, runs)
    except BestiaryError as error:
        raise fail(str(error)) from None
    text = provenance_line(spec.provenance()) + "\n\n" + result.markdown()
    show_markdown(text)
    try:
        if markdown is not None:
            write_whole(markdown, text)
            console.print(f"Wrote {markdown}")
        if out is not None:
            write_whole(out, json.dumps({**result.to_json(), "provenance": spec.provenance()}, indent=1) + "\n")
            console.print(f"Wrote {out}")
    except OSError as error:
        raise fail(f"cannot write: {error}") from None


def skill_command(
    game: GameArgument,
    games: Annotated[int, typer.Option("--games", "-g", help="games each rung of the ladder plays")] = 100,
    players: PlayersOption = None,
    agent: Annotated[str, typer.Option(
        help="the search climbing the ladder, without its budget (the ladder sets sims on each rung)")] = SEARCH,
    budget: Annotated[int, typer.Option(help="simulations a move on the first search rung")] = FIRST_BUDGET,
    doublings: Annotated[int, typer.Option(help="rungs above the first search rung, each with twice the "
                                                "budget of the one below")] = DOUBLINGS,
    ladder_agents: Annotated[str | None, typer.Option(
        "--ladder", help="the rungs themselves, weakest first, comma-separated (instead of --agent, --budget, "
                         "--doublings); each plays the one below")] = None,
    self_play: Annotated[str | None, typer.Option(
        help="the agent that plays itself to show the seat's own edge (default: the top rung)")] = None,
    seed: SeedOption = None,
    jobs: JobsOption = None,
    option: OptionOption = None,
    plot: PlotOption = None,
    html: HtmlOption = None,
    markdown: MarkdownOption = None,
    out: Annotated[Path | None, typer.Option(
        "--out", help="write the measured figures as JSON, for `bestiary report RESULTS --skill FILE`")] = None,
    cards: CardsOption = None,
    old_json: OldJsonOption = None,
    old_players: Annotated[int | None, typer.Option("-p", hidden=True, help="now -n")] = None,
    old_reference: Annotated[str | None, typer.Option("--reference", hidden=True, help="gone")] = None,
) -> None:
    """Skill against luck: a search against its own weaker self, its budget doubling rung by rung from
    random at the floor; says whether the game is skill-bound or luck-bound."""
    refused(old_reference, "--reference", "a ladder where each rung plays the one below (--agent, --budget)")
    refused(old_json, "--json", "--out")
    refused(old_players, "-p", "-n/--players (and -g/--games the games a rung)")
    at_least_one_game(games)
    options = parse_options(option or [])
    count = players or int(options.pop("players", min(game_class_or_fail(game).info.player_counts)))
    base = build_spec(game, count, "random", 0, option, cards)  # checks the game, options and card file
    try:
        rungs = (split_agent_specs(ladder_agents) if ladder_agents is not None
                 else list(ladder(agent, budget, doublings)))
    except BestiaryError as error:
        raise fail(str(error)) from None
    master = fresh_seed() if seed is None else seed
    workers = jobs or default_jobs()
    console.print(f"Skill ladder of {game} ({count} players): {' < '.join(rungs)}, each against the one below, "
                  f"{games} games a rung (seed {master}; {workers} jobs)")
    try:
        with stoppable(console, "the skill trace"), progress_bar(games * len(rungs), "games") as advance:
            trace = skill_trace(game, count, games, master, rungs, workers, options, advance,
                                self_play, base.card_file_text, base.card_file_name)
    except BestiaryError as error:
        raise fail(str(error)) from None
    text = trace.markdown()
    show_markdown(text)
    try:
        if markdown is not None:
            write_whole(markdown, text)
            console.print(f"Wrote {markdown}")
        if out is not None:
            write_whole(out, json.dumps(trace.to_json(), indent=1) + "\n")
            console.print(f"Wrote {out}")
        if plot is None and html is None:
            return
        buffer = io.BytesIO()
        trace.figure().savefig(buffer, format="png", dpi=110)
        if plot is not None:
            write_whole(plot, buffer.getvalue())
            console.print(f"Wrote {plot}")
        if html is not None:
            notes = {"skill": (trace.caption(), trace.says())}
            write_whole(html, html_page(f"Skill against luck: {game}", text, {"skill": buffer.getvalue()}, notes))
            console.print(f"Wrote {html}")
    except OSError as error:
        raise fail(f"cannot write: {error}") from None


def register(app: typer.Typer) -> None:
    app.command(name="tune")(tune_command)
    app.command(name="skill")(skill_command)
