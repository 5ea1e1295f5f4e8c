"""Cube Creatures as a Bestiary game: options, the deck in use, and the tables of every action."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import Field, model_validator

from bestiary.core.api import JSON, Action, Game, GameInfo, GameOptions, Payoffs
from bestiary.core.cards import CardSet
from bestiary.core.effects import Effect
from bestiary.core.errors import OptionError, StateFormatError
from bestiary.games.cube import effects, flow, render, rules, tensor
from bestiary.games.cube.actions import (
    Attach,
    Attack,
    ChangeGuard,
    EndTurn,
    FirstPlayer,
    Pass,
    Play,
    React,
    Roll,
    Target,
    UsePower,
)
from bestiary.games.cube.cards import CARD_TYPES, STARTER_DECK, UPGRADE_KINDS, CubeCard, load_deck
from bestiary.games.cube.heuristic import CubeHeuristic
from bestiary.games.cube.rules import ACTION, CREATURE, MAX_SPOTS, REACTION, UPGRADE, WEAPON
from bestiary.games.cube.state import CubeState

MAX_PLAYERS = 5  # CUBE-2
HAND_SIZE = 7  # CUBE-15
GRANDMA_HAND_SIZE = 5  # CUBE-50
MAX_REDRAWS = 20  # CUBE-18


class CubeOptions(GameOptions):
    players: int = Field(2, ge=2, le=MAX_PLAYERS, description="number of players (2 to 5)")
    first_player: int | Literal["random"] = Field(
        0, description="seat that goes first (the youngest player), or 'random' for a chance draw")
    reactions: bool = Field(True, description="play with reaction cards (false: the first-game tip)")
    grandma: bool = Field(False, description="Grandma's Rules: creature cards only (CUBE-50)")
    grandma_version: Literal["bestiary", "book"] = Field(
        "bestiary", description="with grandma: 'bestiary' also deals 5 cards and leaves creature powers out "
        "(Bestiary's additions for young players); 'book': the creature cards only, nothing else changed")
    response_windows: Literal["every-card-holder", "answerers"] = Field(
        "every-card-holder", description="'every-card-holder': a window is open to every other player holding a "
        "card, so it tells nobody who holds a reaction; 'answerers': only to players holding a reaction that "
        "answers (faster for simulations among computer players, but it shows who holds one)")
    win_at: int = Field(5, ge=1, le=20, description="defeated creatures needed to win")
    turn_limit: int = Field(200, ge=1, le=100_000, description="turns after which the largest victory pile wins")
    cards: str | None = Field(None, description="path to a deck file (default: the starter deck)")

    @model_validator(mode="after")
    def _seat_exists(self) -> CubeOptions:
        if isinstance(self.first_player, int) and not 0 <= self.first_player < self.players:
            raise ValueError(f"first_player must be a seat from 0 to {self.players - 1} or 'random'")
        return self


class CubeCreatures(Game):
    info = GameInfo(
        name="cube-creatures", title="Cube Creatures", rules_version="1.0", player_counts=(2, 3, 4, 5),
        summary="Summon creatures, arm them with upgrades, play actions and reactions, and roll the attack die: "
                "the first to defeat 5 enemy creatures wins.",
        chance="shuffles", information="imperfect", rules_doc="cube-creatures.md",
        # the winners share 1 point, and the turn limit still names winners (CUBE-10, CUBE-56)
        payoffs=Payoffs("constant-sum", 0.0, 1.0, return_sum=1.0),
        batch_engine="bestiary.games.cube.batch:CubeBatch")
    Options = CubeOptions
    options: CubeOptions

    def __init__(self, options: CubeOptions) -> None:
        self.card_set: CardSet[CubeCard] = load_deck(options.cards or STARTER_DECK)
        cards = self.card_set.cards
        self.cards = cards
        self.ids = tuple(c.id for c in cards)
        self.index_of = {card_id: i for i, card_id in enumerate(self.ids)}
        self.ctype = tuple(CARD_TYPES.index(c.type) for c in cards)
        self.attack = tuple(c.attack or 0 for c in cards)
        self.health = tuple(c.health or 0 for c in cards)
        self.kind = tuple(UPGRADE_KINDS.index(c.kind) if c.kind else rules.NO_CARD for c in cards)
        self.bonus = tuple(c.bonus or 0 for c in cards)
        self.effect: tuple[Effect | None, ...] = tuple(c.effect for c in cards)
        self.trigger = tuple(c.responds_to for c in cards)
        # the reaction cards answering each kind of window, so that a hand without one is told in one C call
        self.answering = {window: frozenset(i for i, c in enumerate(cards) if c.responds_to == window)
                          for window in ("attack", "action", "power")}
        # a reaction's effect keyword and target, which decide when it can still change something (CUBE-51)
        self.reaction_effects = {i: (c.effect.keyword, c.effect.params.get("target"))
                                 for i, c in enumerate(cards) if c.type == "reaction" and c.effect is not None}
        # Options the rules read at every turn or window, kept as plain attributes (reading a pydantic model's
        # field took twice as long as a plain attribute here) and decided once (a string compared at every turn).
        self.turn_limit = options.turn_limit
        self.win_at = options.win_at
        self.answerers_only = options.response_windows == "answerers"
        grandma = options.grandma
        # CUBE-50: Bestiary's Grandma's Rules also drop creature powers and deal 5 cards (the book's: neither);
        # CUBE-49, CUBE-50: which cards stay in the deck.
        simpler = grandma and options.grandma_version == "bestiary"
        self.power: tuple[Effect | None, ...] = tuple(None if simpler else c.power_effect for c in cards)
        self.in_play = tuple(i for i, t in enumerate(self.ctype)
                             if t == CREATURE or not (grandma or (t == REACTION and not options.reactions)))
        self.hand_size = GRANDMA_HAND_SIZE if simpler else HAND_SIZE
        if self.hand_size * options.players >= len(self.in_play):
            raise OptionError(f"cube-creatures: {options.players} hands of {self.hand_size} leave nothing to draw "
                              f"from a deck of {len(self.in_play)} cards; play with fewer players")
        self.max_redraws = MAX_REDRAWS
        self.powers_in_play = any(p is not None for p in self.power)
        self.reactions_in_play = any(self.ctype[i] == REACTION for i in self.in_play)
        self.faces = tuple(face(c) for c in cards)
        self._build_tables(options.players)
        self._heuristic: CubeHeuristic | None = None
        super().__init__(options)

    def _build_tables(self, players: int) -> None:
        actions: list[Action] = []

        def add(action: Action) -> Action:
            actions.append(action)
            return action

        kinds, ids = self.ctype, self.ids
        self.play_actions = {c: add(Play(len(actions), ids[c])) for c in range(len(ids))
                             if kinds[c] in (CREATURE, ACTION)}
        self.attach_actions = {c: tuple(add(Attach(len(actions), ids[c], s)) for s in range(MAX_SPOTS))
                               for c in range(len(ids)) if kinds[c] == UPGRADE}
        self.power_actions = tuple(add(UsePower(len(actions), s)) for s in range(MAX_SPOTS))
        self.guard_actions = {s: add(ChangeGuard(len(actions), s)) for s in range(1, MAX_SPOTS)}
        # the guard swaps open to a battlefield of each size
        self.guard_rows = tuple(tuple(self.guard_actions[s] for s in range(1, size)) for size in range(MAX_SPOTS + 1))
        self.attack_table = tuple(tuple(tuple(add(Attack(len(actions), p, t, s)) for s in range(MAX_SPOTS))
                                        for t in range(MAX_SPOTS)) for p in range(players))
        # the attacks on each player's Guard by the first 0 to 5 creatures of a battlefield
        self.guard_attacks = tuple(tuple(row[0][:attackers] for attackers in range(MAX_SPOTS + 1))
                                   for row in self.attack_table)
        self.end_turn = add(EndTurn(len(actions)))
        self.target_actions = tuple(tuple(add(Target(len(actions), p, s)) for s in range(MAX_SPOTS))
                                    for p in range(players))
        self.react_actions = {c: add(React(len(actions), ids[c])) for c in range(len(ids)) if kinds[c] == REACTION}
        self.pass_action = add(Pass(len(actions)))
        self._player_actions = tuple(actions)
        self._build_main_tables()
        # the other seats, in seat order (CUBE-37) and in turn order after the seat (CUBE-17), seen from each seat
        self.opponents = tuple(tuple(p for p in range(players) if p != seat) for seat in range(players))
        self.seats_after = tuple(tuple((seat + step) % players for step in range(1, players))
                                 for seat in range(players))
        self.roll_actions = tuple(Roll(i, face) for i, face in enumerate(rules.DIE_FACES))
        self.first_player_actions = tuple(FirstPlayer(len(rules.DIE_FACES) + p, p) for p in range(players))
        # CUBE-40, CUBE-17: a fair die and a fair draw of the first player, as chance lists them
        self.roll_outcomes = tuple((face, 1.0 / 6) for face in self.roll_actions)
        self.first_player_outcomes = tuple((seat, 1.0 / players) for seat in self.first_player_actions)

    def _build_main_tables(self) -> None:
        """Per card, the main-phase part it takes (CUBE-19): a creature's play, an action card's play with
        its test of having something to act on (CUBE-58), an upgrade's attachments by spot, a creature
        power's test (None: no power)."""
        cards = range(len(self.ids))
        kinds, effect, power = self.ctype, self.effect, self.power
        # Any: an entry is None for a card of another type, which main_actions never reads.
        self.creature_plays: tuple[Any, ...] = tuple(self.play_actions[c] if kinds[c] == CREATURE else None
                                                     for c in cards)
        self.action_plays: tuple[Any, ...] = tuple(
            (self.play_actions[c], effects.playable_test(effect[c])) if kinds[c] == ACTION  # type: ignore[arg-type]
            else None for c in cards)
        self.upgrade_attaches: tuple[Any, ...] = tuple(
            (self.attach_actions[c], self.kind[c] == WEAPON) if kinds[c] == UPGRADE else None for c in cards)
        self.power_tests = tuple(None if power[c] is None else effects.playable_test(power[c])  # type: ignore[arg-type]
                                 for c in cards)

    def player_action_table(self) -> tuple[Action, ...]:
        return self._player_actions

    def chance_outcome_table(self) -> tuple[Action, ...]:
        return self.roll_actions + self.first_player_actions

    def card_set_info(self) -> JSON:
        info = self.card_set.info()
        if self.options.cards is None:  # the starter deck travels with the package
            info["path"] = f"starter:{Path(self.card_set.path).name}"
        return info

    def new_initial_state(self, seed: int | None = None) -> CubeState:
        state = CubeState(self, seed)
        flow.deal(state)
        if self.options.first_player == "random":
            state.phase = flow.FIRST_PLAYER
        else:
            flow.choose_first_player(state, self.options.first_player)
        return state

    def _state_from_dict(self, raw: JSON, seed: int | None) -> CubeState:
        if not isinstance(raw, dict):
            raise StateFormatError("the state must be an object")
        return CubeState.from_dict(self, raw, seed)

    def render(self, observation: JSON) -> str:
        return render.render(observation)

    def describe(self, observation: JSON, word: str, legal: list[str]) -> str | None:
        return render.describe(self.faces, observation, word)

    def terminal_help(self) -> str:
        return render.TERMINAL_HELP

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return tensor.tensor_shape(self)

    def observation_tensor_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return tensor.tensor_bounds(self)

    def heuristic_policy(self) -> CubeHeuristic:
        if self._heuristic is None:
            self._heuristic = CubeHeuristic()
        return self._heuristic


def face(card: CubeCard) -> JSON:
    """What is printed on a card, as observations show it."""
    out: JSON = {"id": card.id, "name": card.name, "type": card.type, "text": card.text, "foil": card.foil}
    if card.type == "creature":
        out.update(attack=card.attack, health=card.health, power=card.power,
                   power_effect=None if card.power_effect is None else card.power_effect.to_dict())
    elif card.type == "upgrade":
        out.update(kind=card.kind, bonus=card.bonus)
    else:
        out.update(effect=card.effect.to_dict() if card.effect else None)
        if card.type == "reaction":
            out.update(responds_to=card.responds_to)
    return out
