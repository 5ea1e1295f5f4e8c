"""Bad input from every side: malformed, oversized, wrongly typed, out-of-turn, wrong-token and replayed messages.

Over websockets and REST, to rooms of every game in play: the server never fails (no 500, no unhandled
exception, no dropped connection it did not mean to close), a refused message changes no game state, and
every refusal is a clear error of the documented shape. MESSAGES (at least 10,000) are sent in all, split
between the three tests below; BESTIARY_FUZZ_MESSAGES raises the count for a long run.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections import Counter, deque
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from bestiary.server import protocol
from tests.server.conftest import Server, auth
from tests.server.tables import (
    GAMES,
    TABLE_TALK,
    UNLIMITED,
    Table,
    assert_clear_error,
    live_room,
    open_table,
    play_one,
    snapshot,
)

MESSAGES = max(10_000, int(os.environ.get("BESTIARY_FUZZ_MESSAGES", "0")))
SHARES = {"websocket": 0.9, "rest": 0.08, "schema": 0.02}  # a REST or schema case costs 4 to 25 times more
BATCH = 25  # messages per hypothesis example: the server's state carries over, so fewer, longer examples
# No shrinking: the server's state carries over between examples, so a shrunk example would not replay.
FUZZ_SETTINGS = settings(deadline=None, database=None, suppress_health_check=list(HealthCheck),
                         phases=[Phase.explicit, Phase.generate], print_blob=False)

finite = st.floats(allow_nan=False, allow_infinity=False)  # JSON has neither: a client library refuses to send them
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | finite | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=4)  # small: drawing costs more than sending
junk = st.one_of(st.text(max_size=30), st.binary(max_size=30), json_values)


def share(part: str) -> int:
    return math.ceil(MESSAGES * SHARES[part])


def test_the_shares_add_up_to_at_least_ten_thousand_messages() -> None:
    assert MESSAGES >= 10_000
    assert sum(share(part) for part in SHARES) >= MESSAGES


@pytest.fixture
def tables(server: Server, sqlite_url: str) -> Any:
    """A running server with one room of every game, each a few random moves in."""
    rng = random.Random(9)
    with server(sqlite_url, UNLIMITED) as client:
        yield client, [open_table(client, game, rng, moves=rng.randrange(2, 12)) for game in GAMES]


def as_text(filler: Any) -> str:
    return filler if isinstance(filler, str) else json.dumps(filler, default=repr)


def position(client: TestClient, table: Table, pick: int) -> tuple[int, list[int], int, str, bool]:
    """Read from the room itself (faster than asking): version, seats to act, one of them, one of its legal
    actions (or "pass"), and whether a window is open."""
    room = live_room(client, table.code)
    to_act = room.state.players_to_act() if room.status == "playing" else []
    mover = to_act[pick % len(to_act)] if to_act else pick % len(table.tokens)
    legal = [str(action) for action in room.state.legal_actions(mover)] if to_act else ["pass"]
    return room.version, to_act, mover, legal[pick % len(legal)], room.window is not None


# -- websockets ------------------------------------------------------------------------------------
WS_KINDS = ("text", "binary", "json", "typed", "oversized", "out-of-turn", "spectator", "stale", "replayed",
            "hello-again", "wrong-token", "chat", "ping", "legal")
WS_JUNK_KINDS = ("text", "binary", "json", "typed", "chat")
WS_EXPECTED = {"oversized": {"too-large"}, "binary": {"bad-message"}, "out-of-turn": {"not-your-turn", "finished"},
               "spectator": {"spectator"}, "stale": {"stale", "finished"}, "replayed": {"stale", "finished"},
               "hello-again": {"bad-message"}}
MESSAGE_TYPES = ("hello", "move", "chat", "ping", "dance", 5, None)
FIELDS = ("action", "version", "ref", "text", "token", "events_seen", "extra")


class Sockets:
    """Every seat's and a spectator's websocket into one table, and the moves each had accepted."""

    def __init__(self, client: TestClient, table: Table) -> None:
        self.client, self.table = client, table
        self.seats: list[WebSocketTestSession] = []
        for token in [*table.tokens, None]:
            ws = client.websocket_connect(f"/api/rooms/{table.code}/ws")
            ws.__enter__()
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["type"] == "welcome"
            self.seats.append(ws)
        self.accepted: list[tuple[int, str]] = []  # (seat, the exact text of a move the server took)
        # each socket's chat lines sent to it for the others' chats and not read yet, oldest first
        self.unread_chats: list[deque[str]] = [deque() for _ in self.seats]

    def spectator(self) -> WebSocketTestSession:
        return self.seats[-1]

    def answer(self, ws: WebSocketTestSession, chat: str | None = None) -> dict[str, Any]:
        """The answer to the message just sent on `ws`, past the state and chat broadcasts queued before it;
        for a chat, its own line, told apart from an earlier chat of another seat with the same text."""
        unread = self.unread_chats[self.seats.index(ws)]
        while True:
            message = ws.receive_json()
            if message["type"] == "chat" and unread:  # the lines of the others' chats come first, in order
                assert message["text"] == unread.popleft(), message
                continue
            if message["type"] in ("error", "accepted", "pong") or (message["type"] == "chat"
                                                                    and message["text"] == chat):
                if message["type"] == "chat":  # the others have its line waiting too
                    for other, lines in zip(self.seats, self.unread_chats, strict=True):
                        if other is not ws:
                            lines.append(message["text"])
                return dict(message)
            assert message["type"] in ("state", *TABLE_TALK), message

    def close(self) -> None:
        for ws in self.seats:
            ws.__exit__(None, None, None)


def chat_text(raw: str | bytes) -> str | None:
    """The text of the chat line `raw` asks for, when it is a well-formed chat message (whatever the probe
    meant it to be: a typed or JSON probe may make one too)."""
    if isinstance(raw, bytes):
        return None
    try:
        message = protocol.client_message.validate_python(json.loads(raw))
    except (ValueError, RecursionError):  # not JSON, or not a message (pydantic's ValidationError is a ValueError)
        return None
    return message.text if isinstance(message, protocol.Chat) else None


def ws_probe(sockets: Sockets, kind: str, pick: int, filler: Any, others: list[Table], sent: Counter[str]) -> None:
    client, table = sockets.client, sockets.table
    version, to_act, mover, action, window = position(client, table, pick)
    idle = [seat for seat in range(len(table.tokens)) if seat not in to_act]
    ws = sockets.seats[pick % len(sockets.seats)]
    raw: str | bytes
    if kind == "text":
        raw = as_text(filler)
    elif kind == "binary":
        raw = filler if isinstance(filler, bytes) else as_text(filler).encode()
    elif kind == "json":
        raw = json.dumps(filler if not isinstance(filler, bytes) else list(filler))
    elif kind == "typed":
        message = {"type": MESSAGE_TYPES[pick % len(MESSAGE_TYPES)]}
        for field_number, name in enumerate(FIELDS):
            if pick >> (field_number + 3) & 1:
                message[name] = filler if not isinstance(filler, bytes) else filler.hex()
        raw = json.dumps(message)
    elif kind == "oversized":
        raw = json.dumps({"type": "chat", "text": "é" * (2100 + pick % 3000)})
    elif kind == "out-of-turn":
        ws = sockets.seats[idle[pick % len(idle)]] if idle else sockets.spectator()
        kind = kind if idle else "spectator"
        raw = json.dumps({"type": "move", "action": action, "version": version})
    elif kind == "spectator":
        ws = sockets.spectator()
        raw = json.dumps({"type": "move", "action": action, "version": version} if pick % 2
                         else {"type": "chat", "text": "let me play"})
    elif kind == "stale":
        ws = sockets.seats[mover]
        wrong = version + 1 + pick % 50 if pick % 2 or window or version == 0 else pick % version
        raw = json.dumps({"type": "move", "action": action, "version": wrong, "ref": "stale"})
    elif kind == "replayed" and sockets.accepted:
        seat, raw = sockets.accepted[pick % len(sockets.accepted)]
        ws = sockets.seats[seat]
    elif kind == "hello-again":
        tokens = [*table.tokens, *(t for other in others for t in other.tokens)]
        raw = json.dumps({"type": "hello", "token": tokens[pick % len(tokens)]})
    elif kind == "wrong-token":
        real = table.tokens[0]
        near = real[:-1] + ("x" if real[-1] != "x" else "y")  # one character off (a token may end in "x" itself)
        forged = [t for other in others for t in other.tokens] + ["forged", near]
        with client.websocket_connect(f"/api/rooms/{table.code}/ws") as stranger:
            stranger.send_json({"type": "hello", "token": forged[pick % len(forged)]})
            sent["websocket"] += 1
            assert_clear_error(stranger.receive_json(), websocket=True)
            with pytest.raises(WebSocketDisconnect) as closed:
                stranger.receive_json()
            assert closed.value.code == 4403
        return
    elif kind == "chat":
        raw = json.dumps({"type": "chat", "text": as_text(filler)})
    elif kind == "legal" and to_act:
        ws = sockets.seats[mover]
        raw = json.dumps({"type": "move", "action": action, "version": version, "ref": f"legal{pick}"})
    else:
        kind, raw = "ping", json.dumps({"type": "ping"})
    before = snapshot(client, table.code)
    ws.send_bytes(raw) if isinstance(raw, bytes) else ws.send_text(raw)
    sent["websocket"] += 1
    answer = sockets.answer(ws, chat_text(raw))
    if answer["type"] == "error":
        assert_clear_error(answer, websocket=True)
        assert answer["error"] in WS_EXPECTED.get(kind, {answer["error"]}), (kind, raw, answer)
        assert snapshot(client, table.code) == before, (kind, raw, answer)
        return
    assert kind not in WS_EXPECTED, (kind, raw, answer)
    if answer["type"] == "accepted":
        assert isinstance(raw, str) and snapshot(client, table.code)[0] > before[0]
        sockets.accepted.append((sockets.seats.index(ws), raw))
    else:
        assert snapshot(client, table.code) == before, (kind, raw, answer)


def test_websocket_fuzz_refuses_bad_messages_cleanly_and_changes_nothing(tables: Any) -> None:
    client, rooms = tables
    all_sockets = [Sockets(client, table) for table in rooms]
    sent: Counter[str] = Counter()
    targets, picks = st.integers(0, len(rooms) - 1), st.integers(0, 2**20)
    probes = st.one_of(  # junk is drawn only where it is sent: drawing it costs more than sending it
        st.tuples(targets, st.sampled_from(WS_JUNK_KINDS), picks, junk),
        st.tuples(targets, st.sampled_from([k for k in WS_KINDS if k not in WS_JUNK_KINDS]), picks, st.none()))

    @settings(FUZZ_SETTINGS, max_examples=math.ceil(share("websocket") / BATCH))
    @given(st.lists(probes, min_size=BATCH, max_size=BATCH))
    def fuzz(batch: list[tuple[int, str, int, Any]]) -> None:
        for target, kind, pick, filler in batch:
            others = [t for t in rooms if t is not rooms[target]]
            ws_probe(all_sockets[target], kind, pick, filler, others, sent)

    try:
        fuzz()
        for sockets in all_sockets:  # every connection is still served
            for ws in sockets.seats:
                ws.send_json({"type": "ping"})
                assert sockets.answer(ws) == {"type": "pong"}
    finally:
        for sockets in all_sockets:
            sockets.close()
    assert sent["websocket"] >= share("websocket")



def test_a_refused_chat_is_told_apart_from_an_earlier_line_with_the_same_text(tables: Any) -> None:
    # a seat's chat line is still unread on the spectator's socket when the spectator sends the same text:
    # the spectator's answer is the refusal, and the answer to its next message is that message's own; a
    # typed probe that happens to be a well-formed chat (pick 65: {"type": "chat", "text": ...} from seat 1)
    # is answered by its line
    client, rooms = tables
    sockets, sent = Sockets(client, rooms[0]), Counter[str]()
    spectator = len(sockets.seats) - 1
    try:
        for kind, pick, filler in [("chat", 0, "0"), ("chat", spectator, "0"), ("binary", spectator, b"0"),
                                   ("typed", 65, "hi"), ("ping", 0, None)]:
            ws_probe(sockets, kind, pick, filler, rooms[1:], sent)
    finally:
        sockets.close()
    assert sent["websocket"] == 5

# -- REST ------------------------------------------------------------------------------------------
REST_KINDS = ("garbage-token", "other-room-token", "not-bearer", "out-of-turn", "spectator", "stale", "replayed",
              "bad-body", "raw-body", "oversized", "view", "replay", "leave", "join", "create", "rematch",
              "unknown-room", "legal")
REST_EXPECTED = {"garbage-token": {"bad-token"}, "other-room-token": {"bad-token"}, "not-bearer": {"bad-token"},
                 "out-of-turn": {"not-your-turn", "finished"}, "spectator": {"spectator"},
                 "stale": {"stale", "finished"}, "replayed": {"stale", "finished"}, "bad-body": {"bad-request"},
                 "raw-body": {"bad-request"}, "oversized": {"bad-request", "too-large"},
                 "leave": {"bad-token"}, "join": {"seat-taken", "no-seat", "bad-request"},
                 "create": {"bad-room", "bad-request", "bad-seats"}, "unknown-room": {"no-room", "not-found"},
                 "view": {"bad-request", "bad-token"}, "replay": {"bad-request", "bad-token", "no-step"}}


def rest_probe(client: TestClient, table: Table, kind: str, pick: int, filler: Any, others: list[Table],
               accepted: list[tuple[str, dict[str, Any]]]) -> None:
    version, to_act, mover, action, window = position(client, table, pick)
    idle = [seat for seat in range(len(table.tokens)) if seat not in to_act]
    body: Any = {"action": action, "version": version}
    text = as_text(filler)
    header_text = "".join(c for c in text if "!" <= c <= "~") or "x"  # what an HTTP header can carry
    plain = list(filler) if isinstance(filler, bytes) else filler  # what JSON can carry
    headers = auth(table.tokens[mover])
    moves_path = f"/api/rooms/{table.code}/moves"
    foreign = [t for other in others for t in other.tokens]
    request: dict[str, Any] = {"method": "POST", "url": moves_path}
    if kind == "garbage-token":
        headers = auth(header_text)
    elif kind == "other-room-token":
        headers = auth(foreign[pick % len(foreign)])
    elif kind == "not-bearer":
        headers = {"Authorization": f"Basic {table.tokens[mover]}" if pick % 2 else "Bearer "}
    elif kind == "out-of-turn":
        if idle:
            headers = auth(table.tokens[idle[pick % len(idle)]])
        else:
            kind, headers = "spectator", {}
    elif kind == "spectator":
        headers = {}
    elif kind == "stale":
        body["version"] = version + 1 + pick % 50 if pick % 2 or window or version == 0 else pick % version
    elif kind == "replayed" and accepted:
        token, body = accepted[pick % len(accepted)]
        headers = auth(token)
    elif kind == "bad-body":
        body = plain if pick % 3 == 0 else {**body, ["action", "version", "extra"][pick % 3]: plain}
        if isinstance(body, dict) and set(body) == {"action", "version"} and isinstance(body["version"], int):
            body["version"] = -1  # a body that happens to fit the schema is made not to
    elif kind == "raw-body":
        request["content"] = filler if isinstance(filler, bytes) else (text + "{").encode()
        body = None
    elif kind == "oversized":
        body["action"] = "x" * (201 + pick % 70000)
    elif kind == "view":
        request = {"method": "GET", "url": f"/api/rooms/{table.code}/view",
                   "params": {"events_from": text if pick % 2 else -pick}}
        headers = auth(header_text) if pick % 3 == 0 else headers
        body = None
    elif kind == "replay":
        request = {"method": "GET", "url": f"/api/rooms/{table.code}/replay",
                   "params": {"step": text if pick % 2 else version + 1 + pick}}
        headers = auth(foreign[pick % len(foreign)]) if pick % 3 == 0 else headers
        body = None
    elif kind == "leave":
        request["url"] = f"/api/rooms/{table.code}/leave"
        headers = auth(foreign[pick % len(foreign)] if pick % 2 else header_text)
        body = None
    elif kind == "join":
        request["url"] = f"/api/rooms/{table.code}/seats/{pick % 8 - 2}"
        body = {"name": text[:40]} if pick % 2 else plain
    elif kind == "create":
        request["url"] = "/api/rooms"
        body = {"game": list(GAMES)[pick % len(GAMES)], "options": {"players": plain},
                "seats": [{"kind": "human"}] * 9} if pick % 2 else {"game": text, "options": plain}
    elif kind == "rematch":
        request["url"] = f"/api/rooms/{quote((text + 'x' * 16)[:16], safe='')}/rematch"
        body = None
    elif kind == "unknown-room":
        code = "".join(random.Random(pick).choices("abcdefghijklmnopqrstuvwxyz", k=16)) if pick % 2 else quote(text)
        request = {"method": "GET", "url": f"/api/rooms/{code}/view"}
        body = None
    elif kind != "legal" or not to_act:
        kind, request, body = "info", {"method": "GET", "url": f"/api/rooms/{table.code}"}, None
    if body is not None:
        request["json"] = body
    before = snapshot(client, table.code)
    answer = client.request(**request, headers=headers)
    assert answer.status_code < 500, (kind, request, answer.text)
    if answer.status_code >= 400:
        assert_clear_error(answer.json())
        assert answer.json()["error"] in REST_EXPECTED.get(kind, {answer.json()["error"]}), (kind, request, answer.text)
        assert snapshot(client, table.code) == before, (kind, request, answer.text)
        return
    assert kind in ("legal", "view", "replay", "info"), (kind, request, answer.text)
    if request["url"] == moves_path:
        assert kind == "legal" and snapshot(client, table.code)[0] > before[0]
        accepted.append((headers["Authorization"].removeprefix("Bearer "), body))
    else:
        assert snapshot(client, table.code) == before, (kind, request, answer.text)


def test_rest_fuzz_refuses_bad_requests_cleanly_and_changes_nothing(tables: Any) -> None:
    client, rooms = tables
    sent: Counter[str] = Counter()
    accepted: dict[str, list[tuple[str, dict[str, Any]]]] = {table.code: [] for table in rooms}

    @settings(FUZZ_SETTINGS, max_examples=math.ceil(share("rest") / BATCH))
    @given(st.lists(st.tuples(st.integers(0, len(rooms) - 1), st.sampled_from(REST_KINDS), st.integers(0, 2**20),
                              junk), min_size=BATCH, max_size=BATCH))
    def fuzz(batch: list[tuple[int, str, int, Any]]) -> None:
        for target, kind, pick, filler in batch:
            table = rooms[target]
            rest_probe(client, table, kind, pick, filler, [t for t in rooms if t is not table], accepted[table.code])
            sent["rest"] += 1

    fuzz()
    assert sent["rest"] >= share("rest")
    assert client.get("/api/games").status_code == 200
    assert all(play_one(client, table, random.Random(0)) or True for table in rooms)  # every room still plays


# -- schemathesis: whatever the OpenAPI schema allows, and what it does not ------------------------
def test_schema_fuzz_finds_no_server_error(tables: Any) -> None:
    schemathesis = pytest.importorskip("schemathesis")
    client, rooms = tables
    schema = schemathesis.openapi.from_dict(client.get("/openapi.json").json())
    operations = [result.ok() for result in schema.get_all_operations()]
    strategies = [operation.as_strategy(generation_mode=mode) for operation in operations
                  for mode in schemathesis.GenerationMode]
    tokens = [t for table in rooms for t in table.tokens]
    sent: Counter[str] = Counter()

    @settings(FUZZ_SETTINGS, max_examples=share("schema"))
    @given(st.one_of(strategies), st.integers(0, 2**20))
    def fuzz(case: Any, pick: int) -> None:
        table = rooms[pick % len(rooms)]
        if "code" in (case.path_parameters or {}) and pick % 3:
            case.path_parameters["code"] = table.code  # into a real room, not only unknown ones
        headers = dict(case.headers or {})
        if pick % 5 == 0 and not case.path.endswith("/leave"):
            headers["Authorization"] = f"Bearer {tokens[pick % len(tokens)]}"
        before = snapshot(client, table.code), [live_room(client, t.code).version for t in rooms]
        kwargs = case.as_transport_kwargs(base_url=str(client.base_url), headers=headers)
        answer = client.request(**{k: v for k, v in kwargs.items() if k != "cookies"})
        sent["schema"] += 1
        assert answer.status_code < 500, (kwargs, answer.text)
        if answer.status_code >= 400:
            assert_clear_error(answer.json())
            after = snapshot(client, table.code), [live_room(client, t.code).version for t in rooms]
            assert after == before, (kwargs, answer.text)

    fuzz()
    assert sent["schema"] >= share("schema")
