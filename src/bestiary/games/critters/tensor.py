"""Critter capture's observation tensor: `observation(player)` as fixed-shape float32 numbers.

`encode` builds it from the observation dict alone, so it can hold nothing the player may not see; `observe`
builds the same numbers straight from the state with positions worked out once per game (`Tables`), for
learners that ask at every step (tests check the two agree at every step of random games). Everything on
the table is public (CRITTERS-41), so the state holds nothing `observe` must leave out. Seats are counted from
the viewer (0 = the viewer, 1 = the next seat to the left, ...), so one policy serves every seat. Fields, in
order (docs/rl.md describes each):
phase, progress, seat roles, attributes, face-down colour, deck sizes, card places, corral totals.
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
from bestiary.games.critters import rules
from bestiary.games.critters.cards import ATTRIBUTES, COLOURS

if TYPE_CHECKING:
    from bestiary.games.critters.game import CritterCapture
    from bestiary.games.critters.state import CritterState

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


class Tables:
    """Where each number of the tensor goes, worked out once per game (per viewer where seats are relative)."""

    def __init__(self, game: CritterCapture) -> None:
        players, cards = game.num_players, len(game.cards)
        self.players = players
        self.zeros = np.zeros(tensor_shape(game), np.float32)
        at = layout_offsets(field_sizes(game))
        self.phase = {phase: at["phase"] + k for k, phase in enumerate(PHASES)}
        self.progress = at["progress"]
        self.roles = seat_positions(at["seat_roles"], players, len(SEAT_ROLES))  # [role][viewer][seat]
        self.attribute = at["attribute"]
        self.final_attribute = at["final_attribute"]
        self.face_down = at["face_down_colour"]
        self.deck_sizes = at["deck_sizes"]
        self.deck_starts = [float(len(deck)) for deck in game.cards_by_colour]
        # Each card's place as a column number (0 = unseen), then the one-hot rows written at once.
        self.unseen = bytes(cards)
        self.card_rows = one_hot_starts(at["card_places"], cards, len(SHARED_CARD_PLACES) + players)
        self.corral_columns = seat_positions(len(SHARED_CARD_PLACES), players)[0]  # [viewer][seat]
        # [viewer][seat]: where the seat's (commonness, size) totals start
        self.totals = [[at["corral_totals"] + 2 * relative for relative in row]
                       for row in seat_positions(0, players)[0]]
        self.most = 10.0 * cards / players  # every card of a player's share at the highest value
        self.commonness = [value[0] for value in game.values]
        self.size = [value[1] for value in game.values]


tables = per_game(Tables)


def observe(state: CritterState, viewer: int) -> np.ndarray:
    """`encode(game, state.observation(viewer), viewer)`, read from the state."""
    t = tables(state.game)
    out = t.zeros.copy()
    o = item_writer(out)
    phase = state.phase
    o[t.phase[phase]] = 1.0
    o[t.progress] = state.round / state.rounds
    o[t.progress + 1] = state.plays / t.players
    roles = t.roles
    o[roles[0][viewer][state.start]] = 1.0
    if phase not in (rules.FIRST_PLAYER, rules.FINAL_CHOOSE, rules.OVER):
        o[roles[1][viewer][state.active]] = 1.0
    if phase in (rules.CHALLENGE_DRAW, rules.CHALLENGE_FLIP):
        o[roles[2][viewer][state.challenger()]] = 1.0
    if phase in (rules.FINAL_CHOOSE, rules.OVER):
        o[roles[3][viewer][state.chooser]] = 1.0
    if state.pending is not None:
        drawer = state.challenger() if phase == rules.CHALLENGE_FLIP else state.active
        o[roles[4][viewer][drawer]] = 1.0
        o[t.face_down + state.pending] = 1.0
    if state.attribute is not None:
        o[t.attribute + state.attribute] = 1.0
    if state.final_attribute is not None:
        o[t.final_attribute + state.final_attribute] = 1.0
    at, starts = t.deck_sizes, t.deck_starts
    for colour, deck in enumerate(state.decks):
        if deck:
            o[at + colour] = len(deck) / starts[colour]
    columns = bytearray(t.unseen)  # every card unseen in its deck unless found below
    stack = state.stack
    if stack:
        for card in stack:
            columns[card] = 2
        columns[stack[-1]] = 1
    commonness, size, most = t.commonness, t.size, t.most
    corral_columns, totals = t.corral_columns[viewer], t.totals[viewer]
    for seat, corral in enumerate(state.corrals):
        if corral:
            column = corral_columns[seat]
            for card in corral:
                columns[card] = column
            at = totals[seat]
            o[at] = sum(map(commonness.__getitem__, corral)) / most
            o[at + 1] = sum(map(size.__getitem__, corral)) / most
    out[t.card_rows + np.frombuffer(columns, np.uint8)] = 1.0
    return out
