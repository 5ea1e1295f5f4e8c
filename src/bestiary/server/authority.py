"""The authority over one room's game: it checks and applies moves, plays chance, and keeps the response
window the game is in. Synchronous: no event loop, no database, no web framework; the time is passed in
(a reading of the room's clock, server/clock.py), so a test drives it move by move.

A move follows one path: `check_turn` (the seat and the version it chose at), `move` (applied with
`State.apply_action` on a copy), `played` (the chance outcomes that follow, the room's new status and
window), and, once the room has stored it, `adopt`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bestiary.core.api import CHANCE, Action, Game, State, WindowKind, is_window
from bestiary.core.errors import BestiaryError
from bestiary.server import protocol
from bestiary.server.errors import ServerError
from bestiary.server.takeback import Verdict, judge, refusal

TAKE_BACK_DEPTH = 16  # the most moves of one turn the room keeps the positions before, to take them back
PASS = "pass"  # the action a response window's player takes by not answering in time
Made = list[tuple[int, int, str]]  # (version, player or CHANCE, action text): moves to store


@dataclass
class OpenWindow:
    kind: WindowKind
    players: frozenset[int]
    opened_at_version: int
    deadline: float  # clock time


@dataclass
class Change:
    """A new position, ready to be stored: the moves that lead to it, the room's values and its window."""

    state: State
    made: Made
    values: dict[str, Any]
    window: OpenWindow | None


class Authority:
    """One room's game: its state, status, result and open window."""

    def __init__(self, game: Game, seed: int, window_seconds: float, chance: Callable[[State], Action],
                 status: str = "waiting", result: dict[str, Any] | None = None) -> None:
        self.game = game
        self.seed = seed
        self.state: State = game.new_initial_state(seed=seed)
        self.window_seconds = window_seconds
        self.status = status
        self.result = result
        self.window: OpenWindow | None = None
        self.chance = chance  # the referee's draw for a chance node (core/referee.py)
        # the positions before each of the last moves, while they are one seat's moves with nothing else
        # between them (no chance, no other seat): what a take-back returns to (server/takeback.py)
        self.before_moves: list[State] = []
        self.verdicts: tuple[State, dict[int, Verdict]] | None = None  # for the state they were judged on

    @property
    def version(self) -> int:
        return self.state.history_length()

    def to_act(self) -> list[int]:
        return self.state.players_to_act() if self.status == "playing" else []

    def replay_stored(self, moves: list[tuple[int, str]]) -> None:
        """The stored moves applied again, in order (a room loaded from its record), keeping the positions
        before the last moves that one seat made in a row, as the room kept them before its restart."""
        kept = min(trailing_run([player for player, _ in moves]), TAKE_BACK_DEPTH)
        for number, (player, action) in enumerate(moves):
            if number >= len(moves) - kept:
                self.before_moves.append(self.state.clone())
            self.state.apply_action(action, player=None if player == CHANCE else player)

    # -- a seat's move ------------------------------------------------------------------------------
    def check_turn(self, seat: int, version: int) -> None:
        if self.status == "waiting":
            raise ServerError("not-started", "the game starts when every seat is taken", 409)
        if self.status == "finished":
            raise ServerError("finished", "the game is over", 409)
        to_act = self.state.players_to_act()
        if version != self.version:
            # Inside a window each listed player answers independently: a move chosen after the window
            # opened still counts after the others' answers (not after the mover's own: that would be a
            # replay); in a race the first move other than a pass has closed it.
            window = self.window
            if (window is None or not window.opened_at_version <= version <= self.version or seat not in to_act
                    or any(player == seat for player, _ in self.state.history_since(version))):
                raise ServerError("stale", f"the game has moved on (your move was chosen at version {version}, "
                                           f"it is now {self.version}): look again and choose anew", 409)
        if seat not in to_act:
            who = ", ".join(f"P{p + 1}" for p in to_act) or "no one"
            raise ServerError("not-your-turn", f"it is not P{seat + 1}'s turn (to act: {who})", 409)

    def move(self, seat: int, action: Any) -> tuple[State, Made]:
        """The move applied on a copy (an action or its text); a refused one changes nothing."""
        candidate = self.state.clone()
        try:
            candidate.apply_action(action, player=seat)
        except BestiaryError as error:
            raise ServerError("illegal", str(error)) from None
        return candidate, [(self.version, seat, str(candidate.history_since(self.version)[0][1]))]

    def timed_out(self) -> tuple[State, Made] | None:
        """The window's time is up: every listed player who may pass, passes (a choice without `pass` stays
        open); None when nobody can."""
        if self.window is None:
            return None
        candidate = self.state.clone()
        made: Made = []
        for player in candidate.players_to_act():
            if player in candidate.players_to_act() and any(str(a) == PASS for a in candidate.legal_actions(player)):
                made.append((candidate.history_length(), player, PASS))
                candidate.apply_action(PASS, player=player)
        return (candidate, made) if made else None

    # -- what follows a move ------------------------------------------------------------------------
    def played(self, candidate: State, made: Made, now: float, room_values: dict[str, Any] | None = None) -> Change:
        """The chance outcomes that follow `candidate`, played; the room's status, result and window after."""
        while candidate.is_chance_node():
            made.append((candidate.history_length(), CHANCE, str(self.chance(candidate))))
            candidate.apply_action(made[-1][2])
        values = {"status": self.status, "result": self.result, **(room_values or {})}
        if candidate.is_terminal():
            values.update(status="finished", result=candidate.result())
        return Change(candidate, made, values, self.window_after(candidate, values["status"], now))

    def adopt(self, change: Change, now: float) -> None:
        """The stored change becomes the room's game. A new window's time runs from now, when its players are
        told of it, not from before the commit."""
        window = change.window
        if window is not None and window is not self.window:
            window = replace(window, deadline=now + self.window_seconds)
        mover = change.made[0][1] if len(change.made) == 1 and change.made[0][1] != CHANCE else None
        if mover is None:
            self.before_moves = []
        else:  # the same seat moving on keeps the positions before its earlier moves; anyone else starts anew
            last = self.state.history_since(self.version - 1) if self.version else []
            kept = self.before_moves[-(TAKE_BACK_DEPTH - 1):] if last and last[0][0] == mover else []
            self.before_moves = [*kept, self.state]
        self.state, self.window = change.state, window
        self.status, self.result = change.values["status"], change.values["result"]

    # -- taking back a move (server/takeback.py) ------------------------------------------------------
    def take_back_verdict(self, seat: int) -> Verdict:
        """Whether `seat` may take back its last move now, and if not, why; judged once per position."""
        if self.status != "playing":
            return refusal("the game is not under way")
        if self.verdicts is None or self.verdicts[0] is not self.state:
            self.verdicts = (self.state, {})
        verdicts = self.verdicts[1]
        if seat not in verdicts:
            before = self.before_moves[-1] if self.before_moves else None
            verdicts[seat] = judge(before, self.state, seat, self.seed)
        return verdicts[seat]

    def check_take_back(self, seat: int, version: int) -> Verdict:
        """The seat's take-back, chosen at `version`, checked: a refusal raises, naming why."""
        if version != self.version:
            raise ServerError("stale", f"the game has moved on (you asked at version {version}, it is now "
                                       f"{self.version}): look again", 409)
        verdict = self.take_back_verdict(seat)
        if not verdict.allowed:
            raise ServerError("no-take-back", f"you cannot take that back: {verdict.why}", 409)
        return verdict

    def taken_back(self) -> None:
        """The stored take-back becomes the room's game: the position before the last move."""
        self.state = self.before_moves.pop()
        self.window = None  # a take-back is allowed only on an ordinary turn, where no window is open

    def window_after(self, state: State, status: str, now: float) -> OpenWindow | None:
        """The window `state` is in: the open one while its players answer one by one, else a new one."""
        kind = state.decision_kind() if status == "playing" else None
        if not is_window(kind):
            return None
        players = frozenset(state.players_to_act())
        # A window lasts while its players answer one by one; a race ends with its first move that is not a
        # pass (LUNGO-53: a pass takes only its sender out of the race).
        window = self.window
        if (window is None or window.kind != kind or not players <= window.players
                or (kind == "race" and not still_racing(state, window, players))):
            window = OpenWindow(kind, players, state.history_length(), now + self.window_seconds)
        return window

    def restore_window(self, opened_at: int | None, seconds_left: float | None, now: float) -> None:
        """The window a stored room was in, with the time it had left (a full window for older records)."""
        if opened_at is not None and seconds_left is not None and self.status == "playing":
            kind = self.state.decision_kind()
            if is_window(kind):
                answered = {player for player, _ in self.state.history_since(opened_at)}
                self.window = OpenWindow(kind, frozenset(self.state.players_to_act()) | answered,
                                         opened_at, now + max(0.0, seconds_left))
                return
        self.window = self.window_after(self.state, self.status, now)

    # -- looking back -------------------------------------------------------------------------------
    def replay_view(self, seat: int | None, step: int) -> protocol.ReplayView:
        history = self.state.history()
        if not 0 <= step <= len(history):
            raise ServerError("no-step", f"this game has steps 0 to {len(history)}", 404)
        state = self.game.new_initial_state(seed=self.seed)
        for player, action in history[:step]:
            state.apply_action(action, player=None if player == CHANCE else player)
        return protocol.ReplayView(step=step, steps=len(history), observation=state.observation(seat),
                                   events=[protocol.EventView(kind=e.kind, text=e.text, data=dict(e.data),
                                                              rules=list(e.rules))
                                           for e in state.events(seat)],
                                   decisions=decision_steps([player for player, _ in history]))


def still_racing(state: State, window: OpenWindow, players: frozenset[int]) -> bool:
    """Whether the race `window` goes on in `state`: every move since it opened is a pass by one of its
    players, and the players still listed are exactly those who have not passed (once all have, the next
    race is another)."""
    moves = state.history_since(window.opened_at_version)
    passed = {player for player, action in moves}
    return (all(player in window.players and str(action) == PASS for player, action in moves)
            and players == window.players - passed)


def trailing_run(players: list[int]) -> int:
    """How many of the last moves one seat made in a row (0 when the last is a chance outcome)."""
    run = 0
    for player in reversed(players):
        if player == CHANCE or (run and player != players[-1]):
            break
        run += 1
    return run


def decision_steps(players: list[int]) -> list[int]:
    """The steps a replay stops at, given who made each move: after the opening chance outcomes (the deal),
    then after each player's move together with the chance outcomes that follow it (a draw, a roll)."""
    def past_chance(step: int) -> int:
        while step < len(players) and players[step] == CHANCE:
            step += 1
        return step

    return [past_chance(0)] + [past_chance(number + 1) for number, player in enumerate(players) if player != CHANCE]
