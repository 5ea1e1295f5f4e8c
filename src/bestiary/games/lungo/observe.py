"""Creatures of Lungo's observation: what a seat (or a spectator) may know, as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bestiary.core.api import JSON
from bestiary.games.lungo import phases, rules
from bestiary.games.lungo.render import card_view

if TYPE_CHECKING:
    from bestiary.games.lungo.state import LungoState


def observation(state: LungoState, player: int | None) -> JSON:
    game = state.game
    n = game.num_players
    revealed = state.phase != phases.CHOOSE  # LUNGO-39, LUNGO-42: face down until all have chosen
    choices: list[Any] = []
    for p in range(n):
        cards = state.choices[p]
        if revealed or p == player:
            choices.append([card_view(game, c) for c in cards])
        else:
            choices.append({"face_down": len(cards), "chosen": state.chosen[p]})
    return {
        "game": game.info.name, "viewer": player, "players": n, "phase": state.phase,
        "decision": state.decision_kind(), "to_act": state.players_to_act(),
        "active_player": state.active, "turn": state.turns, "turn_limit": game.options.turn_limit,
        "draw_pile": len(state.pile),
        # LUNGO-12: whether the top card's back shows a battle card (None: no back shown)
        "battle_on_top": None if state.top == phases.UNSEEN else state.top == phases.BATTLE,
        "discard": [card_view(game, c) for c in state.discard],
        "hand_sizes": [len(h) for h in state.hands],
        "hand": None if player is None else [card_view(game, c) for c in sorted(state.hands[player])],
        "goal": None if player is None or state.goals[player] < 0 else game.goal_view(state.goals[player]),
        "goal_met": None if player is None else rules.goal_met(state, player),
        "in_front": [[card_view(game, c) for c in front] for front in state.afflictions],
        **token_view(state, player),
        "loser": None if state.loser < 0 else state.loser,
        "pending_card": None if state.pending < 0 else card_view(game, state.pending),
        "target": None if state.target < 0 else state.target,
        "battle": None if state.battle < 0 else {
            "card": card_view(game, state.battle), "drawer": state.drawer, "choices": choices,
            "order": list(state.order), "champion": None if state.champion < 0 else state.champion,
            "rolls": list(state.rolls), "rolling": list(state.rollers),
            "central_pile": [card_view(game, c) for c in state.central],
            "in_swat": list(state.in_swat), "placer": None if state.placer < 0 else state.placer},
        "returns": state.returns() if state.phase == phases.OVER else None,
    }


def token_view(state: LungoState, player: int | None) -> JSON:
    # LUNGO-57 (option token_grab="discreet"): a grab nobody has noticed is known to its taker alone.
    if state.unnoticed >= 0 and player != state.unnoticed:
        return {"tokens_left": state.tokens + 1, "token_takers": [p for p in state.takers if p != state.unnoticed]}
    return {"tokens_left": state.tokens, "token_takers": list(state.takers)}
