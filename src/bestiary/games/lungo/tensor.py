"""Creatures of Lungo's observation tensor: `observation(player)` as fixed-shape float32 numbers.

`encode` builds it from the observation dict alone, so it can hold nothing the player may not see (other
hands, other goals, battle cards still face down); `observe` builds the same numbers straight from the state,
with positions worked out once per game, reading only what the observation shows (tests check the two agree
at every step of random games). Seats are counted from the viewer (0 = the viewer, 1 = the
next seat to the left, ...), so one policy serves every seat. Fields, in order (docs/rl.md describes each):
phase, progress, goal, seat roles, seat numbers, card places.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bestiary.core.api import JSON
from bestiary.core.tensors import (
    item_writer,
    layout_bounds,
    layout_offsets,
    layout_shape,
    one_hot_starts,
    per_game,
    seat_positions,
    split_layout,
)
from bestiary.games.lungo import phases, rules

if TYPE_CHECKING:
    from bestiary.games.lungo.game import CreaturesOfLungo
    from bestiary.games.lungo.state import LungoState

# The tensor's own orders, fixed so that a trained policy keeps its meaning if the state's order changes.
PHASES = (phases.SETUP, phases.TURN_DRAW, phases.PLAY, phases.TARGET, phases.RESPONSE, phases.CHOOSE,
          phases.FIGHT, phases.DICE, phases.SWAT_PLACE, phases.SWAT_RACE, phases.WINNINGS_DRAW, phases.TOKEN_MOMENT,
          phases.TOKEN_RACE, phases.OVER)
SEAT_ROLES = ("active_player", "to_act", "token_taker", "loser", "target", "drawer", "champion", "placer",
              "rolling", "in_swat")
SEAT_NUMBERS = ("hand_size", "battle_order", "roll", "face_down_choices", "has_chosen")
ROLE = {name: row for row, name in enumerate(SEAT_ROLES)}
NUMBER = {name: row for row, name in enumerate(SEAT_NUMBERS)}
SHARED_CARD_PLACES = ("unseen", "own_hand", "discard", "pending", "battle_card", "central_pile")
HAND_SCALE = 10.0  # a usual hand holds fewer cards; more is possible and stays > 1
DIE_FACES = 6


def card_count(game: CreaturesOfLungo) -> int:
    return len(game.cards)


def field_sizes(game: CreaturesOfLungo) -> list[tuple[str, int]]:
    players, cards = game.num_players, card_count(game)
    return [("phase", len(PHASES)), ("progress", 4), ("goal", len(game.goal_cards) + 1),
            ("seat_roles", len(SEAT_ROLES) * players), ("seat_numbers", len(SEAT_NUMBERS) * players),
            ("card_places", cards * (len(SHARED_CARD_PLACES) + 2 * players))]


def tensor_shape(game: CreaturesOfLungo) -> tuple[int, ...]:
    return layout_shape(field_sizes(game))


def tensor_bounds(game: CreaturesOfLungo) -> tuple[np.ndarray, np.ndarray]:
    # A hand, or a face-down battle choice, can hold at most every card of the deck.
    return layout_bounds(field_sizes(game), high={"seat_numbers": max(1.0, card_count(game) / HAND_SCALE)})


def split_fields(game: CreaturesOfLungo, values: np.ndarray) -> dict[str, np.ndarray]:
    """Views of a tensor's fields by name (writing to a view writes to the tensor)."""
    return split_layout(field_sizes(game), values)


def encode(game: CreaturesOfLungo, observation: JSON, viewer: int) -> np.ndarray:
    players, cards = game.num_players, card_count(game)
    out = np.zeros(tensor_shape(game), dtype=np.float32)
    fields = split_fields(game, out)

    def relative(seat: int) -> int:
        return (seat - viewer) % players

    o = observation
    battle = o["battle"]
    fields["phase"][PHASES.index(o["phase"])] = 1.0
    fields["progress"][:] = (o["turn"] / o["turn_limit"], o["draw_pile"] / cards, o["tokens_left"] / (players - 1),
                             float(bool(o["battle_on_top"])))  # LUNGO-12
    if o["goal"] is not None:
        fields["goal"][game.goal_index[o["goal"]["id"]]] = 1.0
    fields["goal"][-1] = float(bool(o["goal_met"]))

    roles = fields["seat_roles"].reshape(len(SEAT_ROLES), players)
    single = (o["active_player"], o["loser"], o["target"], None if battle is None else battle["drawer"],
              None if battle is None else battle["champion"], None if battle is None else battle["placer"])
    for row, seat in zip((ROLE[name] for name in ("active_player", "loser", "target", "drawer", "champion", "placer")),
                         single, strict=True):
        if seat is not None:
            roles[row, relative(seat)] = 1.0
    for row, seats in ((ROLE["to_act"], o["to_act"]), (ROLE["token_taker"], o["token_takers"]),
                       (ROLE["rolling"], () if battle is None else battle["rolling"])):
        for seat in seats:
            roles[row, relative(seat)] = 1.0
    numbers = fields["seat_numbers"].reshape(len(SEAT_NUMBERS), players)
    for seat in range(players):
        numbers[NUMBER["hand_size"], relative(seat)] = o["hand_sizes"][seat] / HAND_SCALE

    places = fields["card_places"].reshape(cards, len(SHARED_CARD_PLACES) + 2 * players)
    in_front, chosen = len(SHARED_CARD_PLACES), len(SHARED_CARD_PLACES) + players

    def place(card: JSON, column: int) -> None:
        places[game.index_of[card["id"]], column] = 1.0

    for card in o["hand"] or ():
        place(card, 1)
    for card in o["discard"]:
        place(card, 2)
    if o["pending_card"] is not None:
        place(o["pending_card"], 3)
    for seat, front in enumerate(o["in_front"]):
        for card in front:
            place(card, in_front + relative(seat))
    if battle is not None:
        place(battle["card"], 4)
        for card in battle["central_pile"]:
            place(card, 5)
        for position, seat in enumerate(battle["order"]):
            numbers[NUMBER["battle_order"], relative(seat)] = (position + 1) / players
        for seat in range(players):
            roles[ROLE["in_swat"], relative(seat)] = float(battle["in_swat"][seat])
            numbers[NUMBER["roll"], relative(seat)] = battle["rolls"][seat] / DIE_FACES
            choice = battle["choices"][seat]
            if isinstance(choice, dict):  # another seat's cards, face down until all have chosen (LUNGO-39)
                numbers[NUMBER["face_down_choices"], relative(seat)] = choice["face_down"] / HAND_SCALE
                numbers[NUMBER["has_chosen"], relative(seat)] = float(choice["chosen"])
            else:
                for card in choice:
                    place(card, chosen + relative(seat))
    places[~places.any(axis=1), 0] = 1.0  # the draw pile, other hands and face-down battle cards
    return out


class Tables:
    """Where each number of the tensor goes, worked out once per game (per viewer where seats are relative)."""

    def __init__(self, game: CreaturesOfLungo) -> None:
        self.players = players = game.num_players
        self.cards = cards = card_count(game)
        self.zeros = np.zeros(tensor_shape(game), np.float32)
        at = layout_offsets(field_sizes(game))
        self.phase = {phase: at["phase"] + k for k, phase in enumerate(PHASES)}
        self.progress = at["progress"]
        self.turn_limit = game.options.turn_limit
        self.goal = [at["goal"] + game.goal_index[game.goal_view(g)["id"]] for g in range(len(game.goal_cards))]
        self.goal_met = at["goal"] + len(game.goal_cards)
        # [viewer][seat] positions of each seat role and number, by name
        self.role = dict(zip(SEAT_ROLES, seat_positions(at["seat_roles"], players, len(SEAT_ROLES)), strict=True))
        self.number = dict(zip(SEAT_NUMBERS, seat_positions(at["seat_numbers"], players, len(SEAT_NUMBERS)),
                               strict=True))
        # Each card's place as a column number (0 = unseen), then the one-hot rows written at once.
        self.unseen = bytes(cards)
        self.card_rows = one_hot_starts(at["card_places"], cards, len(SHARED_CARD_PLACES) + 2 * players)
        self.in_front = seat_positions(len(SHARED_CARD_PLACES), players)[0]  # [viewer][seat]
        self.chosen = seat_positions(len(SHARED_CARD_PLACES) + players, players)[0]


tables = per_game(Tables)


def observe(state: LungoState, viewer: int) -> np.ndarray:
    """`encode(game, state.observation(viewer), viewer)`, read from the state."""
    t = tables(state.game)
    players = t.players
    out = t.zeros.copy()
    o = item_writer(out)
    o[t.phase[state.phase]] = 1.0
    at = t.progress
    o[at] = state.turns / t.turn_limit
    o[at + 1] = len(state.pile) / t.cards
    o[at + 2] = state.tokens / (players - 1)
    if state.top == phases.BATTLE:  # LUNGO-12: the top card's back
        o[at + 3] = 1.0
    goal = state.goals[viewer]
    if goal >= 0:
        o[t.goal[goal]] = 1.0
        if rules.goal_met(state, viewer):
            o[t.goal_met] = 1.0
    role, number = t.role, t.number
    o[role["active_player"][viewer][state.active]] = 1.0
    if state.loser >= 0:
        o[role["loser"][viewer][state.loser]] = 1.0
    if state.target >= 0:
        o[role["target"][viewer][state.target]] = 1.0
    row = role["to_act"][viewer]
    for seat in state.players_to_act():
        o[row[seat]] = 1.0
    row = role["token_taker"][viewer]
    for seat in state.takers:
        o[row[seat]] = 1.0
    row = number["hand_size"][viewer]
    for seat, hand in enumerate(state.hands):
        if hand:
            o[row[seat]] = len(hand) / HAND_SCALE

    columns = bytearray(t.unseen)  # unseen (the pile, other hands, face-down battle cards) unless found below
    for card in state.hands[viewer]:
        columns[card] = 1
    for card in state.discard:
        columns[card] = 2
    if state.pending >= 0:
        columns[state.pending] = 3
    in_front = t.in_front[viewer]
    for seat, front in enumerate(state.afflictions):
        if front:
            column = in_front[seat]
            for card in front:
                columns[card] = column
    if state.battle >= 0:
        o[role["drawer"][viewer][state.drawer]] = 1.0
        if state.champion >= 0:
            o[role["champion"][viewer][state.champion]] = 1.0
        if state.placer >= 0:
            o[role["placer"][viewer][state.placer]] = 1.0
        row = role["rolling"][viewer]
        for seat in state.rollers:
            o[row[seat]] = 1.0
        columns[state.battle] = 4
        for card in state.central:
            columns[card] = 5
        row = number["battle_order"][viewer]
        for position, seat in enumerate(state.order):
            o[row[seat]] = (position + 1) / players
        swat, rolls = role["in_swat"][viewer], number["roll"][viewer]
        face_down, has_chosen = number["face_down_choices"][viewer], number["has_chosen"][viewer]
        chosen = t.chosen[viewer]
        revealed = state.phase != phases.CHOOSE  # LUNGO-39: face down until all have chosen
        for seat in range(players):
            if state.in_swat[seat]:
                o[swat[seat]] = 1.0
            if state.rolls[seat]:
                o[rolls[seat]] = state.rolls[seat] / DIE_FACES
            cards = state.choices[seat]
            if revealed or seat == viewer:
                column = chosen[seat]
                for card in cards:
                    columns[card] = column
            else:
                if cards:
                    o[face_down[seat]] = len(cards) / HAND_SCALE
                if state.chosen[seat]:
                    o[has_chosen[seat]] = 1.0
    out[t.card_rows + np.frombuffer(columns, np.uint8)] = 1.0
    return out
