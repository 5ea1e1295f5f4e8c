"""Critter capture's state: the colour decks, the puck and its stack, the corrals."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from bestiary.core.api import CHANCE, JSON, TERMINAL, Action, State
from bestiary.core.errors import StateFormatError
from bestiary.core.fields import FieldReader, StateFields, integer, last_seat, one_of, read_fields, state_field
from bestiary.core.state_format import card_indices, optional_index
from bestiary.games.critters import events, observe, rules, tensor
from bestiary.games.critters.actions import Choose, Draw, FirstPlayer, Flip
from bestiary.games.critters.cards import ATTRIBUTES, COLOURS

if TYPE_CHECKING:
    from bestiary.games.critters.game import CritterCapture

PHASES = (rules.FIRST_PLAYER, rules.ACTIVE_DRAW, rules.ACTIVE_CHOOSE, rules.ACTIVE_FLIP, rules.CHALLENGE_DRAW,
          rules.CHALLENGE_FLIP, rules.TIE_CHOOSE, rules.FINAL_CHOOSE, rules.OVER)


def _card_ids(state: CritterState, cards: list[int]) -> list[str]:
    return [state.game.instance_ids[c] for c in cards]


def _card_lists(where: str) -> Callable[[FieldReader, str], list[list[int]]]:
    def read(reader: FieldReader, key: str) -> list[list[int]]:
        raw, n = reader.raw[key], reader.players
        if not isinstance(raw, list) or len(raw) != n:
            raise StateFormatError(f"'{key}' must be a list of {n} lists")
        return [card_indices(reader.game.index_of, c, f"{where}[{p}]", reader.seen) for p, c in enumerate(raw)]
    return read


def _read_stack(reader: FieldReader, key: str) -> list[int]:
    return card_indices(reader.game.index_of, reader.raw[key], key, reader.seen)


def _write_decks(state: CritterState, decks: list[list[int]]) -> JSON:
    return {COLOURS[c]: _card_ids(state, deck) for c, deck in enumerate(decks)}


def _read_decks(reader: FieldReader, key: str) -> list[list[int]]:
    game, decks = reader.game, reader.raw[key]
    if not isinstance(decks, dict) or set(decks) != set(COLOURS):
        raise StateFormatError("'decks' must map each of fish, bird, mammal, other to a list of card ids")
    out = [card_indices(game.index_of, decks[colour], f"decks.{colour}", reader.seen) for colour in COLOURS]
    for colour, deck in zip(COLOURS, out, strict=True):
        wrong = [game.instance_ids[c] for c in deck if COLOURS[game.colour[c]] != colour]
        if wrong:
            raise StateFormatError(f"decks.{colour}: {wrong[0]} is not a {colour} card")
    return out


def _name_of(names: Sequence[str]) -> Callable[[CritterState, int | None], str | None]:
    def write(state: CritterState, index: int | None) -> str | None:
        return None if index is None else names[index]
    return write


def _optional_index(names: Sequence[str]) -> Callable[[FieldReader, str], int | None]:
    def read(reader: FieldReader, key: str) -> int | None:
        return optional_index(reader.raw, key, names)
    return read


def _read_scores(reader: FieldReader, key: str) -> list[int] | None:
    scores = reader.raw.get(key)
    return None if scores is None else [int(s) for s in scores]


class CritterState(StateFields, State):
    game: CritterCapture

    phase: rules.Phase = state_field(rules.ACTIVE_DRAW, read=one_of(PHASES))
    round: int = state_field(0, read=integer(0, 10**6))
    rounds: int = state_field(lambda state: len(state.game.cards) // state.game.num_players,  # CRITTERS-31
                              read=integer(1, 10**6))
    start: int = state_field(0, read=integer(0, last_seat))
    active: int = state_field(0, read=integer(0, last_seat))
    chooser: int = state_field(-1, read=integer(-1, last_seat))
    plays: int = state_field(0, read=integer(0, lambda reader: reader.players))
    attribute: int | None = state_field(None, write=_name_of(ATTRIBUTES), read=_optional_index(ATTRIBUTES))
    # The colour of the face-down card just drawn.
    pending: int | None = state_field(None, write=_name_of(COLOURS), read=_optional_index(COLOURS))
    # The active card last, the cards under it before it.
    stack: list[int] = state_field(lambda state: [], write=_card_ids, read=_read_stack)
    # CRITTERS-5: one deck per colour; the order is drawn by chance at each flip (CRITTERS-38).
    decks: list[list[int]] = state_field(lambda state: [list(cards) for cards in state.game.cards_by_colour],
                                         write=_write_decks, read=_read_decks)
    corrals: list[list[int]] = state_field(lambda state: [[] for _ in range(state.game.num_players)],
                                           write=lambda state, corrals: [_card_ids(state, c) for c in corrals],
                                           read=_card_lists("corrals"))
    final_attribute: int | None = state_field(None, write=_name_of(ATTRIBUTES), read=_optional_index(ATTRIBUTES))
    scores: list[int] | None = state_field(None, read=_read_scores)

    # -- whose move --------------------------------------------------------------------------
    def current_player(self) -> int:
        phase = self.phase
        if phase in rules.CHANCE_PHASES:
            return CHANCE
        if phase == rules.CHALLENGE_DRAW:
            return self.challenger()
        if phase == rules.FINAL_CHOOSE:
            return self.chooser
        if phase == rules.OVER:
            return TERMINAL
        return self.active

    # The phase alone answers these, which every playout loop asks at each step.
    def is_terminal(self) -> bool:
        return self.phase == rules.OVER

    def is_chance_node(self) -> bool:
        return self.phase in rules.CHANCE_PHASES

    def challenger(self) -> int:
        # CRITTERS-12, CRITTERS-37: each player in turn to the left of the starting player challenges.
        return (self.start + self.plays) % self.game.num_players

    def _legal_actions(self, player: int) -> Sequence[Action]:
        if self.phase in rules.CHOICE_PHASES:
            return self.game.choose_actions
        # CRITTERS-39: an empty colour deck cannot be drawn from.
        draws = self.game.draw_actions
        legal = []
        for colour, deck in enumerate(self.decks):
            if deck:
                legal.append(draws[colour])
        return legal

    def _illegal_reason(self, action: Action, player: int) -> tuple[str, tuple[str, ...]]:
        if isinstance(action, Draw) and self.phase in (rules.ACTIVE_DRAW, rules.CHALLENGE_DRAW):
            return f"the {action.colour} deck is empty", ("CRITTERS-39",)
        if isinstance(action, Draw):
            return "a card is drawn only at the start of a play; now commonness or size is chosen", \
                ("CRITTERS-8", "CRITTERS-12", *self._turn_rules())
        if isinstance(action, Choose):
            return "commonness or size is chosen only before the active card is flipped, after a tie, " \
                   "or for final scoring", ("CRITTERS-9", "CRITTERS-13")
        return super()._illegal_reason(action, player)

    def _turn_rules(self) -> tuple[str, ...]:
        return rules.PHASE_RULES[self.phase]

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        if self.phase == rules.FIRST_PLAYER:
            n = self.game.num_players
            return [(self.game.first_player_actions[p], 1.0 / n) for p in range(n)]
        if self.phase in (rules.ACTIVE_FLIP, rules.CHALLENGE_FLIP):
            deck = self.decks[self.pending]  # type: ignore[index]
            rows = self.game.flip_rows[len(deck)]
            outcomes: list[tuple[Action, float]] = []
            for card in deck:
                outcomes.append(rows[card])
            return outcomes
        return []

    def _is_possible_outcome(self, outcome: Action) -> bool:
        if isinstance(outcome, Flip):
            return self.pending is not None and self.game.index_of[outcome.card] in self.decks[self.pending]
        return isinstance(outcome, FirstPlayer) and self.phase == rules.FIRST_PLAYER

    def _apply(self, action: Action, player: int) -> None:
        phase = self.phase
        if isinstance(action, Flip):
            card = self.game.index_of[action.card]
            if phase == rules.ACTIVE_FLIP:
                rules.flip_active_card(self, card)
            else:
                rules.flip_challenge_card(self, card)
        elif isinstance(action, Draw):
            rules.draw(self, player, COLOURS.index(action.colour))
        elif isinstance(action, Choose):
            rules.choose_attribute(self, player, ATTRIBUTES.index(action.attribute))
        elif isinstance(action, FirstPlayer):
            # CRITTERS-7: the first starting player takes the starting player token and the puck.
            self.start = action.seat
            self._log_later(events.first_player, action.seat)
            rules.start_round(self)

    # -- results -----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        # CRITTERS-35: the most points wins; equal best scores share the win.
        if self.scores is None:
            return [0.0] * self.game.num_players
        best = max(self.scores)
        winners = [p for p, s in enumerate(self.scores) if s == best]
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(self.game.num_players)]

    def result(self) -> JSON:
        out = super().result()
        if self.scores is not None:
            best = max(self.scores)
            out.update(scores=list(self.scores), attribute=ATTRIBUTES[self.final_attribute or 0],
                       winners=[p for p, s in enumerate(self.scores) if s == best])
        return out

    # -- views -------------------------------------------------------------------------------
    def observation(self, player: int | None) -> JSON:
        return observe.observation(self, player)

    def observation_tensor(self, player: int) -> np.ndarray:
        return tensor.observe(self, player)

    def determinize(self, player: int, rng: random.Random) -> CritterState:
        # Nothing is hidden but the order of the decks, which is chance's to decide at each flip.
        return self.clone()

    # -- (de)serialising (copying and writing come from the field declarations) ----------------------
    @classmethod
    def from_dict(cls, game: CritterCapture, raw: JSON, seed: int | None) -> CritterState:
        state = cls(game, seed)
        read_fields(state, raw)
        _check_consistent(state)
        return state


def _check_consistent(state: CritterState) -> None:
    """A scenario may leave cards out of play, but what remains must let the game finish."""
    n = state.game.num_players
    in_decks = sum(len(d) for d in state.decks)
    to_play = (state.rounds - state.round) * n - state.plays
    if state.phase in (rules.ACTIVE_FLIP, rules.CHALLENGE_FLIP, rules.ACTIVE_CHOOSE) and state.pending is None:
        raise StateFormatError(f"phase '{state.phase}' needs 'pending', the colour of the card drawn")
    if state.pending is not None and not state.decks[state.pending]:
        raise StateFormatError(f"'pending' names the {COLOURS[state.pending]} deck, which is empty")
    if state.phase not in (rules.FINAL_CHOOSE, rules.OVER) and in_decks != to_play:
        raise StateFormatError(f"the decks hold {in_decks} cards but {to_play} plays remain "
                               f"(rounds {state.rounds}, round index {state.round}, plays {state.plays})")
    if state.phase in (rules.CHALLENGE_DRAW, rules.CHALLENGE_FLIP, rules.TIE_CHOOSE) and not state.stack:
        raise StateFormatError(f"phase '{state.phase}' needs an active card in 'stack'")
    if state.phase in (rules.CHALLENGE_DRAW, rules.CHALLENGE_FLIP, rules.TIE_CHOOSE) and state.attribute is None:
        raise StateFormatError(f"phase '{state.phase}' needs 'attribute'")
    if state.phase == rules.FINAL_CHOOSE and state.chooser < 0:
        raise StateFormatError("phase 'final-choose' needs 'chooser'")
    if state.phase == rules.OVER and (state.scores is None or len(state.scores) != n):
        raise StateFormatError(f"phase 'over' needs 'scores' for {n} players")
