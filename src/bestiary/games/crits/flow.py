"""Crit's Creatures' order of play: the start of the game and of each turn, the legal actions of each phase, a
chosen action handed to the rules, and what follows each step: the response window, the combats one by one,
a counter-attack, the end of a turn (kingless turns, the turn limit) and of the game.

The turn's list (`python_turn_actions`) has a compiled twin in _turn.c that must give the same list in the same
order (tests/games/crits/test_compiled.py); the rules themselves are in rules.py (ids in
docs/rules/crits-creatures.md), which says what a step did and never what comes next.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.core.api import Action
from bestiary.games.crits import events, rules
from bestiary.games.crits.actions import Aim, Attack, Deploy, DropCrown, Move, Pincer, Raise, Roll, Split, Use, Word
from bestiary.games.crits.rules import DRAW, DROPPED, KINGLESS_TURNS_TO_LOSE, RESERVE, SIDE, Combat

if TYPE_CHECKING:
    from bestiary.games.crits.state import CritsState

# The rule of each activated effect a piece may use (CRITS-26 to CRITS-28).
EFFECT_RULES = {"kill": ("CRITS-27",), "sacrifice": ("CRITS-26",), "necro": ("CRITS-28",)}


# -- what may be done -----------------------------------------------------------------------------
def legal_actions(state: CritsState) -> list[Action]:
    game = state.game
    phase = state.phase
    if phase == rules.TURN:
        return turn_actions(state)
    if phase == rules.PLACE:
        return [game.aim_actions[t] for t in game.start_zone[state.player] if state.board[t] < 0]
    if phase == rules.AIM:
        splitter = state.current[0]
        return [game.aim_actions[t] for t in rules.attack_tiles(state, splitter)]
    if phase == rules.COUNTER:
        return [game.words["counter"], game.words["no counter"]]
    if phase == rules.RESPOND:
        return [*effect_actions(state, state.actor), game.words["pass"]]
    if phase == rules.RAISE:
        cards = sorted({state.card[p] for p in state.graveyard(state.actor)})
        return [game.raise_actions[c] for c in cards]
    if phase == rules.TARGET:
        return [game.aim_actions[t] for t in target_tiles(state)]
    return []


def target_tiles(state: CritsState) -> list[int]:
    if state.chosen >= 0 and state.where[state.chosen] == RESERVE:  # a Split Second card entering play
        return [t for t in state.game.start_zone[state.actor] if state.board[t] < 0]
    return rules.effect_targets(state, state.source)


def effect_actions(state: CritsState, player: int) -> list[Action]:
    game = state.game
    out: list[Action] = [game.use_actions[rules.effect_source_tile(state, p)][held]
                         for p, held in state.usable_effects(player)]
    deploys = deploys_held_back(state, player)
    if deploys and game.zone_tiles[player] & ~(state.occupancy[0] | state.occupancy[1]):
        out += deploys
    return out


def deploys_held_back(state: CritsState, player: int) -> tuple[Action, ...]:
    """The Deploy actions for the Split Second cards the player holds off the board, kept until one leaves."""
    listed = state.deploys[player]
    if listed is None:
        base = player * SIDE
        listed = state.deploys[player] = tuple(state.game.deploy_actions[c] for c in sorted(
            {state.card[p] for p in range(base, base + SIDE) if state.where[p] == RESERVE}))
    return listed


def turn_actions(state: CritsState) -> list[Action]:
    tables = state.game.turn_tables
    if tables is not None:  # the compiled twin of python_turn_actions (docs/architecture.md)
        return tables.turn_actions(state, deploys_held_back(state, state.player))
    return python_turn_actions(state)


def python_turn_actions(state: CritsState) -> list[Action]:
    """The turn's legal actions: moves piece by piece, attacks, pincers, effects, Deploy, the crown, end turn."""
    game = state.game
    player = state.player
    where, card, pos = state.where, state.card, state.pos
    own, enemy = state.occupancy[player], state.occupancy[1 - player]
    occupied = own | enemy
    free = game.all_tiles & ~occupied
    allies_block = game.options.allies_block
    passable = free if allies_block else free | own
    moved, card_reach, memo = state.moved, game.card_reach, game.reach_memo
    hurried = state.moves_made >= rules.MOVES_PER_TURN
    may_attack = not state.attacked
    # what an attack may hit: enemy pieces, and dropped items lying on free tiles
    targets = enemy
    if may_attack and DROPPED in where:
        for p in range(2 * SIDE):
            if where[p] == DROPPED:  # or, not sum: two items may lie on one tile
                targets |= (1 << pos[p]) & free
    attackers = 0  # the tiles of our pieces that may attack
    aiming = []  # those pieces with a target along their lines
    out: list[Action] = []
    for piece in state.fighters[player]:
        origin = pos[piece]
        areas, lines = card_reach[card[piece]]
        if lines is not None and may_attack:
            attackers |= 1 << origin
            if targets & lines[origin]:
                aiming.append(piece)
        # CRITS-5, CRITS-56: up to five different pieces a turn, each once; Swift cards override (CRITS-54),
        # and so do Titans with option titan_moves="free".
        if areas is None or moved >> piece & 1 or (hurried and not rules.moves_freely(state, piece)):
            continue
        area, tag = areas[origin]
        key = occupied & area | tag
        if not allies_block:
            key |= (own & area) << game.reach_key_shift
        moves = memo.get(key)
        out += moves if moves is not None else rules.moves_from(state, piece, key, free, passable)
    if may_attack:
        for piece in aiming:
            origin = pos[piece]
            tiles = rules.attack_tiles(state, piece)
            out += [game.attack_actions[origin, t] for t in tiles]
            if len(tiles) > 1 and len(game.attack_dice[card[piece]]) > 1:
                out.append(game.split_actions[origin])
        # CRITS-63: only an enemy with an attacker of ours in front and behind can be pincered
        width = game.width
        pincers = enemy & attackers << width & attackers >> width
        if pincers:
            out += [game.pincer_actions[t] for t in rules.tiles_of(pincers) if rules.pincer_pair(state, t, player)]
    out += effect_actions(state, player)
    out += [game.drop_crown_actions[t] for t in rules.crown_drop_tiles(state, player)]
    out.append(game.words["end turn"])
    return out


# -- what was done ----------------------------------------------------------------------------
def apply(state: CritsState, action: Action, player: int) -> None:
    game = state.game
    tiles = game.tile_index
    if isinstance(action, Roll):
        if state.phase == rules.FIRST_ROLL:
            roll_off(state, action.value)
        else:
            roll_die(state, action.sides, action.value)
    elif isinstance(action, Move):
        rules.move_piece(state, state.board[tiles[action.origin]], tiles[action.to])
    elif isinstance(action, Attack):
        attacker = state.board[tiles[action.origin]]
        target = rules.target_at(state, tiles[action.target], player)
        declare_attack(state, [Combat(attacker, target, len(game.attack_dice[state.card[attacker]]), 0)])
    elif isinstance(action, Pincer):
        tile = tiles[action.target]
        pair = rules.pincer_pair(state, tile, player)
        assert pair is not None
        target = state.board[tile]
        declare_attack(state, [Combat(a, target, len(game.attack_dice[state.card[a]]), 0) for a in pair])
    elif isinstance(action, Split):
        state.current = [state.board[tiles[action.origin]]]
        state.aims = []
        state.phase = rules.AIM
    elif isinstance(action, Aim):
        aim(state, tiles[action.tile], player)
    elif isinstance(action, Use):
        use(state, tiles[action.tile], action.held_item, player)
    elif isinstance(action, Deploy):
        card = game.card_index[action.card]
        state.chosen = next(p for p in state.deployable(player) if state.card[p] == card)
        state.actor = player
        state.phase = rules.TARGET
    elif isinstance(action, Raise):
        card = game.card_index[action.card]
        state.chosen = next(p for p in state.graveyard(player) if state.card[p] == card)
        state.phase = rules.TARGET
    elif isinstance(action, DropCrown):
        rules.drop_crown(state, player, tiles[action.tile])
    elif isinstance(action, Word):
        apply_word(state, action.word, player)


def aim(state: CritsState, tile: int, player: int) -> None:
    if state.phase == rules.PLACE:
        place(state, tile)
    elif state.phase == rules.AIM:
        # CRITS-62: each die's target is declared before any die is rolled.
        state.aims.append(tile)
        splitter = state.current[0]
        if len(state.aims) < len(state.game.attack_dice[state.card[splitter]]):
            return
        order = list(dict.fromkeys(state.aims))
        combats = [Combat(splitter, rules.target_at(state, t, player), state.aims.count(t), 0) for t in order]
        state.aims = []
        state.current = []
        declare_attack(state, combats)
    elif state.chosen >= 0 and state.where[state.chosen] == RESERVE:
        rules.deploy(state, state.chosen, tile)
        after_effect(state)
    else:
        rules.use_effect(state, state.source, tile)
        after_effect(state)


def use(state: CritsState, tile: int, held: bool, player: int) -> None:
    piece = state.board[tile]
    source = state.held[piece] if held else piece
    state.source = source
    state.actor = player
    effect = state.game.activated[state.card[source]]
    assert effect is not None
    state._log("use", f"{state.name(piece)} uses {effect.keyword.capitalize()}"
              + (f" ({state.card_name(source)})." if held else "."),
              rules=("CRITS-52", *EFFECT_RULES.get(effect.keyword, ())))
    state.phase = rules.RAISE if effect.keyword == "necro" else rules.TARGET


def apply_word(state: CritsState, word: str, player: int) -> None:
    if word == "end turn":
        end_turn(state)
    elif word == "counter":
        rules.counter_attack(state)
        next_combat(state)
    elif word == "no counter":
        state._log("counter", f"{rules.seat(player)} does not counter-attack.", rules=("CRITS-11",))
        next_combat(state)
    elif word == "pass":
        next_combat(state)


# -- setting up and starting a turn -------------------------------------------------------------
def begin(state: CritsState) -> None:
    """Once the armies stand (CRITS-44): the roll for the first player (CRITS-45), or the first turn."""
    first = state.game.options.first_player
    if first == "roll":
        state.phase = rules.FIRST_ROLL
    else:
        start_turn(state, int(first))


def place(state: CritsState, tile: int) -> None:
    # CRITS-44 (option placement="manual"): P1 places all of theirs, then P2; then the game begins.
    rules.place(state, tile)
    if rules.next_to_place(state) >= 0:
        return
    if state.player == 0:
        state.player = 1
    else:
        begin(state)


def roll_off(state: CritsState, value: int) -> None:
    first = rules.roll_off(state, value)  # CRITS-45
    if first is not None:
        start_turn(state, first)


def start_turn(state: CritsState, player: int) -> None:
    state.player = player
    state.phase = rules.TURN
    state.moved = 0
    state.moves_made = 0
    state.attacked = False
    state.counter_used = False
    state.king_fell_this_turn = False
    state._log_later(events.turn_started, player, state.turn + 1)


# -- combat, one declared attack at a time ---------------------------------------------------------
def declare_attack(state: CritsState, combats: list[Combat]) -> None:
    rules.declare_attack(state, combats)
    open_response_window(state)


def open_response_window(state: CritsState) -> None:
    # CRITS-52: the defending player may use an effect "at any time"; the window opens only for a player
    # who holds a usable effect or a Split Second card that can enter play.
    responder = 1 - state.player
    if state.can_respond(responder):
        state.phase = rules.RESPOND
        state.actor = responder
    else:
        next_combat(state)


def next_combat(state: CritsState) -> None:
    """The next declared combat that still stands rolls its attack dice; with none left the turn ends."""
    while state.combats:
        combat = state.combats.pop(0)
        if rules.combat_stands(state, combat):
            state.current = list(combat)
            state.stage = 0
            state.rolled = []
            state.todo = list(state.game.attack_dice[state.card[combat.attacker]][:combat.dice])
            state.phase = rules.ROLL
            return
    state.current = []
    end_turn(state)


def roll_die(state: CritsState, sides: int, value: int) -> None:
    """One die of the roll under way; once the last is in, the attack roll calls for the block roll, and the
    block roll settles the combat: a counter-attack may follow, else the next combat."""
    rules.roll_die(state, sides, value)
    if state.todo:
        return
    if state.stage == 0:
        if rules.finish_attack_roll(state):
            roll_to_block(state)
        else:
            next_combat(state)
    elif rules.finish_defence_roll(state) and rules.may_counter(state):
        state.phase = rules.COUNTER
        state.actor = state.side[state.current[1]]
    else:
        next_combat(state)


def roll_to_block(state: CritsState) -> None:
    # CRITS-9, CRITS-22: the target rolls its defence dice after the attack roll.
    state.stage = 1
    state.rolled = []
    state.todo = list(state.game.defence_dice[state.card[state.current[1]]])


def after_effect(state: CritsState) -> None:
    """An effect used or a card deployed: back to the combats declared, or to the turn."""
    state.chosen = -1
    state.actor = -1
    if state.combats:
        next_combat(state)
    else:
        state.phase = rules.TURN


# -- the end of a turn and of the game ---------------------------------------------------------------
def end_turn(state: CritsState) -> None:
    player = state.player
    state.moved_last[player] = state.moved
    rules.expire_split_seconds(state, player)
    # CRITS-41, CRITS-60: three consecutive turns of your own without a King lose the game.
    if state.king[player] < 0 and rules.fell_this_turn_counts(state):
        state.kingless[player] += 1
        left = KINGLESS_TURNS_TO_LOSE - state.kingless[player]
        if left <= 0:
            finish(state, 1 - player, f"{rules.seat(player)} has had no King for {KINGLESS_TURNS_TO_LOSE} turns",
                   ("CRITS-41", "CRITS-60"))
            return
        state._log_later(events.kingless, player, left)
    elif state.king[player] < 0:
        state._log_later(events.king_fell_this_turn, player, KINGLESS_TURNS_TO_LOSE)
    else:
        state.kingless[player] = 0
    state.turn += 1
    # CRITS-66: the turn limit ends the game in a draw.
    if state.turn >= state.game.options.turn_limit:
        finish(state, DRAW, f"the turn limit of {state.game.options.turn_limit} turns is reached", ("CRITS-66",),
               "turn limit")
        return
    start_turn(state, 1 - player)


def finish(state: CritsState, winner: int, reason: str, rule_ids: tuple[str, ...], ending: str = "decided") -> None:
    """`ending`: "turn limit" where the limit ended the game, else "decided" (for the analysis)."""
    state.phase = rules.OVER
    state.winner = winner
    state.reason = reason
    text = "The game is a draw" if winner == DRAW else f"{rules.seat(winner)} wins"
    state._log("over", f"{text}: {reason}.", rules=rule_ids, winner=winner, ending=ending)
