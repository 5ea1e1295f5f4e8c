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
    settings = Settings(bot_delay=bot_delay, disconnect_grace=disconnect_grace or None)
    uvicorn.run(create_app(database_url, settings), host=host, port=port, log_level="info")
