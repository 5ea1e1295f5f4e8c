"""`bestiary review`: a game record's review: every decision's error, every chance event's luck, each player's
summary and the win probability after every step (docs/review.md)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from bestiary.core.errors import BestiaryError
from bestiary.core.record import load_record
from bestiary.review import ReviewSettings, review_record
from bestiary.review.report import costliest, review_html, seat_name, summary_lines, verdict

console = Console(highlight=False, soft_wrap=True)
DEFAULT_SIMS = ReviewSettings().sims


def review(
    record_file: Annotated[Path, typer.Argument(help="a game record (JSON), e.g. from bestiary play --record")],
    json_out: Annotated[Path | None, typer.Option("--json", help="write the review as JSON here")] = None,
    html_out: Annotated[Path | None, typer.Option("--html", help="write the review as a page here")] = None,
    sims: Annotated[int, typer.Option(min=1, help="playouts weighing each decision's moves (more: surer, "
                                              "slower)")] = DEFAULT_SIMS,
    seed: Annotated[int, typer.Option(help="seed of the review's playouts (the same seed, the same review)")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=0, help="worker processes (0: one per core)")] = 1,
    cards: Annotated[Path | None, typer.Option(help="the card file the game was played with")] = None,
) -> None:
    """Review a finished game: each decision's error against the best move, each roll's and draw's luck, each
    player's summary and the win probability after every step, every figure from the player's own view."""
    from bestiary.cli.main import fail  # here: main imports this module to register it

    try:
        record = load_record(record_file)
        settings = ReviewSettings(sims=sims)
        with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TimeElapsedColumn(), TimeRemainingColumn(), console=console) as progress:
            task = progress.add_task(f"{record.game}: reviewing steps", total=len(record.actions))

            def advance(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            result = review_record(record, settings, seed, jobs or (os.cpu_count() or 1),
                                   str(cards) if cards else None, advance)
        page = review_html(result, record, str(cards) if cards else None) if html_out is not None else None
    except BestiaryError as error:
        raise fail(str(error)) from None
    for line in summary_lines(result):
        console.print(escape(line))
    for sentence in verdict(result).sentences:
        console.print(escape(sentence))
    for d in costliest(result, 5):
        console.print(f"  step {d.step}: {seat_name(d.player)} played {escape(d.action)}, best {escape(d.best)}: "
                      f"{d.kind}, lost {d.loss:.3f}")
    if json_out is not None:
        json_out.write_text(json.dumps(result.to_json(), indent=1) + "\n", encoding="utf-8")
        console.print(f"Review written to {escape(str(json_out))}.")
    if html_out is not None and page is not None:
        html_out.write_text(page, encoding="utf-8")
        console.print(f"Page written to {escape(str(html_out))}.")
