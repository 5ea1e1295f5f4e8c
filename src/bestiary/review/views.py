"""A review as one viewer may see it: what the replay shows that viewer, and nothing it could not see.

A review names moves: the move each seat played and the best one it had. Another seat's move may be a card
played face down, and its best move a card in its hand; a chance outcome may be a card drawn unseen. So each
viewer (a seat, or None for a spectator) gets its own copy, by the replay's rule (`Event.visible_to`):

- its own decisions as they were: the move it played and its best move (both among its own legal moves);
- every other step in the words of the events that step logged for that viewer, as the replay shows them
  ("P2 plays a card face down"), or nothing where it logged none for it;
- another seat's best move only where it names nothing hidden from the viewer: in a game of perfect
  information, or where that move is legal for the seat in every one of `BEST_SAMPLES` positions drawn from
  what the viewer could see (`State.determinize`): a move any hand allows ("end turn", an attack with a
  creature on the table) says nothing of the hand; one that needs a card tells which card. A spectator, who
  sees less than any seat and has no such draw, sees another seat's best move in games of perfect
  information only.

The numbers (values, losses, luck, the win-probability curve) are the same for every viewer: each is a
player's estimate from its own information, and none names a card or a move.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from bestiary.core.api import CHANCE, Event, State
from bestiary.review.report import verdict
from bestiary.review.review import Review

BEST_SAMPLES = 32  # positions drawn from the viewer's information where another seat's best move must be legal
COSTLIEST = 8  # the decisions listed as the costliest, per viewer


def step_words(events: list[Event], viewer: int | None) -> tuple[str | None, list[str]]:
    """A step's events as `viewer` sees them: their words (None where it saw none) and their rule ids."""
    seen = [event for event in events if event.visible_to(viewer)]
    rules = list(dict.fromkeys(rule for event in seen for rule in event.rules))
    return (" ".join(event.text for event in seen) or None), rules


def best_is_public(before: State, player: int, best: str, viewer: int | None, seed: int, step: int) -> bool:
    """Whether naming `player`'s best move `best` tells `viewer` nothing it could not see (module docstring)."""
    if before.game.info.information == "perfect":
        return True
    if viewer is None:
        return False
    rng = random.Random(f"bestiary-review-views/{seed}/{step}/{viewer}")
    for _ in range(BEST_SAMPLES):
        drawn = before.determinize(viewer, rng)
        if best not in {str(action) for action in drawn.legal_actions(player)}:
            return False
    return True


def viewer_reviews(review: Review, start: State, actions: Sequence[tuple[int, str]]) -> dict[str, Any]:
    """The review of the game played from `start` by `actions` (a record's), once per seat and once for
    spectators: `{"seats": [...], "spectator": {...}}`."""
    state = start.clone()
    players = state.game.num_players
    viewers: list[int | None] = [*range(players), None]
    decisions = {d.step: d for d in review.decisions}
    chances = {c.step: c for c in review.chance}
    shown: dict[int | None, dict[str, list[dict[str, Any]]]] = {v: {"decisions": [], "chance": []} for v in viewers}
    _, mark = state.events_after(None)
    for step, (actor, text) in enumerate(actions):
        before = state.clone() if step in decisions else None
        state.apply_action(text, player=None if actor == CHANCE else actor)
        logged, mark = state.events_after(mark)
        events = logged or []
        for viewer in viewers:
            words, rules = step_words(events, viewer)
            if step in decisions:
                decision = decisions[step]
                entry = decision.to_json()
                entry["seen"], entry["rules"] = words, rules
                if decision.player != viewer:
                    entry["action"] = words
                    named = decision.best != decision.action and before is not None and \
                        best_is_public(before, decision.player, decision.best, viewer, review.seed, step)
                    entry["best"] = decision.best if named else None
                shown[viewer]["decisions"].append(entry)
            elif step in chances:
                entry = chances[step].to_json()
                entry["outcome"], entry["rules"] = words, rules
                shown[viewer]["chance"].append(entry)
    common = review.to_json()
    common["verdict"] = verdict(review).sentences
    common["steps"] = len(actions)
    out = []
    for viewer in viewers:
        listed = shown[viewer]["decisions"]
        copy = {**common, "viewer": viewer, **shown[viewer]}
        ranked = sorted((d for d in listed if d["loss"] > 0), key=lambda d: (-d["loss"], d["step"]))
        copy["costliest"] = [d["step"] for d in ranked[:COSTLIEST]]
        out.append(copy)
    return {"seats": out[:players], "spectator": out[players]}
