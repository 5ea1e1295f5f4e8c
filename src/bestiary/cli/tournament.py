"""`bestiary tournament`: agents against each other, seats rotated, across cores, with win-rate intervals."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Table

import bestiary
from bestiary.agents.tournament import run_tournament
from bestiary.core.api import JSON
from bestiary.core.chance import fresh_seed
from bestiary.core.errors import BestiaryError

console = Console(highlight=False)


def split_agent_specs(text: str) -> list[str]:
    """ "mcts:sims=800,rollout=heuristic,random" -> ["mcts:sims=800,rollout=heuristic", "random"]: a
    comma starts a new agent unless what follows is another setting (name=value) of the one before."""
    specs: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if specs and ":" in specs[-1] and "=" in part and ":" not in part:
            specs[-1] += "," + part
        else:
            specs.append(part)
    return specs


def tournament(
    game: Annotated[str, typer.Argument(help="game name, e.g. critter-capture")],
    agents: Annotated[str, typer.Option(
        "--agents", "-a", help="agents, comma-separated, e.g. mcts:hard,heuristic,random")] = "heuristic,random",
    games: Annotated[int, typer.Option("--games", "-g", help="games per pair of agents")] = 100,
    players: Annotated[int | None, typer.Option("--players", "-n", help="number of players")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="game option key=value")] = None,
    seed: Annotated[int | None, typer.Option(help="tournament seed (the same seed, the same results)")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="worker processes (0: one per core)")] = 0,
    out: Annotated[Path | None, typer.Option("--out", help="also save the full results here (JSON)")] = None,
    cards: Annotated[Path | None, typer.Option("--cards", help="your own card file")] = None,
    old_json: Annotated[Path | None, typer.Option("--json", hidden=True, help="now --out")] = None,
) -> None:
    """Play every pair of agents against each other with seats rotated; print win rates with 95 %
    Wilson intervals, the pairwise table, Bradley-Terry ratings on the Elo scale and each agent's
    processor seconds per decision."""
    from bestiary.cli.analysis import at_least_one_game, refused, write_whole
    from bestiary.cli.main import fail, parse_options  # here: main imports this module to register it
    from bestiary.cli.stopping import stoppable

    refused(old_json, "--json", "--out")
    at_least_one_game(games)
    options = parse_options(option or [])
    if players is not None:
        options["players"] = players
    if cards is not None:
        options["cards"] = str(cards)
    specs = split_agent_specs(agents)
    seed = fresh_seed() if seed is None else seed
    workers = jobs if jobs > 0 else (os.cpu_count() or 1)
    try:
        with stoppable(console, "the tournament"), Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                TimeRemainingColumn(), console=console) as progress:
            task = progress.add_task(f"{game} tournament", total=None)

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            results = run_tournament(game, specs, games, seed, options, jobs=workers, on_game=advance, timed=True)
    except BestiaryError as error:
        raise fail(str(error)) from None
    print_results(results)
    if out is not None:
        write_whole(out, json.dumps(results, indent=1))
        console.print(f"Results saved to {escape(str(out))}.")


def print_results(results: JSON) -> None:
    title = bestiary.game_info(str(results["game"])).title
    table = Table(title=f"{title}, {results['players']} players, seed {results['seed']}")
    for column in ("agent", "games", "win rate", "95 % CI", "Elo (BT)", "s / decision"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for row in sorted(results["agents"], key=lambda r: -r["elo"]):
        low, high = row["ci95"]
        table.add_row(row["agent"], str(row["games"]), f"{row['win_rate']:.1%}", f"{low:.1%} - {high:.1%}",
                      f"{row['elo']:+.0f}", thinking_time(row, "seconds_per_decision"))
    console.print(table)
    pairs = Table(title="Pairwise (win rate of the first agent; draws count a half)")
    for column in ("agent", "opponent", "games", "points", "win rate", "95 % CI", "s / decision"):
        pairs.add_column(column, justify="left" if column in ("agent", "opponent") else "right")
    for row in results["pairwise"]:
        low, high = row["ci95"]
        pairs.add_row(row["agent"], row["opponent"], str(row["games"]), f"{row['points']:g}",
                      f"{row['win_rate']:.1%}", f"{low:.1%} - {high:.1%}", thinking_time(row, "seconds_per_decision"))
    console.print(pairs)


def thinking_time(row: JSON, key: str) -> str:
    """Processor seconds per decision, where the results measured it (older JSON files lack it)."""
    return f"{row[key]:.2g}" if key in row else "-"
