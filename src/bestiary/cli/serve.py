"""`bestiary serve`: the game server and browser UI on an embedded SQLite database (or PostgreSQL)."""

from __future__ import annotations

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
    max_body_bytes: Annotated[int, typer.Option(help="largest REST request body, in bytes")] = 65536,
    finished_room_seconds: Annotated[float, typer.Option(
        help="seconds a finished room stays in memory after its last connection (it reloads on demand)")] = 300.0,
) -> None:
    """Serve Bestiary online: open http://HOST:PORT in a browser to create a room and play."""
    try:
        import uvicorn

        from bestiary.server.app import create_app
        from bestiary.server.rooms import Settings
    except ImportError as error:
        typer.echo(f"error: the server needs its extra packages ({error.name} is missing): "
                   "pip install 'bestiary[server]'", err=True)
        raise typer.Exit(2) from None
    if database_url is None:
        data_dir.mkdir(parents=True, exist_ok=True)
        database_url = f"sqlite:///{data_dir / 'bestiary.sqlite3'}"
    typer.echo(f"Bestiary on http://{host}:{port}/  (database: {database_url.split('@')[-1]})")
    settings = Settings(bot_delay=bot_delay, disconnect_grace=disconnect_grace or None,
                        max_message_bytes=max_message_bytes, message_rate=message_rate, message_burst=message_burst,
                        max_strikes=max_strikes, max_body_bytes=max_body_bytes,
                        finished_room_seconds=finished_room_seconds)
    # uvicorn drops a frame over ws_max_size without a word: keep that bound well above ours, which answers
    uvicorn.run(create_app(database_url, settings), host=host, port=port, log_level="info",
                ws_max_size=max(16 * max_message_bytes, 1 << 20))
