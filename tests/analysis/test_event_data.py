"""The events each game logs carry what the analysis reads: seats, cards, and what moves a score."""

from __future__ import annotations

from bestiary.agents import make_agent
from bestiary.analysis.simulate import play_out
from bestiary.core.api import Event
from bestiary.core.registry import load_game


def events_of(name: str, seed: int, agent: str = "heuristic") -> list[Event]:
    game = load_game(name, players=2)
    state = game.new_initial_state(seed)
    play_out(state, [make_agent(agent) for _ in range(2)], seed)
    return list(state.all_events())


def card_ids(name: str) -> set[str]:
    return {card.id for card in load_game(name, players=2).card_set.cards}


def test_lungo_goals_name_the_seat_and_the_goal():
    goals = [e for e in events_of("creatures-of-lungo", 3) if e.kind == "goal-private"]
    game = load_game("creatures-of-lungo", players=2)
    assert sorted(e.data["player"] for e in goals) == [0, 1]
    assert all(e.data["card"] in game.goal_ids and e.audience == (e.data["player"],) for e in goals)


def test_crits_attacks_deploys_and_defeats_name_seat_and_piece():
    log = events_of("crits-creatures", 2)
    known = card_ids("crits-creatures")
    kinds = {"attack", "deploy", "defeat"}
    seen = {e.kind for e in log if e.kind in kinds}
    assert seen == kinds
    for event in (e for e in log if e.kind in kinds):
        assert event.data["player"] in (0, 1)
        named = [event.data["card"]] if "card" in event.data else event.data["cards"]
        assert named and set(named) <= known
    for defeat in (e for e in log if e.kind == "defeat"):
        assert defeat.data["owner"] == 1 - defeat.data["player"]


def test_cube_defeats_hand_the_creature_to_the_victors_pile():
    log = events_of("cube-creatures", 4)
    defeats = [e for e in log if e.kind == "defeat"]
    assert defeats and all(len(e.data["cards"]) == 1 and e.data["gain"] == 1 for e in defeats)
    assert {card for e in defeats for card in e.data["cards"]} <= card_ids("cube-creatures")
    assert all(e.data["owner"] != e.data["player"] for e in defeats)


def test_critter_corrals_carry_their_gain():
    corrals = [e for e in events_of("critter-capture", 5) if e.kind == "corral"]
    assert corrals and all(e.data["gain"] == len(e.data["cards"]) for e in corrals)



def test_each_card_game_says_what_chance_dealt_and_drew_each_seat():
    """Every card a seat is dealt or draws is logged with the seat and its exposure (Crit's deals none)."""
    for name, dealt in (("critter-capture", False), ("cube-creatures", True), ("creatures-of-lungo", True)):
        log = events_of(name, 6)
        given = [e for e in log if e.data.get("exposure") in ("dealt", "drawn")]
        assert given and all(e.data["player"] in (0, 1) for e in given), name
        assert any(e.data["exposure"] == "drawn" for e in given), name
        assert any(e.data["exposure"] == "dealt" for e in given) == dealt, name
    cube = load_game("cube-creatures", players=2)
    deals = [e for e in events_of("cube-creatures", 6) if e.kind == "deal-private"]
    assert [e.audience for e in deals] == [(0,), (1,)]
    assert all(len(e.data["cards"]) == cube.hand_size for e in deals)
    assert not any(e.data.get("exposure") for e in events_of("crits-creatures", 6))


def test_crits_names_each_seat_s_army_and_a_turn_limit_ending():
    game = load_game("crits-creatures", players=2, turn_limit=4)
    state = game.new_initial_state(1)
    play_out(state, [make_agent("random") for _ in range(2)], 1)
    log = list(state.all_events())
    armies = [e.data for e in log if e.kind == "army"]
    assert armies == [{"player": 0, "faction": "Grave Legion"}, {"player": 1, "faction": "Verdant Host"}]
    assert [e.data["ending"] for e in log if "ending" in e.data] == ["turn limit"]
    assert sum(1 for e in log if e.kind == "turn") == 4
