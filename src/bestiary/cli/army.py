"""`bestiary army check FILE`: read an army file and say whether it is legal, and why not."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from bestiary.core.errors import BestiaryError
from bestiary.core.registry import game_class, list_games

app = typer.Typer(help="Build and check armies for games played with armies (crits-creatures).",
                  no_args_is_help=True)
console = Console(highlight=False)


@app.command()
def check(
    army_file: Annotated[str, typer.Argument(help="an army file (TOML) or a preset army's name")],
    game: Annotated[str | None, typer.Option(help="the game the army is for (default: the one played with armies)")
                    ] = None,
    cards: Annotated[Path | None, typer.Option(help="the card file the army draws from")] = None,
) -> None:
    """Check an army: legal armies print a summary; an illegal one names the rule it breaks (exit 1)."""
    try:
        if game is None:
            with_armies = [name for name in list_games() if hasattr(game_class(name), "check_army")]
            if len(with_armies) != 1:
                console.print(f"[red]error:[/red] name the game with --game ({', '.join(with_armies)})")
                raise typer.Exit(2)
            game = with_armies[0]
        checker: Any = getattr(game_class(game), "check_army", None)
        if checker is None:
            console.print(f"[red]error:[/red] {escape(game)} is not played with armies")
            raise typer.Exit(2)
        summary = checker(army_file, str(cards) if cards else None)
    except BestiaryError as error:
        console.print(f"[red]illegal:[/red] {escape(str(error))}")
        raise typer.Exit(1) from None
    console.print(f"[green]legal:[/green] {escape(summary)}")
