"""Crit's Creatures' observation tensor: `observation(player)` as fixed-shape float32 numbers.

`encode` builds it from the observation dict alone, so it can hold nothing the player may not see (CRITS-46:
the other side's Split Second cards held off the board show only as a count); `observe` builds the same
numbers straight from the state, a piece's card numbers taken from a table made once per game and the rest
written a column at a time for all pieces (tests check the two agree at every step of random games). Sides are
counted from the viewer (0 = the viewer, 1 = the other player) and the board is turned to face the viewer, so
one policy serves both seats. Fields, in order (docs/rl.md describes each): phase, progress, sides, combat,
pieces, board.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from bestiary.core.api import JSON
from bestiary.core.compiled import compiled
from bestiary.core.tensors import layout_bounds, layout_offsets, layout_shape, per_game, split_layout
from bestiary.games.crits import rules

if TYPE_CHECKING:
    from bestiary.games.crits._tensor import TensorTables
    from bestiary.games.crits.game import CritsCreatures
    from bestiary.games.crits.state import CritsState

# The tensor's own orders, fixed so that a trained policy keeps its meaning if the state's order changes.
PHASES = (rules.PLACE, rules.FIRST_ROLL, rules.TURN, rules.AIM, rules.TARGET, rules.RAISE, rules.RESPOND,
          rules.ROLL, rules.COUNTER, rules.OVER)
SIDE_NUMBERS = ("to_move", "to_act", "winner", "has_king", "kingless_turns", "reserve", "first_roll")
COMBAT_NUMBERS = ("under_way", "counter", "attack_stage", "defence_stage", "dice", "rolled", "rolled_total",
                  "to_roll", "to_roll_sides", "attack_total")
WHERE = rules.PLACES
KINDS = ("titan", "creature", "item")
PIECE_STATS = ("visible", "own", "on_tile", "x", "y", "move", "attack_dice", "attack_die", "defence_dice",
               "defence_die", "range", "royal", "attack_bonus", "defence_bonus", "holds_item", "held", "moved",
               "used", "turns_left", "king", "attacker", "target", "declared_attacker", "declared_target",
               "next_to_place")
BOARD_PLANES = ("own_piece", "other_piece", "own_crown", "other_crown", "aimed")
# Scales that keep the starter set's numbers within [0, 1]: at most 5 dice of up to 20 sides, 10 steps.
COUNT_SCALE, DIE_SCALE, STEP_SCALE, TOTAL_SCALE = 5.0, 20.0, 10.0, 100.0
FIRST_ROLL_SCALE = 20.0


def piece_width(game: CritsCreatures) -> int:
    return len(PIECE_STATS) + len(WHERE) + len(KINDS) + len(game.cards)


def pieces_per_side(game: CritsCreatures) -> int:
    return len(game.start_cards) // 2  # each army: its Titan, creatures and items


def field_sizes(game: CritsCreatures) -> list[tuple[str, int]]:
    return [("phase", len(PHASES)), ("progress", 4), ("sides", 2 * len(SIDE_NUMBERS)),
            ("combat", len(COMBAT_NUMBERS)), ("pieces", 2 * pieces_per_side(game) * piece_width(game)),
            ("board", len(BOARD_PLANES) * game.tiles)]


def tensor_shape(game: CritsCreatures) -> tuple[int, ...]:
    return layout_shape(field_sizes(game))


def tensor_bounds(game: CritsCreatures) -> tuple[np.ndarray, np.ndarray]:
    # Cards roll up to 6 dice (6 / 5) of up to 20 sides, plus two bonuses of up to 10, in totals / 100.
    return layout_bounds(field_sizes(game), high={"pieces": 6 / COUNT_SCALE, "combat": 1.4})


def split_fields(game: CritsCreatures, values: np.ndarray) -> dict[str, np.ndarray]:
    """Views of a tensor's fields by name (writing to a view writes to the tensor)."""
    return split_layout(field_sizes(game), values)


def facing(game: CritsCreatures, tile_name: str, viewer: int) -> int:
    """The tile as the viewer sees it: P2 sits at the far edge, so their board is turned half round."""
    tile = game.tile_index[tile_name]
    return tile if viewer == 0 else game.tiles - 1 - tile


def encode(game: CritsCreatures, observation: JSON, viewer: int) -> np.ndarray:
    out = np.zeros(tensor_shape(game), dtype=np.float32)
    fields = split_fields(game, out)
    o = observation
    per_side = pieces_per_side(game)

    def slot(piece: int) -> int:  # the viewer's pieces first
        return (piece - viewer * per_side) % (2 * per_side)

    fields["phase"][PHASES.index(o["phase"])] = 1.0
    fields["progress"][:] = ((o["turn"] - 1) / o["turn_limit"], o["moves_made"] / rules.MOVES_PER_TURN,
                             float(o["attacked"]), float(o["counter_used"]))
    sides = fields["sides"].reshape(len(SIDE_NUMBERS), 2)
    for side in range(2):
        relative = (side - viewer) % 2
        sides[:, relative] = (float(o["player"] == side and o["phase"] != rules.OVER), float(side in o["to_act"]),
                              float(o["winner"] == side), float(o["kings"][side] is not None),
                              o["kingless"][side] / rules.KINGLESS_TURNS_TO_LOSE,
                              o["reserve"][side] / per_side,
                              max(o["first_rolls"][side], 0) / FIRST_ROLL_SCALE)
    combat = o["combat"]
    if combat is not None:
        fields["combat"][:] = (1.0, float(combat["counter"]), float(combat["stage"] == "attack"),
                               float(combat["stage"] == "defence"), combat["dice"] / COUNT_SCALE,
                               len(combat["rolled"]) / COUNT_SCALE, sum(combat["rolled"]) / TOTAL_SCALE,
                               len(combat["to_roll"]) / COUNT_SCALE, sum(combat["to_roll"]) / TOTAL_SCALE,
                               (combat["attack_total"] or 0) / TOTAL_SCALE)

    width = piece_width(game)
    pieces = fields["pieces"].reshape(2 * per_side, width)
    board = fields["board"].reshape(len(BOARD_PLANES), game.tiles)
    where_at, kind_at = len(PIECE_STATS), len(PIECE_STATS) + len(WHERE)
    card_at = kind_at + len(KINDS)
    stat = {name: i for i, name in enumerate(PIECE_STATS)}
    kings = set(k for k in o["kings"] if k is not None)
    declared = [(attacker, target) for attacker, target, _ in o["declared"]]
    for piece in o["pieces"]:
        row = pieces[slot(piece["piece"])]
        own = piece["side"] == viewer
        row[stat["visible"]] = 1.0
        row[stat["own"]] = float(own)
        row[where_at + WHERE.index(piece["where"])] = 1.0
        row[kind_at + KINDS.index(piece["kind"])] = 1.0
        row[card_at + game.card_index[piece["id"]]] = 1.0
        if piece["tile"] is not None:
            tile = facing(game, piece["tile"], viewer)
            row[stat["on_tile"]] = 1.0
            row[stat["x"]] = (tile % game.width) / (game.width - 1)
            row[stat["y"]] = (tile // game.width) / (game.length - 1)
            if piece["where"] == "board":
                board[0 if own else 1, tile] = 1.0
        if piece["kind"] == "item":
            row[stat["attack_bonus"]] = piece["attack_bonus"] / STEP_SCALE
            row[stat["defence_bonus"]] = piece["defence_bonus"] / STEP_SCALE
            row[stat["held"]] = float(piece["holder"] is not None)
        else:
            card = game.cards[game.card_index[piece["id"]]]
            row[stat["move"]] = piece["move"] / STEP_SCALE
            row[stat["attack_dice"]] = len(card.attack_dice) / COUNT_SCALE
            row[stat["attack_die"]] = (card.attack_dice[0] if card.attack_dice else 0) / DIE_SCALE
            row[stat["defence_dice"]] = len(card.defence_dice) / COUNT_SCALE
            row[stat["defence_die"]] = (card.defence_dice[0] if card.defence_dice else 0) / DIE_SCALE
            row[stat["range"]] = piece["range"] / STEP_SCALE
            row[stat["royal"]] = float(piece["royal"])
            row[stat["holds_item"]] = float(piece["item"] is not None)
            row[stat["moved"]] = float(piece["moved"])
        row[stat["used"]] = float(piece["used"])
        row[stat["turns_left"]] = piece.get("turns_left", 0) / STEP_SCALE
        row[stat["king"]] = float(piece["piece"] in kings)
        row[stat["attacker"]] = float(combat is not None and combat["attacker"] == piece["piece"])
        row[stat["target"]] = float(combat is not None and combat["target"] == piece["piece"])
        row[stat["declared_attacker"]] = float(any(a == piece["piece"] for a, _ in declared))
        row[stat["declared_target"]] = float(any(t == piece["piece"] for _, t in declared))
        row[stat["next_to_place"]] = float(o["next_to_place"] == piece["piece"])
    for side, crown in enumerate(o["crowns"]):
        if crown is not None:
            board[2 if side == viewer else 3, facing(game, crown, viewer)] = 1.0
    for aim in o["aims"]:
        board[4, facing(game, aim, viewer)] = 1.0
    return out


class Tables:
    """Where each number of the tensor goes, and each card's fixed numbers, worked out once per game."""

    def __init__(self, game: CritsCreatures) -> None:
        self.per_side = per_side = pieces_per_side(game)
        self.pieces = pieces = 2 * per_side
        self.tiles = game.tiles
        self.width = width = piece_width(game)
        self.length = layout_shape(field_sizes(game))[0]
        self.at = at = layout_offsets(field_sizes(game))
        self.phase = {phase: at["phase"] + k for k, phase in enumerate(PHASES)}
        self.stat = {name: k for k, name in enumerate(PIECE_STATS)}
        self.where_at = len(PIECE_STATS)
        stat = self.stat
        static = np.zeros((len(game.cards), width), np.float32)
        kind_at, card_at = len(PIECE_STATS) + len(WHERE), len(PIECE_STATS) + len(WHERE) + len(KINDS)
        for index, card in enumerate(game.cards):
            row = static[index]
            row[kind_at + KINDS.index(card.kind)] = 1.0
            row[card_at + index] = 1.0
            if card.kind == "item":
                row[stat["attack_bonus"]] = card.attack_bonus / STEP_SCALE
                row[stat["defence_bonus"]] = card.defence_bonus / STEP_SCALE
            else:
                row[stat["move"]] = card.move / STEP_SCALE
                row[stat["attack_dice"]] = len(card.attack_dice) / COUNT_SCALE
                row[stat["attack_die"]] = (card.attack_dice[0] if card.attack_dice else 0) / DIE_SCALE
                row[stat["defence_dice"]] = len(card.defence_dice) / COUNT_SCALE
                row[stat["defence_die"]] = (card.defence_dice[0] if card.defence_dice else 0) / DIE_SCALE
                row[stat["range"]] = card.range / STEP_SCALE
                row[stat["royal"]] = float(card.royal)
        self.static = static
        self.is_item = np.array([card.kind == "item" for card in game.cards])
        self.every_piece = np.arange(pieces)
        self.piece_bits = np.array([1 << piece for piece in range(pieces)], dtype=object)
        # The tile each viewer sees (P2's board turned half round), and its column and row as numbers.
        self.facing = (np.arange(game.tiles), game.tiles - 1 - np.arange(game.tiles))
        self.x = (np.arange(game.tiles) % game.width / (game.width - 1)).astype(np.float32)
        self.y = (np.arange(game.tiles) // game.width / (game.length - 1)).astype(np.float32)
        # Slot order: the viewer's pieces first.
        self.slots = tuple((np.arange(pieces) + viewer * per_side) % pieces for viewer in range(2))
        compiled_tensor = compiled("bestiary.games.crits._tensor")
        self.compiled: TensorTables | None = None if compiled_tensor is None else compiled_tensor.TensorTables({
            "tiles": game.tiles, "per_side": per_side, "width": width, "cards": len(game.cards),
            "places": len(WHERE), "where_at": self.where_at, **stat, "rows": static.tobytes(),
            "is_item": self.is_item.astype(np.uint8).tobytes(), "xs": self.x.tobytes(), "ys": self.y.tobytes()})


tables = per_game(Tables)


def observe(state: CritsState, viewer: int) -> np.ndarray:
    """`encode(game, state.observation(viewer), viewer)`, read from the state: the head (phase, progress, sides,
    combat) here, the pieces and the board by the compiled body where it was built, else by `python_body`."""
    t = tables(state.game)
    out = np.empty(t.length, np.float32)
    phase = state.phase
    current = state.current
    combat = bool(current) and phase in (rules.ROLL, rules.COUNTER)
    out[:t.at["pieces"]] = head(state, viewer, t, combat)
    attacker, target = (current[0], current[1]) if combat else (-1, -1)
    next_piece = rules.next_to_place(state) if phase == rules.PLACE else -1
    body = t.compiled
    if body is not None:
        body.body(state, viewer, out[t.at["pieces"]:], attacker, target, next_piece)
    else:
        python_body(state, viewer, out[t.at["pieces"]:], attacker, target, next_piece)
    return out


def head(state: CritsState, viewer: int, t: Tables, combat: bool) -> list[float]:
    """The phase, progress, sides and combat fields."""
    game = state.game
    phase = state.phase
    out = [0.0] * t.at["pieces"]
    out[t.phase[phase]] = 1.0
    at = t.at
    progress = at["progress"]
    out[progress:progress + 4] = (state.turn / game.options.turn_limit, state.moves_made / rules.MOVES_PER_TURN,
                                  float(state.attacked), float(state.counter_used))
    reserve = [0, 0]
    side = state.side
    for piece, place in enumerate(state.where):
        if place == rules.RESERVE:
            reserve[side[piece]] += 1
    to_act = state.players_to_act()
    winner = state.winner if phase == rules.OVER and state.winner != rules.DRAW else None
    sides = at["sides"]
    for each in range(2):
        relative = (each - viewer) % 2
        numbers = (float(state.player == each and phase != rules.OVER), float(each in to_act),
                   float(winner == each), float(state.king[each] >= 0),
                   state.kingless[each] / rules.KINGLESS_TURNS_TO_LOSE, reserve[each] / t.per_side,
                   max(state.first_rolls[each], 0) / FIRST_ROLL_SCALE)
        for row, number in enumerate(numbers):
            out[sides + 2 * row + relative] = number
    if combat:
        current = state.current
        shown_total = state.attack_total if state.stage == 1 or phase == rules.COUNTER else 0
        out[at["combat"]:at["combat"] + len(COMBAT_NUMBERS)] = (
            1.0, float(bool(current[3])), float(state.stage == 0), float(state.stage == 1), current[2] / COUNT_SCALE,
            len(state.rolled) / COUNT_SCALE, sum(state.rolled) / TOTAL_SCALE, len(state.todo) / COUNT_SCALE,
            sum(state.todo) / TOTAL_SCALE, (shown_total or 0) / TOTAL_SCALE)
    return out


def python_body(state: CritsState, viewer: int, out: np.ndarray, attacker: int, target: int,
                next_piece: int) -> None:
    """The pieces field (a row a piece, the viewer's pieces first) and the board planes, into `out`; the twin
    of the compiled `_tensor.TensorTables.body`. `attacker` and `target` are those of the attack being
    resolved, `next_piece` the next to place; each -1 where there is none."""
    t = tables(state.game)
    stat = t.stat
    where = np.array(state.where)
    side = np.array(state.side)
    reserve = where == rules.RESERVE
    card = np.array(state.card)
    pos = np.array(state.pos)
    rows = t.static[card]
    own = side == viewer
    items = t.is_item[card]
    rows[:, stat["visible"]] = 1.0
    rows[:, stat["own"]] = own
    rows[t.every_piece, t.where_at + where] = 1.0
    on_tile = pos >= 0
    faced = t.facing[viewer][pos]  # pieces off the board are cleared just below
    rows[:, stat["on_tile"]] = on_tile
    rows[:, stat["x"]] = np.where(on_tile, t.x[faced], 0.0)
    rows[:, stat["y"]] = np.where(on_tile, t.y[faced], 0.0)
    rows[:, stat["held"]] = items & (np.array(state.holder) >= 0)
    rows[:, stat["holds_item"]] = ~items & (np.array(state.held) >= 0)
    moved = (t.piece_bits & state.moved) != 0
    rows[:, stat["moved"]] = moved & ~items & (side == state.player)
    rows[:, stat["used"]] = state.used
    rows[:, stat["turns_left"]] = np.array(state.lasts) / STEP_SCALE
    for king in state.king:
        if king >= 0:
            rows[king, stat["king"]] = 1.0
    if attacker >= 0:
        rows[attacker, stat["attacker"]] = 1.0
        rows[target, stat["target"]] = 1.0
    for declared in state.combats:
        rows[declared[0], stat["declared_attacker"]] = 1.0
        rows[declared[1], stat["declared_target"]] = 1.0
    if next_piece >= 0:
        rows[next_piece, stat["next_to_place"]] = 1.0
    rows[reserve & ~own] = 0.0  # CRITS-46: the other side's reserve is only a count

    board = np.zeros((len(BOARD_PLANES), t.tiles), np.float32)
    on_board = where == rules.BOARD
    board[0, faced[on_board & own]] = 1.0
    board[1, faced[on_board & ~own]] = 1.0
    for each, crown in enumerate(state.crown):
        if crown >= 0:
            board[2 if each == viewer else 3, t.facing[viewer][crown]] = 1.0
    if state.aims:
        board[4, t.facing[viewer][state.aims]] = 1.0
    pieces = t.pieces * t.width
    out[:pieces] = rows[t.slots[viewer]].ravel()
    out[pieces:] = board.ravel()
