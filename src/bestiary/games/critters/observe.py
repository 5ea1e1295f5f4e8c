"""Critter capture's observation: what a seat (or a spectator) may know, as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bestiary.core.api import JSON
from bestiary.games.critters import rules
from bestiary.games.critters.cards import ATTRIBUTES, COLOURS
from bestiary.games.critters.render import card_view

if TYPE_CHECKING:
    from bestiary.games.critters.state import CritterState


def observation(state: CritterState, player: int | None) -> JSON:
    # CRITTERS-41: everything on the table is public; cards are seen by all when flipped.
    game = state.game
    view = [card_view(game, c) for c in state.stack]
    drawer = state.challenger() if state.phase == rules.CHALLENGE_FLIP else state.active
    return {
        "game": game.info.name, "viewer": player, "players": game.num_players,
        "round": state.round + 1, "rounds": state.rounds, "phase": state.phase,
        "to_act": state.players_to_act(), "starting_player": state.start,
        "active_player": None if state.phase in (rules.FIRST_PLAYER, rules.FINAL_CHOOSE, rules.OVER)
        else state.active,
        "challenger": state.challenger() if state.phase in (rules.CHALLENGE_DRAW, rules.CHALLENGE_FLIP) else None,
        "attribute": None if state.attribute is None else ATTRIBUTES[state.attribute],
        "active_card": view[-1] if view else None, "under_active": view[:-1],
        "face_down_card": None if state.pending is None else {"colour": COLOURS[state.pending], "drawn_by": drawer},
        "decks": {COLOURS[c]: len(deck) for c, deck in enumerate(state.decks)},
        # CRITTERS-6: the deck contents are public (the card list is known); only the order is not.
        "unseen": {COLOURS[c]: sorted(game.instance_ids[i] for i in deck) for c, deck in enumerate(state.decks)},
        # CRITTERS-41: the contents stay in the observation (perfect recall); the flag tells a person's
        # view to show counts only.
        "corrals": [[card_view(game, c) for c in corral] for corral in state.corrals],
        "corrals_face_down": game.options.corrals == "face-down" and state.phase != rules.OVER,
        "plays_this_round": state.plays,
        "chooser": state.chooser if state.phase in (rules.FINAL_CHOOSE, rules.OVER) else None,
        "final_attribute": None if state.final_attribute is None else ATTRIBUTES[state.final_attribute],
        "scores": None if state.scores is None else list(state.scores),
        "returns": state.returns() if state.phase == rules.OVER else None,
    }
