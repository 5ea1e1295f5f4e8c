"""Crit's Creatures' observation: what a seat (or a spectator) may know, as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.core.api import JSON
from bestiary.games.crits import rules
from bestiary.games.crits.rules import PLACES, RESERVE, SIDE

if TYPE_CHECKING:
    from bestiary.games.crits.state import CritsState


def piece_view(state: CritsState, piece: int) -> JSON:
    card = state.card[piece]
    head, tail = state.game.piece_faces[card]
    out: JSON = {"piece": piece, "side": state.side[piece], **head, "where": PLACES[state.where[piece]],
                 "tile": state.tile_name(state.pos[piece]) if state.pos[piece] >= 0 else None, **tail}
    if state.game.kind[card] == "item":
        out["holder"] = state.holder[piece] if state.holder[piece] >= 0 else None
    else:
        out["item"] = state.held[piece] if state.held[piece] >= 0 else None
        out["moved"] = bool(state.moved >> piece & 1) if state.side[piece] == state.player else False
    out["effects"] = [dict(e) for e in state.game.cards[card].effects]
    out["used"] = state.used[piece]
    if state.lasts[piece]:
        out["turns_left"] = state.lasts[piece]
    return out


def observation(state: CritsState, player: int | None) -> JSON:
    # CRITS-49: every card in battle is open to both players; CRITS-46: a Split Second card held off
    # the board is known only to its owner (the other player sees how many there are).
    game = state.game
    pieces, reserve_counts = [], [0, 0]
    for piece in range(2 * SIDE):
        if state.where[piece] == RESERVE and state.side[piece] != player:
            reserve_counts[state.side[piece]] += 1
            continue
        if state.where[piece] == RESERVE:
            reserve_counts[state.side[piece]] += 1
        pieces.append(piece_view(state, piece))
    combat = None
    if state.current and state.phase in (rules.ROLL, rules.COUNTER):
        combat = {"attacker": state.current[0], "target": state.current[1], "dice": state.current[2],
                  "counter": bool(state.current[3]), "stage": "attack" if state.stage == 0 else "defence",
                  "rolled": list(state.rolled), "to_roll": list(state.todo),
                  "attack_total": state.attack_total if state.stage == 1 or state.phase == rules.COUNTER else None}
    return {
        "game": game.info.name, "viewer": player, "width": game.width, "length": game.length,
        "start_depth": game.options.start_depth, "phase": state.phase, "to_act": state.players_to_act(),
        "player": state.player, "turn": state.turn + 1, "turn_limit": game.options.turn_limit,
        "first_rolls": list(state.first_rolls), "moves_made": state.moves_made,
        "attacked": state.attacked, "counter_used": state.counter_used,
        "kings": [k if k >= 0 else None for k in state.king],
        "crowns": [state.tile_name(t) if t >= 0 else None for t in state.crown],
        "kingless": list(state.kingless), "reserve": reserve_counts, "pieces": pieces,
        "combat": combat, "aims": [state.tile_name(t) for t in state.aims],
        "declared": [c[:3] for c in state.combats],
        "next_to_place": rules.next_to_place(state) if state.phase == rules.PLACE else None,
        "winner": None if state.phase != rules.OVER else (None if state.winner == rules.DRAW else state.winner),
        "reason": state.reason,
        # CRITS-52: what the viewer could answer an attack with now (their own pieces only)
        "window_effects": [piece for piece, _ in state.usable_effects(player)]
        if state.phase == rules.RESPOND and player == state.actor else [],
    }
