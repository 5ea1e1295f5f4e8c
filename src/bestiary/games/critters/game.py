"""Critter capture as a Bestiary game: options, card set, action tables."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from bestiary.core.api import JSON, Game, GameInfo, GameOptions, OnlineRange, Payoffs
from bestiary.core.cards import CardSet
from bestiary.core.errors import StateFormatError
from bestiary.games.critters import render, rules, tensor
from bestiary.games.critters.actions import Choose, Draw, FirstPlayer, Flip
from bestiary.games.critters.cards import ATTRIBUTES, COLOURS, STARTER_DECK, CritterCard, load_ecoregion
from bestiary.games.critters.heuristic import CritterHeuristic
from bestiary.games.critters.state import CritterState

DECK_SIZE = 48


def ecoregions_needed(players: int) -> int:
    """CRITTERS-36: the fewest ecoregion decks that share evenly among the players, at most 6 a deck."""
    decks = 1
    while (DECK_SIZE * decks) % players or players > 6 * decks:
        decks += 1
    return decks


class CritterOptions(GameOptions):
    players: int = Field(4, ge=2, le=48, description="number of players")
    ecoregions: int = Field(1, ge=1, le=24, description="ecoregion decks shuffled together (48 cards each)")
    first_player: int | Literal["random"] = Field(
        0, description="seat of the first starting player, or 'random' for a chance draw")
    rechoose_on_takeover: bool = Field(
        False, description="a challenger who takes over the puck announces commonness or size afresh")
    cards: str | None = Field(None, description="path to an ecoregion card file (default: the starter deck)")
    corrals: Literal["face-down", "open"] = Field(
        "face-down", description="'face-down': people see how many cards each corral holds, not which or their "
                                 "totals, until the game ends; 'open': every corral card and the running totals")

    @model_validator(mode="after")
    def _playable(self) -> CritterOptions:
        total = DECK_SIZE * self.ecoregions
        if total % self.players or self.players > 6 * self.ecoregions:
            needed = ecoregions_needed(self.players)
            plural = "deck" if self.ecoregions == 1 else "decks"
            raise ValueError(
                f"{self.players} players cannot play with {self.ecoregions} ecoregion {plural} ({total} cards): "
                f"the cards must share evenly, at most 6 players a deck; one deck plays 2, 3, 4 or 6 players, "
                f"and {self.players} players need ecoregions={needed}")
        if isinstance(self.first_player, int) and not 0 <= self.first_player < self.players:
            raise ValueError(f"first_player must be a seat from 0 to {self.players - 1} or 'random'")
        return self


class CritterCapture(Game):
    info = GameInfo(
        name="critter-capture", title="Common Critters: critter capture", rules_version="1.0",
        player_counts=(2, 3, 4, 6),
        summary="Draw from a colour deck, announce commonness or size, flip; challenge abilities and "
                "values decide who corrals the cards.",
        chance="explicit", information="perfect", rules_doc="critter-capture.md",
        payoffs=Payoffs("constant-sum", 0.0, 1.0, return_sum=1.0),  # CRITTERS-35: the winners share 1 point
        # 24 ecoregion decks for 48 players take 0.7 s and 30 MB to build (docs/reliability.md)
        online_ranges=(OnlineRange("players", 2, 12), OnlineRange("ecoregions", 1, 4)),
        batch_engine="bestiary.games.critters.batch:CritterBatch")
    Options = CritterOptions
    options: CritterOptions

    def __init__(self, options: CritterOptions) -> None:
        self.card_set: CardSet[CritterCard] = load_ecoregion(options.cards or STARTER_DECK)
        copies = options.ecoregions
        base = self.card_set.cards
        self.cards: tuple[CritterCard, ...] = tuple(c for _ in range(copies) for c in base)
        self.instance_ids: tuple[str, ...] = tuple(
            c.id if k == 0 else f"{c.id}#{k + 1}" for k in range(copies) for c in base)
        self.index_of = {card_id: i for i, card_id in enumerate(self.instance_ids)}
        self.colour = tuple(COLOURS.index(c.colour) for c in self.cards)
        self.values = tuple((c.commonness, c.size) for c in self.cards)
        self.ability_kind = tuple(c.ability_kind for c in self.cards)
        self.ability_colour = tuple(COLOURS.index(c.ability_colour) for c in self.cards)
        self.cards_by_colour = tuple([i for i, c in enumerate(self.colour) if c == k] for k in range(4))
        # Written into the event log at every flip, so made once.
        self.descriptions = tuple(f"{c.name} ({c.colour}, commonness {c.commonness}, size {c.size}, {c.ability})"
                                  for c in self.cards)
        self.draw_actions = tuple(Draw(i, colour) for i, colour in enumerate(COLOURS))
        self.choose_actions = tuple(Choose(4 + i, a) for i, a in enumerate(ATTRIBUTES))
        self.flip_actions = tuple(Flip(i, card_id) for i, card_id in enumerate(self.instance_ids))
        # CRITTERS-38: each card's flip with its chance in a deck of each size, made once, as every flip lists them
        self.flip_rows = {size: tuple((flip, 1.0 / size) for flip in self.flip_actions)
                          for size in range(1, max(len(cards) for cards in self.cards_by_colour) + 1)}
        self.first_player_actions = tuple(
            FirstPlayer(len(self.cards) + p, p) for p in range(options.players))
        self._heuristic: CritterHeuristic | None = None
        super().__init__(options)

    def player_action_table(self) -> tuple[Draw | Choose, ...]:
        return self.draw_actions + self.choose_actions

    def chance_outcome_table(self) -> tuple[Flip | FirstPlayer, ...]:
        return self.flip_actions + self.first_player_actions

    def card_set_info(self) -> JSON:
        info = self.card_set.info()
        if self.options.cards is None:  # the starter deck travels with the package
            info["path"] = f"starter:{Path(self.card_set.path).name}"
        return info

    def new_initial_state(self, seed: int | None = None) -> CritterState:
        state = CritterState(self, seed)
        if self.options.first_player == "random":
            state.phase = rules.FIRST_PLAYER
        else:
            state.start = self.options.first_player
            rules.start_round(state)
        return state

    def _state_from_dict(self, raw: JSON, seed: int | None) -> CritterState:
        if not isinstance(raw, dict):
            raise StateFormatError("the state must be an object")
        return CritterState.from_dict(self, raw, seed)

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

    def max_game_length(self) -> int:
        # Each card is drawn, flipped and answered by at most one announcement (a tie or a takeover); each round's
        # active player announces once; add the first-player draw and the final choice.
        return 4 * len(self.cards) + 2 * self.num_players + 2

    def heuristic_policy(self) -> CritterHeuristic:
        if self._heuristic is None:
            faces = {card_id: render.card_view(self, i) for i, card_id in enumerate(self.instance_ids)}
            self._heuristic = CritterHeuristic(faces)
        return self._heuristic
