"""`bestiary fit-value`: fit the weights of a game's value to games its heuristic plays, and show how well they do."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

from bestiary.agents.valuefit import fit_value
from bestiary.core.errors import BestiaryError

console = Console(highlight=False)


def fit_value_command(
    game: Annotated[str, typer.Argument(help="game name, e.g. cube-creatures")],
    players: Annotated[int | None, typer.Option("--players", "-n", help="number of players")] = None,
    games: Annotated[int, typer.Option("--games", "-g", help="games to play (a fifth are held out)")] = 4000,
    seed: Annotated[int, typer.Option(help="seed of the games (the same seed, the same weights)")] = 1,
    epsilon: Annotated[float, typer.Option(help="chance that a move is random rather than the heuristic's")] = 0.1,
    positions: Annotated[int, typer.Option(help="positions kept a game, at most")] = 40,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="game option key=value")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="worker processes (0: one per core)")] = 0,
    out: Annotated[Path | None, typer.Option("--out", help="write the value file here (e.g. the game's "
                                                           "value.toml)")] = None,
    cards: Annotated[Path | None, typer.Option("--cards", help="your own card file")] = None,
) -> None:
    """Fit the weights of a game's value (what searches score positions by) to games between heuristic players,
    and print them with their log loss on held-out games beside the current weights'."""
    from bestiary.cli.analysis import at_least_one_game, write_whole
    from bestiary.cli.main import fail, parse_options  # here: main imports this module to register it
    from bestiary.cli.stopping import stoppable

    at_least_one_game(games)
    options = parse_options(option or [])
    if players is not None:
        options["players"] = players
    if cards is not None:
        options["cards"] = str(cards)
    try:
        with stoppable(console, "the fit"), Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                TimeRemainingColumn(), console=console) as progress:
            task = progress.add_task(f"{game}: playing", total=games)

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            fit = fit_value(game, options, games, seed, epsilon, positions, jobs or (os.cpu_count() or 1), advance)
    except BestiaryError as error:
        raise fail(str(error)) from None
    table = Table(title=f"{game}: value weights fitted to {fit.fitted['positions']} positions of {games} games")
    table.add_column("feature")
    table.add_column("weight", justify="right")
    for name, weight in zip(fit.names, fit.weights, strict=True):
        table.add_row(name, f"{weight:+.4f}")
    console.print(table)
    f = fit.fitted
    console.print(f"Log loss on {f['held_out_games']} held-out games: fitted {f['held_out_log_loss']:.4f}, current "
                  f"{f['previous_log_loss']:.4f}, knowing nothing {f['uninformed_log_loss']:.4f} (lower is better).")
    if out is not None:
        write_whole(out, fit.file_text())
        console.print(f"Value file written to {escape(str(out))}.")
