"""Terminal play: humans at the keyboard (hotseat) and computer players, on any registered game."""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from rich.console import Console
from rich.panel import Panel

from bestiary.agents import Agent, SeatView, make_agent
from bestiary.core.api import Action, Game, State
from bestiary.core.chance import sample_chance
from bestiary.core.errors import ActionParseError

HUMAN = "human"
LONG_LIST = 30  # more legal actions than this are summarised rather than listed
LET_PASS = "pass"  # the action that lets a race moment go by


class Quit(Exception):
    """The player asked to leave the game."""


class TerminalTable:
    """Runs one game in the terminal. `ask` reads a line (injectable for tests)."""

    def __init__(self, game: Game, seats: list[str], seed: int, console: Console,
                 ask: Callable[[str], str] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.game = game
        self.seats = seats
        self.agents: dict[int, Agent] = {p: make_agent(s) for p, s in enumerate(seats) if s != HUMAN}
        self.console = console
        self.ask = ask or (lambda prompt: console.input(prompt))
        self.clock = clock
        self.rng = random.Random(seed)
        self.state: State = game.new_initial_state(seed=seed)
        self.shown_events = 0
        self.shown_public = 0
        self.last_human: int | None = None
        self.hidden = game.info.information == "imperfect"
        self.humans = [p for p, s in enumerate(seats) if s == HUMAN]

    def play(self) -> State:
        state = self.state
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(sample_chance(state, self.rng))
                continue
            if state.decision_kind() == "race":
                self.race()
                continue
            for player in state.players_to_act():
                if state.is_terminal() or player not in state.players_to_act():
                    break
                action = self.human_turn(player) if player in self.humans else self.bot_turn(player)
                state.apply_action(action, player=player)
        self.show_events(None)
        self.console.print(Panel(self.game.render(state.observation(None)), title="Game over"))
        result = state.result()
        self.console.print("Returns: " + ", ".join(f"P{p + 1} {r:g}" for p, r in enumerate(result["returns"])))
        return state

    def race(self) -> None:
        """The first to act wins: humans type their seat number at one shared prompt, and their typing
        time is set against each computer player's reaction delay."""
        state = self.state
        to_act = state.players_to_act()
        bots: dict[int, tuple[float, Action]] = {}
        for player in to_act:
            if player not in self.humans:
                view = SeatView(state, player)
                action = self.agents[player].act(view, self.rng)
                if str(action) != LET_PASS:
                    bots[player] = (self.agents[player].reaction_delay(view, self.rng), action)
        humans = [p for p in to_act if p in self.humans]
        racing = [p for p in humans if self.race_actions(p)]
        seat, typing = None, float("inf")
        # With several humans at one screen, ask even when none may race, so the prompt tells nobody anything.
        if racing or (humans and self.hidden and len(self.humans) > 1):
            seat, typing = self.ask_race(humans)
        fastest = min(bots, key=lambda p: bots[p][0]) if bots else None
        if seat is not None and (fastest is None or typing <= bots[fastest][0]):
            state.apply_action(self.pick_race_action(seat), player=seat)
        elif fastest is not None:
            delay, action = bots[fastest]
            slower = f" (you took {typing:.2f} s)" if seat is not None else ""
            self.console.print(f"P{fastest + 1} is quickest: {action} after {delay:.2f} s{slower}.")
            state.apply_action(action, player=fastest)
        else:
            for player in to_act:
                if state.decision_kind() != "race" or player not in state.players_to_act():
                    break
                passing = [a for a in state.legal_actions(player) if str(a) == LET_PASS]
                if passing:
                    state.apply_action(passing[0], player=player)

    def race_actions(self, player: int) -> list[Action]:
        return [a for a in self.state.legal_actions(player) if str(a) != LET_PASS]

    def ask_race(self, humans: list[int]) -> tuple[int | None, float]:
        """(the seat typed, seconds taken), or (None, inf) when the moment is let pass."""
        viewer = self.humans[0] if len(self.humans) == 1 else None
        if viewer is None:  # a shared screen: the public log only
            public = self.state.events(None)
            for event in public[self.shown_public:]:
                self.console.print(f"  [dim]·[/dim] {event.text}")
            self.shown_public = len(public)
        else:
            self.show_events(viewer)
        self.console.print(Panel(self.game.render(self.state.observation(viewer)), title="Race!"))
        seats = ", ".join(str(p + 1) for p in humans)
        while True:
            start = self.clock()
            answer = self.ask(f"RACE - type your seat number ({seats}) and Enter to act first; "
                              "Enter alone lets it pass> ").strip().lower()
            taken = self.clock() - start
            if answer in ("q", "quit", "exit"):
                raise Quit
            if not answer:
                return None, float("inf")
            if answer.isdigit() and int(answer) - 1 in humans:
                seat = int(answer) - 1
                # A seat with nothing to race for lets the moment pass, saying no more than Enter would.
                return (seat, taken) if self.race_actions(seat) else (None, float("inf"))
            self.console.print(f"[red]Type one of the seat numbers {seats}, or just Enter.[/red]")

    def pick_race_action(self, player: int) -> Action:
        actions = self.race_actions(player)
        if len(actions) == 1:
            return actions[0]
        while True:
            for number, action in enumerate(actions, start=1):
                self.console.print(f"  [cyan]{number}[/cyan]  {action}")
            chosen = self.read_action(self.ask(f"P{player + 1}> ").strip(), actions)
            if chosen is not None:
                return chosen

    def bot_turn(self, player: int) -> Action:
        view = SeatView(self.state, player)
        return self.agents[player].act(view, self.rng)

    def show_events(self, viewer: int | None) -> None:
        events = self.state.events(viewer)
        for event in events[self.shown_events:]:
            self.console.print(f"  [dim]·[/dim] {event.text}")
        self.shown_events = len(events)

    def human_turn(self, player: int) -> Action:
        if self.hidden and len(self.humans) > 1 and self.last_human not in (None, player):
            self.console.clear()
            self.ask(f"Hand over to P{player + 1} and press Enter when only P{player + 1} can see the screen. ")
            self.shown_events = 0  # the new viewer sees the log as they may see it
        self.last_human = player
        self.show_events(player if self.hidden else None)
        observation = self.state.observation(player)
        self.console.print(Panel(self.game.render(observation), title=f"P{player + 1} to act"))
        legal = self.state.legal_actions(player)
        self.show_actions(legal, "")
        while True:
            answer = self.ask(f"P{player + 1}> ").strip()
            if answer.lower() in ("q", "quit", "exit"):
                raise Quit
            if answer.lower() in ("?", "h", "help"):
                self.console.print("Type the number or the text of an action; 'list' shows every action, "
                                   "'list WORD' those starting with WORD; 'quit' leaves the game.")
                continue
            if answer.lower().split()[:1] == ["list"]:
                self.show_actions(legal, answer[4:].strip().lower(), everything=True)
                continue
            chosen = self.read_action(answer, legal)
            if chosen is not None:
                return chosen

    def show_actions(self, legal: list[Action], prefix: str, everything: bool = False) -> None:
        """Numbered actions; a long list (a board game's moves) is summarised by its first words."""
        shown = [(n, a) for n, a in enumerate(legal, start=1) if str(a).lower().startswith(prefix)]
        if everything or len(shown) <= LONG_LIST:
            for number, action in shown:
                self.console.print(f"  [cyan]{number}[/cyan]  {action}")
            return
        kinds: dict[str, list[str]] = {}
        for _, action in shown:
            kinds.setdefault(str(action).split(" ", 1)[0], []).append(str(action))
        for kind, texts in kinds.items():
            examples = ", ".join(texts[:3]) + (", ..." if len(texts) > 3 else "")
            self.console.print(f"  [cyan]{kind}[/cyan] ({len(texts)}): {examples}")
        self.console.print(f"  {len(shown)} actions: type one (e.g. '{shown[0][1]}'), or 'list' / 'list WORD' "
                           "to number them.")

    def read_action(self, answer: str, legal: list[Action]) -> Action | None:
        if answer.isdigit():
            number = int(answer)
            if 1 <= number <= len(legal):
                return legal[number - 1]
            self.console.print(f"[red]No action {number}: choose 1 to {len(legal)}.[/red]")
            return None
        try:
            action = self.state.parse_action(answer)
        except ActionParseError:
            self.console.print(f"[red]'{answer}' is not an action of this game. Choose a number or type "
                               "one of the actions listed.[/red]")
            return None
        if action not in legal:
            self.console.print(f"[red]'{action}' is not legal now.[/red]")
            return None
        return action
