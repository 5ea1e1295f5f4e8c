"""The database: rooms, seats and every accepted move, so a restart resumes every unfinished game.

SQLite by default, PostgreSQL by URL. The schema is owned by the Alembic migrations in `migrations/`;
`open_database` creates or upgrades it before the server answers anyone. The Store's methods block; the
event loop calls them through `Store.run`, which runs them on the Store's own worker threads.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    create_engine,
    event,
    or_,
    select,
    text,
)
from sqlalchemy.engine import Engine

T = TypeVar("T")
MoveWrite = tuple[str, list[tuple[int, int, str]], dict[str, Any]]  # a room's code, new moves, new room values
CONNECT_SECONDS = 5
POOLED_WORKERS = 4  # below SQLAlchemy's default pool of 5 connections, so no write waits for a connection
MIGRATIONS = Path(__file__).parent / "migrations"
MIGRATION_LOCK = int.from_bytes(hashlib.blake2b(b"bestiary migrations", digest_size=8).digest(), "big", signed=True)

metadata = MetaData()

rooms = Table(
    "rooms", metadata,
    Column("code", String(32), primary_key=True),
    Column("game", String(64), nullable=False),
    Column("options", JSON, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),  # waiting, playing, finished
    Column("window_seconds", Float, nullable=False),
    Column("turn_seconds", Float, nullable=True),
    Column("result", JSON, nullable=True),
    Column("rematch_of", String(32), nullable=True),
    Column("rematch", String(32), nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    # the open response window or race, so that a restart gives it only the time it had left
    Column("window_opened_at", Integer, nullable=True),  # the state version it opened at
    Column("window_closes_at", DateTime(timezone=True), nullable=True),
    Column("public", Boolean, nullable=False, default=False),  # listed in the lobby while waiting
    Column("spectator_chat", Boolean, nullable=False, default=False),  # pages without a seat may chat too
)

seats = Table(
    "seats", metadata,
    Column("room_code", String(32), ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(16), nullable=False),  # human or bot
    Column("agent", String(64), nullable=True),
    Column("name", String(64), nullable=True),
    Column("token_hash", String(64), nullable=True),  # sha256 of the seat token; the token itself is never kept
    Column("person", Boolean, nullable=False, default=False),  # a person took it (a computer may play it now)
)

moves = Table(
    "moves", metadata,
    Column("room_code", String(32), ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True, autoincrement=False),  # the state version it was applied to
    Column("player", Integer, nullable=False),  # a seat, or CHANCE
    Column("action", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)


chat_lines = Table(
    "chat_lines", metadata,
    Column("room_code", String(32), ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
    Column("number", Integer, primary_key=True, autoincrement=False),  # counts from 0 in each room
    Column("seat", Integer, nullable=True),  # null: a spectator wrote it (where the room allows spectator chat)
    Column("name", String(64), nullable=False),
    Column("text", Text, nullable=False),  # at most protocol.MAX_CHAT characters
    Column("at", DateTime(timezone=True), nullable=False),
)


turn_notices = Table(
    "turn_notices", metadata,
    Column("room_code", String(32), ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("kind", String(16), primary_key=True),  # email or webhook
    Column("address", Text, nullable=False),  # shown to no one but the seat's own token
    Column("token", String(64), nullable=False, unique=True),  # the unsubscribe link's: it can only stop notices
    Column("link_base", Text, nullable=False),  # the server's address, as the seat's page reached it
    Column("notified_turn", Integer, nullable=True),  # the version the turn last told of began at
)


reviews = Table(
    "reviews", metadata,
    Column("room_code", String(32), ForeignKey("rooms.code", ondelete="CASCADE"), primary_key=True),
    Column("status", String(16), nullable=False),  # running, done, failed
    Column("settings", JSON, nullable=False),  # the review's settings and seed
    Column("views", JSON, nullable=True),  # done: the review once per seat and for spectators (review/views.py)
    Column("message", Text, nullable=True),  # failed: why
    Column("asked_at", DateTime(timezone=True), nullable=False),
    Column("finished_at", DateTime(timezone=True), nullable=True),
)


def now() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; every time the server stores is in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def open_database(url: str) -> Engine:
    """An engine on `url` with the schema at the newest migration."""
    engine_args: dict[str, Any] = {"future": True}
    if url.startswith("sqlite"):
        engine_args["connect_args"] = {"check_same_thread": False}
    else:  # a server that was restarted leaves dead connections in the pool: test each before use
        engine_args["pool_pre_ping"] = True
    if url.startswith("postgresql"):  # an unreachable host fails a move in seconds instead of holding its room
        engine_args["connect_args"] = {"connect_timeout": CONNECT_SECONDS}
    engine = create_engine(url, **engine_args)
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    upgrade(engine)
    return engine


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")  # readers do not block the writer
    cursor.execute("PRAGMA synchronous=FULL")  # an acknowledged move survives a power cut
    cursor.close()


def upgrade(engine: Engine) -> None:
    """The schema at the newest migration. On PostgreSQL, where several workers start at once on one
    database, one migrates under a transaction-wide advisory lock while the others wait for it, then find
    the schema current (PostgreSQL's DDL is transactional: a waiting worker sees all of it or none)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


class Store:
    """Every write the server makes; each method is one transaction, committed before it returns.

    The methods block, so the event loop calls them through `run`. SQLite has one writer at a time, so it
    gets one worker thread (no writer waits on another's lock); other databases get one per pooled
    connection (up to POOLED_WORKERS). A room holds its lock across `run`, so its writes stay in the order it made them.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.writers = 1 if engine.dialect.name == "sqlite" else POOLED_WORKERS
        self.executor = ThreadPoolExecutor(max_workers=self.writers, thread_name_prefix="bestiary-db")

    async def run(self, method: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`method(*args, **kwargs)` on a worker thread, so the event loop goes on serving everyone else."""
        call = functools.partial(method, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self.executor, call)

    def close(self) -> None:
        self.executor.shutdown(wait=True)
        self.engine.dispose()

    def create_room(self, room: dict[str, Any], seat_rows: list[dict[str, Any]]) -> None:
        with self.engine.begin() as connection:
            connection.execute(rooms.insert().values(**room))
            connection.execute(seats.insert(), [{"room_code": room["code"], **row} for row in seat_rows])

    def update_seat(self, code: str, seat: int, **values: Any) -> None:
        with self.engine.begin() as connection:
            connection.execute(seats.update().where(seats.c.room_code == code, seats.c.seat == seat).values(**values))

    def record_moves(self, writes: list[MoveWrite]) -> None:
        """Each room's new moves, as (number, player, action text), and new room values, all in one
        transaction (server/commits.py); the primary key refuses a move number stored twice."""
        at = now()
        with self.engine.begin() as connection:
            rows = [{"room_code": code, "number": number, "player": player, "action": action, "at": at}
                    for code, new_moves, _ in writes for number, player, action in new_moves]
            if rows:
                connection.execute(moves.insert(), rows)
            for code, _, room_values in writes:
                if room_values:
                    connection.execute(rooms.update().where(rooms.c.code == code).values(**room_values))

    def take_back(self, code: str, number: int, room_values: dict[str, Any]) -> None:
        """A take-back: the room's moves from `number` on deleted, with its new values, in one transaction. The
        record stays the game as it now stands, so a restart replays it from the seed as it does any game."""
        with self.engine.begin() as connection:
            connection.execute(moves.delete().where(moves.c.room_code == code, moves.c.number >= number))
            connection.execute(rooms.update().where(rooms.c.code == code).values(**room_values))

    def update_room(self, code: str, **values: Any) -> None:
        with self.engine.begin() as connection:
            connection.execute(rooms.update().where(rooms.c.code == code).values(**values))

    def delete_room(self, code: str) -> None:
        """A room with its seats and moves (a waiting room nobody came to)."""
        with self.engine.begin() as connection:
            connection.execute(chat_lines.delete().where(chat_lines.c.room_code == code))
            connection.execute(turn_notices.delete().where(turn_notices.c.room_code == code))
            connection.execute(reviews.delete().where(reviews.c.room_code == code))
            connection.execute(moves.delete().where(moves.c.room_code == code))
            connection.execute(seats.delete().where(seats.c.room_code == code))
            connection.execute(rooms.delete().where(rooms.c.code == code))

    def waiting_rooms(self, offset: int, limit: int, after: str | None = None
                      ) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
        """One page of the public rooms waiting with an open seat, oldest first, with their seats; from the
        room after `after` when that room is stored."""
        open_seat = select(seats.c.room_code).where(seats.c.room_code == rooms.c.code, seats.c.kind == "human",
                                                    seats.c.token_hash.is_(None)).exists()
        page = rooms.select().where(rooms.c.status == "waiting", rooms.c.public.is_(True), open_seat)
        with self.engine.connect() as connection:
            cursor = None if after is None else connection.execute(
                select(rooms.c.created_at, rooms.c.code).where(rooms.c.code == after)).first()
            if cursor is not None:
                page = page.where(or_(rooms.c.created_at > cursor.created_at,
                                      and_(rooms.c.created_at == cursor.created_at, rooms.c.code > cursor.code)))
            found = [dict(r) for r in connection.execute(
                page.order_by(rooms.c.created_at, rooms.c.code).offset(offset).limit(limit)).mappings()]
            seat_rows: dict[str, list[dict[str, Any]]] = {row["code"]: [] for row in found}
            for r in connection.execute(seats.select().where(seats.c.room_code.in_(list(seat_rows)))
                                        .order_by(seats.c.seat)).mappings():
                seat_rows[r["room_code"]].append(dict(r))
        return [(row, seat_rows[row["code"]]) for row in found]

    def room_codes(self, statuses: tuple[str, ...]) -> list[str]:
        with self.engine.connect() as connection:
            return list(connection.execute(
                select(rooms.c.code).where(rooms.c.status.in_(statuses)).order_by(rooms.c.created_at)).scalars())

    def holds_seat(self, code: str, token_hash: str) -> bool:
        """Whether a seat of the room has this token (its hash): its player's request, not a stranger's."""
        with self.engine.connect() as connection:
            return connection.execute(select(seats.c.seat).where(
                seats.c.room_code == code, seats.c.token_hash == token_hash)).first() is not None

    def seat_is_open(self, code: str, seat: int) -> bool:
        """Whether the room's seat waits for a person to take it."""
        with self.engine.connect() as connection:
            return connection.execute(select(seats.c.seat).where(
                seats.c.room_code == code, seats.c.seat == seat, seats.c.kind == "human",
                seats.c.token_hash.is_(None))).first() is not None

    def load_room(self, code: str) -> tuple[dict[str, Any], list[dict[str, Any]], list[tuple[int, str]]] | None:
        with self.engine.connect() as connection:
            room = connection.execute(rooms.select().where(rooms.c.code == code)).mappings().first()
            if room is None:
                return None
            seat_rows = [dict(r) for r in connection.execute(
                seats.select().where(seats.c.room_code == code).order_by(seats.c.seat)).mappings()]
            move_rows = [(r.player, r.action) for r in connection.execute(
                moves.select().where(moves.c.room_code == code).order_by(moves.c.number))]
        return dict(room), seat_rows, move_rows

    def add_chat_line(self, code: str, number: int, seat: int | None, name: str, text: str, keep: int) -> None:
        """A room's chat line (seat None: a spectator's); only the newest `keep` lines are kept."""
        with self.engine.begin() as connection:
            connection.execute(chat_lines.insert().values(room_code=code, number=number, seat=seat, name=name,
                                                          text=text, at=now()))
            connection.execute(chat_lines.delete().where(chat_lines.c.room_code == code,
                                                         chat_lines.c.number <= number - keep))

    def set_turn_notice(self, code: str, seat: int, kind: str, row: dict[str, Any] | None) -> None:
        """A seat's turn notice of one kind set (its address, token, link base) or, with None, removed."""
        with self.engine.begin() as connection:
            connection.execute(turn_notices.delete().where(turn_notices.c.room_code == code,
                                                           turn_notices.c.seat == seat, turn_notices.c.kind == kind))
            if row is not None:
                connection.execute(turn_notices.insert().values(room_code=code, seat=seat, kind=kind, **row))

    def turn_notices(self, code: str) -> list[dict[str, Any]]:
        with self.engine.connect() as connection:
            return [dict(r) for r in connection.execute(
                turn_notices.select().where(turn_notices.c.room_code == code)).mappings()]

    def unsubscribe(self, code: str, token: str) -> tuple[int, str] | None:
        """The room's turn notice with this unsubscribe token removed: its seat and kind (None: no such one)."""
        with self.engine.begin() as connection:
            mine = and_(turn_notices.c.room_code == code, turn_notices.c.token == token)
            row = connection.execute(select(turn_notices.c.seat, turn_notices.c.kind).where(mine)).first()
            if row is None:
                return None
            connection.execute(turn_notices.delete().where(mine))
            return row.seat, row.kind

    def notified(self, token: str, turn: int) -> bool:
        """The turn a notice tells of, stored with it; False when that notice was stopped or replaced meanwhile
        (with several workers, its link may have been followed on another)."""
        with self.engine.begin() as connection:
            done = connection.execute(turn_notices.update().where(turn_notices.c.token == token)
                                      .values(notified_turn=turn))
            return bool(done.rowcount)

    def chat_lines(self, code: str) -> list[dict[str, Any]]:
        """A room's kept chat lines, oldest first."""
        with self.engine.connect() as connection:
            return [dict(r) for r in connection.execute(
                select(chat_lines.c.number, chat_lines.c.seat, chat_lines.c.name, chat_lines.c.text)
                .where(chat_lines.c.room_code == code).order_by(chat_lines.c.number)).mappings()]

    def ask_review(self, code: str, settings: dict[str, Any]) -> None:
        """A room's review, asked for: stored as running (again, after a failure or a restart)."""
        with self.engine.begin() as connection:
            found = connection.execute(select(reviews.c.status).where(reviews.c.room_code == code)).first()
            values = {"status": "running", "settings": settings, "views": None, "message": None, "asked_at": now(),
                      "finished_at": None}
            if found is None:
                connection.execute(reviews.insert().values(room_code=code, **values))
            else:
                connection.execute(reviews.update().where(reviews.c.room_code == code).values(**values))

    def finish_review(self, code: str, status: str, views: dict[str, Any] | None, message: str | None = None) -> None:
        with self.engine.begin() as connection:
            connection.execute(reviews.update().where(reviews.c.room_code == code).values(
                status=status, views=views, message=message, finished_at=now()))

    def review(self, code: str) -> dict[str, Any] | None:
        """A room's stored review: its status, views and message; None if none was asked for."""
        with self.engine.connect() as connection:
            row = connection.execute(select(reviews.c.status, reviews.c.views, reviews.c.message)
                                     .where(reviews.c.room_code == code)).mappings().first()
        return None if row is None else dict(row)
