"""The teaching routes: every game's rules as data, the computer levels and option rules for the lobby, and the
guided first game replayed from the learner's moves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import bestiary
from bestiary.agents import make_agent
from bestiary.core.registry import game_class
from bestiary.core.rulebook import rule_ids_in
from bestiary.tutorial import MAX_MOVES, Tutorial

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"
# as the rule coverage tool reads a rules document: an id opens a list item, a table row or a heading
ID = r"(?:CRITS|CRITTERS|CUBE|LUNGO)-\d+(?:\.\d+)*[a-z]?"
DEFINED = re.compile(r"^\s*(?:[-*+]|\d+\.|\||#+)?\s*(?:\*\*|`)?(" + ID + r")\b", re.M)
GAMES = bestiary.list_games()


@pytest.mark.parametrize("game", GAMES)
def test_the_rules_endpoint_lists_exactly_the_ids_of_the_games_rules_document(client: TestClient, game: str) -> None:
    answer = client.get(f"/api/games/{game}/rules")
    assert answer.status_code == 200
    rules = answer.json()
    document = (RULES / game_class(game).info.rules_doc).read_text(encoding="utf-8")
    ids = [rule["id"] for rule in rules]
    assert len(ids) == len(set(ids)) and set(ids) == set(DEFINED.findall(document))
    for rule in rules:
        assert set(rule) == {"id", "section", "text", "reading"}
        assert rule["section"] and (rule["text"] or rule["reading"]), rule
        assert (rule["text"] or rule["reading"])[:20] in " ".join(document.split()), rule


def test_an_unknown_game_has_no_rules_and_no_lesson(client: TestClient) -> None:
    for answer in (client.get("/api/games/chess/rules"), client.get("/api/games/chess/teaching"),
                   client.post("/api/learn/chess", json={})):
        assert answer.status_code == 404
        assert answer.json()["error"] == "not-found" and "chess" in answer.json()["message"]


@pytest.mark.parametrize("game", GAMES)
def test_the_lobby_learns_the_computer_levels_and_the_rules_each_option_changes(client: TestClient,
                                                                             game: str) -> None:
    teaching = client.get(f"/api/games/{game}/teaching").json()
    assert list(teaching["computers"]) == ["easy", "medium", "hard"]
    for agent in teaching["computers"].values():
        make_agent(agent)
    ids = {rule["id"] for rule in client.get(f"/api/games/{game}/rules").json()}
    fields = game_class(game).Options.model_fields
    for option, rules in teaching["option_rules"].items():
        assert rules and set(rules) <= ids and all(rule in (fields[option].description or "") for rule in rules)
    assert set(teaching["lessons"]) <= ids
    assert set(teaching["more_options"]) <= set(fields)
    assert teaching["tutorial"] is True


def test_lungo_s_first_player_option_opens_its_rule(client: TestClient) -> None:
    assert client.get("/api/games/creatures-of-lungo/teaching").json()["option_rules"]["first_player"] == ["LUNGO-29"]


def test_the_tutorial_is_replayed_from_the_learners_moves(client: TestClient) -> None:
    start = client.post("/api/learn/critter-capture", json={}).json()
    assert start["moves"] == [] and start["suggestion"] in start["legal_actions"]
    moved = client.post("/api/learn/critter-capture", json={"moves": [], "move": start["suggestion"]}).json()
    assert moved["moves"] == [start["suggestion"]]
    expected = Tutorial.replayed("critter-capture", moved["moves"]).to_dict()
    assert moved == expected
    assert any(lesson for event in moved["events"] for lesson in event["lessons"])


def test_a_refused_tutorial_move_names_its_rules_and_bad_histories_are_refused(client: TestClient) -> None:
    refused = client.post("/api/learn/cube-creatures", json={"moves": [], "move": "end turn"})
    assert refused.status_code == 409
    assert set(refused.json()) == {"error", "message"} and refused.json()["error"] == "illegal"
    assert rule_ids_in(refused.json()["message"])  # the rules that forbid it, named at the end
    for moves in (["fly to the moon"], ["end turn"]):
        answer = client.post("/api/learn/cube-creatures", json={"moves": moves})
        assert answer.status_code == 422 and "move 1 of the tutorial" in answer.json()["message"]
    assert client.post("/api/learn/cube-creatures", json={"moves": ["end turn"] * (MAX_MOVES + 1)}).status_code == 422
    assert client.post("/api/learn/cube-creatures", json={"move": "x" * 201}).status_code == 422


def test_the_rules_and_learn_pages_are_served(client: TestClient) -> None:
    for path, script in (("/rules/cube-creatures", "/js/rulespage.js"), ("/learn/crits-creatures", "/js/learn.js")):
        page = client.get(path)
        assert page.status_code == 200 and script in page.text


def test_a_game_without_teaching_data_still_offers_computer_levels_and_says_what_it_lacks(client: TestClient) -> None:
    # the server tests' own game has neither a rules document nor a teaching.toml
    teaching = client.get("/api/games/secret-duel/teaching").json()
    assert teaching["computers"] == {"easy": "random", "medium": "heuristic", "hard": "ismcts:hard"}
    assert teaching["lessons"] == {} and teaching["tutorial"] is False
    for answer, lacks in ((client.get("/api/games/secret-duel/rules"), "no rules document"),
                          (client.post("/api/learn/secret-duel", json={}), "no guided first game")):
        assert answer.status_code == 404 and lacks in answer.json()["message"]
