"""Critter capture for N games at once: the state as arrays, one row per game (structure of arrays).

The rules are `rules.py`'s, written as numpy operations over every game a step concerns, so a step costs a
fixed number of array operations whatever N is, and no Python code runs per game. Each card's place is one
number (0 in its colour deck, 1 the active card, 2 under it, 3 + seat in that seat's corral); the stack on
the puck is also kept as card indices (`stack`, `top`), and each corral's cards and points as running
tallies, so that no step looks at every card. `tests/rl/test_batched.py` checks, step by step on random
games, that the batch gives the scalar engine's observation tensors, legal actions and returns.

Chance draws come from `streams` (`bestiary.rl.batched.Streams` or anything with its `draw`): a flip takes
the k-th card still in the drawn colour's deck in card order, the order `CritterState.chance_outcomes` lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from bestiary.core.tensors import layout_offsets
from bestiary.games.critters import tensor
from bestiary.games.critters.cards import COLOURS
from bestiary.games.critters.tensor import SEAT_ROLES, SHARED_CARD_PLACES, field_sizes

if TYPE_CHECKING:
    from bestiary.games.critters.game import CritterCapture

# Phases by their index in the tensor's phase field.
FIRST_PLAYER, ACTIVE_DRAW, ACTIVE_CHOOSE, ACTIVE_FLIP, CHALLENGE_DRAW, CHALLENGE_FLIP, TIE_CHOOSE, FINAL_CHOOSE, \
    OVER = range(len(tensor.PHASES))
IN_DECK, ACTIVE, UNDER_ACTIVE, CORRAL = 0, 1, 2, 3  # a card's place; CORRAL + seat for a corral
ABILITY_KINDS = ("trapped by", "capture", "block")
TRAPPED_BY, CAPTURE, BLOCK = range(len(ABILITY_KINDS))
FIRST_CHOOSE = len(COLOURS)  # actions: draw from colour 0..3, then choose commonness, size
TERMINAL_PLAYER = -4  # bestiary.core.api.TERMINAL
# The phase after a seat's decision, by the phase it was taken in (rules.draw, rules.choose_attribute).
AFTER_DECISION = np.arange(len(tensor.PHASES))
AFTER_DECISION[[ACTIVE_DRAW, CHALLENGE_DRAW, ACTIVE_CHOOSE, TIE_CHOOSE, FINAL_CHOOSE]] = \
    [ACTIVE_CHOOSE, CHALLENGE_FLIP, ACTIVE_FLIP, CHALLENGE_DRAW, OVER]
ROLE_CELLS = 9  # the observation's one-hot cells besides the cards': phase, five seat roles, three attributes


class Draws(Protocol):
    def draw(self, games: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """For each game in `games` (indices), a number from 0 to its count − 1."""
        ...


class CritterBatch:
    """`num_games` games of one configured critter capture game.

    `reset(games, streams)` deals new games in the rows `games` (indices); `step(actions, games, streams)`
    applies each listed game's action (an index of `game.player_action_table()`, legal: the caller checks it
    against `legal_mask()`) for the seat to act, then plays the chance node that follows. `current_player`,
    `observation(viewers)`, `legal_mask()` and `returns()` read every game at once."""

    def __init__(self, game: CritterCapture, num_games: int) -> None:
        self.game = game
        self.num_games = num_games
        self.players = players = game.num_players
        self.num_actions = len(game.player_action_table())
        self.rechoose_on_takeover = game.options.rechoose_on_takeover
        self.first_player = game.options.first_player
        self.colour = np.array(game.colour, np.int64)
        self.ability_colour = np.array(game.ability_colour, np.int64)
        self.ability_kind = np.array([ABILITY_KINDS.index(k) for k in game.ability_kind], np.int64)
        self.values = np.array(game.values, np.int64)  # (cards, 2): commonness, size
        self.deck_starts = np.array([len(cards) for cards in game.cards_by_colour], np.int64)
        # (cards of a colour, colour): CRITTERS-2, as many of each colour
        self.colour_decks = np.array(game.cards_by_colour, np.int64).T.copy()
        self.rounds = len(game.cards) // players  # CRITTERS-31
        cards = len(game.cards)
        self.cards = cards
        at = layout_offsets(field_sizes(game))
        self.at = at
        self.width = len(SHARED_CARD_PLACES) + players  # columns of a card's place in the tensor
        self.size = tensor.tensor_shape(game)[0]
        self.most = 10.0 * cards / players
        # Tensor lookups: a place's column for each viewer (corrals counted from the viewer), and below each
        # card's first cell, each role's row and the absolute seat at each relative seat.
        self.place_count = CORRAL + players
        self.place_columns = np.array([[IN_DECK, ACTIVE, UNDER_ACTIVE, *(CORRAL + (seat - viewer) % players
                                                                        for seat in range(players))]
                                       for viewer in range(players)], np.int64)
        # The observation's scatters over the flattened (N, D) batch: where each game's row starts, each card's
        # first cell in it, and each game's ROLE_CELLS other one-hot cells (rewritten at every observation).
        self.row_starts = (np.arange(num_games) * self.size)[:, None]
        self.card_cells = self.row_starts + at["card_places"] + np.arange(cards) * self.width
        self.role_starts = (at["seat_roles"] + np.arange(len(SEAT_ROLES)) * players)[:, None]
        self._cells = np.zeros((num_games, ROLE_CELLS), np.int64)
        self._role_seats = np.zeros((len(SEAT_ROLES), num_games), np.int64)
        self._role_held = np.ones((len(SEAT_ROLES), num_games), bool)  # row 0: a starting player always
        self.turned = (np.arange(players)[:, None] + np.arange(players)) % players
        shape = (num_games,)
        self.phase = np.full(shape, OVER, np.int64)
        self.round = np.zeros(shape, np.int64)
        self.start = np.zeros(shape, np.int64)
        self.active = np.zeros(shape, np.int64)
        self.chooser = np.full(shape, -1, np.int64)
        self.plays = np.zeros(shape, np.int64)
        self.attribute = np.full(shape, -1, np.int64)
        self.pending = np.full(shape, -1, np.int64)
        self.final_attribute = np.full(shape, -1, np.int64)
        self.top = np.full(shape, -1, np.int64)
        # A spare column past the cards: the stack's empty slots point at it.
        self.place = np.zeros((num_games, cards + 1), np.int8)
        self.stack = np.full((num_games, players), cards, np.int64)  # at most one card a play (CRITTERS-23)
        self.deck_count = np.zeros((num_games, len(COLOURS)), np.int64)
        self.scores = np.zeros((num_games, players), np.int64)
        # Running tallies, so that no step sums over the cards: each corral's and the stack's cards and points.
        self.corral_cards = np.zeros((num_games, players), np.int64)
        self.corral_points = np.zeros((num_games, players, 2), np.int64)
        self.stack_cards = np.zeros(shape, np.int64)
        self.stack_points = np.zeros((num_games, 2), np.int64)
        self._rows = np.arange(num_games)

    # -- dealing -----------------------------------------------------------------------------
    def reset(self, games: np.ndarray, streams: Draws) -> None:
        """New games in the rows `games`: every card in its colour deck (CRITTERS-5), round 1 about to start."""
        self.round[games] = 0
        self.chooser[games] = -1
        self.attribute[games] = -1
        self.pending[games] = -1
        self.final_attribute[games] = -1
        self.top[games] = -1
        self.place[games] = IN_DECK
        self.deck_count[games] = self.deck_starts
        self.scores[games] = 0
        self.corral_cards[games] = 0
        self.corral_points[games] = 0
        self.stack_cards[games] = 0
        self.stack_points[games] = 0
        self.stack[games] = self.cards
        if self.first_player == "random":
            # CRITTERS-7: chance chooses the first starting player.
            self.start[games] = streams.draw(games, np.full(len(games), self.players))
        else:
            self.start[games] = self.first_player
        self._start_round(games)

    def _start_round(self, games: np.ndarray) -> None:
        # CRITTERS-8: the starting player is the first active player of the round.
        self.active[games] = self.start[games]
        self.plays[games] = 0
        self.phase[games] = ACTIVE_DRAW

    # -- reading -----------------------------------------------------------------------------
    @property
    def terminal(self) -> np.ndarray:
        over: np.ndarray = self.phase == OVER
        return over

    @property
    def current_player(self) -> np.ndarray:
        """The seat to act in each game (TERMINAL_PLAYER once it is over; `step` leaves no chance node)."""
        return self.players_to_act(self._rows)

    def players_to_act(self, games: np.ndarray) -> np.ndarray:
        """`current_player` of the games `games` (indices) only."""
        phase = self.phase[games]
        challenger = (self.start[games] + self.plays[games]) % self.players
        player = np.where(phase == CHALLENGE_DRAW, challenger, self.active[games])
        player = np.where(phase == FINAL_CHOOSE, self.chooser[games], player)
        return np.where(phase == OVER, TERMINAL_PLAYER, player)

    def challenger(self) -> np.ndarray:
        # CRITTERS-12, CRITTERS-37: each player in turn to the left of the starting player challenges.
        return (self.start + self.plays) % self.players

    def legal_mask(self, games: np.ndarray | None = None) -> np.ndarray:
        """(N, actions) booleans: the current player's legal actions (none once a game is over); with
        `games` (indices), the rows of those games only."""
        phase = self.phase if games is None else self.phase[games]
        decks = self.deck_count if games is None else self.deck_count[games]
        mask = np.zeros((len(phase), self.num_actions), bool)
        drawing = (phase == ACTIVE_DRAW) | (phase == CHALLENGE_DRAW)
        # CRITTERS-39: an empty colour deck cannot be drawn from.
        mask[:, :FIRST_CHOOSE] = drawing[:, None] & (decks > 0)
        choosing = (phase == ACTIVE_CHOOSE) | (phase == TIE_CHOOSE) | (phase == FINAL_CHOOSE)
        mask[:, FIRST_CHOOSE:] = choosing[:, None]
        return mask

    def random_actions(self, games: np.ndarray, draws: Draws) -> np.ndarray:
        """A uniformly random legal action in each game of `games` (indices), as an (N,) array: what
        `bestiary.rl.batched.random_seat_actions` picks from `legal_mask`, the k-th legal action for a
        drawn k, found without building the mask."""
        phase = self.phase[games]
        choosing = (phase == ACTIVE_CHOOSE) | (phase == TIE_CHOOSE) | (phase == FINAL_CHOOSE)
        decks = self.deck_count[games] > 0
        k = draws.draw(games, np.where(choosing, 2, decks.sum(axis=1)))
        colour = (np.cumsum(decks.T, axis=0) <= k).sum(axis=0)  # the k-th colour with cards left
        actions = np.zeros(self.num_games, np.int64)
        actions[games] = np.where(choosing, FIRST_CHOOSE + k, colour)
        return actions

    def returns(self, games: np.ndarray | None = None) -> np.ndarray:
        """(N, players), or the rows of `games` (indices): CRITTERS-35, the most points wins and equal best
        scores share the win; 0 until the end."""
        scores = self.scores if games is None else self.scores[games]
        over = self.terminal if games is None else self.terminal[games]
        winners = scores == scores.max(axis=1, keepdims=True)
        share = winners / winners.sum(axis=1, keepdims=True)
        return np.where(over[:, None], share, 0.0)

    def observation(self, viewers: np.ndarray) -> np.ndarray:
        """(N, D) float32: each game's observation tensor for its seat in `viewers`, the numbers
        `CritterState.observation_tensor` gives (games/critters/tensor.py).

        Every 1 of the one-hot fields is gathered as a cell number first (a field with no 1 now points at the
        phase's cell, which holds a 1 anyway) and all are written by one scatter; then the few other numbers."""
        n, players, at, size = self.num_games, self.players, self.at, self.size
        phase = self.phase
        cells = self._cells
        spare = at["phase"] + phase

        # The five seat roles (SEAT_ROLES), each a seat or none: its cell in the role's row of relative seats.
        challenger = self.challenger()
        drawn = self.pending >= 0
        seats, held = self._role_seats, self._role_held  # (roles, N): rows written in place
        seats[0], seats[1], seats[2], seats[3] = self.start, self.active, challenger, self.chooser
        np.copyto(seats[4], np.where(phase == CHALLENGE_FLIP, challenger, self.active))
        np.logical_and(phase != FIRST_PLAYER, phase < FINAL_CHOOSE, out=held[1])  # FINAL_CHOOSE, OVER last
        np.logical_or(phase == CHALLENGE_DRAW, phase == CHALLENGE_FLIP, out=held[2])
        np.greater_equal(phase, FINAL_CHOOSE, out=held[3])
        held[4] = drawn
        seats -= viewers
        seats %= players
        seats += self.role_starts
        cells[:, 0] = spare
        cells[:, 1:1 + len(SEAT_ROLES)] = np.where(held, seats, spare).T
        cells[:, 6] = np.where(drawn, at["face_down_colour"] + self.pending, spare)
        cells[:, 7] = np.where(self.attribute >= 0, at["attribute"] + self.attribute, spare)
        cells[:, 8] = np.where(self.final_attribute >= 0, at["final_attribute"] + self.final_attribute, spare)
        # Each card's place as its tensor column, seats counted from the viewer: one lookup per card.
        if (viewers == viewers[0]).all():  # the usual case: the learner's seat in every game
            columns = np.take(self.place_columns[viewers[0]], self.place[:, :-1])
        else:
            columns = np.take(self.place_columns, (viewers * self.place_count)[:, None] + self.place[:, :-1])
        columns += self.card_cells
        cells += self.row_starts
        out = np.zeros((n, size), np.float32)
        flat = out.reshape(-1)
        flat[cells] = 1.0
        flat[columns] = 1.0
        out[:, at["progress"]] = self.round / self.rounds
        out[:, at["progress"] + 1] = self.plays / players
        out[:, at["deck_sizes"]:at["deck_sizes"] + len(COLOURS)] = self.deck_count / self.deck_starts
        # Corral totals, the corrals turned so that the viewer's comes first.
        if (viewers == viewers[0]).all():
            turned = self.corral_points[:, self.turned[viewers[0]]] / self.most
        else:
            turned = np.take_along_axis(self.corral_points, self.turned[viewers][:, :, None], axis=1) / self.most
        out[:, at["corral_totals"]:at["corral_totals"] + 2 * players] = turned.reshape(n, 2 * players)
        return out

    # -- playing -----------------------------------------------------------------------------
    def step(self, actions: np.ndarray, games: np.ndarray, streams: Draws) -> None:
        """Apply `actions[g]` in each game g of `games` (indices), then the chance node that follows."""
        phase = self.phase[games]
        chosen = actions[games]
        drawing = chosen < FIRST_CHOOSE
        # CRITTERS-8, CRITTERS-12: draw the top card of a colour deck, face down; CRITTERS-9, CRITTERS-23:
        # commonness or size announced before the card is flipped, or afresh after a tie.
        self.pending[games] = np.where(drawing, chosen, self.pending[games])
        final = phase == FINAL_CHOOSE
        self.attribute[games] = np.where(drawing | final, self.attribute[games], chosen - FIRST_CHOOSE)
        self.phase[games] = AFTER_DECISION[phase]
        if final.any():
            # CRITTERS-32, CRITTERS-33: the chooser's attribute scores every corral.
            self.final_attribute[games[final]] = chosen[final] - FIRST_CHOOSE
            self._score(games[final])
        now = AFTER_DECISION[phase]
        flipping = games[now == ACTIVE_FLIP]
        if len(flipping):
            self._flip_active_card(flipping, streams)
        flipping = games[now == CHALLENGE_FLIP]
        if len(flipping):
            self._flip_challenge_card(flipping, streams)

    def _take_from_deck(self, games: np.ndarray, streams: Draws) -> np.ndarray:
        """CRITTERS-38: the face-down card turns out to be one of its deck's cards, each alike likely."""
        colour = self.pending[games]
        deck = self.colour_decks[:, colour]  # (cards of a colour, games): one column per game, in card order
        in_deck = self.place[games, deck] == IN_DECK
        k = streams.draw(games, self.deck_count[games, colour])
        # The k-th card still in the deck (sums down the columns: numpy adds whole rows at a time).
        card: np.ndarray = deck[np.argmax(np.cumsum(in_deck, axis=0) > k, axis=0), self._rows[:len(games)]]
        self.deck_count[games, colour] -= 1
        self.pending[games] = -1
        return card

    def _flip_active_card(self, games: np.ndarray, streams: Draws) -> None:
        # CRITTERS-10: the active card is flipped and placed on the puck.
        card = self._take_from_deck(games, streams)
        self.place[games, card] = ACTIVE
        self.top[games] = card
        self.stack[games, 0] = card
        self.stack_cards[games] = 1
        self.stack_points[games] = self.values[card]
        self.plays[games] = 1
        self.phase[games] = CHALLENGE_DRAW

    def _flip_challenge_card(self, games: np.ndarray, streams: Draws) -> None:
        # CRITTERS-14: the challenge card is flipped, its ability facing the active card.
        card = self._take_from_deck(games, streams)
        plays = self.plays[games]
        challenger = (self.start[games] + plays) % self.players
        plays += 1
        self.plays[games] = plays
        top, active = self.top[games], self.active[games]
        # CRITTERS-26, CRITTERS-14, CRITTERS-15: the ability first, and only on a colour match.
        effect = self.ability_colour[card] == self.colour[top]
        kind = self.ability_kind[card]
        attribute = self.attribute[games]
        mine, theirs = self.values[card, attribute], self.values[top, attribute]
        compared = ~effect
        takes_over = (effect & (kind == CAPTURE)) | (compared & (mine > theirs))  # CRITTERS-17, CRITTERS-21
        active_corrals = (effect & (kind == TRAPPED_BY)) | (compared & (mine < theirs))  # CRITTERS-16, -22
        blocks = effect & (kind == BLOCK)  # CRITTERS-18
        ties = compared & (mine == theirs)  # CRITTERS-23
        # CRITTERS-19: a trapped, beaten or blocking card goes to a corral; else it becomes the active card.
        corralled = active_corrals | blocks
        keeper = np.where(active_corrals, active, challenger)
        self.corral_cards[games, keeper] += corralled
        self.corral_points[games, keeper] += self.values[card] * corralled[:, None]
        # CRITTERS-17, CRITTERS-21, CRITTERS-27: the stack goes to the challenger, whose card becomes active.
        # On the round's last play the round's end corrals the stack and the new card together, to the same
        # seat, so the stack stays for it.
        plays_left = plays < self.players
        takes_stack = takes_over & plays_left
        if takes_stack.any():
            self._corral_stack(games[takes_stack], challenger[takes_stack])
        # CRITTERS-23: the active card goes under the challenge card, which becomes active.
        self.place[games[ties], top[ties]] = UNDER_ACTIVE
        self.place[games, card] = np.where(corralled, CORRAL + keeper, ACTIVE)
        new_top = takes_over | ties
        on_top = games[new_top]
        self.stack[on_top, self.stack_cards[on_top]] = card[new_top]
        self.stack_cards[games] += new_top  # a takeover's stack was just emptied (but on the last play)
        self.stack_points[games] += self.values[card] * new_top[:, None]
        self.top[games] = np.where(new_top, card, top)
        self.active[games] = np.where(new_top, challenger, active)
        # CRITTERS-23 (CRITTERS-40: not on the round's last play); a takeover too with the rechoose option.
        rechoose = (ties | (takes_over & self.rechoose_on_takeover)) & plays_left
        self.phase[games] = np.where(rechoose, TIE_CHOOSE, CHALLENGE_DRAW)
        if not plays_left.all():
            self._end_round(games[~plays_left])

    def _corral_card(self, games: np.ndarray, cards: np.ndarray, seats: np.ndarray) -> None:
        # CRITTERS-19: won cards go face down into the winner's corral.
        self.place[games, cards] = CORRAL + seats
        self.corral_cards[games, seats] += 1
        self.corral_points[games, seats] += self.values[cards]

    def _corral_stack(self, games: np.ndarray, seats: np.ndarray) -> None:
        # CRITTERS-19: the stack's cards go face down into the winner's corral.
        self.place[games[:, None], self.stack[games]] = (CORRAL + seats)[:, None]  # (the spare column too)
        self.corral_cards[games, seats] += self.stack_cards[games]
        self.corral_points[games, seats] += self.stack_points[games]
        self.stack_cards[games] = 0
        self.stack_points[games] = 0
        self.stack[games] = self.cards

    def _end_round(self, games: np.ndarray) -> None:
        # CRITTERS-28: the active card and any under it go to the active player's corral.
        self._corral_stack(games, self.active[games])
        self.top[games] = -1
        self.attribute[games] = -1
        self.round[games] += 1
        last = self.round[games] == self.rounds  # CRITTERS-31: every card has been played
        if last.any():
            self._begin_final_choice(games[last])
        going_on = games[~last]
        # CRITTERS-30: the player to the left of the previous starting player starts the next round.
        self.start[going_on] = (self.start[going_on] + 1) % self.players
        self._start_round(going_on)

    def _begin_final_choice(self, games: np.ndarray) -> None:
        # CRITTERS-32: the player with the fewest cards chooses; a tie goes to whoever played last.
        players = self.players
        counts = self.corral_cards[games]
        order = (self.start[games][:, None] + np.arange(players)) % players  # the last round's playing order
        in_order = np.take_along_axis(counts, order, axis=1)
        fewest = in_order == in_order.min(axis=1, keepdims=True)
        last_fewest = players - 1 - np.argmax(fewest[:, ::-1], axis=1)
        self.chooser[games] = order[np.arange(len(games)), last_fewest]
        self.phase[games] = FINAL_CHOOSE

    def _score(self, games: np.ndarray) -> None:
        # CRITTERS-33: each player totals the chosen value over their corral.
        self.scores[games] = self.corral_points[games, :, self.final_attribute[games]]
        self.phase[games] = OVER
