"""Turn notices that reach an absent player (server/notices.py): by e-mail through an SMTP server on loopback
(aiosmtpd) and by a webhook (a small HTTP server on loopback); once a turn, never to a player whose page is
open, retried a bounded number of times on the server's clock, stopped by their link, and the address shown
to no one else, nor written to the log."""

from __future__ import annotations

import asyncio
import email
import json
import logging
import re
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bestiary.core.registry import register_game
from bestiary.server.db import Store, open_database
from bestiary.server.settings import Settings
from tests.server.clocks import ManualClock, advance_until
from tests.server.conftest import Server, auth, create_room, join, view
from tests.server.errand import Errand
from tests.server.test_realtime import hello

aiosmtpd_controller = pytest.importorskip("aiosmtpd.controller", reason="the 'dev' extra installs aiosmtpd")

ADA_MAIL, BO_MAIL = "ada@example.org", "bo.notices@example.org"


@pytest.fixture(autouse=True, scope="module")
def errand_registered() -> None:
    register_game(Errand)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Mailbox:
    """What the SMTP server on loopback was handed."""

    def __init__(self) -> None:
        self.messages: list[email.message.Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


def text_of(message: email.message.Message) -> str:
    return bytes(message.get_payload(decode=True)).decode()


@pytest.fixture
def mailbox() -> Iterator[tuple[Mailbox, str]]:
    box = Mailbox()
    controller = aiosmtpd_controller.Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield box, f"127.0.0.1:{controller.port}"
    controller.stop()


class Hook:
    """A chat app's incoming webhook on loopback: it answers each POST with the next status in `answers`."""

    def __init__(self) -> None:
        self.posts: list[dict[str, Any]] = []
        self.answers: list[int] = []
        hook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                status = hook.answers.pop(0) if hook.answers else 200
                if status == 200:
                    hook.posts.append(json.loads(body))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/secret-path"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def hook() -> Iterator[Hook]:
    receiver = Hook()
    yield receiver
    receiver.server.shutdown()


def settings_for(smtp: str | None, clock: ManualClock, private_webhooks: bool = True) -> Settings:
    return Settings(bot_delay=3600, reaction_scale=0.0, smtp=smtp, mail_from="tables@bestiary.test",
                    private_webhooks=private_webhooks, notice_retry_seconds=30.0, clock=clock)


def table(client: TestClient) -> tuple[str, list[str]]:
    code = create_room(client, "errand")["code"]
    return code, [join(client, code, 0, "Ada"), join(client, code, 1, "Bo")]


def play(client: TestClient, code: str, token: str, *actions: str) -> None:
    for action in actions:
        answer = client.post(f"/api/rooms/{code}/moves", headers=auth(token),
                             json={"action": action, "version": view(client, code)["version"]})
        assert answer.status_code == 200, answer.text


def subscribe(client: TestClient, code: str, token: str, **addresses: str | None) -> Any:
    return client.put(f"/api/rooms/{code}/notices", headers=auth(token), json=addresses)


def drained(client: TestClient) -> None:
    """Returns once every notice handed to the notifier has been sent or given up."""
    notifier = client.app.state.hub.notifier  # type: ignore[attr-defined]

    async def wait() -> None:
        while notifier.pending:
            await asyncio.wait(set(notifier.pending))

    assert client.portal is not None
    client.portal.call(wait)


def test_an_absent_player_is_mailed_once_a_turn_and_never_while_their_page_is_open(
        server: Server, sqlite_url: str, clock: ManualClock, mailbox: tuple[Mailbox, str]) -> None:
    box, smtp = mailbox
    with server(sqlite_url, settings_for(smtp, clock)) as client:
        code, (ada, bo) = table(client)
        mine = subscribe(client, code, bo, email=BO_MAIL)
        assert mine.status_code == 200 and mine.json() == {"email": BO_MAIL, "webhook": None,
                                                           "email_available": True}
        play(client, code, ada, "step", "end")  # Bo's turn: Bo has no page open
        drained(client)
        assert len(box.messages) == 1
        play(client, code, bo, "step")
        assert client.post(f"/api/rooms/{code}/take-back", headers=auth(bo), json={"version": 3}).status_code == 200
        play(client, code, bo, "step", "end")
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
            hello(ws, bo)
            play(client, code, ada, "end")  # Bo's turn again, but Bo's page is open
            drained(client)
        play(client, code, bo, "end")
        play(client, code, ada, "end")  # and again, with Bo away: the second notice
        drained(client)
    assert len(box.messages) == 2
    message = box.messages[0]
    assert (message["To"], message["From"], message["Subject"]) == (BO_MAIL, "tables@bestiary.test",
                                                                    "Your turn: Errand (server test game)")
    body = text_of(message)
    assert f"/room.html?code={code}" in body and "seat P2" in body
    assert re.search(rf"/api/rooms/{code}/notices/unsubscribe\?token=[\w-]{{20,}}", body)
    assert message["List-Unsubscribe"].strip("<>") in body


def test_a_webhook_is_posted_to_again_after_a_failure_and_the_log_names_no_address(
        server: Server, sqlite_url: str, clock: ManualClock, hook: Hook, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bestiary.server")
    hook.answers = [500, 503]  # the chat app is down twice, then answers
    with server(sqlite_url, settings_for(None, clock)) as client:
        code, (ada, bo) = table(client)
        assert subscribe(client, code, bo, webhook=hook.url).status_code == 200
        play(client, code, ada, "end")
        advance_until(clock, lambda: len(hook.posts) == 1, step=30.0)
        drained(client)
    post = hook.posts[0]
    assert post["room"] == code and post["seat"] == 1 and post["text"] == post["content"]
    assert "It is your turn at Errand" in post["text"] and post["unsubscribe"] in post["text"]
    failures = [r.getMessage() for r in caplog.records if "turn-notice-failed" in r.getMessage()]
    assert len(failures) == 2 and "HTTP Error 500" in failures[0] and "trying again" in failures[0]
    assert any("event=turn-notice " in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if "secret-path" in r.getMessage() or "127.0.0.1" in r.getMessage()]


def test_a_notice_that_keeps_failing_is_given_up_after_its_attempts(
        server: Server, sqlite_url: str, clock: ManualClock, mailbox: tuple[Mailbox, str],
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bestiary.server")
    closed = f"127.0.0.1:{free_port()}"  # nothing listens there
    with server(sqlite_url, settings_for(closed, clock)) as client:
        code, (ada, bo) = table(client)
        subscribe(client, code, bo, email=BO_MAIL)
        play(client, code, ada, "end")
        advance_until(clock, lambda: "given up" in caplog.text, step=30.0)
        drained(client)
    failures = [r.getMessage() for r in caplog.records if "turn-notice-failed" in r.getMessage()]
    assert len(failures) == 3 and "ConnectionRefusedError" in failures[0]  # settings.notice_attempts
    assert BO_MAIL not in caplog.text


def test_a_webhook_to_a_private_address_is_refused_unless_the_server_allows_it(
        server: Server, sqlite_url: str, clock: ManualClock, hook: Hook,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="bestiary.server")
    with server(sqlite_url, settings_for(None, clock, private_webhooks=False)) as client:
        code, (ada, bo) = table(client)
        assert subscribe(client, code, bo, webhook=hook.url).status_code == 200
        play(client, code, ada, "end")
        drained(client)
    assert hook.posts == []
    assert "loopback, private or link-local" in caplog.text and "given up" in caplog.text


@pytest.mark.parametrize("webhook", ["ftp://example.org/hook", "file:///etc/passwd", "javascript:alert(1)",
                                     "gopher://127.0.0.1:25/", "http:///no-host", "hooks.example.org/x"])
def test_a_webhook_that_is_not_an_http_url_is_refused(client: TestClient, webhook: str) -> None:
    code, (_, bo) = table(client)
    answer = subscribe(client, code, bo, webhook=webhook)
    assert answer.status_code == 400 and answer.json()["error"] == "bad-notice", answer.text
    assert subscribe(client, code, bo).json()["webhook"] is None  # nothing was kept


def test_e_mail_needs_a_server_that_sends_it_and_an_address(server: Server, sqlite_url: str,
                                                            clock: ManualClock) -> None:
    with server(sqlite_url, settings_for(None, clock)) as client:
        code, (_, bo) = table(client)
        answer = subscribe(client, code, bo, email=BO_MAIL)
        assert answer.status_code == 409 and answer.json()["error"] == "no-email"
    with server(sqlite_url, settings_for("127.0.0.1:1", clock)) as client:
        for wrong in ("bo", "bo@", "@example.org", "bo@example", "bo @example.org"):
            assert subscribe(client, code, bo, email=wrong).json()["error"] == "bad-notice", wrong
        assert client.put(f"/api/rooms/{code}/notices", json={"email": BO_MAIL}).status_code == 403  # no seat


def test_the_address_is_shown_to_no_one_else(server: Server, sqlite_url: str, clock: ManualClock,
                                             hook: Hook) -> None:
    with server(sqlite_url, settings_for("127.0.0.1:1", clock)) as client:
        code = create_room(client, "errand", public=True)["code"]
        bo = join(client, code, 1, "Bo")
        subscribe(client, code, bo, email=BO_MAIL, webhook=hook.url)
        ada = join(client, code, 0, "Ada")
        subscribe(client, code, ada, email=ADA_MAIL)
        play(client, code, ada, "step")
        seen = [client.get(f"/api/rooms/{code}").text, client.get("/api/rooms").text,
                json.dumps(view(client, code)), json.dumps(view(client, code, ada)),
                client.get(f"/api/rooms/{code}/notices", headers=auth(ada)).text,
                client.get(f"/api/rooms/{code}/replay?step=1", headers=auth(ada)).text]
        with client.websocket_connect(f"/api/rooms/{code}/ws") as ws:
            seen.append(json.dumps(hello(ws, ada)))
        assert not [text for text in seen if BO_MAIL in text or "secret-path" in text]
        assert client.get(f"/api/rooms/{code}/notices", headers=auth(bo)).json()["email"] == BO_MAIL
        assert client.get(f"/api/rooms/{code}/notices").status_code == 403


def test_the_unsubscribe_link_stops_the_notices_and_a_restart_sends_no_second_one(
        server: Server, sqlite_url: str, clock: ManualClock, mailbox: tuple[Mailbox, str], hook: Hook) -> None:
    box, smtp = mailbox
    settings = settings_for(smtp, clock)
    with server(sqlite_url, settings) as client:
        code, (ada, bo) = table(client)
        subscribe(client, code, bo, email=BO_MAIL, webhook=hook.url)
        play(client, code, ada, "end")
        drained(client)
        assert (len(box.messages), len(hook.posts)) == (1, 1)
    with server(sqlite_url, settings) as client:  # the room resumes in Bo's turn: told already
        view(client, code)
        drained(client)
        assert (len(box.messages), len(hook.posts)) == (1, 1)
        link = re.search(r"https?://\S+/notices/unsubscribe\?token=\S+", text_of(box.messages[0]))
        assert link is not None
        path = link.group(0).split("://", 1)[1].split("/", 1)[1]
        page = client.get("/" + path)
        assert page.status_code == 200 and "<form" in page.text  # a mail program opening it stops nothing
        assert client.get(f"/api/rooms/{code}/notices", headers=auth(bo)).json()["email"] == BO_MAIL
        assert client.post("/" + path).status_code == 200
        assert client.post("/" + path).status_code == 404  # already stopped
        assert client.get(f"/api/rooms/{code}/notices", headers=auth(bo)).json()["email"] is None
        play(client, code, bo, "end")
        play(client, code, ada, "end")  # Bo's turn again: the webhook alone is told
        drained(client)
        assert (len(box.messages), len(hook.posts)) == (1, 2)


def test_a_notice_stopped_through_another_worker_is_not_sent(server: Server, sqlite_url: str, clock: ManualClock,
                                                             mailbox: tuple[Mailbox, str]) -> None:
    box, smtp = mailbox
    with server(sqlite_url, settings_for(smtp, clock)) as client:
        code, (ada, bo) = table(client)
        subscribe(client, code, bo, email=BO_MAIL)
        other_worker = Store(open_database(sqlite_url))  # its link followed where the room is not in memory
        token = other_worker.turn_notices(code)[0]["token"]
        assert other_worker.unsubscribe(code, token) == (1, "email")
        other_worker.close()
        play(client, code, ada, "end")
        drained(client)
    assert box.messages == []
