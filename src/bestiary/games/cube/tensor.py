"""Cube Creatures' observation tensor: `observation(player)` as fixed-shape float32 numbers.

It is built from the observation dict alone, so it can hold nothing the player may not see (CUBE-60: the
other hands and the deck are one unseen pool). Seats are counted from the viewer (0 = the viewer, 1 = the
next seat to the left, ...), so one policy serves every seat. Fields, in order (docs/rl.md describes each):
phase, progress, seat roles, seat counts, turn parts, attack, pending, window, last roll, card places,
creature stats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bestiary.core.api import JSON
from bestiary.core.tensors import layout_bounds, layout_shape, split_layout
from bestiary.games.cube import flow, rules

if TYPE_CHECKING:
    from bestiary.games.cube.game import CubeCreatures

# The tensor's own orders, fixed so that a trained policy keeps its meaning if the state's order changes.
PHASES = (flow.FIRST_PLAYER, flow.PLACE, flow.MAIN, flow.TARGET, flow.RESPOND, flow.ROLL, rules.OVER)
TURN_PARTS = ("creature", "action", "upgrade", "power", "guard")
SEAT_ROLES = ("current", "first", "to_act", "out", "winner")
SEAT_COUNTS = ("hand_size", "victory_pile", "battlefield_limit")
PENDING_KINDS = ("action", "power")
WINDOWS = ("attack", "action", "power")
SHARED_CARD_PLACES = ("unseen", "own_hand", "discard", "under_way")  # then battlefields, then victory piles
CREATURE_STATS = ("guard", "spot", "attack_now", "health_left", "max_health", "damage", "power_used",
                  "attacker", "defender", "pending", "pending_target")
STAT_SCALE = 20.0  # above any creature's attack or health with both upgrades in the starter deck


def card_count(game: CubeCreatures) -> int:
    return len(game.in_play)


def field_sizes(game: CubeCreatures) -> list[tuple[str, int]]:
    players, cards = game.num_players, card_count(game)
    return [("phase", len(PHASES)), ("progress", 2), ("seat_roles", len(SEAT_ROLES) * players),
            ("seat_counts", len(SEAT_COUNTS) * players), ("turn_parts", len(TURN_PARTS)), ("boost", 2),
            ("attack", 3), ("pending", len(PENDING_KINDS) + 1), ("window", len(WINDOWS)),
            ("last_roll", len(rules.DIE_FACES)),
            ("card_places", cards * (len(SHARED_CARD_PLACES) + 2 * players)),
            ("creature_stats", cards * len(CREATURE_STATS))]


def tensor_shape(game: CubeCreatures) -> tuple[int, ...]:
    return layout_shape(field_sizes(game))


def tensor_bounds(game: CubeCreatures) -> tuple[np.ndarray, np.ndarray]:
    # Counts may reach every card in play; stats stay within ±3 × 20: a card's attack or health (at most 30)
    # with two upgrades (10 each), a boost and a roll on top.
    cards = card_count(game)
    stat = 3.0
    return layout_bounds(field_sizes(game),
                         high={"seat_counts": max(cards / game.hand_size, cards / game.options.win_at, 1.0),
                               "boost": stat, "attack": stat, "creature_stats": stat},
                         low={"creature_stats": -stat, "boost": -stat})


def split_fields(game: CubeCreatures, values: np.ndarray) -> dict[str, np.ndarray]:
    """Views of a tensor's fields by name (writing to a view writes to the tensor)."""
    return split_layout(field_sizes(game), values)


def encode(game: CubeCreatures, observation: JSON, viewer: int) -> np.ndarray:
    players, cards = game.num_players, card_count(game)
    row_of = {game.ids[card]: row for row, card in enumerate(game.in_play)}
    out = np.zeros(tensor_shape(game), dtype=np.float32)
    fields = split_fields(game, out)

    def relative(seat: int) -> int:
        return (seat - viewer) % players

    o = observation
    fields["phase"][PHASES.index(o["phase"])] = 1.0
    fields["progress"][:] = (o["turn"] / o["turn_limit"], len(o["discard"]) / cards)
    roles = fields["seat_roles"].reshape(len(SEAT_ROLES), players)
    for row, seat in enumerate((o["current"], o["first"])):
        if seat is not None:
            roles[row, relative(seat)] = 1.0
    for seat in o["to_act"]:
        roles[2, relative(seat)] = 1.0
    for seat, out_of_game in enumerate(o["out"]):
        roles[3, relative(seat)] = float(out_of_game)
    for seat in o["winners"] or ():
        roles[4, relative(seat)] = 1.0
    counts = fields["seat_counts"].reshape(len(SEAT_COUNTS), players)
    for seat in range(players):
        counts[:, relative(seat)] = (o["hand_sizes"][seat] / game.hand_size, len(o["victory"][seat]) / o["win_at"],
                                     o["limits"][seat] / rules.MAX_SPOTS)
    for part in o["used_this_turn"]:
        fields["turn_parts"][TURN_PARTS.index(part)] = 1.0
    fields["boost"][:] = (o["boost"] / STAT_SCALE, float(o["attack_any"]))
    attack = o["attack"]
    if attack is not None:
        fields["attack"][:] = (1.0, float(attack["prevented"]), attack["reduce"] / STAT_SCALE)
    pending = o["pending"]
    if pending is not None:
        fields["pending"][PENDING_KINDS.index(pending["kind"])] = 1.0
        fields["pending"][len(PENDING_KINDS)] = float(pending["cancelled"])
    if o["window"] is not None:
        fields["window"][WINDOWS.index(o["window"])] = 1.0
    if o["last_roll"] is not None:
        fields["last_roll"][rules.DIE_FACES.index(o["last_roll"])] = 1.0

    places = fields["card_places"].reshape(cards, len(SHARED_CARD_PLACES) + 2 * players)
    battlefield, victory = len(SHARED_CARD_PLACES), len(SHARED_CARD_PLACES) + players
    stats = fields["creature_stats"].reshape(cards, len(CREATURE_STATS))
    for card in o["hand"] or ():
        places[row_of[card["id"]], 1] = 1.0
    for card in o["discard"]:
        places[row_of[card["id"]], 2] = 1.0
    for seat, field in enumerate(o["battlefields"]):
        for spot, creature in enumerate(field):
            row = row_of[creature["id"]]
            places[row, battlefield + relative(seat)] = 1.0
            for upgrade in (creature["weapon"], creature["armor"]):
                if upgrade is not None:
                    places[row_of[upgrade["id"]], battlefield + relative(seat)] = 1.0
            stats[row, :7] = (float(spot == 0), spot / rules.MAX_SPOTS, creature["attack_now"] / STAT_SCALE,
                              creature["health_left"] / STAT_SCALE, creature["max_health"] / STAT_SCALE,
                              creature["damage"] / STAT_SCALE, float(creature["power_used"]))
    for seat, pile in enumerate(o["victory"]):
        for card in pile:
            places[row_of[card["id"]], victory + relative(seat)] = 1.0
    if attack is not None:
        stats[row_of[attack["attacker"]], 7] = 1.0
        stats[row_of[attack["defender"]], 8] = 1.0
    if pending is not None:
        stats[row_of[pending["card"]], 9] = 1.0
        if pending["target"] is not None:
            stats[row_of[pending["target"]], 10] = 1.0
        if not places[row_of[pending["card"]]].any():  # an action card being resolved lies in no pile
            places[row_of[pending["card"]], 3] = 1.0
    places[~places.any(axis=1), 0] = 1.0  # the deck and the other players' hands
    return out
