"""Crit's Creatures rules, one small function per rule (ids in docs/rules/crits-creatures.md).

What follows each step (whose turn, which phase, the next combat, the end of a turn and of the game) is flow.py's:
a rule here says what happened and flow decides what comes next, so that flow imports rules and never the
reverse. The phase names live here, beside the places of a piece, for flow, state, observe and tensor alike.
"""

from __future__ import annotations

from itertools import compress
from typing import TYPE_CHECKING, Final, Literal, NamedTuple

from bestiary.games.crits import events
from bestiary.games.crits.effects import EFFECTS

if TYPE_CHECKING:
    from bestiary.games.crits.actions import Move
    from bestiary.games.crits.state import CritsState

# where a piece is
RESERVE, BOARD, EQUIPPED, DROPPED, GRAVEYARD, GONE, WAITING = range(7)
PLACES = ("reserve", "board", "equipped", "dropped", "graveyard", "gone", "waiting")
SIDE = 16  # pieces a side, numbered side * SIDE + slot (state.py)

# the phases of play, through which flow.py moves the game
PLACE: Final = "place"
FIRST_ROLL: Final = "first-roll"
TURN: Final = "turn"
AIM: Final = "aim"
TARGET: Final = "target"
RAISE: Final = "raise"
RESPOND: Final = "respond"
ROLL: Final = "roll"
COUNTER: Final = "counter"
OVER: Final = "over"
# The phases, for type checking: each constant above is one of them.
Phase = Literal["place", "first-roll", "turn", "aim", "target", "raise", "respond", "roll", "counter", "over"]
PHASES = (PLACE, FIRST_ROLL, TURN, AIM, TARGET, RAISE, RESPOND, ROLL, COUNTER, OVER)
CHANCE_PHASES = frozenset({FIRST_ROLL, ROLL})

MOVES_PER_TURN = 5  # CRITS-5, CRITS-56
REACH_MEMO_SIZE = 1 << 15  # positions kept by moves_from (a few MB); the memo starts afresh when full
KINGLESS_TURNS_TO_LOSE = 3  # CRITS-41, CRITS-60
DRAW = 2


class Combat(NamedTuple):
    """One attack declared (CRITS-8), or a counter-attack (CRITS-11): `dice` of the attacker's dice at the target."""

    attacker: int
    target: int
    dice: int
    counter: int  # 1 for a counter-attack


def seat(player: int) -> str:
    return f"P{player + 1}"


def tiles_of(bits: int) -> list[int]:
    """The tiles of a bit set (bit t = tile t), in order."""
    tiles = []
    while bits:
        low = bits & -bits
        tiles.append(low.bit_length() - 1)
        bits ^= low
    return tiles


# -- setting up ------------------------------------------------------------------------------
def next_to_place(state: CritsState) -> int:
    """The next piece of the placing player still waiting, in army-file order (Titan, creatures, items)."""
    base = state.player * 16
    return next((p for p in range(base, base + 16) if state.where[p] == WAITING), -1)


def place(state: CritsState, tile: int) -> None:
    # CRITS-18, CRITS-30, CRITS-44 (option placement="manual"): each piece on a free tile behind the red line.
    piece = next_to_place(state)
    state.put(piece, tile)
    state._log("place", f"{state.name(piece)} is placed on {state.game.tile_names[tile]}.", rules=("CRITS-44",))


# -- the first player --------------------------------------------------------------------------
def roll_off(state: CritsState, value: int) -> int | None:
    """CRITS-45: each player rolls a d20; the higher goes first (P2's roll never ties, see chance_outcomes).
    Returns the first player once both have rolled, else None."""
    rolls = state.first_rolls
    player = 0 if rolls[0] < 0 else 1
    rolls[player] = value
    state._log_later(events.rolled_off, player, value)
    if player == 1:
        return 0 if rolls[0] > rolls[1] else 1
    return None


# -- moving --------------------------------------------------------------------------------------
def reachable(state: CritsState, piece: int, free: int, passable: int) -> list[int]:
    """CRITS-6, CRITS-7: the tiles the piece may move to (see reach), in order."""
    return tiles_of(reach(state, piece, free, passable))


def reach(state: CritsState, piece: int, free: int, passable: int) -> int:
    """CRITS-6, CRITS-7: the bit set of tiles within the piece's M:, orthogonal steps costing 1 and diagonal
    steps 2, over `passable` tiles (bit sets: free tiles, plus the piece's own side when allies do not block),
    ending on a `free` one. Layer c holds the tiles first reached at cost c: one orthogonal step from layer
    c - 1 or one diagonal step from layer c - 2; a diagonal step is a vertical step of a sideways one, so the
    sideways step of each layer is kept for the layer two further on; `unseen` holds the passable tiles not
    reached yet."""
    game = state.game
    width, left, right = game.width, game.not_first_column, game.not_last_column
    last = 1 << state.pos[piece]
    unseen = passable & ~last
    sideways_before = 0
    for _ in range(game.moves[state.card[piece]]):
        sideways = (last & right) << 1 | (last & left) >> 1
        vertical = last | sideways_before
        last = (sideways | vertical << width | vertical >> width) & unseen
        unseen ^= last
        sideways_before = sideways
    return free & ~unseen


def path_cost(state: CritsState, origin: int, to: int, passable: int) -> int | None:
    """CRITS-6, CRITS-7: the cheapest way from `origin` to the free tile `to` over `passable` tiles (a bit set),
    orthogonal steps 1 and diagonal steps 2; None when no way leads there. For refusals, not move generation."""
    game = state.game
    best = {origin: 0}
    frontier = [(0, origin)]
    while frontier:
        frontier.sort()
        cost, tile = frontier.pop(0)
        if tile == to:
            return cost
        if cost > best[tile]:
            continue
        for steps, price in ((game.orthogonal[tile], 1), (game.diagonal[tile], 2)):
            for nxt in steps:
                if passable >> nxt & 1 and cost + price < best.get(nxt, 1 << 30):
                    best[nxt] = cost + price
                    frontier.append((cost + price, nxt))
    return None


def moves_from(state: CritsState, piece: int, key: int, free: int, passable: int) -> tuple[Move, ...]:
    """The move actions of `piece`, kept in the game's memo under `key` (CritsCreatures.reach_areas)."""
    game = state.game
    moves, bits = game.moves_within(state.pos[piece], game.moves[state.card[piece]])
    moves = tuple(compress(moves, map(reach(state, piece, free, passable).__and__, bits)))
    memo = game.reach_memo
    if len(memo) >= REACH_MEMO_SIZE:
        memo.clear()
    memo[key] = moves
    return moves


def is_swift(state: CritsState, piece: int) -> bool:
    swift = state.game.swift[state.card[piece]]
    return swift is not None and bool(EFFECTS.run(swift, state, piece))


def moves_freely(state: CritsState, piece: int) -> bool:
    """Whether the piece's move leaves the five moves of CRITS-5 and CRITS-56 untouched: a Swift card's
    (CRITS-54), and a Titan's with option titan_moves="free" (Titans "are not considered creatures")."""
    game = state.game
    return is_swift(state, piece) or (game.free_titans and game.kind[state.card[piece]] == "titan")


def move_piece(state: CritsState, piece: int, to: int) -> None:
    game = state.game
    origin = state.pos[piece]
    state.shift(piece, to)
    state.moved |= 1 << piece
    if not moves_freely(state, piece):
        state.moves_made += 1
    state._log_later(events.moved, state.name(piece), game.tile_names[origin], game.tile_names[to], piece)
    pick_up(state, piece, to)
    take_crown(state, piece, to)


def can_hold(state: CritsState, creature: int, item: int) -> bool:
    # CRITS-20, CRITS-34, CRITS-57: a Royal creature of the item's type, holding nothing yet.
    game = state.game
    card = state.card[creature]
    return (game.kind[card] == "creature" and game.royal[card] and state.held[creature] < 0
            and game.cards[card].type == game.cards[state.card[item]].type)


def pick_up(state: CritsState, creature: int, tile: int) -> None:
    # CRITS-36: either player may pick up a dropped item by moving an eligible creature onto its tile.
    if DROPPED not in state.where:
        return
    for item in state.dropped_at(tile):
        if can_hold(state, creature, item):
            state.where[item] = EQUIPPED
            state.pos[item] = -1
            state.holder[item] = creature
            state.held[creature] = item
            state.side[item] = state.side[creature]
            state._log("pick-up", f"{state.name(creature)} picks up {state.card_name(item)}.",
                       rules=("CRITS-36", "CRITS-34"))
            return


def take_crown(state: CritsState, creature: int, tile: int) -> None:
    # CRITS-4, CRITS-40: a Royal creature that reaches its side's fallen crown becomes King.
    player = state.side[creature]
    game = state.game
    if state.crown[player] == tile and game.kind[state.card[creature]] == "creature" \
            and game.royal[state.card[creature]]:
        state.crown[player] = -1
        state.king[player] = creature
        state._log("crown", f"{state.name(creature)} takes the crown and is {seat(player)}'s King.",
                   rules=("CRITS-4",))


def drop_crown(state: CritsState, player: int, tile: int) -> None:
    # CRITS-40: the King drops the crown on an adjacent tile; it lies there for a Royal creature to take.
    king = state.king[player]
    state.king[player] = -1
    state.crown[player] = tile
    state._log("crown", f"{state.name(king)} drops the crown on {state.game.tile_names[tile]}.", rules=("CRITS-40",))


def crown_drop_tiles(state: CritsState, player: int) -> list[int]:
    king = state.king[player]
    if king < 0:
        return []
    return [t for t in state.game.around[state.pos[king]] if state.board[t] < 0]


# -- attacking -----------------------------------------------------------------------------------
def can_attack(state: CritsState, piece: int) -> bool:
    # CRITS-8: NA is no attack; items never attack.
    return bool(state.game.attack_dice[state.card[piece]])


def target_at(state: CritsState, tile: int, player: int) -> int:
    """The piece an attack on `tile` hits: an enemy standing there, else a dropped item lying there."""
    occupant = state.board[tile]
    if occupant >= 0:
        return occupant if state.side[occupant] != player else -1
    if DROPPED not in state.where:
        return -1
    dropped = state.dropped_at(tile)
    return dropped[0] if dropped else -1  # CRITS-37: dropped items can be destroyed


def attack_tiles(state: CritsState, piece: int) -> list[int]:
    """CRITS-65: an orthogonally adjacent target, never diagonal; CRITS-51: a ranged attack reaches along its
    row or column up to its range but not past a piece standing or an item lying in between."""
    game = state.game
    player = state.side[piece]
    origin = state.pos[piece]
    reach = game.reach[state.card[piece]]
    where, pos = state.where, state.pos
    dropped = {pos[p] for p in range(len(where)) if where[p] == DROPPED} if DROPPED in where else ()
    out = []
    for line in game.rays[origin]:
        for tile in line[:reach]:
            if target_at(state, tile, player) >= 0:
                out.append(tile)
            if state.board[tile] >= 0 or tile in dropped:
                break
    return out


def pincer_pair(state: CritsState, tile: int, player: int) -> tuple[int, int] | None:
    """CRITS-63: two of your pieces in front of and behind an enemy (along the board's length) may both
    attack it; side by side does not count."""
    game = state.game
    enemy = state.board[tile]
    if enemy < 0 or state.side[enemy] == player or game.kind[state.card[enemy]] == "item":
        return None
    row = game.row(tile)
    if row == 0 or row == game.length - 1:
        return None
    front, back = state.board[tile - game.width], state.board[tile + game.width]
    for attacker in (front, back):
        if attacker < 0 or state.side[attacker] != player or not can_attack(state, attacker):
            return None
    return front, back


def declare_attack(state: CritsState, combats: list[Combat]) -> None:
    # CRITS-5, CRITS-55: one attack a turn; the move phase is over once it is declared.
    state.attacked = True
    state.combats = combats
    attackers = {combat.attacker for combat in combats}
    # CRITS-63: two attackers are a pincer; CRITS-62: one attacker with several targets splits its dice
    kind = ("CRITS-63",) if len(attackers) > 1 else ("CRITS-62",) if len(combats) > 1 else ()
    for attacker, target, dice, _ in combats:
        reach = ("CRITS-51",) if state.game.reach[state.card[attacker]] > 1 else ("CRITS-65",)
        state._log("attack", f"{state.name(attacker)} attacks {state.name(target)} with "
                   f"{dice} {'die' if dice == 1 else 'dice'}.", rules=("CRITS-55", *kind, *reach),
                   attacker=attacker, target=target, player=state.side[attacker], card=state.piece_id(attacker))


def combat_stands(state: CritsState, combat: Combat) -> bool:
    """Whether a declared combat still takes place: its attacker on the board, its target on the board or
    lying there as a dropped item (a piece defeated meanwhile neither attacks nor is attacked)."""
    attacker, target = combat.attacker, combat.target
    return state.on_board(attacker) and (state.on_board(target) or state.where[target] == DROPPED)


def roll_die(state: CritsState, sides: int, value: int) -> None:
    # CRITS-59: every die is rolled once and stands; CRITS-47: a natural 20 on a d20 adds (1)D10.
    state.todo.pop(0)
    state.rolled.append(value)
    if sides == 20 and value == 20:
        state.todo.append(10)
        state._log("natural-20", "A natural 20: one more d10.", rules=("CRITS-47",))


def finish_attack_roll(state: CritsState) -> bool:
    """CRITS-8: the attack roll's total; an item attacked is settled at once (CRITS-32). Returns whether the
    target is to roll to block."""
    attacker, target = state.current[0], state.current[1]
    game = state.game
    bonus = item_bonus(state, attacker, attack=True)
    total = sum(state.rolled) + bonus
    state.attack_total = total
    held = f" + {state.card_name(state.held[attacker])} {bonus}" if bonus else ""  # the held weapon's bonus
    state._log("roll", f"{state.name(attacker)} rolls {describe_roll(state.rolled)}{held} = {total} to attack.",
               rules=("CRITS-8", "CRITS-59"), total=total)
    if game.kind[state.card[target]] == "item":
        # CRITS-32: an attack roll at or above the item's Def # destroys it; lower does nothing.
        threshold = game.cards[state.card[target]].item_def
        if total >= threshold:
            state._log("destroy", f"{state.card_name(target)} (Def {threshold}) is destroyed.", rules=("CRITS-32",))
            remove(state, target, GONE)
        else:
            state._log("hold", f"{state.card_name(target)} (Def {threshold}) takes no damage.", rules=("CRITS-32",))
        return False
    return True


def finish_defence_roll(state: CritsState) -> bool:
    """CRITS-9, CRITS-10, CRITS-64: the block roll against the attack's total. Returns whether the defender
    stands."""
    attacker, target = state.current[0], state.current[1]
    bonus, notes = block_bonus(state, attacker, target)
    total = sum(state.rolled) + bonus
    state._log("roll", f"{state.name(target)} rolls {describe_roll(state.rolled)}{notes} = {total} to block.",
               rules=("CRITS-9", "CRITS-59"), total=total)
    if state.attack_total > total:
        # CRITS-10: a higher attack defeats the defender.
        state._log("defeat", f"{state.attack_total} beats {total}: {state.name(target)} is defeated.",
                   rules=("CRITS-10",), player=state.side[attacker], owner=state.side[target],
                   cards=[state.piece_id(target)])
        defeat(state, target, attacker)
        return False
    # CRITS-64: a tie goes to the defender; CRITS-11, CRITS-12: it may counter-attack once per turn.
    state._log("hold", f"{total} holds against {state.attack_total}: {state.name(target)} stands.",
               rules=("CRITS-11", "CRITS-64"))
    return True


def may_counter(state: CritsState) -> bool:
    """CRITS-11, CRITS-12: the defender that stood may counter-attack once per turn, never a counter-attack,
    and only within its reach (can_counter)."""
    attacker, target, _, is_counter = state.current
    return not is_counter and not state.counter_used and can_counter(state, target, attacker)


def can_counter(state: CritsState, defender: int, attacker: int) -> bool:
    """CRITS-11: a counter-attack is an attack, so it needs the defender's own reach: an orthogonal
    neighbour for melee, a clear line within its range for ranged (option counter_reach="any": any distance)."""
    if not can_attack(state, defender) or not state.on_board(attacker):
        return False
    return state.game.options.counter_reach == "any" or state.pos[attacker] in attack_tiles(state, defender)


def counter_attack(state: CritsState) -> None:
    # CRITS-11: the defender attacks with its full attack dice; the attacker blocks with its full defence.
    attacker, target = state.current[0], state.current[1]
    state.counter_used = True
    state._log("counter", f"{state.name(target)} counter-attacks {state.name(attacker)}.",
               rules=("CRITS-11", "CRITS-12"))
    dice = len(state.game.attack_dice[state.card[target]])
    state.combats.insert(0, Combat(target, attacker, dice, 1))


def item_bonus(state: CritsState, piece: int, attack: bool) -> int:
    item = state.held[piece]
    if item < 0:
        return 0
    card = state.game.cards[state.card[item]]
    return card.attack_bonus if attack else card.defence_bonus


def block_bonus(state: CritsState, attacker: int, defender: int) -> tuple[int, str]:
    """Root and the held item's bonus; a piercing attack ignores them, unless the defender has Root:
    then the two effects cancel and the attacker's is negated (CRITS-48)."""
    game = state.game
    effects = game.effects[state.card[defender]]
    root = effects.get("root")
    piercing = game.effects[state.card[attacker]].get("pierce")
    pierce = piercing is not None and effect_reaches(state, attacker, defender) \
        and bool(EFFECTS.run(piercing, state, attacker))
    if pierce and root is None:
        return 0, " (pierced: no block bonus)"
    bonus, notes = 0, ""
    if root is not None and effect_reaches(state, defender, defender):
        rooted = int(EFFECTS.run(root, state, defender))
        if rooted:
            bonus += rooted
            notes += f" + Root {rooted}"
    item = item_bonus(state, defender, attack=False)
    if item:
        bonus += item
        notes += f" + {state.card_name(state.held[defender])} {item}"
    if pierce:
        notes += " (Root negates Pierce)"
    return bonus, notes


def describe_roll(values: list[int]) -> str:
    return " + ".join(str(v) for v in values) if len(values) > 1 else str(values[0])


def effect_reaches(state: CritsState, source: int, target: int) -> bool:
    # CRITS-15, CRITS-16: creature effects never touch Titans; Titan effects touch creatures and Titans.
    game = state.game
    return game.kind[state.card[target]] != "titan" or game.kind[state.card[source]] == "titan"


# -- defeat ------------------------------------------------------------------------------------
def defeat(state: CritsState, piece: int, killer: int | None) -> None:
    game = state.game
    player = state.side[piece]
    tile = state.pos[piece]
    item = state.held[piece]
    if item >= 0:
        # CRITS-36: an equipped item drops on the tile where its creature is defeated.
        state.held[piece] = -1
        state.holder[item] = -1
        state.where[item] = DROPPED
        state.pos[item] = tile
        state._log("drop", f"{state.card_name(item)} drops on {game.tile_names[tile]}.", rules=("CRITS-36",))
    if state.king[player] == piece:
        # CRITS-2, CRITS-3: the King is dethroned; its crown falls on its tile.
        state.king[player] = -1
        state.crown[player] = tile
        if player == state.player:
            state.king_fell_this_turn = True
        state._log("crown", f"{seat(player)}'s King has fallen; the crown lies on {game.tile_names[tile]}.",
                   rules=("CRITS-2", "CRITS-3"))
    # CRITS-17: a dead Titan leaves the game; CRITS-21: a dead creature goes to its owner's graveyard.
    remove(state, piece, GONE if game.kind[state.card[piece]] == "titan" else GRAVEYARD)
    poison = game.effects[state.card[piece]].get("poison")
    if poison is not None and killer is not None:
        EFFECTS.run(poison, state, piece, killer=killer)


def remove(state: CritsState, piece: int, place: int) -> None:
    if state.where[piece] == BOARD:
        state.lift(piece)
    state.where[piece] = place
    state.pos[piece] = -1


def return_from_graveyard(state: CritsState, piece: int, tile: int) -> None:
    state.put(piece, tile)


# -- effects "at any time" ---------------------------------------------------------------------
def effect_source_tile(state: CritsState, piece: int) -> int:
    holder = state.holder[piece]
    return state.pos[holder if holder >= 0 else piece]


def effect_user(state: CritsState, piece: int) -> int:
    """The piece that uses the activated effect of `piece`: the piece itself, or the creature holding it."""
    holder = state.holder[piece]
    return holder if holder >= 0 else piece


def effect_targets(state: CritsState, piece: int) -> list[int]:
    """Tiles the activated effect of `piece` can aim at now (for Necro: whether any creature can return)."""
    game = state.game
    effect = game.activated[state.card[piece]]
    if effect is None or state.used[piece]:
        return []
    if effect.keyword == "necro":
        return necro_tiles(state, piece)
    player = state.side[piece]
    origin = effect_source_tile(state, piece)
    reach = int(effect.params.get("range", 0))
    enemy = effect.keyword == "kill"
    out = []
    for other in range(len(state.card)):
        if state.where[other] != BOARD or game.kind[state.card[other]] == "item":
            continue
        if (state.side[other] != player) != enemy or not effect_reaches(state, piece, other):
            continue
        if game.distance(origin, state.pos[other]) <= reach:
            out.append(state.pos[other])
    return out


def has_effect_target(state: CritsState, piece: int) -> bool:
    """Whether effect_targets would list any tile; it looks only at bit sets: the pieces in range for Kill and
    Sacrifice, the free tiles beside the card for Necro."""
    card = state.card[piece]
    aim = state.game.effect_aim[card]
    if state.used[piece] or state.game.activated[card] is None:
        return False
    holder = state.holder[piece]
    origin = state.pos[holder if holder >= 0 else piece]
    occupancy = state.occupancy
    if aim is None:  # Necro (CRITS-28): a creature in the graveyard and a free tile beside the card
        player = state.side[piece]
        return GRAVEYARD in state.where[player * 16:player * 16 + 16] \
            and bool(state.game.beside[origin] & ~(occupancy[0] | occupancy[1]))
    in_range, at_enemy, titans = aim
    side = state.side[piece] ^ at_enemy
    # CRITS-15, CRITS-16 (effect_reaches): only a Titan's effect touches Titans
    targets = state.creature_tiles[side] | state.titan_tiles[side] if titans else state.creature_tiles[side]
    return bool(in_range[origin] & targets)


def necro_tiles(state: CritsState, piece: int) -> list[int]:
    """CRITS-28: the free tiles next to the Necro card `piece` that a creature of its side's graveyard could
    return to."""
    player = state.side[piece]
    if GRAVEYARD not in state.where[player * 16:player * 16 + 16]:
        return []
    return [t for t in state.game.orthogonal[effect_source_tile(state, piece)] if state.board[t] < 0]


def use_effect(state: CritsState, piece: int, tile: int) -> None:
    game = state.game
    effect = game.activated[state.card[piece]]
    assert effect is not None
    state.used[piece] = True
    if effect.keyword == "necro":
        EFFECTS.run(effect, state, piece, target=state.chosen, tile=tile)
    else:
        EFFECTS.run(effect, state, piece, target=state.board[tile])


def deploy(state: CritsState, piece: int, tile: int) -> None:
    # CRITS-23, CRITS-46: a Split Second card enters play when its owner chooses, behind the red line.
    state.put(piece, tile)
    lasts = EFFECTS.run(state.game.effects[state.card[piece]]["split-second"], state, piece)
    state.lasts[piece] = int(lasts)
    state._log_later(events.deployed, state.name(piece), state.game.tile_names[tile], state.side[piece],
                     state.piece_id(piece))


# -- the end of a turn ---------------------------------------------------------------------------
def fell_this_turn_counts(state: CritsState) -> bool:
    """CRITS-41, CRITS-60: the three turns are the owner's turns after the fall, so a turn in which the owner's
    own King fell (to a counter-attack) does not count; option kingless_turns="with-fall" counts it."""
    return not state.king_fell_this_turn or state.game.options.kingless_turns == "with-fall"


def expire_split_seconds(state: CritsState, player: int) -> None:
    # CRITS-46: a Split Second card may exist only for a number of its owner's turns.
    lasts = state.lasts
    if not any(lasts):
        return
    for piece in [p for p, left in enumerate(lasts) if left]:
        if lasts[piece] > 0 and state.side[piece] == player and state.where[piece] == BOARD:
            lasts[piece] -= 1
            if lasts[piece] == 0:
                state._log("expire", f"{state.name(piece)}'s time is up: it leaves the game.", rules=("CRITS-46",))
                defeat(state, piece, None)
                remove_from_graveyard(state, piece)


def remove_from_graveyard(state: CritsState, piece: int) -> None:
    if state.where[piece] == GRAVEYARD:
        state.where[piece] = GONE
