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
from bestiary.core.tensors import layout_bounds, layout_offsets, layout_shape, per_game, split_layout
from bestiary.games.lungo import rules

if TYPE_CHECKING:
    from bestiary.games.lungo.game import CreaturesOfLungo
    from bestiary.games.lungo.state import LungoState

# The tensor's own orders, fixed so that a trained policy keeps its meaning if the state's order changes.
PHASES = (rules.SETUP, rules.TURN_DRAW, rules.PLAY, rules.TARGET, rules.RESPONSE, rules.CHOOSE, rules.FIGHT,
          rules.DICE, rules.SWAT_PLACE, rules.SWAT_RACE, rules.WINNINGS_DRAW, rules.TOKEN_MOMENT, rules.TOKEN_RACE,
          rules.OVER)
SEAT_ROLES = ("active_player", "to_act", "token_taker", "loser", "target", "drawer", "champion", "placer",
              "rolling", "in_swat")
SEAT_NUMBERS = ("hand_size", "battle_order", "roll", "face_down_choices", "has_chosen")
SHARED_CARD_PLACES = ("unseen", "own_hand", "discard", "pending", "battle_card", "central_pile")
HAND_SCALE = 10.0  # a usual hand holds fewer cards; more is possible and stays > 1
DIE_FACES = 6


def card_count(game: CreaturesOfLungo) -> int:
    return len(game.cards)


def field_sizes(game: CreaturesOfLungo) -> list[tuple[str, int]]:
    players, cards = game.num_players, card_count(game)
    return [("phase", len(PHASES)), ("progress", 3), ("goal", len(game.goal_cards) + 1),
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
    fields["progress"][:] = (o["turn"] / o["turn_limit"], o["draw_pile"] / cards, o["tokens_left"] / (players - 1))
    if o["goal"] is not None:
        fields["goal"][game.goal_index[o["goal"]["id"]]] = 1.0
    fields["goal"][-1] = float(bool(o["goal_met"]))

    roles = fields["seat_roles"].reshape(len(SEAT_ROLES), players)
    single = (o["active_player"], o["loser"], o["target"], None if battle is None else battle["drawer"],
              None if battle is None else battle["champion"], None if battle is None else battle["placer"])
    for row, seat in zip((0, 3, 4, 5, 6, 7), single, strict=True):
        if seat is not None:
            roles[row, relative(seat)] = 1.0
    for row, seats in ((1, o["to_act"]), (2, o["token_takers"]), (8, () if battle is None else battle["rolling"])):
        for seat in seats:
            roles[row, relative(seat)] = 1.0
    numbers = fields["seat_numbers"].reshape(len(SEAT_NUMBERS), players)
    for seat in range(players):
        numbers[0, relative(seat)] = o["hand_sizes"][seat] / HAND_SCALE

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
            numbers[1, relative(seat)] = (position + 1) / players
        for seat in range(players):
            roles[9, relative(seat)] = float(battle["in_swat"][seat])
            numbers[2, relative(seat)] = battle["rolls"][seat] / DIE_FACES
            choice = battle["choices"][seat]
            if isinstance(choice, dict):  # another seat's cards, face down until all have chosen (LUNGO-39)
                numbers[3, relative(seat)] = choice["face_down"] / HAND_SCALE
                numbers[4, relative(seat)] = float(choice["chosen"])
            else:
                for card in choice:
                    place(card, chosen + relative(seat))
    places[~places.any(axis=1), 0] = 1.0  # the draw pile, other hands and face-down battle cards
    return out


class Tables:
    """Where each number of the tensor goes, worked out once per game."""

    def __init__(self, game: CreaturesOfLungo) -> None:
        self.players = players = game.num_players
        self.cards = cards = card_count(game)
        self.zeros = np.zeros(tensor_shape(game), np.float32)
        self.at = at = layout_offsets(field_sizes(game))
        self.phase = {phase: at["phase"] + k for k, phase in enumerate(PHASES)}
        self.goal = [at["goal"] + game.goal_index[game.goal_view(g)["id"]] for g in range(len(game.goal_cards))]
        self.places = slice(at["card_places"], at["card_places"] + cards * (len(SHARED_CARD_PLACES) + 2 * players))
        self.one_hot = np.eye(len(SHARED_CARD_PLACES) + 2 * players, dtype=np.float32)
        self.in_front = len(SHARED_CARD_PLACES)
        self.chosen = len(SHARED_CARD_PLACES) + players


tables = per_game(Tables)


def observe(state: LungoState, viewer: int) -> np.ndarray:
    """`encode(game, state.observation(viewer), viewer)`, read from the state."""
    t = tables(state.game)
    game = state.game
    at, players = t.at, t.players
    roles, numbers = at["seat_roles"], at["seat_numbers"]
    # The numbers that are not card places, gathered as (position, value) and written at once.
    where = [t.phase[state.phase], at["progress"], at["progress"] + 1, at["progress"] + 2, at["goal"] + len(t.goal)]
    value = [1.0, state.turns / game.options.turn_limit, len(state.pile) / t.cards, state.tokens / (players - 1),
             float(bool(rules.goal_met(state, viewer)))]
    if state.goals[viewer] >= 0:
        where.append(t.goal[state.goals[viewer]])
        value.append(1.0)
    battle = state.battle >= 0
    single = [(0, state.active), (3, state.loser if state.loser >= 0 else None),
              (4, state.target if state.target >= 0 else None)]
    if battle:
        single += [(5, state.drawer), (6, state.champion if state.champion >= 0 else None),
                   (7, state.placer if state.placer >= 0 else None)]
    for row, seat in single:
        if seat is not None:
            where.append(roles + row * players + (seat - viewer) % players)
            value.append(1.0)
    many = [(1, state.players_to_act()), (2, state.takers)]
    if battle:
        many.append((8, state.rollers))
    for row, seats in many:
        for seat in seats:
            where.append(roles + row * players + (seat - viewer) % players)
            value.append(1.0)
    for seat in range(players):
        where.append(numbers + (seat - viewer) % players)
        value.append(len(state.hands[seat]) / HAND_SCALE)

    columns = [0] * t.cards  # unseen (the pile, other hands, face-down battle cards) unless found below
    for card in state.hands[viewer]:
        columns[card] = 1
    for card in state.discard:
        columns[card] = 2
    if state.pending >= 0:
        columns[state.pending] = 3
    for seat, front in enumerate(state.afflictions):
        column = t.in_front + (seat - viewer) % players
        for card in front:
            columns[card] = column
    if battle:
        columns[state.battle] = 4
        for card in state.central:
            columns[card] = 5
        for position, seat in enumerate(state.order):
            where.append(numbers + players + (seat - viewer) % players)
            value.append((position + 1) / players)
        revealed = state.phase != rules.CHOOSE  # LUNGO-39: face down until all have chosen
        for seat in range(players):
            relative = (seat - viewer) % players
            where += (roles + 9 * players + relative, numbers + 2 * players + relative)
            value += (float(state.in_swat[seat]), state.rolls[seat] / DIE_FACES)
            cards = state.choices[seat]
            if revealed or seat == viewer:
                column = t.chosen + relative
                for card in cards:
                    columns[card] = column
            else:
                where += (numbers + 3 * players + relative, numbers + 4 * players + relative)
                value += (len(cards) / HAND_SCALE, float(state.chosen[seat]))
    out = t.zeros.copy()
    out[where] = value
    np.take(t.one_hot, np.frombuffer(bytes(columns), np.uint8), axis=0, out=out[t.places].reshape(t.cards, -1))
    return out
