"""Terminal play: humans at the keyboard (hotseat) and computer players, on any registered game."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Sequence

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.text import Text

from bestiary.agents import Agent, make_agent, pacing
from bestiary.agents.match import AgentSeat
from bestiary.core.api import Action, Game, State
from bestiary.core.errors import ActionParseError, IllegalActionError
from bestiary.core.referee import Referee

HUMAN = "human"
LONG_LIST = 30  # more legal actions than this are summarised rather than listed
LET_PASS = "pass"  # the action that lets a race moment go by
TABLE_SPEED = 3.0  # computer players' race reactions, times this: about a person's speed at a table
FINAL_EVENTS = 8  # at the end, a viewer who has not followed the log sees its last events
COPY_ID = re.compile(r"#\d+\b")  # "snatch#3": the third copy of a card, an id people need not see


def shown(action: Action | str) -> str:
    """An action as people read it: without the internal copy number of a card ('play snatch')."""
    return COPY_ID.sub("", str(action))


def outcome_words(returns: Sequence[float]) -> str:
    """The result in words: who won, who lost, and the score of each seat."""
    scores = ", ".join(f"P{p + 1} {r:+g}" for p, r in enumerate(returns))
    best, worst = max(returns), min(returns)
    if best == worst:
        return f"A draw: nobody wins (scores: {scores})."
    winners = [f"P{p + 1}" for p, r in enumerate(returns) if r == best]
    losers = [f"P{p + 1}" for p, r in enumerate(returns) if r == worst]
    won = f"{winners[0]} wins" if len(winners) == 1 else " and ".join(winners) + " share the win"
    lost = f"{losers[0]} loses" if len(losers) == 1 else " and ".join(losers) + " lose"
    return f"{won}; {lost} (scores: {scores})."


class Quit(Exception):
    """The player asked to leave the game."""


class TerminalTable:
    """Runs one game in the terminal. `ask` reads a line and `clock` tells the time (both injectable for
    tests); `race_speed` multiplies computer players' reaction times in races (TABLE_SPEED by default, so a
    person at the keyboard has a fair chance)."""

    def __init__(self, game: Game, seats: list[str], seed: int, console: Console,
                 ask: Callable[[str], str] | None = None, clock: Callable[[], float] = time.monotonic,
                 race_speed: float = TABLE_SPEED, sleep: Callable[[float], None] = time.sleep) -> None:
        self.game = game
        self.seats = seats
        self.agents: dict[int, Agent] = {p: make_agent(s) for p, s in enumerate(seats) if s != HUMAN}
        self.console = console
        self.ask = ask or (lambda prompt: console.input(escape(prompt)))
        self.clock = clock
        self.race_speed = race_speed
        self.sleep = sleep
        self.rng = random.Random(seed)  # the pace of a person's automatic passes
        self.state: State = game.new_initial_state(seed=seed)
        # chance and the computer players, as at every table (core/referee.py); races on a virtual clock
        self.referee = Referee(seed, [None if s == HUMAN else AgentSeat(self.agents[p]) for p, s in enumerate(seats)])
        self.shown_events: dict[int | None, int] = {}  # how much of each viewer's log has been printed
        self.last_human: int | None = None
        self.hidden = game.info.information == "imperfect"
        self.humans = [p for p, s in enumerate(seats) if s == HUMAN]

    def say(self, text: str, style: str = "") -> None:
        """Print a message as plain text (never read as markup), optionally in a style."""
        self.console.print(Text(text, style=style), soft_wrap=False)

    def panel(self, markup: str, title: str) -> None:
        # the game's picture is rich markup; a panel wraps it at the terminal's width
        self.console.print(Panel(Text.from_markup(markup), title=escape(title)), soft_wrap=False)

    def play(self) -> State:
        """The referee runs chance and the computer players, which answer before anyone at the keyboard (a
        computer takes a second at most); a person acts when no computer is left to."""
        state = self.state
        while not state.is_terminal():
            if state.decision_kind() == "race" and any(p in self.humans for p in state.players_to_act()):
                self.race()
            elif self.referee.step(state) is None:
                player = next(p for p in state.players_to_act() if p in self.humans)
                state.apply_action(self.human_turn(player), player=player)
        self.show_end()
        return state

    def show_end(self) -> None:
        """The final events (as the one person at the table, or everyone, may see them), the table, and the
        result in words."""
        viewer = self.humans[0] if self.hidden and len(self.humans) == 1 else None
        events = self.state.events(viewer)
        start = self.shown_events.get(viewer, max(0, len(events) - FINAL_EVENTS))
        for event in events[start:]:
            self.say(f"  · {event.text}")
        self.shown_events[viewer] = len(events)
        self.panel(self.game.render(self.state.observation(viewer)), "Game over")
        result = self.state.result()
        if result.get("reason"):
            self.say(f"The game ended: {result['reason']}.")
        self.say(outcome_words(result["returns"]), "bold")

    def race(self) -> None:
        """The first to act wins: people type their seat number at one shared prompt, and their time, from
        when the table is shown, is set against each computer player's arrival (the referee's reaction time,
        times race_speed). Computers that arrive first act first (a pass takes only its sender out)."""
        state = self.state
        humans = [p for p in state.players_to_act() if p in self.humans]
        racing = [p for p in humans if self.race_actions(p)]
        seat, typing = None, float("inf")
        # With several humans at one screen, ask even when none may race, so the prompt tells nobody anything.
        if racing or (humans and self.hidden and len(self.humans) > 1):
            seat, typing = self.ask_race(humans)
        opened = self.referee.clock.time()
        while state.decision_kind() == "race":
            arrivals = self.referee.arrivals(state)
            if not arrivals or (arrivals[0].at - opened) * self.race_speed > typing:
                break
            stepped = self.referee.step(state)
            assert stepped is not None  # a computer's arrival was due
            player, action = stepped
            if str(action) != LET_PASS:
                slower = f" (you took {typing:.2f} s)" if seat is not None else ""
                self.say(f"P{player + 1} is quickest: {shown(action)} after "
                         f"{(arrivals[0].at - opened) * self.race_speed:.2f} s{slower}.")
                return
        if state.decision_kind() != "race":
            return
        if seat is not None and seat in state.players_to_act():
            state.apply_action(self.pick_race_action(seat), player=seat)
            return
        for player in humans:  # let pass
            if state.decision_kind() != "race" or player not in state.players_to_act():
                break
            passing = [a for a in state.legal_actions(player) if str(a) == LET_PASS]
            if passing:
                state.apply_action(passing[0], player=player)

    def race_actions(self, player: int) -> list[Action]:
        return [a for a in self.state.legal_actions(player) if str(a) != LET_PASS]

    def ask_race(self, humans: list[int]) -> tuple[int | None, float]:
        """(the seat typed, seconds taken since the table was shown), or (None, inf) when let pass."""
        viewer = self.humans[0] if len(self.humans) == 1 else None
        self.show_events(viewer if self.hidden else None)
        self.panel(self.game.render(self.state.observation(viewer)), "Race!")
        seats = ", ".join(str(p + 1) for p in humans)
        # a race where nobody may pass (the token race) offers no pass
        may_pass = any(str(a) == LET_PASS for p in humans for a in self.state.legal_actions(p))
        prompt = (f"RACE - type your seat number ({seats}) and Enter to act first"
                  + ("; Enter alone lets it pass> " if may_pass else "> "))
        start = self.clock()  # the clock runs from when the table is shown, whatever is typed meanwhile
        while True:
            answer = self.ask(prompt).strip().lower()
            taken = self.clock() - start
            if answer in ("q", "quit", "exit"):
                raise Quit
            if not answer and may_pass:
                return None, float("inf")
            if answer.isdigit() and int(answer) - 1 in humans:
                seat = int(answer) - 1
                # A seat with nothing to race for lets the moment pass, saying no more than Enter would.
                return (seat, taken) if self.race_actions(seat) else (None, float("inf"))
            hint = ", or just Enter" if may_pass else " (there is no passing in this race)"
            self.say(f"Type one of the seat numbers {seats}{hint}.", "red")

    def pick_race_action(self, player: int) -> Action:
        actions = self.race_actions(player)
        if len(actions) == 1:
            return actions[0]
        while True:
            self.show_actions(actions, "")
            chosen = self.read_action(self.ask(f"P{player + 1}> ").strip(), actions, player)
            if chosen is not None:
                return chosen

    def show_events(self, viewer: int | None) -> None:
        events = self.state.events(viewer)
        for event in events[self.shown_events.get(viewer, 0):]:
            self.say(f"  · {event.text}")
        self.shown_events[viewer] = len(events)

    def human_turn(self, player: int) -> Action:
        if self.hidden and len(self.humans) > 1 and self.last_human not in (None, player):
            self.console.clear()
            self.ask(f"Hand over to P{player + 1} and press Enter when only P{player + 1} can see the screen. ")
        self.last_human = player
        viewer = player if self.hidden else None
        self.show_events(viewer)
        observation = self.state.observation(player)
        self.panel(self.game.render(observation), f"P{player + 1} to act")
        passing = pacing.automatic_pass(self.state, player)
        if passing is not None:
            # a window this seat can only pass: it passes by itself, after as long as an answer would take
            self.say(f"P{player + 1} holds nothing that answers this, and passes.")
            self.sleep(pacing.pass_delay(self.state, player, self.rng))
            return passing
        legal = self.state.legal_actions(player)
        self.show_actions(legal, "")
        while True:
            answer = self.ask(f"P{player + 1}> ").strip()
            if answer.lower() in ("q", "quit", "exit"):
                raise Quit
            if answer.lower() in ("?", "h", "help"):
                self.say("Type the number or the text of an action; 'list' shows every action, 'list WORD' those "
                         "starting with WORD; a word that is no action (a tile such as B3, 'cards') shows what "
                         "there is to see of it and the actions that name it; 'board' shows the table again; "
                         "'quit' leaves the game.")
                continue
            if answer.lower() == "board":
                self.panel(self.game.render(observation), f"P{player + 1} to act")
                continue
            if answer.lower().split()[:1] == ["list"]:
                self.show_actions(legal, answer[4:].strip().lower(), everything=True)
                continue
            chosen = self.read_action(answer, legal, player)
            if chosen is not None:
                return chosen

    def show_actions(self, legal: list[Action], prefix: str, everything: bool = False,
                     only: Sequence[Action] | None = None) -> None:
        """Numbered actions; a long list (a board game's moves) is summarised by its first words."""
        shown_list = [(n, a) for n, a in enumerate(legal, start=1)
                      if shown(a).lower().startswith(prefix) and (only is None or a in only)]
        if everything or len(shown_list) <= LONG_LIST:
            for number, action in shown_list:
                self.console.print(f"  [cyan]{number}[/cyan]  {escape(shown(action))}", soft_wrap=False)
            return
        kinds: dict[str, list[str]] = {}
        for _, action in shown_list:
            kinds.setdefault(shown(action).split(" ", 1)[0], []).append(shown(action))
        for kind, texts in kinds.items():
            examples = ", ".join(texts[:3]) + (", ..." if len(texts) > 3 else "")
            self.console.print(f"  [cyan]{escape(kind)}[/cyan] ({len(texts)}): {escape(examples)}", soft_wrap=False)
        self.say(f"  {len(shown_list)} actions: type one (e.g. '{shown(shown_list[0][1])}'), or 'list' / "
                 "'list WORD' to number them, or a tile to see what may act from it.")

    def read_action(self, answer: str, legal: list[Action], player: int) -> Action | None:
        if answer.isdigit():
            number = int(answer)
            if 1 <= number <= len(legal):
                return legal[number - 1]
            self.say(f"No action {number}: choose 1 to {len(legal)}.", "red")
            return None
        wanted = " ".join(answer.lower().split())
        for action in legal:  # the text as shown, copy numbers left out
            if shown(action).lower() == wanted:
                return action
        if self.look(answer, legal, player):
            return None
        try:
            action = self.state.parse_action(answer)
        except ActionParseError:
            self.say(f"'{answer}' is not an action of this game. Choose a number or type one of the actions "
                     "listed.", "red")
            return None
        if action not in legal:
            self.say(f"'{shown(action)}' is refused: {self.refusal(action, player)}.", "red")
            return None
        return action

    def look(self, word: str, legal: list[Action], player: int) -> bool:
        """A word that is no action (a tile, a piece, 'cards'): what the game shows of it, or else the legal
        actions that name it. False when there is nothing to show."""
        word = word.strip()
        if not word or " " in word:
            return False
        detail = self.game.describe(self.state.observation(player), word, [str(a) for a in legal])
        if detail is not None:
            self.console.print(Text.from_markup(detail), soft_wrap=False)
            return True
        naming = [a for a in legal if word.lower() in shown(a).lower().split()]
        if naming:
            self.say(f"Actions naming {word}:")
            self.show_actions(legal, "", everything=True, only=naming)
        return bool(naming)

    def refusal(self, action: Action, player: int) -> str:
        """The engine's own reason for refusing `action`, found on a copy of the state."""
        trial = self.state.clone()
        try:
            trial.apply_action(action, player=player)
        except IllegalActionError as error:
            return COPY_ID.sub("", error.reason)
        return "not legal now"
