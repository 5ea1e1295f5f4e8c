"""The server passes the engine's rule ids through untouched: every event of a view names its rules, and a
refused move's message names the rules that forbid it (docs/protocol.md)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from bestiary.core.rulebook import rule_index
from tests.server.conftest import create_room, join, move, view


def test_view_events_and_refusals_carry_rule_ids(client: TestClient) -> None:
    known = rule_index("critter-capture.md")
    code = create_room(client, "critter-capture", options={"players": 2})["code"]
    first, _ = join(client, code, 0), join(client, code, 1)
    start = view(client, code, first)
    assert move(client, code, first, "draw bird", start["version"]).status_code == 200
    seen = view(client, code, first)
    assert seen["events"] and all(event["rules"] for event in seen["events"])
    assert all(rule in known for event in seen["events"] for rule in event["rules"])
    assert any(event["rules"] == ["CRITTERS-8"] and event["kind"] == "draw" for event in seen["events"])
    refused = move(client, code, first, "draw fish", seen["version"])  # CRITTERS-9: now the attribute is chosen
    assert refused.status_code == 400 and "CRITTERS-8" in refused.json()["message"], refused.json()
    replay = client.get(f"/api/rooms/{code}/replay", params={"step": 1}).json()
    assert all(event["rules"] for event in replay["events"])
