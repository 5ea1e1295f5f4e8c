"""Critter capture's observation tensor: `observation(player)` as fixed-shape float32 numbers.

It is built from the observation dict alone, so it can hold nothing the player may not see. Seats are
counted from the viewer (0 = the viewer, 1 = the next seat to the left, ...), so one policy serves every
seat. Fields, in order (docs/rl.md describes each):
phase, progress, seat roles, attributes, face-down colour, deck sizes, card places, corral totals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bestiary.core.api import JSON
from bestiary.core.tensors import layout_bounds, layout_shape, split_layout
from bestiary.games.critters import rules
from bestiary.games.critters.cards import ATTRIBUTES, COLOURS

if TYPE_CHECKING:
    from bestiary.games.critters.game import CritterCapture

# The tensor's own order, fixed so that a trained policy keeps its meaning if the state's order changes.
PHASES = (rules.FIRST_PLAYER, rules.ACTIVE_DRAW, rules.ACTIVE_CHOOSE, rules.ACTIVE_FLIP, rules.CHALLENGE_DRAW,
          rules.CHALLENGE_FLIP, rules.TIE_CHOOSE, rules.FINAL_CHOOSE, rules.OVER)
SEAT_ROLES = ("starting_player", "active_player", "challenger", "chooser", "drawn_by")
SHARED_CARD_PLACES = ("unseen", "active", "under_active")  # then one corral per seat


def field_sizes(game: CritterCapture) -> list[tuple[str, int]]:
    players, cards = game.num_players, len(game.cards)
    return [("phase", len(PHASES)), ("progress", 2), ("seat_roles", len(SEAT_ROLES) * players),
            ("attribute", len(ATTRIBUTES)), ("final_attribute", len(ATTRIBUTES)),
            ("face_down_colour", len(COLOURS)), ("deck_sizes", len(COLOURS)),
            ("card_places", cards * (len(SHARED_CARD_PLACES) + players)), ("corral_totals", players * 2)]


def tensor_shape(game: CritterCapture) -> tuple[int, ...]:
    return layout_shape(field_sizes(game))


def tensor_bounds(game: CritterCapture) -> tuple[np.ndarray, np.ndarray]:
    # A corral holding every card at the highest value reaches players × the scale (10 × N / P).
    return layout_bounds(field_sizes(game), high={"corral_totals": float(game.num_players)})


def split_fields(game: CritterCapture, values: np.ndarray) -> dict[str, np.ndarray]:
    """Views of a tensor's fields by name (writing to a view writes to the tensor)."""
    return split_layout(field_sizes(game), values)


def encode(game: CritterCapture, observation: JSON, viewer: int) -> np.ndarray:
    players, cards = game.num_players, len(game.cards)
    out = np.zeros(tensor_shape(game), dtype=np.float32)
    fields = split_fields(game, out)

    def relative(seat: int) -> int:
        return (seat - viewer) % players

    o = observation
    fields["phase"][PHASES.index(o["phase"])] = 1.0
    fields["progress"][:] = ((o["round"] - 1) / o["rounds"], o["plays_this_round"] / players)
    roles = fields["seat_roles"].reshape(len(SEAT_ROLES), players)
    face_down = o["face_down_card"]
    seats = (o["starting_player"], o["active_player"], o["challenger"], o["chooser"],
             None if face_down is None else face_down["drawn_by"])
    for row, seat in enumerate(seats):
        if seat is not None:
            roles[row, relative(seat)] = 1.0
    if o["attribute"] is not None:
        fields["attribute"][ATTRIBUTES.index(o["attribute"])] = 1.0
    if o["final_attribute"] is not None:
        fields["final_attribute"][ATTRIBUTES.index(o["final_attribute"])] = 1.0
    if face_down is not None:
        fields["face_down_colour"][COLOURS.index(face_down["colour"])] = 1.0
    for c, colour in enumerate(COLOURS):
        fields["deck_sizes"][c] = o["decks"][colour] / len(game.cards_by_colour[c])

    places = fields["card_places"].reshape(cards, len(SHARED_CARD_PLACES) + players)
    for ids in o["unseen"].values():
        for card_id in ids:
            places[game.index_of[card_id], 0] = 1.0
    if o["active_card"] is not None:
        places[game.index_of[o["active_card"]["id"]], 1] = 1.0
    for card in o["under_active"]:
        places[game.index_of[card["id"]], 2] = 1.0
    totals = fields["corral_totals"].reshape(players, 2)
    most = 10.0 * cards / players  # every card of a player's share at the highest value
    for seat, corral in enumerate(o["corrals"]):
        for card in corral:
            places[game.index_of[card["id"]], len(SHARED_CARD_PLACES) + relative(seat)] = 1.0
        totals[relative(seat)] = (sum(c["commonness"] for c in corral) / most, sum(c["size"] for c in corral) / most)
    return out
