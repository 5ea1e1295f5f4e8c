"""Listeners read only the event log's conventions; checked on hand-made events."""

from bestiary.analysis.listeners import NO_PLAYER, CardEvents, EventTallies, LeadTracker, feed, standard_listeners
from bestiary.core.api import Event


def event(kind, **data):
    return Event(kind, kind, None, data)


def test_card_events_by_kind_seat_and_role():
    log = [event("flip", player=0, card="a", role="active"), event("flip", player=1, card="b", role="challenge"),
           event("corral", player=1, cards=["a", "b"]), event("discard", cards=["c"]), event("round", round=1)]
    summary = feed(log, [CardEvents()])
    assert summary["card_events"] == {
        "flip": {"0": ["a"], "1": ["b"]}, "flip:active": {"0": ["a"]}, "flip:challenge": {"1": ["b"]},
        "corral": {"1": ["a", "b"]}, "discard": {NO_PLAYER: ["c"]}}


def test_lead_changes_follow_gains_then_scores():
    tracker = LeadTracker()
    log = [event("corral", player=0, cards=["a"], gain=1),  # P1 leads
           event("corral", player=1, cards=["b"], gain=1),  # tie: no sole leader, no change
           event("corral", player=1, cards=["c"], gain=1),  # P2 leads: change 1
           event("corral", player=0, cards=["d", "e"], gain=2),  # P1 leads again: change 2
           event("reveal", player=1, cards=["f", "g", "h"]),  # cards named but nothing gained: ignored
           event("end", scores=[3, 9])]  # the final scores put P2 ahead: change 3
    assert feed(log, [tracker]) == {"lead_changes": 3, "score_kinds": ["corral", "end"]}


def test_lead_changes_are_unmeasurable_without_a_score():
    log = [event("reveal", player=0, cards=["a", "b"]), event("play", player=1, card="c")]
    assert feed(log, [LeadTracker()]) == {"lead_changes": None, "score_kinds": []}


def test_event_tallies_count_kinds_and_short_values():
    log = [event("roll", player=0, face="2X"), event("roll", player=1, face="2X"), event("roll", face=6),
           event("note", text="x" * 80, flag=True, gain=3)]
    summary = feed(log, [EventTallies()])
    assert summary["event_counts"] == {"roll": 3, "note": 1}
    assert summary["event_values"] == {"roll.face": {"2X": 2, "6": 1}}


def test_standard_listeners_merge_their_summaries():
    summary = feed([event("corral", player=0, cards=["a"])], standard_listeners())
    assert set(summary) == {"card_events", "exposures", "exposure_kinds", "lead_changes", "score_kinds",
                            "event_counts", "event_values", "turns", "rounds", "ending", "factions"}


def test_exposures_record_what_chance_gave_each_seat_copies_as_one_card():
    from bestiary.analysis.listeners import Exposures, base_card

    events = [Event("deal-private", "", (0,), {"player": 0, "cards": ["fish#2", "owl"], "exposure": "dealt"}),
              Event("draw-private", "", (1,), {"player": 1, "card": "fish#3", "exposure": "drawn"}),
              Event("play", "", None, {"player": 1, "card": "fish"}),  # a choice, not an exposure
              Event("draw-private", "", (1,), {"card": "owl", "exposure": "drawn"})]  # no seat: left out
    summary = feed(events, [Exposures()])
    assert summary["exposures"] == {"dealt": {"0": ["fish", "owl"]}, "drawn": {"1": ["fish"]}}
    assert summary["exposure_kinds"] == ["deal-private", "draw-private"]
    assert base_card("power-fish#12") == "power-fish" and base_card("a#b") == "a#b" and base_card("#2") == "#2"
