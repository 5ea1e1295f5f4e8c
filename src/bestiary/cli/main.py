"""`bestiary`: list games, read their rules, play, replay records and run scenarios."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markdown import Markdown
from rich.markup import escape
from rich.text import Text

import bestiary
from bestiary.agents import agent_names
from bestiary.agents.search import LEVELS
from bestiary.cli.army import app as army_app
from bestiary.cli.docs import doc_path
from bestiary.cli.fitvalue import fit_value_command
from bestiary.cli.learn import learn
from bestiary.cli.play import HUMAN, TABLE_SPEED, Quit, TerminalTable
from bestiary.cli.review import review
from bestiary.cli.serve import serve
from bestiary.cli.teach import find_rule, rule_in_full
from bestiary.cli.tournament import tournament
from bestiary.core.api import GameInfo
from bestiary.core.chance import fresh_seed
from bestiary.core.errors import BestiaryError
from bestiary.core.record import load_record, record_of, replay, save_record
from bestiary.core.registry import game_class
from bestiary.core.rulebook import rule_index
from bestiary.core.scenario import run_scenario, scenario_files
from bestiary.tutorial import teaching_of

app = typer.Typer(help="Bestiary: play and study four creature-themed tabletop games.", no_args_is_help=True,
                  pretty_exceptions_enable=False)  # --install-completion: typer's shell completion
console = Console(highlight=False, soft_wrap=True)


def show_version(value: bool) -> None:
    if value:
        console.print(f"bestiary {bestiary.__version__}")
        raise typer.Exit()


@app.callback()
def bestiary_options(version: Annotated[bool, typer.Option(
        "--version", callback=show_version, is_eager=True, help="print Bestiary's version and exit")] = False) -> None:
    """Bestiary: play and study four creature-themed tabletop games."""
app.add_typer(army_app, name="army")
app.command()(tournament)
app.command("fit-value")(fit_value_command)
app.command()(learn)
app.command()(review)


def fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {escape(message)}")  # a message may hold brackets: "the [set] table"
    return typer.Exit(2)


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """`--option key=value` pairs; values read as JSON where they parse (numbers, true, null)."""
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise fail(f"--option wants key=value, got '{pair}'")
        try:
            options[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            options[key.strip()] = value
    return options


def declared(info: GameInfo) -> str:
    """What a game declares of itself, in one line: chance, information, returns, what a server plays online."""
    payoffs = info.payoffs
    returns = f"{payoffs.utility} returns from {payoffs.min_return:g} to {payoffs.max_return:g}"
    chance = "chance at each die and draw" + (", shuffles from the seed" if info.chance == "shuffles" else "")
    facts = [f"{info.information} information", chance, returns]
    if info.simultaneous:
        facts.append("simultaneous choices or races")
    if info.online_ranges:
        facts.append("online: " + ", ".join(f"{r.option} {r.low}-{r.high}" for r in info.online_ranges))
    return "; ".join(facts)


@app.command()
def games() -> None:
    """List the games with their player counts and options."""
    for name in bestiary.list_games():
        cls = game_class(name)
        counts = ", ".join(str(n) for n in cls.info.player_counts)
        console.print(f"[bold]{name}[/bold] - {escape(cls.info.title)}; players: {counts}")
        console.print(f"  {escape(cls.info.summary)}")
        console.print(f"  [dim]{escape(declared(cls.info))}[/dim]")
        for field, spec in cls.Options.model_fields.items():
            if field != "players":
                console.print(f"  [cyan]{field}[/cyan] (default {escape(repr(spec.default))}): "
                              f"{escape(spec.description or '')}")
        console.print()


@app.command()
def rules(game: Annotated[str, typer.Argument(help="game name, e.g. critter-capture")],
          rule: Annotated[str | None, typer.Argument(help="one rule's id, e.g. CUBE-31 (or just 31)")] = None) -> None:
    """Print a game's rules: every rule of the rule book with its id and Bestiary's reading, or one rule."""
    try:
        loaded = game_class(game)
        info = loaded.info
    except BestiaryError as error:
        raise fail(str(error)) from None
    path = doc_path(f"rules/{info.rules_doc}")
    if path is None:
        raise fail(f"the rules document {info.rules_doc} is not installed")
    # Wrapped at the terminal's width (80 columns when piped), never cut: every reading is kept.
    wrapping = Console(highlight=False, soft_wrap=False)
    if rule is None:
        wrapping.print(Markdown(path.read_text(encoding="utf-8")))
        return
    index = rule_index(info.rules_doc)
    found = find_rule(index, rule)
    if found is None:
        ids = list(index)
        raise fail(f"{game} has no rule '{rule}': its rules are {ids[0]} to {ids[-1]} "
                   f"(`bestiary rules {game}` lists them)")
    wrapping.print(Text(rule_in_full(found, wrapping.width)))


@app.command()
def play(
    game: Annotated[str, typer.Argument(help="game name, e.g. critter-capture")],
    players: Annotated[int | None, typer.Option("--players", "-n", help="number of players")] = None,
    seat: Annotated[list[str] | None, typer.Option(
        "--seat", "-s", help=f"who sits in each seat, in order: {HUMAN}, a computer by level "
        f"({', '.join(LEVELS)}) or an agent ({', '.join(agent_names())}); missing seats are random")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="game option key=value")] = None,
    cards: Annotated[Path | None, typer.Option(help="your own card file")] = None,
    seed: Annotated[int | None, typer.Option(help="seed for shuffles and dice")] = None,
    record: Annotated[Path | None, typer.Option(help="save the game record to this file")] = None,
    race_speed: Annotated[float, typer.Option(
        min=0.0, help="computer players' reaction times in races (swat, token race) are multiplied by this; "
        f"the default {TABLE_SPEED:g} is about a person's speed at a table, 1 the computer's own")] = TABLE_SPEED,
) -> None:
    """Play in the terminal: hotseat for several humans, or against the computer."""
    seats = [s.strip().lower() for s in (seat or [HUMAN])]
    options = parse_options(option or [])
    if players is not None:
        options["players"] = players
    elif "players" not in options:
        options["players"] = max(len(seats), min(game_class_or_fail(game).info.player_counts))
    if cards is not None:
        options["cards"] = str(cards)
    try:
        loaded = bestiary.load_game(game, **options)
        if len(seats) > loaded.num_players:
            raise fail(f"{len(seats)} seats given for {loaded.num_players} players")
        seats += ["random"] * (loaded.num_players - len(seats))
        computers = teaching_of(game).computers
        seats = [computers.get(s, s) for s in seats]  # a level names the game's agent for it
        table = TerminalTable(loaded, seats, fresh_seed() if seed is None else seed, console,
                              race_speed=race_speed)
    except BestiaryError as error:
        raise fail(str(error)) from None
    console.print(f"[bold]{escape(loaded.info.title)}[/bold] - seed {table.state.seed}; seats: "
                  + escape(", ".join(f"P{p + 1} {seat_label(game, s)}" for p, s in enumerate(seats))))
    try:
        state = table.play()
    except (Quit, EOFError, KeyboardInterrupt):
        console.print("\nGame left unfinished.")
        state = table.state
    if record is not None:
        save_record(record_of(state, seats), record)
        console.print(f"Record saved to {escape(str(record))}.")


def seat_label(game: str, seat: str) -> str:
    """"you" for a person, "Computer (medium)" for a level's agent, "Computer (mcts:sims=50)" for another."""
    if seat == HUMAN:
        return HUMAN
    return f"Computer ({teaching_of(game).computer_level(seat) or seat})"


def game_class_or_fail(game: str) -> type[bestiary.Game]:
    try:
        return game_class(game)
    except BestiaryError as error:
        raise fail(str(error)) from None


@app.command(name="replay")
def replay_command(
    record_file: Annotated[Path, typer.Argument(help="a game record (JSON)")],
    cards: Annotated[Path | None, typer.Option(help="the card file the game was played with")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="only check, do not print the log")] = False,
) -> None:
    """Replay a game record to the identical state, printing what happened."""
    try:
        rec = load_record(record_file)
        state = replay(rec, cards=str(cards) if cards else None)
    except BestiaryError as error:
        raise fail(str(error)) from None
    if not quiet:
        for event in state.events(None):
            console.print(f"  · {escape(event.text)}")
        console.print(state.game.render(state.observation(None)))
    status = "finished" if state.is_terminal() else "unfinished"
    console.print(f"Replayed {len(rec.actions)} actions of a {status} {rec.game} game: the state matches "
                  "the record." + (f" Returns: {state.returns()}" if state.is_terminal() else ""))


@app.command()
def scenario(files: Annotated[list[Path], typer.Argument(help="scenario files or folders")]) -> None:
    """Run scenario files (TOML or JSON) and report pass or fail for each; exit 1 on any failure."""
    paths = scenario_files(files)  # a folder's scenarios: files with `steps` or `refused` (docs/scenarios.md)
    if not paths:
        raise fail("no scenario files found")
    failed = 0
    for path in paths:
        result = run_scenario(path)
        if result.passed:
            console.print(f"[green]pass[/green] {escape(str(path))}  {escape(result.name)}")
        else:
            failed += 1
            console.print(f"[red]FAIL[/red] {escape(str(path))}  {escape(result.name)}\n     "
                          f"{escape(result.message)}")
    console.print(f"{len(paths) - failed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)


app.command()(serve)

# the analysis commands import this module's helpers, so they are added once those exist
from bestiary.cli import analysis, tune  # noqa: E402

analysis.register(app)
tune.register(app)

if __name__ == "__main__":
    app()
