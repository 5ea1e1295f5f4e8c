"""`bestiary learn GAME`: the guided first game in the terminal (the engine is bestiary/tutorial.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from bestiary.cli.play import shown
from bestiary.cli.teach import find_rule
from bestiary.core.errors import BestiaryError
from bestiary.tutorial import LEARNER, Explanation, Tutorial

SHOWN_MOVES = 20  # more moves than this are listed only on `list`
HELP = ("Enter plays the suggested move (marked ★). Or type a move's number or its words. "
        "`why`: the rules behind what just happened. `rule ID`: one rule (e.g. `rule CUBE-31`). "
        "`list`: every move. `board`: the table again. `quit`: stop.")


class Lesson:
    """The tutorial in the terminal: reads lines from `ask` until the game ends or the learner quits."""

    def __init__(self, tutorial: Tutorial, console: Console, ask: Callable[[str], str]) -> None:
        self.tutorial = tutorial
        self.console = console
        self.ask = ask
        self.shown = 0  # events printed so far

    def say(self, text: str, style: str = "") -> None:
        self.console.print(Text(text, style=style))

    def explain(self, explanation: Explanation, reading: bool = True) -> None:
        """A rule's plain words and the book's; with `reading`, how Bestiary plays it too (for `rule ID`)."""
        self.say(f"  {explanation.rule}: {explanation.words}", "green")
        if explanation.text and explanation.text != explanation.words:
            self.say(f"    The rule book: {explanation.text}", "dim")
        if reading and explanation.reading and explanation.reading != explanation.words:
            self.say(f"    In Bestiary: {explanation.reading}", "dim")

    def news(self) -> None:
        """The events since the last look, each new rule told in plain words."""
        for told in self.tutorial.told[self.shown:]:
            self.say(f"· {told.text}" + (f"  ({', '.join(told.rules)})" if told.rules else ""))
            for lesson in told.lessons:
                self.say(f"  ✎ {lesson.words}", "bold green")
        self.shown = len(self.tutorial.told)

    def table(self) -> None:
        tutorial = self.tutorial
        picture = tutorial.game.render(tutorial.state.observation(LEARNER))
        self.console.print(Panel(Text.from_markup(picture), title=escape(f"{tutorial.game.info.title}: your view")))

    def moves(self, every: bool = False) -> list[str]:
        legal = self.tutorial.legal()
        suggestion = self.tutorial.suggestion()
        for number, move in enumerate(legal, start=1):
            if every or number <= SHOWN_MOVES or move == suggestion:
                self.say(f"  {number:>3}. {shown(move)}" + ("   ★ suggested" if move == suggestion else ""),
                         "bold" if move == suggestion else "")
        if not every and len(legal) > SHOWN_MOVES:
            self.say(f"  … and {len(legal) - SHOWN_MOVES} more: type `list` to see them all.", "dim")
        if suggestion:
            words = self.tutorial.teaching.move_words(suggestion)
            self.say(f"Suggested: {shown(suggestion)}" + (f". {words}" if words else ""), "yellow")
        return legal

    def why(self) -> None:
        explanations = self.tutorial.why()
        if not explanations:
            self.say("Nothing has happened yet: the rules will come as the game goes.")
        for explanation in explanations:
            self.explain(explanation, reading=False)
        suggestion = self.tutorial.suggestion()
        if suggestion and (words := self.tutorial.teaching.move_words(suggestion)):
            self.say(f"  The suggested move, {shown(suggestion)}: {words}", "yellow")

    def run(self) -> bool:
        """Play to the end; True when the game was finished."""
        tutorial = self.tutorial
        self.say(tutorial.game.info.title, "bold")
        self.say(tutorial.teaching.welcome)
        others = [f"P{seat + 1}" for seat in range(tutorial.game.num_players) if seat != LEARNER]
        self.say(f"You are P{LEARNER + 1}; the computer{'s are' if len(others) > 1 else ' is'} {', '.join(others)}.")
        self.say(HELP, "dim")
        while True:
            self.news()
            if tutorial.finished:
                self.say(tutorial.result(), "bold")
                self.say(f"Play a real game against an easy computer: bestiary play {tutorial.game_name} "
                         f"--seat human --seat {tutorial.teaching.computers['easy']}", "bold")
                return True
            self.table()
            legal = self.moves()
            if not self.answer(self.ask("Your move (Enter: ★, why, rule ID, list, quit)> ").strip(), legal):
                self.say("See you next time!")
                return False

    def answer(self, line: str, legal: list[str]) -> bool:
        """Act on one line; False to stop."""
        word = line.lower()
        if word in ("quit", "exit", "q"):
            return False
        if word == "why":
            self.why()
            return self.answer(self.ask("> ").strip(), legal)
        if word in ("help", "?"):
            self.say(HELP)
            return self.answer(self.ask("> ").strip(), legal)
        if word == "list":
            self.moves(every=True)
            return self.answer(self.ask("> ").strip(), legal)
        if word == "board":
            return True
        if word.startswith("rule "):
            wanted = line.split(None, 1)[1].strip()
            found = find_rule(self.tutorial.rules, wanted)  # "CUBE-31", "cube-31" or "31"
            if found is None:
                self.say(f"{self.tutorial.game_name} has no rule {wanted}", "red")
            else:
                self.explain(self.tutorial.explain(found.id))
            return self.answer(self.ask("> ").strip(), legal)
        move = (self.tutorial.suggestion() or "") if not line else (
            legal[int(line) - 1] if line.isdigit() and 1 <= int(line) <= len(legal) else line)
        try:
            self.tutorial.play(move)
        except BestiaryError as error:
            self.say(f"Not allowed: {error}", "red")
        return True


def learn(game: Annotated[str, typer.Argument(help="game name, e.g. critter-capture")]) -> None:
    """A guided first game against an easy computer: each rule explained the first time it comes up."""
    console = Console(highlight=False)
    try:
        tutorial = Tutorial(game)
    except BestiaryError as error:
        console.print(f"[red]error:[/red] {escape(str(error))}")
        raise typer.Exit(2) from None
    try:
        Lesson(tutorial, console, lambda prompt: console.input(escape(prompt))).run()
    except (EOFError, KeyboardInterrupt):
        console.print("\nSee you next time!")
