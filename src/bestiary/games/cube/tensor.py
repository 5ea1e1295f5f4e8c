"""Cube Creatures' observation tensor: `observation(player)` as fixed-shape float32 numbers.

`encode` builds it from the observation dict alone, so it can hold nothing the player may not see (CUBE-60:
the other hands and the deck are one unseen pool); `observe` builds the same numbers straight from the state,
with positions worked out once per game, reading only what the observation shows: the viewer's own hand, the
table, and the other hands' sizes (tests check the two agree at every step of random games). Seats are counted
from the viewer (0 = the viewer, 1 = the next seat to the left, ...), so one policy serves every seat. Fields,
in order (docs/rl.md describes each): phase, progress, seat roles, seat counts, turn parts, attack, pending,
window, last roll, card places, creature stats.
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
from bestiary.games.cube import flow, rules
from bestiary.games.cube.rules import NO_CARD

if TYPE_CHECKING:
    from bestiary.games.cube.game import CubeCreatures
    from bestiary.games.cube.state import CubeState

# The tensor's own orders, fixed so that a trained policy keeps its meaning if the state's order changes.
PHASES = (flow.FIRST_PLAYER, flow.PLACE, flow.MAIN, flow.TARGET, flow.RESPOND, flow.ROLL, rules.OVER)
TURN_PARTS = ("creature", "action", "upgrade", "power", "guard")
SEAT_ROLES = ("current", "first", "to_act", "out", "winner")
SEAT_COUNTS = ("hand_size", "victory_pile", "battlefield_limit")
ROLE = {name: row for row, name in enumerate(SEAT_ROLES)}
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
    for row, seat in ((ROLE["current"], o["current"]), (ROLE["first"], o["first"])):
        if seat is not None:
            roles[row, relative(seat)] = 1.0
    for seat in o["to_act"]:
        roles[ROLE["to_act"], relative(seat)] = 1.0
    for seat, out_of_game in enumerate(o["out"]):
        roles[ROLE["out"], relative(seat)] = float(out_of_game)
    for seat in o["winners"] or ():
        roles[ROLE["winner"], relative(seat)] = 1.0
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


class Tables:
    """Where each number of the tensor goes, worked out once per game (per viewer where seats are relative)."""

    def __init__(self, game: CubeCreatures) -> None:
        self.players = players = game.num_players
        self.cards = cards = card_count(game)
        at = layout_offsets(field_sizes(game))
        self.phase = {phase: at["phase"] + k for k, phase in enumerate(PHASES)}
        self.progress = at["progress"]
        self.turn_limit = game.options.turn_limit
        # [viewer][seat] positions of each seat role and count, by name
        self.role = dict(zip(SEAT_ROLES, seat_positions(at["seat_roles"], players, len(SEAT_ROLES)), strict=True))
        self.count = dict(zip(SEAT_COUNTS, seat_positions(at["seat_counts"], players, len(SEAT_COUNTS)), strict=True))
        # What a tensor starts from: zeros, but every battlefield limit the usual one.
        self.start = np.zeros(tensor_shape(game), np.float32)
        self.start[self.count["battlefield_limit"][0]] = rules.BATTLEFIELD_LIMIT / rules.MAX_SPOTS
        self.hand_size = float(game.hand_size)
        self.win_at = float(game.options.win_at)
        # The state keeps the turn's parts as bits in the order of flow.PARTS, which TURN_PARTS follows.
        # parts_done[done]: the positions of the parts whose bits are set in `done`.
        self.parts_done = [[at["turn_parts"] + bit for bit in range(len(TURN_PARTS)) if done >> bit & 1]
                           for done in range(1 << len(TURN_PARTS))]
        self.boost, self.attack = at["boost"], at["attack"]
        self.pending = {kind: at["pending"] + k for k, kind in enumerate(PENDING_KINDS)}
        self.cancelled = at["pending"] + len(PENDING_KINDS)
        self.window = {window: at["window"] + k for k, window in enumerate(WINDOWS)}
        self.last_roll = {face: at["last_roll"] + k for k, face in enumerate(rules.DIE_FACES)}
        # Each card's place as a column number (0 = unseen), kept for every card of the game's table and
        # read for the cards in play, then the one-hot rows written at once.
        self.unseen = bytes(len(game.cards))
        self.in_play = None if game.in_play == tuple(range(len(game.cards))) else np.array(game.in_play, np.intp)
        self.card_rows = one_hot_starts(at["card_places"], cards, len(SHARED_CARD_PLACES) + 2 * players)
        self.battlefield = seat_positions(len(SHARED_CARD_PLACES), players)[0]  # [viewer][seat]
        self.victory = seat_positions(len(SHARED_CARD_PLACES) + players, players)[0]
        # Per card of the game's table: where its creature stats start (a card not in play never lies on a
        # battlefield; it gets row 0's), and its attack and health points as printed.
        row_of = {card: row for row, card in enumerate(game.in_play)}
        self.stats = [at["creature_stats"] + row_of.get(card, 0) * len(CREATURE_STATS)
                      for card in range(len(game.cards))]
        self.creature = list(zip(self.stats, game.attack, game.health, strict=True))
        self.bonus = game.bonus
        # spot / 5 by spot, for every spot a battlefield could reach (at most every card)
        self.spot = [spot / rules.MAX_SPOTS for spot in range(len(game.cards))]


tables = per_game(Tables)


def observe(state: CubeState, viewer: int) -> np.ndarray:
    """`encode(game, state.observation(viewer), viewer)`, read from the state."""
    t = tables(state.game)
    out = t.start.copy()
    o = item_writer(out)
    phase = state.phase
    o[t.phase[phase]] = 1.0
    o[t.progress] = state.turn / t.turn_limit
    o[t.progress + 1] = len(state.discard) / t.cards
    role, count = t.role, t.count
    if phase != flow.FIRST_PLAYER and phase != rules.OVER:
        o[role["current"][viewer][state.current]] = 1.0
    o[role["first"][viewer][state.first]] = 1.0
    row = role["to_act"][viewer]
    for seat in state.players_to_act():
        o[row[seat]] = 1.0
    hand_size, win_at = t.hand_size, t.win_at
    for gone, hand, pile, limit, at_out, at_hand, at_pile, at_limit in zip(
            state.out, state.hands, state.victory, state.limits,
            role["out"][viewer], count["hand_size"][viewer], count["victory_pile"][viewer],
            count["battlefield_limit"][viewer], strict=True):
        if gone:
            o[at_out] = 1.0
        if hand:
            o[at_hand] = len(hand) / hand_size
        if pile:
            o[at_pile] = len(pile) / win_at
        if limit != rules.BATTLEFIELD_LIMIT:  # the template holds the usual limit
            o[at_limit] = limit / rules.MAX_SPOTS
    if state.winners:
        row = role["winner"][viewer]
        for seat in state.winners:
            o[row[seat]] = 1.0
    for position in t.parts_done[state.done]:
        o[position] = 1.0
    o[t.boost] = state.boost / STAT_SCALE
    if state.attack_any:
        o[t.boost + 1] = 1.0
    attacking = state.attacker != NO_CARD
    if attacking:
        o[t.attack] = 1.0
        if state.prevented:
            o[t.attack + 1] = 1.0
        o[t.attack + 2] = state.reduce / STAT_SCALE
    if state.pending != NO_CARD:
        o[t.pending[state.pending_kind]] = 1.0
        if state.cancelled:
            o[t.cancelled] = 1.0
    if state.window:
        o[t.window[state.window]] = 1.0
    if state.last_roll is not None:
        o[t.last_roll[state.last_roll]] = 1.0

    columns = bytearray(t.unseen)  # unseen (the deck and the other hands) unless found below
    for card in state.hands[viewer]:
        columns[card] = 1
    for card in state.discard:
        columns[card] = 2
    creatures, bonus, spots = t.creature, t.bonus, t.spot
    weapons, armors, damage, used = state.weapon, state.armor, state.damage, state.used
    for field, column in zip(state.fields, t.battlefield[viewer], strict=True):
        for spot, creature in enumerate(field):
            columns[creature] = column
            # rules.attack_points and rules.max_health (CUBE-6), inlined: they cost more than the rest here.
            at, attack, health = creatures[creature]
            weapon, armor = weapons[creature], armors[creature]
            if weapon != NO_CARD:
                columns[weapon] = column
                attack += bonus[weapon]
            if armor != NO_CARD:
                columns[armor] = column
                health += bonus[armor]
            hurt = damage[creature]
            if spot == 0:
                o[at] = 1.0  # the Guard
            else:
                o[at + 1] = spots[spot]
            o[at + 2] = attack / STAT_SCALE
            o[at + 3] = (health - hurt) / STAT_SCALE
            o[at + 4] = health / STAT_SCALE
            if hurt:
                o[at + 5] = hurt / STAT_SCALE
            if used[creature]:
                o[at + 6] = 1.0
    victory = t.victory[viewer]
    for seat, pile in enumerate(state.victory):
        if pile:
            column = victory[seat]
            for card in pile:
                columns[card] = column
    stats = t.stats
    if attacking:
        o[stats[state.attacker] + 7] = 1.0
        o[stats[state.defender] + 8] = 1.0
    if state.pending != NO_CARD:
        o[stats[state.pending] + 9] = 1.0
        if state.pending_target != NO_CARD:
            o[stats[state.pending_target] + 10] = 1.0
        if columns[state.pending] == 0:  # an action card being resolved lies in no pile
            columns[state.pending] = 3
    places = np.frombuffer(columns, np.uint8)
    out[t.card_rows + (places if t.in_play is None else places[t.in_play])] = 1.0
    return out
