"""Small games for testing agents, on the core API only; registered only inside the tests that need it.

- `tree_game`: a game given as a tree of decisions (turn, chance, simultaneous, race, response) with
  returns at the leaves, so a test can build exactly the position it needs.
- `DiceNim`: take 1-3 tokens or roll a die for it; taking the last token wins. Chance, several moves,
  and a strong right answer (leave a multiple of four).
- `KuhnPoker`: the three-card poker game; hidden cards for information-set search.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field

from bestiary.core import registry
from bestiary.core.api import (
    CHANCE,
    JSON,
    SIMULTANEOUS,
    TERMINAL,
    Action,
    Game,
    GameInfo,
    GameOptions,
    HeuristicPolicy,
    InformationKind,
    Payoffs,
    State,
)


@contextmanager
def registered(*games: type[Game]) -> Iterator[None]:
    """Register toy games for the duration of a test, so the rest of the suite never sees them."""
    for game in games:
        registry.register_game(game)
    try:
        yield
    finally:
        for game in games:
            registry._GAMES.pop(game.info.name, None)


@dataclass(frozen=True, slots=True)
class Move(Action):
    index: int
    name: str

    def __str__(self) -> str:
        return self.name


# -- a game given as a tree ------------------------------------------------------------------------
# A node is a tuple of returns (a leaf) or a dict:
#   {"turn": p, "moves": {name: node}}
#   {"chance": {outcome: (probability, node)}}
#   {"simultaneous": {p: [names]}, "then": {(name of p0, name of p1, ...): node}}  (in seat order)
#   {"race": {p: [names]}, "then": {(p, name): node}}  the first to act decides
#   {"response": {p: [names]}, "then": {(p, name): node}, "passed": node}  each may answer or pass

Tree = Mapping[str, Any] | tuple[float, ...]


def _names(node: Tree, chance: bool) -> Iterator[str]:
    if isinstance(node, tuple):
        return
    if "chance" in node:
        if chance:
            yield from node["chance"]
        for _, child in node["chance"].values():
            yield from _names(child, chance)
        return
    if "turn" in node:
        if not chance:
            yield from node["moves"]
        for child in node["moves"].values():
            yield from _names(child, chance)
        return
    if not chance:
        for names in node[_kind(node)].values():
            yield from names
        if "response" in node:
            yield "pass"
    for child in node["then"].values():
        yield from _names(child, chance)
    if "passed" in node:
        yield from _names(node["passed"], chance)


def _kind(node: Mapping[str, Any]) -> str:
    return next(k for k in ("turn", "chance", "simultaneous", "race", "response") if k in node)


class TreeState(State):
    game: TreeGame

    def __init__(self, game: TreeGame, seed: int | None) -> None:
        super().__init__(game, seed)
        self.node: Tree = game.tree
        self.path: list[str] = []
        self.chosen: dict[int, str] = {}  # simultaneous choices made so far, hidden from the others
        self.passed: list[int] = []

    def current_player(self) -> int:
        node = self.node
        if isinstance(node, tuple):
            return TERMINAL
        kind = _kind(node)
        if kind == "turn":
            return int(node["turn"])
        if kind == "chance":
            return CHANCE
        return SIMULTANEOUS if kind == "simultaneous" else self.players_to_act()[0]

    def players_to_act(self) -> list[int]:
        node = self.node
        if isinstance(node, tuple):
            return []
        kind = _kind(node)
        if kind == "turn":
            return [int(node["turn"])]
        if kind == "chance":
            return []
        return [p for p in sorted(node[kind]) if p not in self.chosen and p not in self.passed]

    def decision_kind(self) -> str:
        if isinstance(self.node, tuple):
            return "terminal"
        kind = _kind(self.node)
        return kind if kind != "race" or len(self.players_to_act()) > 1 else "turn"

    def _legal_actions(self, player: int) -> Sequence[Action]:
        node = self.node
        assert not isinstance(node, tuple)
        kind = _kind(node)
        names = list(node["moves"]) if kind == "turn" else list(node[kind][player])
        if kind == "response":
            names.append("pass")
        return [self.game.moves[name] for name in names]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        node = self.node
        if isinstance(node, tuple) or "chance" not in node:
            return []
        return [(self.game.outcomes[name], p) for name, (p, _) in node["chance"].items()]

    def _apply(self, action: Action, player: int) -> None:
        node = self.node
        assert isinstance(action, Move) and not isinstance(node, tuple)
        kind = _kind(node)
        if kind == "turn":
            self._enter(node["moves"][action.name], action.name)
        elif kind == "chance":
            self._enter(node["chance"][action.name][1], action.name)
        elif kind == "simultaneous":
            self.chosen[player] = action.name
            if len(self.chosen) == len(node["simultaneous"]):
                joint = tuple(self.chosen[p] for p in sorted(self.chosen))
                self.chosen = {}
                self._enter(node["then"][joint], "+".join(joint))
        elif kind == "response" and action.name == "pass":
            self.passed.append(player)
            if not self.players_to_act():
                self.passed = []
                self._enter(node["passed"], "all pass")
        else:
            self.passed = []
            self._enter(node["then"][(player, action.name)], f"P{player + 1} {action.name}")

    def _enter(self, node: Tree, step: str) -> None:
        self.node = node
        self.path.append(step)

    def returns(self) -> list[float]:
        if isinstance(self.node, tuple):
            return list(self.node)
        return [0.0] * self.game.num_players

    def observation(self, player: int | None) -> JSON:
        return {"path": list(self.path), "chosen": sorted(self.chosen), "passed": list(self.passed),
                "own_choice": self.chosen.get(player) if player is not None else None}

    def determinize(self, player: int, rng: random.Random) -> TreeState:
        other = self.clone()
        node = self.node
        if not isinstance(node, tuple) and "simultaneous" in node:
            for p in other.chosen:
                if p != player:  # another player's choice is unseen: sample it
                    other.chosen[p] = rng.choice(node["simultaneous"][p])
        return other

    def _to_dict(self) -> JSON:
        return {"path": self.path, "chosen": {str(p): c for p, c in self.chosen.items()}, "passed": self.passed}

    def _copy_into(self, other: TreeState) -> None:
        other.node = self.node
        other.path = self.path.copy()
        other.chosen = dict(self.chosen)
        other.passed = self.passed.copy()


class TreeGame(Game):
    tree: ClassVar[Tree]

    def __init__(self, options: GameOptions) -> None:
        self.moves = {name: Move(i, name) for i, name in enumerate(dict.fromkeys(_names(self.tree, False)))}
        self.outcomes = {name: Move(i, name) for i, name in enumerate(dict.fromkeys(_names(self.tree, True)))}
        super().__init__(options)

    def new_initial_state(self, seed: int | None = None) -> TreeState:
        return TreeState(self, seed)

    def player_action_table(self) -> Sequence[Action]:
        return list(self.moves.values())

    def chance_outcome_table(self) -> Sequence[Action]:
        return list(self.outcomes.values())

    def _state_from_dict(self, raw: JSON, seed: int | None) -> State:
        raise NotImplementedError("toy games are not saved")

    def render(self, observation: JSON) -> str:
        return " / ".join(observation["path"])


def _leaves(node: Tree) -> Iterator[tuple[float, ...]]:
    if isinstance(node, tuple):
        yield node
        return
    children = [child for _, child in node["chance"].values()] if "chance" in node else \
        list(node["moves"].values()) if "turn" in node else list(node["then"].values())
    if "passed" in node:
        children.append(node["passed"])
    for child in children:
        yield from _leaves(child)


def tree_game(name: str, players: int, tree: Tree, information: InformationKind = "perfect") -> TreeGame:
    """A configured game playing `tree` with `players` seats."""
    returns = [r for leaf in _leaves(tree) for r in leaf]
    info = GameInfo(name=name, title=name, rules_version="test", player_counts=(players,), summary=name,
                    chance="explicit", information=information,
                    payoffs=Payoffs("general-sum", min(returns), max(returns)))

    seats = players

    class Options(GameOptions):
        players: int = seats

    cls = type(name.title().replace("-", ""), (TreeGame,), {"info": info, "Options": Options, "tree": tree})
    return cls.from_options(players=players)  # type: ignore[no-any-return]


# -- dice nim --------------------------------------------------------------------------------------
class DiceNimOptions(GameOptions):
    players: int = Field(2, ge=2, le=2)
    tokens: int = Field(15, ge=1)


class DiceNimState(State):
    game: DiceNim

    def __init__(self, game: DiceNim, seed: int | None) -> None:
        super().__init__(game, seed)
        self.tokens = game.options.tokens
        self.to_move = 0
        self.rolling = False
        self.winner: int | None = None

    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        return CHANCE if self.rolling else self.to_move

    def _legal_actions(self, player: int) -> Sequence[Action]:
        moves = self.game.moves
        return [moves[k - 1] for k in (1, 2, 3) if k <= self.tokens] + [moves[3]]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return [(face, 1 / 3) for face in self.game.faces] if self.rolling else []

    def _apply(self, action: Action, player: int) -> None:
        assert isinstance(action, Move)
        if action.name == "roll":
            self.rolling = True
            return
        self.rolling = False
        self.tokens -= min(int(action.name.split()[-1]), self.tokens)
        if self.tokens == 0:
            self.winner = self.to_move
        self.to_move = 1 - self.to_move

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0 if p == self.winner else 0.0 for p in (0, 1)]

    def observation(self, player: int | None) -> JSON:
        return {"tokens": self.tokens, "to_move": self.to_move, "rolling": self.rolling}

    def determinize(self, player: int, rng: random.Random) -> DiceNimState:
        return self.clone()

    def _to_dict(self) -> JSON:
        return {"tokens": self.tokens, "to_move": self.to_move, "rolling": self.rolling, "winner": self.winner}

    def _copy_into(self, other: DiceNimState) -> None:
        other.tokens, other.to_move, other.rolling, other.winner = (
            self.tokens, self.to_move, self.rolling, self.winner)


class DiceNim(Game):
    info = GameInfo(name="dice-nim", title="Dice nim", rules_version="test", player_counts=(2,),
                    summary="take 1-3 tokens or roll for it; the last token wins", chance="explicit",
                    information="perfect", payoffs=Payoffs("constant-sum", 0.0, 1.0, 1.0))
    Options = DiceNimOptions
    options: DiceNimOptions

    def __init__(self, options: DiceNimOptions) -> None:
        self.moves = (Move(0, "take 1"), Move(1, "take 2"), Move(2, "take 3"), Move(3, "roll"))
        self.faces = (Move(0, "die 1"), Move(1, "die 2"), Move(2, "die 3"))
        super().__init__(options)

    def new_initial_state(self, seed: int | None = None) -> DiceNimState:
        return DiceNimState(self, seed)

    def heuristic_policy(self) -> HeuristicPolicy:
        def leave_a_multiple_of_four(observation: JSON, legal: Sequence[Action], player: int,
                                     rng: random.Random) -> Action:
            best = observation["tokens"] % 4
            return self.moves[best - 1] if best else self.moves[0]

        return leave_a_multiple_of_four

    def player_action_table(self) -> Sequence[Action]:
        return self.moves

    def chance_outcome_table(self) -> Sequence[Action]:
        return self.faces

    def _state_from_dict(self, raw: JSON, seed: int | None) -> State:
        raise NotImplementedError("toy games are not saved")

    def render(self, observation: JSON) -> str:
        return f"{observation['tokens']} tokens"


# -- Kuhn poker ------------------------------------------------------------------------------------
CARDS = ("J", "Q", "K")
DEALS = tuple((a, b) for a in range(3) for b in range(3) if a != b)


class KuhnState(State):
    """Ante 1 each; P1 checks or bets 1; a bet is called or folded; the higher card wins the pot."""

    game: KuhnPoker

    def __init__(self, game: KuhnPoker, seed: int | None) -> None:
        super().__init__(game, seed)
        self.cards: tuple[int, int] | None = None
        self.bets: list[str] = []

    def current_player(self) -> int:
        if self.cards is None:
            return CHANCE
        if self._over():
            return TERMINAL
        return len(self.bets) % 2

    def _over(self) -> bool:
        return self.bets in (["check", "check"], ["bet", "call"], ["bet", "fold"], ["check", "bet", "call"],
                             ["check", "bet", "fold"])

    def _legal_actions(self, player: int) -> Sequence[Action]:
        moves = self.game.moves
        return [moves["fold"], moves["call"]] if "bet" in self.bets else [moves["check"], moves["bet"]]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return [(deal, 1 / 6) for deal in self.game.deals] if self.cards is None else []

    def _apply(self, action: Action, player: int) -> None:
        assert isinstance(action, Move)
        if player == CHANCE:
            self.cards = DEALS[action.index]
        else:
            self.bets.append(action.name)

    def returns(self) -> list[float]:
        if self.cards is None or not self._over():
            return [0.0, 0.0]
        if self.bets[-1] == "fold":
            folder = (len(self.bets) - 1) % 2
            return [-1.0 if p == folder else 1.0 for p in (0, 1)]
        stake = 2.0 if "bet" in self.bets else 1.0
        high = 0 if self.cards[0] > self.cards[1] else 1
        return [stake if p == high else -stake for p in (0, 1)]

    def observation(self, player: int | None) -> JSON:
        own = None if self.cards is None or player is None else CARDS[self.cards[player]]
        shown = self.cards is not None and self._over() and self.bets[-1] != "fold"
        return {"card": own, "bets": list(self.bets),
                "showdown": [CARDS[c] for c in self.cards] if shown and self.cards else None}

    def determinize(self, player: int, rng: random.Random) -> KuhnState:
        other = self.clone()
        if self.cards is not None:
            mine = self.cards[player]
            theirs = rng.choice([c for c in range(3) if c != mine])
            other.cards = (mine, theirs) if player == 0 else (theirs, mine)
        return other

    def _to_dict(self) -> JSON:
        return {"cards": self.cards, "bets": self.bets}

    def _copy_into(self, other: KuhnState) -> None:
        other.cards = self.cards
        other.bets = self.bets.copy()


class KuhnOptions(GameOptions):
    players: int = Field(2, ge=2, le=2)


class KuhnPoker(Game):
    info = GameInfo(name="kuhn-poker", title="Kuhn poker", rules_version="test", player_counts=(2,),
                    summary="three cards, one bet", chance="explicit", information="imperfect",
                    payoffs=Payoffs("zero-sum", -2.0, 2.0, 0.0))
    Options = KuhnOptions

    def __init__(self, options: GameOptions) -> None:
        self.moves = {name: Move(i, name) for i, name in enumerate(("check", "bet", "call", "fold"))}
        self.deals = tuple(Move(i, f"deal {CARDS[a]}{CARDS[b]}") for i, (a, b) in enumerate(DEALS))
        super().__init__(options)

    def new_initial_state(self, seed: int | None = None) -> KuhnState:
        return KuhnState(self, seed)

    def player_action_table(self) -> Sequence[Action]:
        return list(self.moves.values())

    def chance_outcome_table(self) -> Sequence[Action]:
        return self.deals

    def _state_from_dict(self, raw: JSON, seed: int | None) -> State:
        raise NotImplementedError("toy games are not saved")

    def render(self, observation: JSON) -> str:
        return f"{observation['card']} {' '.join(observation['bets'])}"
