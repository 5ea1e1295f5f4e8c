"""Creatures of Lungo as a Bestiary game: options, card set, action tables."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from bestiary.core.api import JSON, Action, Game, GameInfo, GameOptions, Payoffs
from bestiary.core.cards import CardSet
from bestiary.core.errors import StateFormatError
from bestiary.games.lungo import effects, flow, render, rules, tensor  # noqa: F401  (effects: registers the card keywords)
from bestiary.games.lungo.actions import Boost, Commit, DealGoal, DrawCard, PickCard, Play, Roll, Target, TopCard, Word
from bestiary.games.lungo.cards import ELEMENTS, SPECIES, STARTER_CARDS, LungoCard, Requirement, load_lungo_cards
from bestiary.games.lungo.heuristic import LungoHeuristic
from bestiary.games.lungo.state import LungoState

MAX_PLAYERS = 6


class LungoOptions(GameOptions):
    players: int = Field(4, ge=2, le=MAX_PLAYERS, description="number of players (2-6)")
    first_player: int = Field(0, ge=0, description="seat of the first player (LUNGO-29)")
    turn_limit: int = Field(120, ge=1, le=100_000,
                            description="turns in all before an undecided game ends (LUNGO-59)")
    token_moment: Literal["eligible", "round", "turn"] = Field(
        "eligible", description="when everyone may take a token off-turn: 'eligible', the moment a player's goal is "
        "met (the book's 'at any time'); 'round' or 'turn', after every round or every turn (LUNGO-56, LUNGO-61)")
    reaction_mean: float = Field(0.55, gt=0, le=10,
                                 description="seconds a computer player takes on average to react in a race "
                                             "(LUNGO-62)")
    reaction_spread: float = Field(0.2, ge=0, le=10,
                                   description="plus or minus this many seconds, uniformly (LUNGO-62)")
    token_grab: Literal["seen", "discreet"] = Field(
        "seen", description="'seen': a grab is noticed at once and the race for the other tokens begins; "
        "'discreet': the first grab goes unannounced until the next token moment, or until another player "
        "reaches for a token")
    response_windows: Literal["every-card-holder", "answerers"] = Field(
        "every-card-holder", description="'every-card-holder': a card aimed at a player holding any card gives them "
        "a window, so it tells nobody whether they hold a response card; 'answerers': only a player holding one")
    battle_backs: Literal["shown", "hidden"] = Field(
        "shown", description="'shown': everyone sees whether the draw pile's top card is a battle card (LUNGO-12); "
        "'hidden': nobody does, and each draw is a single chance node (fewer steps for simulations)")
    cards: str | None = Field(None, description="path to a card file (default: the starter set)")

    @model_validator(mode="after")
    def _seat(self) -> LungoOptions:
        if self.first_player >= self.players:
            raise ValueError(f"first_player must be a seat from 0 to {self.players - 1}")
        if self.reaction_spread >= self.reaction_mean:
            raise ValueError("reaction_spread must be smaller than reaction_mean (reactions take time)")
        return self


class CreaturesOfLungo(Game):
    info = GameInfo(
        name="creatures-of-lungo", title="Creatures of Lungo", rules_version="1.0",
        player_counts=(2, 3, 4, 5, 6),
        summary="Meet your secret goal and grab a token: creature battles by weakness and power, dice "
                "battles, insect swats, poison and toxic slime; the last without a token loses.",
        chance="explicit", information="imperfect", simultaneous=True, rules_doc="creatures-of-lungo.md",
        payoffs=Payoffs("zero-sum", -1.0, 1.0, return_sum=0.0))  # the first taker +1, the loser -1, the rest 0
    Options = LungoOptions
    options: LungoOptions

    def __init__(self, options: LungoOptions) -> None:
        self.card_set: CardSet[LungoCard] = load_lungo_cards(options.cards or STARTER_CARDS)
        deck = [c for c in self.card_set.cards if c.kind != "goal"]
        self.cards: tuple[LungoCard, ...] = tuple(c for c in deck for _ in range(c.copies))
        self.ids: tuple[str, ...] = tuple(c.id if k == 0 else f"{c.id}#{k + 1}" for c in deck
                                          for k in range(c.copies))
        self.index_of = {card_id: i for i, card_id in enumerate(self.ids)}
        self.goal_cards: tuple[LungoCard, ...] = tuple(c for c in self.card_set.cards if c.kind == "goal")
        self.goal_ids = tuple(c.id for c in self.goal_cards)
        self.goal_index = {goal_id: i for i, goal_id in enumerate(self.goal_ids)}
        # Options the rules read at every turn, kept as plain attributes (reading a pydantic model's field took
        # twice as long as a plain attribute here) and decided once (a string compared at every turn).
        self.turn_limit = options.turn_limit
        self.first_player = options.first_player
        self.token_moment_every_turn = options.token_moment == "turn"
        self.token_moment_when_eligible = options.token_moment == "eligible"
        self.answerers_only = options.response_windows == "answerers"
        self.discreet_grabs = options.token_grab == "discreet"
        self.battle_backs_shown = options.battle_backs == "shown"
        # Small integer-indexed tables the rules read on every step.
        self.kinds = tuple(c.kind for c in self.cards)
        self.names = tuple(c.name for c in self.cards)
        self.is_battle = tuple(c.kind == "battle" for c in self.cards)
        self.is_creature = tuple(c.kind in ("creature", "mutant") for c in self.cards)
        self.is_insect = tuple(c.species == "insect" for c in self.cards)
        self.is_response = tuple(c.when == "response" for c in self.cards)
        self.effects = tuple(c.effect for c in self.cards)
        self.species = tuple(-1 if c.species is None else SPECIES.index(c.species) for c in self.cards)
        self.element = tuple(-1 if c.element is None else ELEMENTS.index(c.element) for c in self.cards)
        self.weak_to = tuple(-1 if c.weakness is None else ELEMENTS.index(c.weakness) for c in self.cards)
        self.power = tuple(c.power or 0 for c in self.cards)
        # Which cards may be played in your turn, by whether anything lies in front of you.
        self.playable = tuple(tuple(rules.playable(self, card, afflicted) for card in range(len(self.cards)))
                              for afflicted in (False, True))
        # Per goal, per requirement: (count, the cards that fit), so checking a goal is a set intersection
        # with the hand (each card of the deck is one index, so none is counted twice).
        self.goal_tables = tuple(
            tuple((r.count, frozenset(card for card in range(len(self.cards)) if self.fits(card, r)))
                  for r in goal.requires)
            for goal in self.goal_cards)

        count = len(self.cards)
        self.play_actions = tuple(Play(i, card_id) for i, card_id in enumerate(self.ids))
        self.commit_actions = tuple(Commit(count + i, card_id) for i, card_id in enumerate(self.ids))
        self.boost_actions = tuple(Boost(2 * count + i, card_id) for i, card_id in enumerate(self.ids))
        self.target_actions = tuple(Target(3 * count + p, p) for p in range(options.players))
        words = ("done", "pass", "swat", "grab token", "end turn")
        base = 3 * count + options.players
        self.done, self.pass_, self.swat, self.grab, self.end_turn = (Word(base + k, w) for k, w in enumerate(words))
        self.swat_or_pass = (self.swat, self.pass_)
        self.grab_or_pass = (self.grab, self.pass_)
        self.pass_only = (self.pass_,)
        self.grab_only = (self.grab,)
        self.draw_actions = tuple(DrawCard(i, card_id) for i, card_id in enumerate(self.ids))
        self.pick_actions = tuple(PickCard(count + i, card_id) for i, card_id in enumerate(self.ids))
        self.goal_actions = tuple(DealGoal(2 * count + g, goal_id) for g, goal_id in enumerate(self.goal_ids))
        self.roll_actions = tuple(Roll(2 * count + len(self.goal_ids) + k, k + 1) for k in range(6))
        tops = 2 * count + len(self.goal_ids) + len(self.roll_actions)
        self.top_actions = (TopCard(tops, False), TopCard(tops + 1, True))  # by whether the top is a battle card
        # per pile size, each card's draw with its probability (draw_outcomes)
        self.draw_rows: dict[int, tuple[tuple[Action, float], ...]] = {}
        self._heuristic: LungoHeuristic | None = None
        super().__init__(options)

    def player_action_table(self) -> tuple[Action, ...]:
        return (*self.play_actions, *self.commit_actions, *self.boost_actions, *self.target_actions,
                self.done, self.pass_, self.swat, self.grab, self.end_turn)

    def chance_outcome_table(self) -> tuple[Action, ...]:
        return (*self.draw_actions, *self.pick_actions, *self.goal_actions, *self.roll_actions, *self.top_actions)

    def draw_outcomes(self, pile_size: int) -> tuple[tuple[Action, float], ...]:
        """Each card's draw paired with probability 1 / pile_size, by card; made once per pile size, as
        every draw lists the whole pile."""
        rows = self.draw_rows.get(pile_size)
        if rows is None:
            p = 1.0 / pile_size
            rows = self.draw_rows[pile_size] = tuple((draw, p) for draw in self.draw_actions)
        return rows

    def card_set_info(self) -> JSON:
        info = self.card_set.info()
        if self.options.cards is None:  # the starter set travels with the package
            info["path"] = f"starter:{Path(self.card_set.path).name}"
        return info

    def fits(self, card: int, requirement: Requirement) -> bool:
        """Whether a card counts towards one line of a goal (LUNGO-64)."""
        c = self.cards[card]
        # LUNGO-6: a mutant is a creature for every rule, goals included
        kind_fits = requirement.kind is None or c.kind == requirement.kind \
            or (requirement.kind == "creature" and self.is_creature[card])
        return (kind_fits
                and (requirement.element is None or c.element == requirement.element)
                and (requirement.species is None or c.species == requirement.species))

    def goal_view(self, goal: int) -> JSON:
        c = self.goal_cards[goal]
        return {"id": c.id, "name": c.name, "text": c.text,
                "requires": [r.model_dump(exclude_none=True) for r in c.requires]}

    def new_initial_state(self, seed: int | None = None) -> LungoState:
        state = LungoState(self, seed)
        flow.deal(state)
        return state

    def _state_from_dict(self, raw: JSON, seed: int | None) -> LungoState:
        if not isinstance(raw, dict):
            raise StateFormatError("the state must be an object")
        return LungoState.from_dict(self, raw, seed)

    def render(self, observation: JSON) -> str:
        return render.render(observation)

    def describe(self, observation: JSON, word: str, legal: list[str]) -> str | None:
        return render.describe(self, observation, word)

    def terminal_help(self) -> str:
        return render.TERMINAL_HELP

    def observation_tensor_shape(self) -> tuple[int, ...]:
        return tensor.tensor_shape(self)

    def observation_tensor_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return tensor.tensor_bounds(self)

    def heuristic_policy(self) -> LungoHeuristic:
        if self._heuristic is None:
            creatures = [render.card_view(self, i) for i, creature in enumerate(self.is_creature) if creature]
            self._heuristic = LungoHeuristic(creatures)
        return self._heuristic

    def reaction_delay(self, player: int, rng: random.Random) -> float | None:
        # LUNGO-62: the reaction-time model of races, uniform in mean +- spread seconds.
        options = self.options
        return options.reaction_mean + (2 * rng.random() - 1) * options.reaction_spread
