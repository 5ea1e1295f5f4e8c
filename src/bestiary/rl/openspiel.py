"""Bestiary games as OpenSpiel (pyspiel) Python games, so OpenSpiel's algorithms run on them.

    from bestiary.rl import openspiel
    game = openspiel.load("critter-capture", players=2)      # a pyspiel.Game
    openspiel.register("critter-capture")                     # then pyspiel.load_game("bestiary_critter_capture")

Seats asked at once are asked one at a time (bestiary.rl.table), so the dynamics are sequential; chance is
OpenSpiel's chance player with the game's chance outcome indices. Games and states pickle, and
`pyspiel.serialize_game_and_state` round-trips them (a state serializes whole, seed and all). Observation
strings and tensors are the game's `observation(player)` and `observation_tensor(player)` (tensors as numpy
arrays, straight from the game: no copy through C++ into a list); the information state adds the seat's own
actions and the events it has seen, so it has perfect recall. The information-state tensor is offered for
perfect-information games only (there it is the observation tensor); the others raise `pyspiel.SpielError`
for it, as OpenSpiel's own games do, and their game type says `provides_information_state_tensor=False`.
A pickled, deep-copied or serialized state keeps OpenSpiel's history and move number.
"""

from __future__ import annotations

import base64
import json
import math
import pickle
import random
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from bestiary.core.api import CHANCE, TERMINAL, Game, State
from bestiary.core.errors import UnknownGameError
from bestiary.core.registry import game_class, load_game
from bestiary.rl.table import action_at, deciding_seat, require

require("pyspiel")
import pyspiel  # noqa: E402

DEFAULT_MAX_GAME_LENGTH = 100_000


@dataclass(frozen=True)
class Payoffs:
    """What OpenSpiel must know of a game's returns and length: what the game declares (`GameInfo.payoffs`,
    `Game.max_game_length`), or given to `load`/`register` for a game that declares other bounds."""

    utility: str  # "zero-sum", "constant-sum" or "general-sum"
    min_utility: float
    max_utility: float
    utility_sum: float | None = None  # for constant-sum games
    max_game_length: int = DEFAULT_MAX_GAME_LENGTH


UTILITY = {"zero-sum": pyspiel.GameType.Utility.ZERO_SUM, "constant-sum": pyspiel.GameType.Utility.CONSTANT_SUM,
           "general-sum": pyspiel.GameType.Utility.GENERAL_SUM}


def short_name(name: str) -> str:
    return "bestiary_" + name.replace("-", "_")


def payoffs_of(game: Game) -> Payoffs:
    """What a configured game declares of its returns and length, as OpenSpiel reads them."""
    declared = game.info.payoffs
    length = game.max_game_length()
    return Payoffs(declared.utility, declared.min_return, declared.max_return, declared.return_sum,
                   DEFAULT_MAX_GAME_LENGTH if length is None else length)


def game_type(game: Game, payoffs: Payoffs, default_options: dict[str, Any] | None = None) -> Any:
    info = game.info
    if payoffs.utility not in UTILITY:
        raise ValueError(f"utility must be one of {', '.join(UTILITY)}, not {payoffs.utility!r}")
    perfect = info.information == "perfect" and not info.simultaneous
    # Every chance node lists its outcomes. A game that shuffles from its seed (GameInfo.chance == "shuffles")
    # draws that seed when the state is made (the game's seeded generator), and the state carries it, so each
    # state's chances are still explicit. (OpenSpiel's SAMPLED_STOCHASTIC would also need the game's
    # generator state to serialize, which Python games cannot give it.)
    if game.max_chance_outcomes() == 0:
        chance_mode = pyspiel.GameType.ChanceMode.DETERMINISTIC
    else:
        chance_mode = pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    options = {k: v for k, v in (default_options or {}).items() if k != "players"}
    return pyspiel.GameType(
        short_name=short_name(info.name), long_name=f"Bestiary {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL, chance_mode=chance_mode,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION if perfect
        else pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=UTILITY[payoffs.utility], reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(info.player_counts), min_num_players=min(info.player_counts),
        provides_information_state_string=True, provides_information_state_tensor=perfect,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"players": game.num_players, "options": options_text(options), "seed": 0})


def options_text(options: dict[str, Any]) -> str:
    """Options as OpenSpiel's `options` parameter: JSON, or base64 of it where JSON would hold a comma (OpenSpiel
    splits a game's parameters at commas)."""
    text = json.dumps(options, sort_keys=True)
    return text if "," not in text else base64.urlsafe_b64encode(text.encode()).decode("ascii")


def options_from_text(text: str) -> dict[str, Any]:
    raw = text if text.lstrip().startswith("{") else base64.urlsafe_b64decode(text.encode()).decode()
    options = json.loads(raw)
    if not isinstance(options, dict):
        raise ValueError(f"the options parameter must be a JSON object, not {text!r}")
    return options


def load(game: Game | str, payoffs: Payoffs | None = None, seed: int = 0, **options: Any) -> BestiarySpielGame:
    """A pyspiel game for a Bestiary game (a name and options, or a configured game).

    `seed` starts the generator that seeds each new state (it matters to games that shuffle from their
    seed) and the one that resamples hidden information for search. A registered Bestiary game without
    `payoffs` is loaded through `register` and `pyspiel.load_game`, so OpenSpiel knows it by name (its
    serialization needs that)."""
    if isinstance(game, str):
        game = load_game(game, **options)
    elif options:
        raise TypeError(f"options {sorted(options)} given with a game already configured")
    if payoffs is None and is_registered(game):
        name = register(game.info.name)
        defaults = type(game).from_options(players=game.num_players).options_dict()
        chosen = {k: v for k, v in game.options_dict().items() if defaults.get(k) != v}
        params = {"players": game.num_players, "seed": seed, "options": options_text(chosen)}
        loaded: BestiarySpielGame = pyspiel.load_game(name, params)
        return loaded
    payoffs = payoffs or payoffs_of(game)
    return BestiarySpielGame(game, game_type(game, payoffs), payoffs, seed)


def is_registered(game: Game) -> bool:
    try:
        return game_class(game.info.name) is type(game)
    except UnknownGameError:
        return False


def register(name: str, payoffs: Payoffs | None = None, **default_options: Any) -> str:
    """Make a registered Bestiary game loadable by `pyspiel.load_game`; returns its OpenSpiel name.

    OpenSpiel parameters: `players`, `options` (the other Bestiary options as a JSON object) and `seed`.
    A game registered already keeps its first registration."""
    if short_name(name) in pyspiel.registered_names():
        return short_name(name)
    defaults = {"players": game_class(name).info.player_counts[0], **default_options}
    template = load_game(name, **defaults)
    kind = game_type(template, payoffs or payoffs_of(template), defaults)
    _REGISTERED[kind.short_name] = (name, payoffs, defaults, kind)
    # OpenSpiel makes games from a class (a plain callable loses the Python half of the game it returns).
    made = type(RegisteredGame.__name__, (RegisteredGame,), {"short_name": kind.short_name})
    pyspiel.register_game(kind, made)
    return str(kind.short_name)


# What `register` was told, by OpenSpiel name, so that registered games can be made and unpickled.
_REGISTERED: dict[str, tuple[str, Payoffs | None, dict[str, Any], Any]] = {}


class BestiarySpielGame(pyspiel.Game):  # type: ignore[misc]
    def __init__(self, game: Game, kind: Any, payoffs: Payoffs, seed: int = 0,
                 params: dict[str, Any] | None = None) -> None:
        info = pyspiel.GameInfo(
            num_distinct_actions=game.num_distinct_actions(), max_chance_outcomes=game.max_chance_outcomes(),
            num_players=game.num_players, min_utility=payoffs.min_utility, max_utility=payoffs.max_utility,
            utility_sum=payoffs.utility_sum, max_game_length=payoffs.max_game_length)
        super().__init__(kind, info, params or {})
        self.bestiary_game = game
        self.perfect_information = kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        self._payoffs = payoffs
        self._seed = seed
        self._state_seeds = random.Random(seed)
        self.search_rng = random.Random(seed + 1)

    def new_initial_state(self) -> BestiarySpielState:
        inner = self.bestiary_game.new_initial_state(seed=self._state_seeds.randrange(2**63))
        return BestiarySpielState(self, inner)

    def deserialize_state(self, text: str) -> BestiarySpielState:
        loaded = pickle.loads(base64.b64decode(text))
        if isinstance(loaded, State):  # serialized before states carried OpenSpiel's record
            return BestiarySpielState(self, loaded)
        inner, history = loaded
        return restored_state(self, inner, history)

    def information_state_tensor_shape(self) -> list[int]:
        if not self.perfect_information:
            raise pyspiel.SpielError(NO_INFORMATION_STATE_TENSOR)
        return list(self.observation_tensor_shape())

    def information_state_tensor_size(self) -> int:
        return math.prod(self.information_state_tensor_shape())

    def make_py_observer(self, iig_obs_type: Any = None, params: dict[str, Any] | None = None) -> BestiaryObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; given {params}")
        return BestiaryObserver(self, iig_obs_type)

    def __reduce__(self) -> tuple[Any, ...]:
        return _unpickle_loaded, (self.bestiary_game, self._payoffs, self._seed)


def _unpickle_loaded(game: Game, payoffs: Payoffs, seed: int) -> BestiarySpielGame:
    return BestiarySpielGame(game, game_type(game, payoffs), payoffs, seed)


class RegisteredGame(BestiarySpielGame):
    """A game `register` made known to OpenSpiel, built from its parameters by `pyspiel.load_game`."""

    short_name: str  # set on the class `register` makes for each game

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        name, payoffs, defaults, kind = _REGISTERED[self.short_name]
        self._params = dict(params or {})
        options = {**defaults, **options_from_text(self._params.get("options", "{}")),
                   "players": self._params.get("players", defaults["players"])}
        game = load_game(name, **options)
        super().__init__(game, kind, payoffs or payoffs_of(game), int(self._params.get("seed", 0)), self._params)

    def __reduce__(self) -> tuple[Any, ...]:
        name, payoffs, defaults, _ = _REGISTERED[self.short_name]
        _PICKLED.setdefault(_game_key(name, self._params), self)
        return _unpickle_registered, (name, payoffs, defaults, self._params)


def _game_key(name: str, params: dict[str, Any]) -> tuple[str, str]:
    return name, json.dumps(params, sort_keys=True)


# Games pickled in this process, by name and parameters: unpickling there finds the very game (as Bestiary's
# games do), so the thousands of states a worker pool sends back share one game instead of each loading it
# afresh (tens of milliseconds each).
_PICKLED: weakref.WeakValueDictionary[tuple[str, str], BestiarySpielGame] = weakref.WeakValueDictionary()


def _unpickle_registered(name: str, payoffs: Payoffs | None, defaults: dict[str, Any],
                         params: dict[str, Any]) -> BestiarySpielGame:
    key = _game_key(name, params)
    known = _PICKLED.get(key)
    if known is not None:
        return known
    game: BestiarySpielGame = pyspiel.load_game(register(name, payoffs, **defaults), params)
    _PICKLED[key] = game
    return game

class _Held:
    """Holds the Bestiary state so that OpenSpiel's clone (a deep copy) uses `State.clone()` and shares
    the immutable game instead of copying its card set."""

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(self.state.clone())


class SpielTensor(np.ndarray):
    """A tensor as a numpy array whose `str` is the whole list of numbers, as pyspiel's lists print: OpenSpiel's
    tabular learners key their tables by `str(tensor)`, which numpy would shorten with "..." past 1000 numbers,
    so that different tensors would share one key."""

    def __str__(self) -> str:
        return str(self.tolist())


NO_INFORMATION_STATE_TENSOR = ("InformationStateTensor unimplemented: a Bestiary game with hidden information "
                               "offers the information-state string and the observation tensor")


class BestiarySpielState(pyspiel.State):  # type: ignore[misc]
    def __init__(self, game: BestiarySpielGame, inner: State) -> None:
        super().__init__(game)
        self._held = _Held(inner)
        self._replaying: int | None = None  # the player OpenSpiel records while a history is replayed

    @property
    def inner(self) -> State:
        return self._held.state

    def current_player(self) -> int:
        if self._replaying is not None:
            return self._replaying
        player = self.inner.current_player()
        if player == TERMINAL:
            return int(pyspiel.PlayerId.TERMINAL)
        if player == CHANCE:
            return int(pyspiel.PlayerId.CHANCE)
        return deciding_seat(self.inner)

    def _legal_actions(self, player: int) -> list[int]:
        return sorted(action.index for action in self.inner.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return sorted((action.index, p) for action, p in self.inner.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        if self._replaying is not None:
            return  # the Bestiary state has played it already; OpenSpiel only records it
        inner = self.inner
        if inner.is_chance_node():
            inner.apply_action(action_at(inner.game.chance_outcome_table(), int(action)))
        else:
            inner.apply_action(action_at(inner.game.player_action_table(), int(action)), player=deciding_seat(inner))

    def _action_to_string(self, player: int, action: int) -> str:
        game = self.inner.game
        table = game.chance_outcome_table() if player == pyspiel.PlayerId.CHANCE else game.player_action_table()
        return str(table[action])

    def is_terminal(self) -> bool:
        return self.inner.is_terminal()

    def returns(self) -> list[float]:
        return [float(r) for r in self.inner.returns()]

    def observation_tensor(self, player: int | None = None) -> SpielTensor:
        """The seat's observation tensor (flat float32), read from the game directly: OpenSpiel's own path
        would copy it through C++ into a list of Python floats, several times the tensor's own cost."""
        seat = self.current_player() if player is None else player
        if not 0 <= seat < self.inner.game.num_players:
            raise pyspiel.SpielError(f"observation_tensor needs a player from 0 to "
                                     f"{self.inner.game.num_players - 1}, not {seat}")
        tensor: SpielTensor = self.inner.observation_tensor(seat).ravel().view(SpielTensor)
        return tensor

    def information_state_tensor(self, player: int | None = None) -> SpielTensor:
        """In a perfect-information game the observation tensor (the state is all there is to recall)."""
        game: BestiarySpielGame = self.get_game()
        if not game.perfect_information:
            raise pyspiel.SpielError(NO_INFORMATION_STATE_TENSOR)
        return self.observation_tensor(player)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> BestiarySpielState:
        """A state the seat cannot tell from this one, hidden parts drawn by the game's search generator."""
        game: BestiarySpielGame = self.get_game()
        return BestiarySpielState(game, self.inner.determinize(player_id, game.search_rng))

    def serialize(self) -> str:
        # The whole Bestiary state, seed included (replaying the history would need the deal's seed too),
        # and OpenSpiel's record of the actions.
        return base64.b64encode(pickle.dumps((self.inner, self._recorded()))).decode("ascii")

    def _recorded(self) -> list[tuple[int, int]]:
        return [(step.player, step.action) for step in self.full_history()]

    def __reduce__(self) -> tuple[Any, ...]:
        return restored_state, (self.get_game(), self.inner, self._recorded())

    def __deepcopy__(self, memo: dict[int, Any]) -> BestiarySpielState:
        copied: BestiarySpielState = self.clone()
        return copied

    def __str__(self) -> str:
        return str(self.inner)


def restored_state(game: BestiarySpielGame, inner: State, history: list[tuple[int, int]]) -> BestiarySpielState:
    """A state around a Bestiary state already played, with OpenSpiel's record of its actions rebuilt: each
    recorded action is applied again through OpenSpiel, which records it, while the Bestiary state stays put."""
    state = BestiarySpielState(game, inner)
    for player, action in history:
        state._replaying = player
        state.apply_action(action)
    state._replaying = None
    return state


class BestiaryObserver:
    """OpenSpiel's observer interface over `observation(player)`: the observation, or with perfect recall the
    information state (the observation, the seat's own actions and the events it has seen)."""

    def __init__(self, game: BestiarySpielGame, iig_obs_type: Any) -> None:
        kind = iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False)
        if kind.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not kind.public_info:
            raise ValueError("Bestiary games offer what one seat sees (private info of a single player plus "
                             "public info), not other observation types")
        self.perfect_recall = bool(kind.perfect_recall)
        size = math.prod(game.bestiary_game.observation_tensor_shape())
        if self.perfect_recall and not game.perfect_information:
            size = 0  # no fixed-size perfect-recall tensor for games with hidden information
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor} if size else {}

    def set_from(self, state: BestiarySpielState, player: int) -> None:
        if self.perfect_recall and not state.get_game().perfect_information:
            raise pyspiel.SpielError(NO_INFORMATION_STATE_TENSOR)
        if self.tensor.size:
            self.tensor[:] = state.inner.observation_tensor(player).ravel()

    def string_from(self, state: BestiarySpielState, player: int) -> str:
        inner = state.inner
        seen = json.dumps(inner.observation(player), sort_keys=True)
        if not self.perfect_recall:
            return seen
        own = " ".join(str(action) for actor, action in inner.history() if actor == player)
        events = "\n".join(event.text for event in inner.events(player))
        return f"{seen}\nmy actions: {own}\n{events}"
