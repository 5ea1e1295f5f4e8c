"""Each viewer's copy of a review names nothing its replay kept from it (review/views.py), in every game with
hidden cards; its own moves and the numbers are the review's."""

from __future__ import annotations

import json
import re

import pytest

import bestiary
from bestiary.agents.base import HeuristicAgent, RandomAgent
from bestiary.agents.match import play_match
from bestiary.core.api import CHANCE
from bestiary.core.record import GameRecord, record_of, replay
from bestiary.review import Review, ReviewSettings, review_record
from bestiary.review.views import viewer_reviews

CARD = re.compile(r"\b[a-z]+(?:-[a-z]+)+(?:#\d+)?\b")  # a card's id, as the games name cards: "ember-pup", "poison#2"
TINY = ReviewSettings(sims=6, candidates=3, luck_outcomes=3, depth=1)


def seen_by(record: GameRecord) -> dict[int | None, set[str]]:
    """The card ids each viewer (None: a spectator) was shown along the replay: observations and events."""
    state = replay(record, upto=0)
    viewers: list[int | None] = [*range(state.game.num_players), None]
    seen: dict[int | None, set[str]] = {viewer: set() for viewer in viewers}
    _, mark = state.events_after(None)
    for actor, text in [(CHANCE, ""), *record.actions]:
        if text:
            state.apply_action(text, player=None if actor == CHANCE else actor)
        new, mark = state.events_after(mark) if text else state.events_after(None)
        for viewer in viewers:
            seen[viewer] |= set(CARD.findall(json.dumps(state.observation(viewer))))
            seen[viewer] |= {card for event in new or [] if event.visible_to(viewer)
                             for card in CARD.findall(event.text)}
    return seen


@pytest.mark.parametrize(("name", "options"), [("cube-creatures", {"win_at": 3}), ("creatures-of-lungo", {})])
def test_no_viewer_is_told_a_card_its_replay_kept_from_it(name: str, options: dict[str, int]) -> None:
    game = bestiary.load_game(name, players=2, **options)
    record = record_of(play_match(game, [RandomAgent(), HeuristicAgent()], 4))  # errors enough to name cards
    review: Review = review_record(record, TINY, seed=1)
    copies = viewer_reviews(review, replay(record, upto=0), record.actions)
    seen = seen_by(record)
    everyone = set().union(*seen.values())
    whole = set(CARD.findall(json.dumps(review.to_json())))
    whole_tells = False  # whether the whole review names a card some viewer never saw: a copy must leave it out
    for viewer, copy in [*enumerate(copies["seats"]), (None, copies["spectator"])]:
        hidden = everyone - seen[viewer]
        whole_tells |= bool(hidden & whole)
        named = set(CARD.findall(json.dumps(copy)))
        assert not hidden & named, (viewer, hidden & named)
        assert copy["viewer"] == viewer and copy["win_probability"] == review.to_json()["win_probability"]
        for mine, theirs in zip(copy["decisions"], review.decisions, strict=True):
            assert mine["loss"] == round(theirs.loss, 4)
            if theirs.player == viewer:
                assert (mine["action"], mine["best"]) == (theirs.action, theirs.best)
    assert whole_tells
