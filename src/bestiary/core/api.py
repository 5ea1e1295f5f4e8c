"""The game API every Bestiary game implements (names follow OpenSpiel).

A `Game` is a configured rule set (player count, options, card set); it makes `State`s. A `State` is one
position: who acts, what they may do, what each player may see. Players are seats 0..n-1; the special
players below mark chance nodes, simultaneous choices and the end of the game.
"""

from __future__ import annotations

import json
import random
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Generic, Literal, NamedTuple, Protocol, Self, TypeAlias, TypeGuard, TypeVar

import numpy as np
from pydantic import BaseModel, ValidationError

from bestiary.core.chance import fresh_seed, sample_chance
from bestiary.core.errors import (
    ActionParseError,
    IllegalActionError,
    OptionError,
    StateFormatError,
    UnreachableActionError,
)
from bestiary.core.markup import plain_text
from bestiary.core.speedups import is_listed

CHANCE = -1  # a chance node: dice, a draw, a shuffle outcome
SIMULTANEOUS = -2  # several players choose at once, unseen by each other
TERMINAL = -4  # the game is over

# How the players to act decide (`State.decision_kind`); a window is a decision several players take part in.
WindowKind: TypeAlias = Literal["simultaneous", "response", "race"]
DecisionKind: TypeAlias = Literal["turn", "chance", "terminal", "simultaneous", "response", "race"]
WINDOW_KINDS: tuple[WindowKind, ...] = ("response", "race", "simultaneous")


def is_window(kind: DecisionKind | None) -> TypeGuard[WindowKind]:
    return kind in WINDOW_KINDS

STATE_FORMAT = "bestiary-state/1"

JSON = dict[str, Any]


class Action:
    """A move or a chance outcome: a small immutable value holding ids only.

    Each game defines its actions as frozen dataclasses deriving from this class, with an `index` field
    (stable integer for learning agents; chance outcomes have their own numbering) and a short `__str__`
    that `State.parse_action` reads back.
    """

    __slots__ = ()
    index: int


NO_DATA: Mapping[str, Any] = MappingProxyType({})


class Event(NamedTuple):
    """Something that happened, in plain words, for logs, the terminal, the browser and replays.

    `audience` is None when every player (and spectators) may know it, else the seats that may.
    `data` holds the ids involved (cards, players) for listeners such as the analysis tools.
    `rules` names the rules that made it happen, by their ids in the game's rules document ("CUBE-31").
    """

    kind: str
    text: str
    audience: tuple[int, ...] | None = None
    data: Mapping[str, Any] = NO_DATA
    rules: tuple[str, ...] = ()

    def visible_to(self, player: int | None) -> bool:
        return self.audience is None or (player is not None and player in self.audience)

    def to_dict(self) -> JSON:
        out: JSON = {"kind": self.kind, "text": self.text}
        if self.audience is not None:
            out["audience"] = list(self.audience)
        if self.data:
            out["data"] = dict(self.data)
        out["rules"] = list(self.rules)
        return out

    @classmethod
    def from_dict(cls, raw: JSON) -> Event:
        audience = raw.get("audience")
        return cls(raw["kind"], raw["text"], None if audience is None else tuple(audience),
                   dict(raw.get("data", {})), tuple(raw.get("rules", ())))


ChanceKind: TypeAlias = Literal["explicit", "shuffles"]
InformationKind: TypeAlias = Literal["perfect", "imperfect"]
Utility: TypeAlias = Literal["zero-sum", "constant-sum", "general-sum"]


@dataclass(frozen=True)
class Payoffs:
    """What a game's returns can be, as OpenSpiel's GameType and GameInfo state them: "zero-sum" (the returns add
    up to 0), "constant-sum" (to `return_sum`) or "general-sum", and the lowest and highest return a seat can get."""

    utility: Utility
    min_return: float
    max_return: float
    return_sum: float | None = None  # what every game's returns add up to (zero- and constant-sum games)

    def __post_init__(self) -> None:
        if self.min_return > self.max_return:
            raise ValueError(f"payoffs: the lowest return {self.min_return} is above the highest {self.max_return}")
        if (self.utility == "general-sum") != (self.return_sum is None):
            raise ValueError("payoffs: a zero- or constant-sum game states its return sum, a general-sum one none")
        if self.utility == "zero-sum" and self.return_sum != 0:
            raise ValueError("payoffs: a zero-sum game's returns add up to 0")


@dataclass(frozen=True)
class OnlineRange:
    """The values of an integer option that a server plays online unless told otherwise: the options that make a
    larger game to build and hold (a board's size, a card set's copies), so that making a room costs a bounded
    amount of memory and time. The game's own options say what its rules allow; this is narrower."""

    option: str
    low: int
    high: int

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError(f"option range {self.option}: {self.low} is above {self.high}")


@dataclass(frozen=True)
class GameInfo:
    """What a game is, before any option is chosen: everything that the tools around the games (the terminal,
    the server, the learning adapters) need to know of it, declared by the game itself."""

    name: str
    title: str
    rules_version: str
    player_counts: tuple[int, ...]  # the counts the standard rules allow
    summary: str
    chance: ChanceKind  # "explicit": dice and draws are chance nodes; "shuffles": also seeded shuffles
    information: InformationKind
    payoffs: Payoffs  # what `State.returns()` can be
    simultaneous: bool = False  # has simultaneous choices or races
    rules_doc: str = ""  # file name under docs/rules/
    online_ranges: tuple[OnlineRange, ...] = ()  # the option ranges a server plays unless told others
    batch_engine: str | None = None  # "module:Class" of an engine stepping N games as arrays (bestiary.rl.batched)


class GameOptions(BaseModel):
    """Options common to every game; each game extends it."""

    model_config = {"extra": "forbid", "frozen": True}

    players: int


def describe_validation_error(game: str, error: ValidationError) -> str:
    lines = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"])
        # a validator's own sentence, without pydantic's "Value error, " in front of it
        own = problem["type"] == "value_error" and "ctx" in problem
        message = str(problem["ctx"]["error"]) if own else problem["msg"]
        if problem["type"] == "extra_forbidden":
            lines.append(f"unknown option '{where}'")
        elif not where:  # a check across several options
            lines.append(message)
        else:
            lines.append(f"option '{where}': {message}")
    return f"{game}: " + "; ".join(lines)


class HeuristicPolicy(Protocol):
    """A rule-of-thumb player: picks from `legal` using only what `observation` shows."""

    def __call__(self, observation: JSON, legal: Sequence[Action], player: int,
                 rng: random.Random) -> Action: ...


class StatePolicy(Protocol):
    """A heuristic's choice for `player` read from a full state (a search's determinization): the same choice
    the heuristic makes from that player's observation of it."""

    def __call__(self, state: State, legal: Sequence[Action], player: int, rng: random.Random) -> Action: ...


class StateRanking(Protocol):
    """A heuristic's view of all of `player`'s legal actions in a full state: best first."""

    def __call__(self, state: State, legal: Sequence[Action], player: int, rng: random.Random) -> list[Action]: ...


S = TypeVar("S", bound="State")


class Heuristic(ABC, Generic[S]):
    """A game's own rule-of-thumb player (`Game.heuristic_policy`), with everything searches may ask of it. A game's
    heuristic subclasses this and overrides what it does better than the defaults below."""

    # How many playout steps a search should take before `value` scores a position: where the value is sharpest
    # for the moves it has to tell apart; None where the heuristic has no value.
    horizon: int | None = None

    @abstractmethod
    def __call__(self, observation: JSON, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        """The choice for `player` from what `observation` shows."""

    def on_state(self, state: S, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
        """The same choice read straight from a full state, for searches' playouts and priors: a heuristic may
        answer without building the whole observation at every step."""
        return self(state.observation(player), legal, player, rng)

    def rank_on_state(self, state: S, legal: Sequence[Action], player: int, rng: random.Random) -> list[Action]:
        """The legal actions best first (for progressive widening and sequential halving); by default its one
        choice alone, the rest unranked."""
        return [self.on_state(state, legal, player, rng)]

    def value(self, state: S) -> list[float] | None:
        """The estimate of each player's return from a full `state` (on the scale of `returns()`), for searches
        that cut their playouts short; None where it declines the position (or has no value at all)."""
        return None


class Game(ABC):
    """A configured game: rules, options and card set fixed. Makes states."""

    info: ClassVar[GameInfo]
    Options: ClassVar[type[GameOptions]]

    def __init__(self, options: GameOptions) -> None:
        self.options = options
        self.num_players = options.players
        self._by_text: dict[str, Action] = {}
        for table in (self.player_action_table(), self.chance_outcome_table()):
            for action in table:
                self._by_text[normalise_action_text(str(action))] = action

    @classmethod
    def parse_options(cls, options: dict[str, Any]) -> GameOptions:
        try:
            return cls.Options.model_validate(options)
        except ValidationError as error:
            raise OptionError(describe_validation_error(cls.info.name, error)) from None

    @classmethod
    def from_options(cls, **options: Any) -> Self:
        return cls(cls.parse_options(options))

    def __reduce__(self) -> tuple[Callable[..., Game], tuple[type[Game], str]]:
        # A game is its class and options: pickling rebuilds it from them (card tables may hold functions),
        # and unpickling in this process finds this very game, whose actions the states hold.
        options = self.options.model_dump_json()
        _UNPICKLED_GAMES[(type(self), options)] = self  # the latest pickled: its states come back to it
        return _unpickle_game, (type(self), options)

    # -- what a subclass provides -------------------------------------------------------------
    @abstractmethod
    def new_initial_state(self, seed: int | None = None) -> State:
        """The state before the first action; `seed` drives any shuffle the state makes itself."""

    @abstractmethod
    def player_action_table(self) -> Sequence[Action]:
        """Every distinct player action, position = index."""

    def chance_outcome_table(self) -> Sequence[Action]:
        """Every distinct chance outcome, position = index."""
        return ()

    @abstractmethod
    def _state_from_dict(self, raw: JSON, seed: int | None) -> State:
        """Rebuild a state from `State._to_dict`; raise StateFormatError on anything inconsistent."""

    @abstractmethod
    def render(self, observation: JSON) -> str:
        """A picture of an observation in text for the terminal, in its console markup (`[bold]...[/bold]`,
        `\\[` for a bracket; core/markup.py reads the plain text out of it)."""

    def describe(self, observation: JSON, word: str, legal: list[str]) -> str | None:
        """What the terminal shows, in its console markup, when a player types `word` that is no action (a tile,
        a piece, `cards`): a closer look at part of the table, given the texts of the player's legal actions (say,
        a piece's moves marked on the board). None where the game has nothing to show for it."""
        return None

    def terminal_help(self) -> str:
        """What the terminal's `help` says of this game's own words (its cards, its board, its symbols), a few
        lines of plain text; the commands every game shares are the terminal's own."""
        return ""

    def heuristic_policy(self) -> Heuristic[Any] | HeuristicPolicy | None:
        """The game's own rule-of-thumb player, if it has one: a `Heuristic` (a plain policy function also plays,
        without what searches may ask of a Heuristic)."""
        return None

    @classmethod
    def files_named(cls, options: GameOptions) -> list[str]:
        """Paths on this machine that these options would read (a card file, ...). A server refuses
        options that name any: its disk is not a client's to read."""
        cards = getattr(options, "cards", None)
        return [cards] if cards is not None else []

    def heuristic_state_policy(self) -> StatePolicy | None:
        """The heuristic read straight from a full state (`Heuristic.on_state`), for searches' playouts and
        priors; None without a heuristic."""
        policy = self.heuristic_policy()
        if policy is None:
            return None
        if isinstance(policy, Heuristic):
            on_state: StatePolicy = policy.on_state
            return on_state

        def from_observation(state: State, legal: Sequence[Action], player: int, rng: random.Random) -> Action:
            return policy(state.observation(player), legal, player, rng)

        return from_observation

    def heuristic_state_ranking(self) -> StateRanking | None:
        """The heuristic's legal actions best first, read from a full state (`Heuristic.rank_on_state`), for
        searches' priors and progressive widening; a plain policy's one choice alone; None without a heuristic."""
        policy = self.heuristic_policy()
        if isinstance(policy, Heuristic):
            rank: StateRanking = policy.rank_on_state
            return rank
        choose = self.heuristic_state_policy()
        if choose is None:
            return None

        def first_choice(state: State, legal: Sequence[Action], player: int, rng: random.Random) -> list[Action]:
            return [choose(state, legal, player, rng)]

        return first_choice

    def heuristic_value(self, state: State) -> list[float] | None:
        """The heuristic's estimate of each player's return from a full `state` (`Heuristic.value`), for searches
        that cut their playouts short; None where it has none."""
        policy = self.heuristic_policy()
        return policy.value(state) if isinstance(policy, Heuristic) else None

    def heuristic_horizon(self) -> int | None:
        """How many playout steps a search should take before the heuristic value scores a position
        (`Heuristic.horizon`); None where the game has no value."""
        policy = self.heuristic_policy()
        return policy.horizon if isinstance(policy, Heuristic) else None

    def max_game_length(self) -> int | None:
        """The most actions (chance outcomes included) a game with these options can take, where the rules bound
        it; None where they do not say (a learning library then assumes a generous bound)."""
        return None

    def card_set_info(self) -> JSON | None:
        """The card set in use: {"id", "hash", "path"}; None for games without cards."""
        return None

    def observation_tensor_shape(self) -> tuple[int, ...]:
        """The fixed shape of `State.observation_tensor`, for learning agents."""
        raise NotImplementedError(f"{self.info.name} has no observation tensor yet (docs/rl.md: adding one)")

    def observation_tensor_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The lowest and highest value each element of `State.observation_tensor` can take (finite), for
        learning libraries' observation spaces."""
        raise NotImplementedError(f"{self.info.name} has no observation tensor yet (docs/rl.md: adding one)")

    def reaction_delay(self, player: int, rng: random.Random) -> float | None:
        """Seconds a computer player takes to act in a race by the game's reaction-time model; None where
        the game has none (the agent's own model applies)."""
        return None

    # -- shared behaviour ---------------------------------------------------------------------
    def num_distinct_actions(self) -> int:
        return len(self.player_action_table())

    def max_chance_outcomes(self) -> int:
        return len(self.chance_outcome_table())

    def options_dict(self) -> JSON:
        return self.options.model_dump(mode="json")

    def parse_action(self, text: str) -> Action:
        action = self._by_text.get(normalise_action_text(text))
        if action is None:
            raise ActionParseError(f"{self.info.name}: no action reads '{text}'")
        return action

    def header(self) -> JSON:
        return {"game": self.info.name, "rules_version": self.info.rules_version,
                "options": self.options_dict(), "card_set": self.card_set_info()}

    def state_from_json(self, text: str) -> State:
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            raise StateFormatError(f"not JSON: {error}") from None
        return self.state_from_dict(raw)

    def state_from_dict(self, raw: Any) -> State:
        if not isinstance(raw, dict) or raw.get("format") != STATE_FORMAT:
            raise StateFormatError(f"not a Bestiary state (expected \"format\": \"{STATE_FORMAT}\")")
        self._check_header(raw)
        body = raw.get("state")
        if not isinstance(body, dict):
            raise StateFormatError("the 'state' field must be an object")
        seed = raw.get("seed")
        if seed is not None and not isinstance(seed, int):
            raise StateFormatError("the 'seed' field must be an integer or null")
        try:
            state = self._state_from_dict(body, seed)
            history = [(int(p), self.parse_action(str(a))) for p, a in raw.get("history", [])]
            state._history = chain(history)
            state._played = len(history)
            state._events = chain(Event.from_dict(e) for e in raw.get("events", []))
        except StateFormatError:
            raise
        except (KeyError, TypeError, ValueError, IndexError) as error:
            raise StateFormatError(f"{self.info.name}: bad state field: {error!r}") from None
        return state

    def _check_header(self, raw: JSON) -> None:
        mine = self.header()
        for key in ("game", "rules_version", "options"):
            if raw.get(key) != mine[key]:
                raise StateFormatError(f"the state is for {key} {raw.get(key)!r}, this game has {mine[key]!r}")
        theirs = raw.get("card_set")
        if (theirs or {}).get("hash") != (mine["card_set"] or {}).get("hash"):
            raise StateFormatError("the state was made with another card set (card-set hash differs)")


_UNPICKLED_GAMES: weakref.WeakValueDictionary[tuple[type[Game], str], Game] = weakref.WeakValueDictionary()


def _unpickle_game(cls: type[Game], options: str) -> Game:
    """The game with these options, made once per process while in use: games never change, and states
    unpickled by the thousand (multiprocessing, vector environments) then share one."""
    key = (cls, options)
    game = _UNPICKLED_GAMES.get(key)
    if game is None:
        game = cls(cls.Options.model_validate_json(options))
        _UNPICKLED_GAMES[key] = game
    return game


T = TypeVar("T")
Chain: TypeAlias = tuple["Chain[T]", T] | None


EventMark: TypeAlias = object  # a link of a state's event log, handed out by State.events_after


def chain(items: Iterable[T]) -> Chain[T]:
    """An append-only log as nested (earlier, newest) pairs: appending and sharing cost O(1)."""
    out: Chain[T] = None
    for item in items:
        out = (out, item)
    return out


def unchain(log: Chain[T]) -> list[T]:
    """The log's items, oldest first."""
    items = []
    while log is not None:
        log, item = log
        items.append(item)
    items.reverse()
    return items


def normalise_action_text(text: str) -> str:
    return " ".join(text.lower().split())


class State(ABC):
    """One position of a game. Mutable; `clone()` gives an independent copy."""

    def __init__(self, game: Game, seed: int | None) -> None:
        self.game = game
        self.seed = fresh_seed() if seed is None else seed
        # Append-only logs kept as chains of (earlier, newest) pairs, so that a clone shares them for free.
        self._history: Chain[tuple[int, Action]] = None
        self._played = 0  # the history's length, kept so that asking it costs nothing
        # Each entry an Event, or a (render, args) pair logged by _log_later and made into its Event on reading.
        self._events: Chain[Event | tuple[Callable[..., Event], tuple[Any, ...]]] = None
        # The legal list last handed out, with its player and whether they alone may act, so that applying
        # one of its actions need not check the player or build the list again; apply_action drops it.
        self._legal_cache: tuple[int, Sequence[Action], bool] | None = None

    # -- what a subclass provides -------------------------------------------------------------
    @abstractmethod
    def current_player(self) -> int:
        """The seat to act, or CHANCE, SIMULTANEOUS or TERMINAL."""

    @abstractmethod
    def _legal_actions(self, player: int) -> Sequence[Action]:
        """Legal actions of a player who may act now, in stable order."""

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        """(outcome, probability) pairs at a chance node; empty elsewhere."""
        return []

    @abstractmethod
    def _apply(self, action: Action, player: int) -> None:
        """Change the state by a checked-legal action (player is CHANCE for chance outcomes)."""

    @abstractmethod
    def returns(self) -> list[float]:
        """One float per player; at a terminal state, the result."""

    @abstractmethod
    def observation(self, player: int | None) -> JSON:
        """A JSON-able dict of exactly what `player` may know (None: a spectator)."""

    def observation_tensor(self, player: int) -> np.ndarray:
        """`observation(player)` as float32 numbers of shape `game.observation_tensor_shape()`."""
        raise NotImplementedError(f"{self.game.info.name} has no observation tensor yet (docs/rl.md: adding one)")

    @abstractmethod
    def _to_dict(self) -> JSON:
        """The whole state (hidden parts included) as JSON-able data."""

    @abstractmethod
    def _copy_into(self, other: Self) -> None:
        """Copy this game's own fields into a bare instance; nothing mutable may be shared."""

    @abstractmethod
    def determinize(self, player: int, rng: random.Random) -> State:
        """A full state consistent with `player`'s observation, hidden parts sampled with `rng`."""

    def _sample_chance_outcome(self, rng: random.Random) -> Action:
        """One outcome of the chance node due, drawn with its probability by `rng`. By default one of
        `chance_outcomes()`, chosen as `core.chance.sample_chance` chooses; a game whose chance nodes list many
        equally likely outcomes (a whole draw pile) may draw one without listing them, and must raise
        IllegalActionError where no chance outcome is due (as this one does)."""
        if not self.is_chance_node():
            raise IllegalActionError(None, None, "no chance outcome is due", self._turn_rules())
        return sample_chance(self, rng)

    def _is_possible_outcome(self, outcome: Action) -> bool:
        """Whether a chance outcome may happen now; games may answer faster than listing them all."""
        return any(outcome == possible for possible, _ in self.chance_outcomes())

    def players_to_act(self) -> list[int]:
        """Every seat that may act now: one on an ordinary turn, several at a simultaneous choice,
        a response window or a race."""
        player = self.current_player()
        return [player] if player >= 0 else []

    def decision_kind(self) -> DecisionKind:
        """How the players to act decide, for whoever runs the table:
        "turn" (one player), "chance", "terminal", "simultaneous" (each chooses unseen by the others,
        all must choose), "response" (a window: each listed player may respond or pass, in any order),
        "race" (the first listed player to act wins; the table orders arrivals)."""
        player = self.current_player()
        if player == TERMINAL:
            return "terminal"
        if player == CHANCE:
            return "chance"
        if player == SIMULTANEOUS:
            return "simultaneous"
        return "response" if len(self.players_to_act()) > 1 else "turn"

    def _illegal_reason(self, action: Action, player: int) -> tuple[str, tuple[str, ...]]:
        """Why `player` may not take `action` now, in a few words, and the ids of the rules that forbid it."""
        legal = ", ".join(str(a) for a in self._legal_actions(player)) or "none"
        return f"not legal now (legal: {legal})", self._turn_rules()

    def _turn_rules(self) -> tuple[str, ...]:
        """The ids of the rules that say who acts now and what they may do (at the end: the rules that ended
        the game), named by a refusal that has no rule of its own, such as an action out of turn."""
        return ()

    def result(self) -> JSON:
        """The result for records and reports: at least "returns"."""
        return {"returns": self.returns()}

    # -- shared behaviour ---------------------------------------------------------------------
    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def is_simultaneous_node(self) -> bool:
        return self.current_player() == SIMULTANEOUS

    def legal_actions(self, player: int | None = None) -> list[Action]:
        """Legal actions of `player` (default: the current player; at a chance node, the outcomes)."""
        current = self.current_player()
        sole = False  # whether `player` is known to be the only one to act
        if player != current or current < 0:  # (None is never the current player)
            if current == TERMINAL:
                return []
            if current == CHANCE and player in (None, CHANCE):
                return [outcome for outcome, _ in self.chance_outcomes()]
            to_act = self.players_to_act()
            if player is None:
                if len(to_act) != 1:
                    return []
                player, sole = to_act[0], True
            elif player not in to_act:
                return []
        legal = self._legal_actions(player)
        self._legal_cache = (player, legal, sole)
        return list(legal)

    def sample_chance_outcome(self, rng: random.Random) -> Action:
        """At a chance node, one outcome drawn with its probability by `rng`, for playouts that would
        otherwise list `chance_outcomes()` only to pick one; `apply_action` then applies it without looking
        for it again. The draw may differ from `core.chance.sample_chance` with the same `rng` (a game may
        draw without listing), never in its odds. Raises IllegalActionError where no chance outcome is due."""
        outcome = self._sample_chance_outcome(rng)
        self._legal_cache = (CHANCE, (outcome,), True)
        return outcome

    def legal_actions_mask(self, player: int | None = None) -> np.ndarray:
        mask = np.zeros(self.game.num_distinct_actions(), dtype=np.int8)
        if not self.is_chance_node():
            for action in self.legal_actions(player):
                mask[action.index] = 1
        return mask

    def apply_action(self, action: Action | int | str, player: int | None = None) -> None:
        """Apply a legal action (an Action, its index, or its text). An illegal one raises
        IllegalActionError and leaves the state unchanged."""
        cache = self._legal_cache
        if cache is not None and (player == cache[0] or (player is None and cache[2])) \
                and is_listed(action, cache[1]):
            # legal_actions has just checked this player and listed their actions in this very position: one
            # of the listed objects themselves is applied at once (found by identity, without a dataclass
            # __eq__ per entry); anything else (an equal copy, an index, a text, an illegal action) is checked
            # in full below.
            actor = cache[0]
            self._legal_cache = None
            self._apply(action, actor)
            self._history = (self._history, (actor, action))
            self._played += 1
            return
        current = self.current_player()
        if current == TERMINAL:
            raise IllegalActionError(action, player, "the game is over", self._turn_rules())
        chance = current == CHANCE
        resolved = action if isinstance(action, Action) else self._resolve(action, chance, player)
        if chance:
            if player not in (None, CHANCE):
                raise IllegalActionError(action, player, "a chance outcome is due; no player may act",
                                         self._turn_rules())
            if not self._is_possible_outcome(resolved):
                raise IllegalActionError(action, None, "not a possible chance outcome now", self._turn_rules())
            actor = CHANCE
        else:
            to_act = self.players_to_act()
            if player is None:
                if len(to_act) != 1:
                    raise IllegalActionError(action, None, "several players may act now ("
                                         + ", ".join(f"P{p + 1}" for p in to_act) + "): name the player",
                                         self._turn_rules())
                player = to_act[0]
            elif player not in to_act:
                raise IllegalActionError(action, player, "that player may not act now (to act: "
                                         + (", ".join(f"P{p + 1}" for p in to_act) or "no one") + ")",
                                         self._turn_rules())
            if resolved not in self._legal_actions(player):
                raise IllegalActionError(action, player, *self._illegal_reason(resolved, player))
            actor = player
        self._legal_cache = None
        self._apply(resolved, actor)
        self._history = (self._history, (actor, resolved))
        self._played += 1

    def _resolve(self, action: int | str, chance: bool, player: int | None) -> Action:
        if isinstance(action, str):
            try:
                return self.parse_action(action)
            except UnreachableActionError as error:
                raise IllegalActionError(action, player, error.reason, error.rules) from None
            except ActionParseError as error:
                raise IllegalActionError(action, player, str(error)) from None
        if isinstance(action, int | np.integer) and not isinstance(action, bool):
            table = self.game.chance_outcome_table() if chance else self.game.player_action_table()
            if 0 <= action < len(table):
                return table[int(action)]
            raise IllegalActionError(action, player, f"no action has index {action}")
        raise IllegalActionError(action, player, f"not an action: {type(action).__name__}")

    def parse_action(self, text: str) -> Action:
        return self.game.parse_action(text)

    def action_to_string(self, action: Action) -> str:
        return str(action)

    def history(self) -> list[tuple[int, Action]]:
        """Every action so far with who took it (CHANCE for chance outcomes)."""
        return unchain(self._history)

    def history_length(self) -> int:
        """How many actions (chance outcomes included) have been applied: `len(history())`, without building it."""
        return self._played

    def history_since(self, start: int) -> list[tuple[int, Action]]:
        """`history()[start:]` for `start` ≥ 0, walking back over those actions alone."""
        items = []
        log = self._history
        for _ in range(self._played - start):
            log, item = log  # type: ignore[misc]
            items.append(item)
        items.reverse()
        return items

    def events(self, player: int | None = None) -> list[Event]:
        """The event log as `player` may see it (None: a spectator)."""
        return [event for event in self.all_events() if event.visible_to(player)]

    def all_events(self) -> list[Event]:
        """The whole event log, private events included: for the referee, never for a player."""
        events = self._events_after(None)
        assert events is not None
        return events

    def events_after(self, mark: EventMark) -> tuple[list[Event] | None, EventMark]:
        """The events logged since `mark` (private ones included), and the mark to ask with next time: a
        reader that follows a game reads each event once. Start with `mark=None`. The list is None when `mark`
        is not in this state's log (another game's, or a later position's): start again from None."""
        events = self._events_after(mark)
        return events, self._events

    def _events_after(self, mark: EventMark) -> list[Event] | None:
        nodes = []  # the log's chain links after `mark`, newest first
        log = self._events
        while log is not mark:
            if log is None:
                return None
            nodes.append(log)
            log = log[0]
        nodes.reverse()
        events = [entry if isinstance(entry, Event) else entry[0](*entry[1]) for _, entry in nodes]
        # Keep what was rendered: the links from the oldest deferred entry up are rebuilt with its events, so a
        # mark handed out (always a rendered link) stays in the log.
        first = next((i for i, (_, entry) in enumerate(nodes) if not isinstance(entry, Event)), None)
        if first is not None:
            log = nodes[first][0]
            for event in events[first:]:
                log = (log, event)
            self._events = log
        return events

    def _log(self, kind: str, text: str, audience: tuple[int, ...] | None = None, *,
             rules: tuple[str, ...] = (), **data: Any) -> None:
        # Built as the tuple it is: Event's generated __new__ is a Python call, and logging runs at every step.
        self._events = (self._events, tuple.__new__(Event, (kind, text, audience, data or NO_DATA, rules)))

    def _log_later(self, render: Callable[..., Event], *args: Any) -> None:
        """Log the event `render(*args)` makes, made only when the log is read: formatting its text at every
        step would cost a playout more than the rules do. `args` must be values that never change (numbers,
        strings, tuples, the game)."""
        self._events = (self._events, (render, args))

    def clone(self) -> Self:
        other = object.__new__(type(self))
        other.game = self.game
        other.seed = self.seed
        other._history = self._history
        other._played = self._played
        other._events = self._events
        other._legal_cache = None
        self._copy_into(other)
        return other

    def __getstate__(self) -> JSON:
        # The chained logs nest one level per entry, too deep for pickle and deepcopy: hand them flat lists.
        fields = self.__dict__.copy()
        # Actions go by index and come back as the game's own objects (some games compare them by identity).
        fields["_history"] = [(player, action.index) for player, action in unchain(self._history)]
        # Event data may be a read-only mapping, which pickle refuses: hand it a dict.
        fields["_events"] = [event if type(event.data) is dict else event._replace(data=dict(event.data))
                             for event in self.all_events()]
        fields["_legal_cache"] = None
        return fields

    def __setstate__(self, fields: JSON) -> None:
        self.__dict__.update(fields)
        players, chances = self.game.player_action_table(), self.game.chance_outcome_table()
        self._history = chain((player, (chances if player == CHANCE else players)[index])
                              for player, index in fields["_history"])
        self._events = chain(fields["_events"])

    def to_dict(self) -> JSON:
        return {"format": STATE_FORMAT, **self.game.header(), "seed": self.seed, "state": self._to_dict(),
                "history": [[player, str(action)] for player, action in unchain(self._history)],
                "events": [event.to_dict() for event in self.all_events()]}

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def __str__(self) -> str:
        return plain_text(self.game.render(self.observation(None)))
