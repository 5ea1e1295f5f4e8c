"""Cube Creatures' observation: what a seat (or a spectator) may know, as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.core.api import JSON
from bestiary.games.cube import flow, rules
from bestiary.games.cube.flow import PARTS
from bestiary.games.cube.render import card_view, creature_view
from bestiary.games.cube.rules import NO_CARD

if TYPE_CHECKING:
    from bestiary.games.cube.state import CubeState


def observation(state: CubeState, player: int | None) -> JSON:
    # CUBE-60: own hand, others' hand sizes, everything on the table.
    game = state.game
    ids = game.ids
    phase = state.phase
    in_attack = state.attacker != NO_CARD
    return {
        "game": game.info.name, "viewer": player, "players": game.num_players, "phase": phase,
        "to_act": state.players_to_act(), "decision": state.decision_kind(),
        "turn": state.turn, "turn_limit": game.options.turn_limit, "win_at": game.options.win_at,
        "current": None if phase in (flow.FIRST_PLAYER, rules.OVER) else state.current, "first": state.first,
        "deck": len(state.deck), "discard": [card_view(game, c) for c in state.discard],
        "hand": None if player is None else [card_view(game, c) for c in sorted(state.hands[player])],
        "hand_sizes": [len(hand) for hand in state.hands],
        "battlefields": [[creature_view(state, c) for c in field] for field in state.fields],
        "limits": list(state.limits), "out": list(state.out),
        "victory": [[{"id": ids[c], "name": game.cards[c].name} for c in pile] for pile in state.victory],
        "used_this_turn": [part for bit, part in enumerate(PARTS) if state.done & (1 << bit)],
        "boost": state.boost, "attack_any": state.attack_any,
        "attack": {"attacker": ids[state.attacker], "attacker_name": game.cards[state.attacker].name,
                   "attacker_player": state.current,
                   "defender": ids[state.defender], "defender_name": game.cards[state.defender].name,
                   "defender_player": rules.owner_of(state, state.defender),
                   "prevented": state.prevented, "reduce": state.reduce} if in_attack else None,
        "pending": None if state.pending == NO_CARD else pending_view(state),
        "window": state.window or None,
        "last_roll": state.last_roll,
        "winners": None if state.winners is None else list(state.winners),
        "returns": state.returns() if phase == rules.OVER else None,
    }


def pending_view(state: CubeState) -> JSON:
    """The action card or power under way, with its effect as data (CUBE-59)."""
    game = state.game
    source = game.cards[state.pending]
    power = state.pending_kind == "power"
    effect = game.power[state.pending] if power else game.effect[state.pending]
    return {"kind": state.pending_kind, "card": game.ids[state.pending], "name": source.name,
            "text": source.power if power else source.text, "effect": effect.to_dict() if effect else None,
            "target": None if state.pending_target == NO_CARD else game.ids[state.pending_target],
            "cancelled": state.cancelled}
