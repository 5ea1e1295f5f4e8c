"""Turn notices that reach an absent player: an e-mail (through the SMTP server given to `bestiary serve
--smtp`) or a POST to a webhook (a chat app's incoming hook) when it becomes their turn and no page of
theirs is open; one per turn at most, each with a link that stops them.

Sent off the game loop: a room hands a notice to the `Notifier` and goes on; the notifier sends it on a
thread and tries again a bounded number of times, waiting on the server's clock, logging each failure with
its reason (the address itself never goes into a log, a view or the lobby: only the seat's own token reads
it back). A webhook may point anywhere the server can reach, so only http and https URLs are taken, the
server follows no redirect, and a host that resolves to a loopback, private or link-local address is refused
unless the server allows private webhooks (docs/reliability.md, *Turn notices*).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
import smtplib
import socket
import urllib.request
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import SMTP
from typing import Any, Literal
from urllib.parse import quote, urlsplit

from bestiary.server.db import Store
from bestiary.server.errors import ServerError
from bestiary.server.logs import event
from bestiary.server.settings import Settings

log = logging.getLogger("bestiary.server")
Kind = Literal["email", "webhook"]
KINDS: tuple[Kind, ...] = ("email", "webhook")
EMAIL = re.compile(r"[^@\s]{1,64}@[^@\s]+\.[^@\s]+")
SEND_SECONDS = 10.0  # a mail server or hook that does not answer within this fails the attempt
QUEUED = 1000  # notices waiting to be sent; past it a notice is dropped (and logged), never a move held up
SENDING = 4  # notices sent at once
# a long header (the unsubscribe link) stays one line, as mail programs read it, within SMTP's 998 characters
ONE_LINE_HEADERS = SMTP.clone(max_line_length=998)


@dataclass
class Subscription:
    """Where a seat is told of its turn: its address (never shown to anyone else), the token of its unsubscribe
    link, the server address that link starts with, and the turn last told (the version it began at)."""

    kind: Kind
    address: str
    token: str
    link_base: str
    notified_turn: int | None = None


@dataclass(frozen=True)
class TurnNotice:
    room: str
    title: str
    seat: int
    turn: int
    subscription: Subscription

    def links(self) -> tuple[str, str]:
        base = self.subscription.link_base.rstrip("/")
        return (f"{base}/room.html?code={quote(self.room)}",
                f"{base}/api/rooms/{quote(self.room)}/notices/unsubscribe?token={quote(self.subscription.token)}")

    def text(self) -> str:
        play, stop = self.links()
        return (f"It is your turn at {self.title} (table {self.room[:6]}…, seat P{self.seat + 1}).\n"
                f"Play: {play}\nNo more turn notices for this table: {stop}\n")


def check_address(kind: Kind, address: str, settings: Settings) -> str:
    """The address a seat gave, checked; a refusal says what is wrong with it."""
    address = address.strip()
    if kind == "email":
        if settings.smtp is None:
            raise ServerError("no-email", "this server sends no e-mail (its operator gives it --smtp); use a webhook",
                              409)
        if len(address) > 254 or not EMAIL.fullmatch(address):
            raise ServerError("bad-notice", "that is not an e-mail address (name@example.org)")
        return address
    parts = urlsplit(address)
    if parts.scheme not in ("http", "https"):
        raise ServerError("bad-notice", "a webhook is an http:// or https:// URL")
    if not parts.hostname or len(address) > 500 or any(c.isspace() or ord(c) < 32 for c in address):
        raise ServerError("bad-notice", "a webhook is a URL with a host, at most 500 characters, without spaces")
    return address


class Notifier:
    """Sends turn notices on threads, retrying each a bounded number of times; never blocks the game."""

    def __init__(self, settings: Settings, store: Store) -> None:
        self.settings = settings
        self.store = store
        self.sending = asyncio.Semaphore(SENDING)
        self.pending: set[asyncio.Task[None]] = set()

    def send(self, notice: TurnNotice) -> None:
        if len(self.pending) >= QUEUED:
            event("turn-notice-dropped", room=notice.room, seat=notice.seat, kind=notice.subscription.kind,
                  reason="too many notices waiting")
            return
        task = asyncio.get_running_loop().create_task(self.deliver(notice))
        self.pending.add(task)
        task.add_done_callback(self.pending.discard)

    async def deliver(self, notice: TurnNotice) -> None:
        kind = notice.subscription.kind
        try:  # the turn told of is stored first: a restart tells it no second time
            still_wanted = await self.store.run(self.store.notified, notice.subscription.token, notice.turn)
        except Exception as error:
            event("turn-notice-failed", room=notice.room, seat=notice.seat, kind=kind, attempt=0,
                  reason=f"not stored: {type(error).__name__}", then="sending it anyway")
        else:
            if not still_wanted:
                event("turn-notice-stopped", room=notice.room, seat=notice.seat, kind=kind)
                return
        attempts = self.settings.notice_attempts
        for attempt in range(1, attempts + 1):
            try:
                async with self.sending:
                    await asyncio.to_thread(self.send_now, notice)
            except Exception as error:
                reason = without_address(error, notice.subscription.address)
                final = isinstance(error, ServerError) or attempt == attempts
                event("turn-notice-failed", room=notice.room, seat=notice.seat, kind=kind, attempt=attempt,
                      of=attempts, reason=reason, then="given up" if final else "trying again")
                if final:
                    return
                await self.settings.clock.sleep(self.settings.notice_retry_seconds * 2 ** (attempt - 1))
            else:
                event("turn-notice", room=notice.room, seat=notice.seat, kind=kind, turn=notice.turn)
                return

    def send_now(self, notice: TurnNotice) -> None:
        """One attempt, blocking (on a thread)."""
        if notice.subscription.kind == "email":
            self.mail(notice)
        else:
            self.post(notice)

    def mail(self, notice: TurnNotice) -> None:
        assert self.settings.smtp is not None
        host, _, port = self.settings.smtp.rpartition(":")
        message = EmailMessage(policy=ONE_LINE_HEADERS)
        message["From"] = self.settings.mail_from
        message["To"] = notice.subscription.address
        message["Subject"] = f"Your turn: {notice.title}"
        message["List-Unsubscribe"] = f"<{notice.links()[1]}>"
        message.set_content(notice.text())
        with smtplib.SMTP(host, int(port), timeout=SEND_SECONDS) as server:
            server.send_message(message)

    def post(self, notice: TurnNotice) -> None:
        url = notice.subscription.address
        host = urlsplit(url).hostname or ""
        if not self.settings.private_webhooks:
            refuse_private(host)
        play, stop = notice.links()
        text = notice.text()
        body = json.dumps({"text": text, "content": text, "room": notice.room, "game": notice.title,
                           "seat": notice.seat, "link": play, "unsubscribe": stop}).encode()
        request = urllib.request.Request(url, data=body, method="POST",
                                         headers={"Content-Type": "application/json", "User-Agent": "Bestiary"})
        with NO_REDIRECTS.open(request, timeout=SEND_SECONDS) as answer:
            answer.read(1024)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    """A webhook's redirect is not followed: it could lead the server to an address it would refuse."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


NO_REDIRECTS = urllib.request.build_opener(NoRedirect)


def refuse_private(host: str) -> None:
    """Refuses a webhook host that resolves to an address that is not on the public internet."""
    try:
        found = {info[4][0] for info in socket.getaddrinfo(host, None)}
    except OSError as error:
        raise ServerError("bad-notice", f"the webhook's host does not resolve ({error.strerror})") from None
    for address in found:
        if not ipaddress.ip_address(str(address).split("%")[0]).is_global:
            raise ServerError("bad-notice", "the webhook's host is a loopback, private or link-local address, "
                                            "which this server does not post to")


def without_address(error: Exception, address: str) -> str:
    """The error's type and message for the log, with the seat's address taken out."""
    text = f"{type(error).__name__}: {error}"
    if isinstance(error, ServerError):
        text = error.message
    for secret in {address, urlsplit(address).netloc, urlsplit(address).hostname or address}:
        if secret:
            text = text.replace(secret, "<address>")
    return text[:300]


def turn_start(players: list[int], seat: int) -> int:
    """Where the seat's turn began: the number of moves before its own last moves in a row."""
    start = len(players)
    while start and players[start - 1] == seat:
        start -= 1
    return start
