"""A table for everyone, checked in Debian's Chromium: axe-core finds no serious or critical violation on the
lobby, "My tables", a rule book, the tutorials, each game's table (in pictures and in words) and the replay;
each game is played to its end against the computer with the keyboard alone (Tab, the arrow keys, Enter and
Escape; no click); what changed on the table is shown for a moment, except to a reader who asks for reduced
motion.

Screenshots of each game at 1280×800 and 390×844 go to /tmp/a11y-<game>-<size>.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import suppress
from typing import Any

import pytest

from tests.server.conftest import require_axe, require_browser

playwright_api = require_browser()
AXE_SCRIPT = require_axe()

from bestiary.server.settings import Settings  # noqa: E402
from tests.server import test_browser  # noqa: E402
from tests.server.test_browser import DESKTOP, PHONE, serving  # noqa: E402

Page = playwright_api.Page
browser = test_browser.browser
GAMES = ["critter-capture", "cube-creatures", "creatures-of-lungo", "crits-creatures"]
SERIOUS = ("serious", "critical")
# small, quick tables: one human against the computer, to the end in a few dozen moves
QUICK: dict[str, dict[str, Any]] = {
    "critter-capture": {"players": 2},
    "cube-creatures": {"players": 2, "win_at": 1, "turn_limit": 8},
    "creatures-of-lungo": {"players": 3, "turn_limit": 15},
    "crits-creatures": {"turn_limit": 4},
}
# what each game's table in words says, among the rest
IN_WORDS = {
    "critter-capture": ["Decks: fish 12", "Corrals", "P2 Computer (easy): 0 cards face down."],
    "cube-creatures": ["Victory pile 0 of 1", "Your hand (7)"],
    "creatures-of-lungo": ["Your secret goal", "tokens left to grab", "cards in hand; nothing in front"],
    "crits-creatures": ["King: ", "The 10 by 30 board, from your edge", "Row 3 (P1's start zone): ",
                        "P1 Ada's Lich Lord (King)"],
}
# what a keyboard may press on: a move button (on the table, in words, or below it) or a board tile
MOVE = "#board button[data-action]:enabled, #words button[data-action]:enabled, #actions button"
TILE_MOVE = "#board [data-tile][data-action]"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = Settings(bot_delay=0.02, reaction_scale=0.2)
    yield from serving(tmp_path_factory.mktemp("a11y") / "bestiary.sqlite3", settings)


def violations(page: Page) -> list[str]:
    """axe-core's serious and critical findings on the page as it stands, one line each (once what changed has
    been shown: a colour is judged at its full strength, not half faded in)."""
    page.wait_for_function("""() => document.getAnimations()
        .every((a) => a.effect?.getTiming().iterations === Infinity || a.playState !== 'running')""")
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


def test_the_lobby_the_rules_and_each_tutorial_have_no_serious_violation(browser: playwright_api.Browser,
                                                              base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(base_url + "/")
    page.wait_for_selector("#learn-list li")
    assert_accessible(page, "the lobby")
    page.click("#more-options summary")  # the designers' options, opened
    assert_accessible(page, "the lobby's more options")
    page.goto(base_url + "/tables.html")
    page.wait_for_load_state("networkidle")
    assert_accessible(page, "My tables")
    page.goto(base_url + "/rules/crits-creatures")
    page.wait_for_selector("article[data-rule]")
    assert_accessible(page, "a rule book")
    for game in GAMES:
        page.goto(f"{base_url}/learn/{game}")
        page.wait_for_selector("#board [data-version], #board *")
        page.wait_for_selector("#coach *")
        assert_accessible(page, f"the tutorial of {game}")
    tab_to(page, "#words-toggle")  # the last tutorial in words: its suggested move is marked there too
    page.keyboard.press("Enter")
    page.wait_for_selector("#words button.suggested")
    assert page.is_hidden("#board")
    assert_accessible(page, "the tutorial in words")
    page.screenshot(path="/tmp/a11y-learn-words-desktop.png", full_page=True)
    context.close()


FOCUSED = "s => document.activeElement?.matches(s) ?? false"
FOCUSED_TILE = "() => document.activeElement?.dataset?.tile ?? null"
CONTROLS = """([move, tileMove]) => ({
    kind: document.getElementById('turn').dataset.kind,
    version: document.getElementById('board').dataset.version,
    buttons: document.querySelectorAll(move).length,
    tiles: [...document.querySelectorAll(tileMove)].map((t) => t.dataset.tile),
    moves: [...document.querySelectorAll(tileMove)].map((t) => t.dataset.action),
    pieces: [...document.querySelectorAll('#board .cr-tile.cr-can')].map((t) => t.dataset.tile),
    selected: document.querySelector('#board [aria-pressed=true]')?.dataset.tile ?? null })"""


def tab_to(page: Page, wanted: str) -> None:
    """Moves the focus with Tab (a few steps on), else Shift+Tab, until it is on an element matching `wanted`."""
    for key, limit in (("Tab", 30), ("Shift+Tab", 400)):
        for _ in range(limit):
            if page.evaluate(FOCUSED, wanted):
                return
            page.keyboard.press(key)
    raise AssertionError(f"the keyboard did not reach {wanted}")


def arrow_to(page: Page, tile: str) -> None:
    """Moves the board's roving focus to `tile` with the arrow keys (your edge at the bottom)."""
    if not page.evaluate(FOCUSED_TILE):
        tab_to(page, "#board [data-tile]")
    for _ in range(80):
        here = str(page.evaluate(FOCUSED_TILE))
        if here == tile:
            return
        columns, rows = ord(tile[0]) - ord(here[0]), int(tile[1:]) - int(here[1:])
        key = ("ArrowRight" if columns > 0 else "ArrowLeft") if columns else ("ArrowUp" if rows > 0 else "ArrowDown")
        page.keyboard.press(key)
    raise AssertionError(f"the arrow keys did not reach {tile}")


def press_and_wait(page: Page, version: str) -> None:
    page.keyboard.press("Enter")
    with suppress(playwright_api.TimeoutError):  # a race lost or a window closed meanwhile: the next look decides
        page.wait_for_function("v => document.getElementById('board').dataset.version !== v", arg=version,
                               timeout=5000)


def play_by_keyboard(page: Page, game: str, limit: int = 600) -> dict[str, int]:
    """Plays the seat to the game's end with Tab, the arrow keys, Enter and Escape; counts what it pressed.
    After the fifth move the table is checked with axe-core once more, in the thick of the game."""
    pressed = {"moves": 0, "tiles": 0, "pieces picked": 0, "cancelled": 0, "changes shown": 0, "pieces slid": 0}
    picked_at: str | None = None
    for _ in range(limit):
        seen = page.evaluate(CONTROLS, [MOVE, TILE_MOVE])
        if seen["kind"] == "finished":
            return pressed
        if pressed["moves"] + pressed["tiles"] == 5 and "checked midway" not in pressed:
            assert_accessible(page, f"{game}'s table after five moves")
            pressed["checked midway"] = 1
        if seen["tiles"]:  # a place to put a piece, aim at, or move the picked piece to
            arrow_to(page, seen["tiles"][0])
            press_and_wait(page, seen["version"])
            pressed["tiles"] += 1
            pressed["changes shown"] += page.locator("#board [data-motion]").count() > 0
            if seen["moves"][0].startswith("move "):  # the piece slides from its old tile to the new one
                slid = page.locator("#board g.cr-piece.moved").count()
                if slid and not pressed["pieces slid"]:
                    page.screenshot(path=f"/tmp/a11y-{game}-motion.png")
                pressed["pieces slid"] += slid
        elif seen["pieces"] and picked_at != seen["version"]:  # a piece that can act: pick it
            picked_at = seen["version"]
            arrow_to(page, seen["pieces"][0])
            page.keyboard.press("Enter")
            page.wait_for_selector("#board [aria-pressed=true]")
            pressed["pieces picked"] += 1
            if not pressed["cancelled"]:  # once a game: Escape puts the piece down again, Enter picks it anew
                page.keyboard.press("Escape")
                page.wait_for_selector("#board [aria-pressed=true]", state="detached")
                page.keyboard.press("Enter")
                page.wait_for_selector("#board [aria-pressed=true]")
                pressed["cancelled"] += 1
        elif seen["buttons"]:
            if seen["selected"]:  # a picked piece with nowhere to go: put it down
                page.keyboard.press("Escape")
            tab_to(page, MOVE)
            press_and_wait(page, seen["version"])
            pressed["moves"] += 1
            pressed["changes shown"] += page.locator("#board [data-motion]").count() > 0
        else:
            page.wait_for_timeout(30)  # the computer's turn
    raise AssertionError(f"{game} did not end by the keyboard within {limit} looks: {pressed}")


def screenshots(page: Page, game: str) -> None:
    page.screenshot(path=f"/tmp/a11y-{game}-desktop.png")
    page.set_viewport_size(PHONE)
    page.screenshot(path=f"/tmp/a11y-{game}-phone.png")
    page.set_viewport_size(DESKTOP)


@pytest.mark.parametrize("game", GAMES)
def test_each_game_is_played_to_the_end_by_keyboard_alone_and_axe_finds_nothing_serious(
        browser: playwright_api.Browser, base_url: str, game: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(seated_room(page, base_url, game))
    page.wait_for_selector("#turn.mine")
    assert_accessible(page, f"{game}'s table")
    screenshots(page, game)
    tab_to(page, "#words-toggle")
    page.keyboard.press("Enter")
    page.wait_for_selector("#words li")
    words = page.inner_text("#words")
    for phrase in IN_WORDS[game]:
        assert phrase in words, (phrase, words)
    assert_accessible(page, f"{game}'s table in words")
    page.screenshot(path=f"/tmp/a11y-{game}-words-desktop.png", full_page=True)
    page.keyboard.press("Enter")  # back to the pictures
    pressed = play_by_keyboard(page, game)
    assert pressed["moves"] + pressed["tiles"] >= 3, pressed
    assert pressed["changes shown"] >= 1, pressed  # a card that arrived, moved or left is marked for a moment
    if game == "crits-creatures":
        assert pressed["cancelled"] == 1 and pressed["tiles"] >= 1 and pressed["pieces slid"] >= 1, pressed
    assert page.inner_text("#turn").startswith("Game over"), page.inner_text("#turn")
    assert_accessible(page, f"{game}'s finished table")
    page.screenshot(path=f"/tmp/a11y-{game}-over-desktop.png", full_page=True)
    page.goto(page.url.split("#")[0] + "&replay")
    page.wait_for_selector("#step:has-text('decision 0 of')")
    page.keyboard.press("ArrowRight")
    page.wait_for_selector("#step:has-text('decision 1 of')")
    assert_accessible(page, f"{game}'s replay")
    assert errors == []
    context.close()


def test_the_table_in_words_lists_board_and_hands_and_plays_by_keyboard(browser: playwright_api.Browser,
                                                                        base_url: str) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    seat_link = seated_room(page, base_url, "cube-creatures")
    page.goto(seat_link)
    page.wait_for_selector("#turn.mine")
    tab_to(page, "#words-toggle")
    page.keyboard.press("Enter")
    page.wait_for_selector("#words li")
    assert page.get_attribute("#words-toggle", "aria-pressed") == "true"
    assert page.is_hidden("#board") and page.is_visible("#words")
    text = page.inner_text("#words")
    code, token = seat_link.split("code=")[1].split("#")[0], seat_link.split("token=")[1]
    hand = page.evaluate("""([code, token]) => fetch(`/api/rooms/${code}/view`, {
        headers: { Authorization: `Bearer ${token}` } }).then((r) => r.json()).then((v) => v.observation.hand)""",
                         [code, token])
    for card in hand:  # every card of the hand is named, with what it does
        assert card["name"] in text, (card["name"], text)
    assert "Victory pile 0 of 1" in text and "P2 Computer (easy)" in text, text
    names = page.locator("#words button[data-action]").all_inner_texts()
    assert names and not any(" c" in name and name.split()[-1][1:].isdigit() for name in names), names
    assert_accessible(page, "cube's table in words")
    page.screenshot(path="/tmp/a11y-words-cube-phone.png", full_page=True)
    page.reload()  # the choice is kept in this browser
    page.wait_for_selector("#words li")
    pressed = play_by_keyboard(page, "cube-creatures")
    assert pressed["moves"] >= 1, pressed
    assert "Game over" in page.inner_text("#turn")
    tab_to(page, "#words-toggle")
    page.keyboard.press("Enter")  # and back to the pictures
    page.wait_for_selector("#board", state="visible")
    assert page.is_hidden("#words")
    page.goto(base_url + "/tables.html")  # this browser's tables, this one among them
    page.wait_for_selector("main li, main tr >> nth=0")
    assert_accessible(page, "My tables with a table")
    context.close()


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_nothing_moves_for_a_reader_who_asks_for_reduced_motion(browser: playwright_api.Browser, base_url: str,
                                                                motion: str) -> None:
    context = browser.new_context(viewport=DESKTOP, reduced_motion=motion)
    page = context.new_page()
    page.goto(seated_room(page, base_url, "crits-creatures"))
    marked = []
    for _ in range(4):  # the roll-off and the first moves by keyboard: pieces come onto the board and move
        page.wait_for_selector("#turn.mine")
        tiles, pieces = page.locator(TILE_MOVE), page.locator("#board .cr-tile.cr-can")
        before = str(page.get_attribute("#board", "data-version"))
        if not tiles.count() and pieces.count():
            arrow_to(page, str(pieces.first.get_attribute("data-tile")))
            page.keyboard.press("Enter")  # pick a piece: where it can go becomes a tile move
            page.wait_for_selector(TILE_MOVE)
        if tiles.count():
            arrow_to(page, str(tiles.first.get_attribute("data-tile")))
        else:
            tab_to(page, MOVE)
        press_and_wait(page, before)
        marked.append(page.locator("#board [data-motion]").count())
        if motion == "reduce":
            assert page.evaluate("() => document.getAnimations().length") == 0
    assert (sum(marked) == 0) == (motion == "reduce"), marked
    context.close()
