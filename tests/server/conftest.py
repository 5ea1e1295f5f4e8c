"""Server test helpers: the app on a fresh SQLite file (and PostgreSQL when one is reachable)."""

from __future__ import annotations

import importlib
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

import pytest

pytest.importorskip("fastapi", reason="the server tests need the 'server' extra: pip install -e '.[server]'")

from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text

from bestiary.core.registry import register_game
from bestiary.server.app import create_app
from bestiary.server.settings import Settings
from tests.server.clocks import ManualClock
from tests.server.secret_duel import SecretDuel

POSTGRES_ENV = "BESTIARY_TEST_POSTGRES_URL"
INSTANT = Settings(bot_delay=0.0, reaction_scale=0.0)


IN_CI = os.environ.get("CI", "").lower() == "true"
CHROMIUM = Path("/usr/bin/chromium")
# axe-core, the accessibility checker the browser tests run in each page (.ci/server-services.sh installs it
# from npm here; BESTIARY_TEST_AXE may name another copy of axe.min.js)
AXE = Path(__file__).resolve().parents[2] / ".ci" / "axe" / "node_modules" / "axe-core" / "axe.min.js"


def missing(reason: str) -> NoReturn:
    """A service a test needs is not on this machine: the test skips, but in CI (`CI=true`), which installs
    every one (.ci/server-services.sh), it fails, so a test never passes there by not running."""
    if IN_CI:
        pytest.fail(f"{reason}; CI must provide it", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def postgres_url() -> str:
    """The PostgreSQL URL from the environment, emptied for a fresh start (none reachable: `missing`)."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        missing(f"no PostgreSQL server: set {POSTGRES_ENV} (.ci/server-services.sh starts one)")
    try:
        engine = create_engine(url)
        with engine.begin() as connection:
            connection.execute(text("DROP TABLE IF EXISTS reviews, turn_notices, chat_lines, moves, seats, rooms, "
                                    "alembic_version CASCADE"))
        engine.dispose()
    except Exception as error:  # the reason goes into the message
        missing(f"PostgreSQL at {POSTGRES_ENV} is not reachable: {error}")
    return url


def require_haproxy() -> None:
    if shutil.which("haproxy") is None:
        missing("no haproxy: .ci/server-services.sh installs Debian's")


def require_browser() -> ModuleType:
    """Playwright's synchronous API, with Chromium to drive (never downloaded: the system's own)."""
    if not CHROMIUM.exists():
        missing("no /usr/bin/chromium (apt-get install -y chromium)")
    try:
        return importlib.import_module("playwright.sync_api")
    except ImportError:
        missing("the browser tests need playwright (the 'dev' extra)")


def require_axe() -> Path:
    """axe.min.js, to inject into a page (`missing` when it is not installed)."""
    found = Path(os.environ.get("BESTIARY_TEST_AXE", AXE))
    if not found.is_file():
        missing(f"no axe-core at {found} (npm install --prefix .ci/axe axe-core)")
    return found


@pytest.fixture(autouse=True, scope="session")
def secret_duel_registered() -> None:
    register_game(SecretDuel)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'bestiary.sqlite3'}"
    return postgres_url()


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'bestiary.sqlite3'}"


Server = Callable[..., AbstractContextManager[TestClient]]


@pytest.fixture
def clock() -> ManualClock:
    """A clock the test moves by hand (tests/server/clocks.py): pass it in `Settings(clock=...)`."""
    return ManualClock()


@pytest.fixture
def server() -> Server:
    """`with server(url) as client:` runs the whole app, startup (migrations, resume) to shutdown."""
    def start(url: str, settings: Settings = INSTANT) -> AbstractContextManager[TestClient]:
        return TestClient(create_app(url, settings))
    return start


@pytest.fixture
def client(server: Server, sqlite_url: str) -> Iterator[TestClient]:
    with server(sqlite_url) as running:
        yield running


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create_room(client: TestClient, game: str, **body: Any) -> dict[str, Any]:
    answer = client.post("/api/rooms", json={"game": game, **body})
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def join(client: TestClient, code: str, seat: int, name: str = "") -> str:
    answer = client.post(f"/api/rooms/{code}/seats/{seat}", json={"name": name or f"player {seat + 1}"})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["token"])


def view(client: TestClient, code: str, token: str | None = None) -> dict[str, Any]:
    answer = client.get(f"/api/rooms/{code}/view", headers=auth(token) if token else {})
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def move(client: TestClient, code: str, token: str, action: str, version: int) -> Any:
    return client.post(f"/api/rooms/{code}/moves", json={"action": action, "version": version},
                       headers=auth(token))
