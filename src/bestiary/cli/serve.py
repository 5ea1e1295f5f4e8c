"""`bestiary serve`: the game server and browser UI on an embedded SQLite database (or PostgreSQL)."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated

import typer

DEFAULT_DATA = Path.home() / ".bestiary"


def serve(
    host: Annotated[str, typer.Option(help="address to listen on (0.0.0.0: every interface)")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="port to listen on")] = 8000,
    database_url: Annotated[str | None, typer.Option(
        help="SQLAlchemy URL, e.g. postgresql+psycopg://user:pass@host/db (default: a SQLite file in --data-dir)")
    ] = None,
    data_dir: Annotated[Path, typer.Option(help="where the SQLite database lives")] = DEFAULT_DATA,
    bot_delay: Annotated[float, typer.Option(help="seconds a bot waits before an ordinary move")] = 0.5,
    reaction_scale: Annotated[float, typer.Option(
        help="multiplies the time a bot takes to answer a race or a response window, and an automatic pass "
             "(0: at once)", min=0.0)] = 1.0,
    automatic_passes: Annotated[bool, typer.Option(
        help="a person's seat that can only pass a response window passes by itself, after a delay drawn like a "
             "computer's answer, so a window tells nobody who holds an answer")] = True,
    disconnect_grace: Annotated[float, typer.Option(
        help="seconds a disconnected player's seat is held before a bot takes it over (0: hold it for ever)")
    ] = 120.0,
    max_message_bytes: Annotated[int, typer.Option(help="largest websocket message a client may send, in bytes")
                                 ] = 4096,
    message_rate: Annotated[float, typer.Option(help="websocket messages one connection may send per second")
                            ] = 10.0,
    message_burst: Annotated[int, typer.Option(help="websocket messages one connection may send at once")] = 30,
    max_strikes: Annotated[int, typer.Option(
        help="oversized, binary or over-rate messages before the server closes the connection")] = 20,
    max_outbox: Annotated[int, typer.Option(
        help="characters of JSON (bytes, for ASCII) that may wait to be sent to one websocket; a client that "
             "does not read past that is cut off (close code 1013) and may reconnect", min=1)] = 1 << 20,
    max_body_bytes: Annotated[int, typer.Option(help="largest REST request body, in bytes")] = 65536,
    finished_room_seconds: Annotated[float, typer.Option(
        help="seconds a finished room stays in memory after its last connection (it reloads on demand)")] = 300.0,
    option_range: Annotated[list[str] | None, typer.Option(
        help="GAME.OPTION=LOW..HIGH: the values of an option that builds a larger game this server plays, e.g. "
             "crits-creatures.width=4..16 (repeat it; any given replaces the ranges every game declares, "
             "docs/reliability.md)")
    ] = None,
    games_kept: Annotated[int, typer.Option(help="configured games (game and options) held in memory for new rooms")
                          ] = 16,
    waiting_rooms_per_address: Annotated[int, typer.Option(
        help="rooms one client address may have waiting for players at once")] = 20,
    max_waiting_rooms: Annotated[int, typer.Option(help="rooms waiting for players on the whole server")] = 1000,
    bot_rooms_per_address: Annotated[int, typer.Option(
        help="rooms of bots only one client address may have playing at once (each holds its game in memory)",
        min=0)] = 4,
    race_commit_seconds: Annotated[float, typer.Option(
        help="a race's answers arriving within this of its first are judged by reaction, the round trip taken "
             "off (docs/protocol.md; 0: by arrival)", min=0.0)] = 0.15,
    ping_seconds: Annotated[float, typer.Option(
        help="how often each websocket is pinged: its round trip is measured for races, and a client that "
             "stops answering for 20 s is closed", min=0.1)] = 2.0,
    max_bot_rooms: Annotated[int, typer.Option(help="rooms of bots only playing on the whole server", min=0)] = 50,
    waiting_room_seconds: Annotated[float, typer.Option(
        help="seconds a waiting room with nobody connected is kept before it is deleted")] = 900.0,
    bot_processes: Annotated[int, typer.Option(
        help="processes search bots think in: at most this many searches at once, rooms with people first "
             "(0: on threads in the server's process)")] = 1,
    review_sims: Annotated[int, typer.Option(
        help="playouts weighing each decision of a post-game review (docs/review.md); reviews run in the bots' "
             "processes, after every search", min=1)] = 80,
    reviews_waiting: Annotated[int, typer.Option(
        help="post-game reviews asked for and not yet made, on the whole server", min=0)] = 20,
    ws_deflate: Annotated[bool, typer.Option(
        help="compress websocket messages (permessage-deflate): pays on slow links, costs CPU on fast ones")] = False,
    workers: Annotated[int, typer.Option(
        help="worker processes, on PORT+1 to PORT+N, each room played by one of them; a proxy on PORT sends each "
             "room's requests to its worker (deploy/haproxy.cfg); needs PostgreSQL")] = 1,
    cluster: Annotated[bool, typer.Option(
        help="this process is one of several workers on one PostgreSQL database (--workers starts them so)")
    ] = False,
    log_level: Annotated[str, typer.Option(help="uvicorn's log level: info logs every request, warning does not")
                         ] = "info",
    forwarded_allow_ips: Annotated[str | None, typer.Option(
        help="proxies whose X-Forwarded-For is trusted, e.g. 127.0.0.1 (the client address counts waiting rooms)")
    ] = None,
    max_header_bytes: Annotated[int, typer.Option(
        help="bytes of request line and headers one request may send (431 past it)", min=1024)] = 16 * 1024,
    max_headers: Annotated[int, typer.Option(help="header lines one request may send (431 past it)", min=8)] = 100,
    request_seconds: Annotated[float, typer.Option(
        help="seconds a client has to send a whole request; a connection still sending is closed (408)",
        min=1.0)] = 30.0,
    keep_alive_seconds: Annotated[float, typer.Option(
        help="seconds an idle connection is kept open between requests", min=1.0)] = 5.0,
    connections_per_address: Annotated[int, typer.Option(
        help="connections (websockets included) one address may hold open; a trusted proxy's are not counted",
        min=1)] = 200,
    max_connections: Annotated[int, typer.Option(
        help="connections the process holds open in all (never more than its file limit allows)", min=1)] = 4000,
    websockets_per_address: Annotated[int, typer.Option(help="websockets one client address may hold open",
                                                        min=1)] = 100,
    max_websockets: Annotated[int, typer.Option(help="websockets open on the process in all", min=1)] = 3000,
    rest_rate: Annotated[float, typer.Option(
        help="REST calls one client address may make per second on average (429 with Retry-After past it)",
        min=0.01)] = 20.0,
    rest_burst: Annotated[int, typer.Option(help="REST calls one client address may make at once", min=1)] = 100,
    creations_per_minute: Annotated[float, typer.Option(
        help="rooms one client address may create per minute on average, whatever their seats (429 past it)",
        min=0.01)] = 10.0,
    creation_burst: Annotated[int, typer.Option(help="rooms one client address may create at once", min=1)] = 20,
    misses_per_second: Annotated[float, typer.Option(
        help="lookups of rooms that do not exist one client address may make per second on average", min=0.01)
    ] = 1.0,
    miss_burst: Annotated[int, typer.Option(
        help="lookups of rooms that do not exist one client address may make at once", min=1)] = 30,
    smtp: Annotated[str | None, typer.Option(
        help="HOST:PORT of the SMTP server turn notices are mailed through (none: players may not choose e-mail)")
    ] = None,
    mail_from: Annotated[str, typer.Option(help="the sender address of turn notices by e-mail")
                         ] = "bestiary@localhost",
    public_url: Annotated[str | None, typer.Option(
        help="the address players reach this server at, e.g. https://games.example.org, for the links in turn "
             "notices (none: the address the player's page used)")] = None,
    private_webhooks: Annotated[bool, typer.Option(
        help="let turn-notice webhooks post to loopback and private addresses (a chat server on your own "
             "network); off, only public hosts are posted to (docs/reliability.md)")] = False,
) -> None:
    """Serve Bestiary online: open http://HOST:PORT in a browser to create a room and play."""
    try:
        import uvicorn

        from bestiary.review import ReviewSettings
        from bestiary.server.app import create_app
        from bestiary.server.guard import Bounds, Ledger, guarded_protocols
        from bestiary.server.limits import OptionRange
        from bestiary.server.logs import configure
        from bestiary.server.settings import Settings
    except ImportError as error:
        typer.echo(f"error: the server needs its extra packages ({error.name} is missing): "
                   "pip install 'bestiary[server]'", err=True)
        raise typer.Exit(2) from None
    if (workers > 1 or cluster) and not (database_url or "").startswith("postgresql"):
        typer.echo("error: several workers share their rooms through PostgreSQL: give --database-url "
                   "postgresql+psycopg://...", err=True)
        raise typer.Exit(2)
    if smtp is not None and not re.fullmatch(r"[^\s:]+:\d{1,5}", smtp):
        typer.echo("error: --smtp takes HOST:PORT, e.g. localhost:25", err=True)
        raise typer.Exit(2)
    if workers > 1:
        from bestiary.server.workers import run_workers

        raise typer.Exit(run_workers(workers, port))
    if database_url is None:
        data_dir.mkdir(parents=True, exist_ok=True)
        database_url = f"sqlite:///{data_dir / 'bestiary.sqlite3'}"
    typer.echo(f"Bestiary on http://{host}:{port}/  (database: {database_url.split('@')[-1]})")
    try:
        ranges = tuple(OptionRange.parse(text) for text in option_range) if option_range else None
    except ValueError as error:
        typer.echo(f"error: --option-range: {error}", err=True)
        raise typer.Exit(2) from None
    settings = Settings(bot_delay=bot_delay, reaction_scale=reaction_scale, automatic_passes=automatic_passes,
                        disconnect_grace=disconnect_grace or None,
                        max_message_bytes=max_message_bytes, message_rate=message_rate, message_burst=message_burst,
                        max_strikes=max_strikes, max_outbox=max_outbox, max_body_bytes=max_body_bytes,
                        finished_room_seconds=finished_room_seconds, option_ranges=ranges, games_kept=games_kept,
                        waiting_rooms_per_address=waiting_rooms_per_address, max_waiting_rooms=max_waiting_rooms,
                        bot_rooms_per_address=bot_rooms_per_address, max_bot_rooms=max_bot_rooms,
                        race_commit_seconds=race_commit_seconds,
                        waiting_room_seconds=waiting_room_seconds, bot_processes=bot_processes, cluster=cluster,
                        smtp=smtp, mail_from=mail_from, public_url=public_url, private_webhooks=private_webhooks,
                        review=ReviewSettings(sims=review_sims), reviews_waiting=reviews_waiting)
    if cluster and forwarded_allow_ips is None:
        # a worker's clients come through the proxy beside it (deploy/haproxy.cfg): their own addresses, from
        # its X-Forwarded-For, are what the per-address bounds count, not the proxy's one address
        forwarded_allow_ips = "127.0.0.1"
    bounds = Bounds(max_header_bytes=max_header_bytes, max_headers=max_headers, request_seconds=request_seconds,
                    keep_alive_seconds=keep_alive_seconds, connections_per_address=connections_per_address,
                    max_connections=max_connections, websockets_per_address=websockets_per_address,
                    max_websockets=max_websockets, rest_rate=rest_rate, rest_burst=rest_burst,
                    creations_per_minute=creations_per_minute, creation_burst=creation_burst,
                    misses_per_second=misses_per_second, miss_burst=miss_burst,
                    trusted_proxies=frozenset(a.strip() for a in (forwarded_allow_ips or "").split(",") if a.strip()))
    configure(log_level)
    ledger = Ledger(bounds)
    http, ws = guarded_protocols(bounds, ledger)
    # uvicorn drops a frame over ws_max_size without a word: keep that bound well above ours, which answers
    uvicorn.run(create_app(database_url, settings, bounds, ledger), host=host, port=port, log_level=log_level,
                http=http, ws=ws, timeout_keep_alive=math.ceil(keep_alive_seconds),
                ws_ping_interval=ping_seconds, ws_ping_timeout=20.0,
                ws_max_size=max(16 * max_message_bytes, 1 << 20), ws_per_message_deflate=ws_deflate,
                forwarded_allow_ips=forwarded_allow_ips, proxy_headers=forwarded_allow_ips is not None)
