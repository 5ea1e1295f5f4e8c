"""A table for everyone, checked in Debian's Chromium: axe-core finds no serious or critical violation on the
lobby, the tutorials, each game's table (in pictures and in words) and the replay, and each game is played to
its end against the computer with the keyboard alone (Tab, the arrow keys, Enter and Escape; no click).

Screenshots of each game at 1280×800 and 390×844 go to /tmp/a11y-<game>-<size>.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.conftest import require_axe, require_browser

playwright_api = require_browser()
AXE_SCRIPT = require_axe()

from bestiary.server.settings import Settings  # noqa: E402
from tests.server import test_browser  # noqa: E402
from tests.server.test_browser import PHONE, serving  # noqa: E402

Page = playwright_api.Page
browser = test_browser.browser
DESKTOP = {"width": 1280, "height": 800}
GAMES = ["critter-capture", "cube-creatures", "creatures-of-lungo", "crits-creatures"]
SERIOUS = ("serious", "critical")
# small, quick tables: one human against the computer, to the end in a few dozen moves
QUICK: dict[str, dict[str, Any]] = {
    "critter-capture": {"players": 2},
    "cube-creatures": {"players": 2, "win_at": 1, "turn_limit": 8},
    "creatures-of-lungo": {"players": 3, "turn_limit": 6},
    "crits-creatures": {"turn_limit": 4},
}
# what a keyboard may press on: a move button (on the table, in words, or below it) or a board tile
MOVE = "#board button[data-action]:enabled, #text-view button[data-action]:enabled, #actions button"
TILE_MOVE = "#board [data-tile][data-action]"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = Settings(bot_delay=0.02, reaction_scale=0.2)
    yield from serving(tmp_path_factory.mktemp("a11y") / "bestiary.sqlite3", settings)


def violations(page: Page) -> list[str]:
    """axe-core's serious and critical findings on the page as it stands, one line each."""
    if not page.evaluate("() => 'axe' in window"):
        page.add_script_tag(path=str(AXE_SCRIPT))
    found = page.evaluate("() => axe.run(document, { resultTypes: ['violations'] }).then(r => r.violations)")
    return [f"{v['impact']} {v['id']}: {v['help']} at {[n['target'] for n in v['nodes']][:4]}"
            for v in found if v["impact"] in SERIOUS]


def assert_accessible(page: Page, where: str) -> None:
    found = violations(page)
    assert not found, f"{where}: " + "\n".join(found)


def seated_room(page: Page, base_url: str, game: str) -> str:
    """A quick room with a computer in every other seat: the address of the seat link of its first seat."""
    page.goto(base_url + "/")
    room = page.evaluate("""([game, options]) => fetch('/api/rooms', { method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ game, options, window_seconds: 2,
            seats: [{ kind: 'human' }, ...Array.from({ length: (options.players ?? 2) - 1 },
                    () => ({ kind: 'bot', agent: 'random' }))] }) })
        .then(async (r) => { if (!r.ok) throw new Error(await r.text()); return r.json(); })
        .then((room) => fetch(`/api/rooms/${room.code}/seats/0`, { method: 'POST',
            headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 'Ada' }) })
            .then((r) => r.json()).then((seat) => ({ code: room.code, token: seat.token })))""", [game, QUICK[game]])
    return f"{base_url}/room.html?code={room['code']}#seat=0&token={room['token']}"


def test_the_lobby_and_each_tutorial_have_no_serious_violation(browser: playwright_api.Browser,
                                                              base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(base_url + "/")
    page.wait_for_selector("#learn-list li")
    assert_accessible(page, "the lobby")
    page.click("#more-options summary")  # the designers' options, opened
    assert_accessible(page, "the lobby's more options")
    for game in GAMES:
        page.goto(f"{base_url}/learn/{game}")
        page.wait_for_selector("#board [data-version], #board *")
        page.wait_for_selector("#coach *")
        assert_accessible(page, f"the tutorial of {game}")
    context.close()
