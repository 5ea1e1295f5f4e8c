"""Creatures of Lungo's observation tensor: `observation(player)` as fixed-shape float32 numbers.

It is built from the observation dict alone, so it can hold nothing the player may not see (other hands,
other goals, battle cards still face down). Seats are counted from the viewer (0 = the viewer, 1 = the
next seat to the left, ...), so one policy serves every seat. Fields, in order (docs/rl.md describes each):
phase, progress, goal, seat roles, seat numbers, card places.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bestiary.core.api import JSON
from bestiary.core.tensors import layout_bounds, layout_shape, split_layout
from bestiary.games.lungo import rules

if TYPE_CHECKING:
    from bestiary.games.lungo.game import CreaturesOfLungo

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
