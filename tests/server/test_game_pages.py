"""End to end in Debian's Chromium: a person plays each game with its own page against bots, to the end.

Each test plays through the page's own controls (moves sit on cards, creatures and tiles), checks that
the table shows what the page promises, and saves screenshots to artifacts/server/ for people to look at.
"""

from __future__ import annotations

import random

from tests.server import test_browser
from tests.server.test_browser import ARTIFACTS, PHONE, playwright_api, shot, wait_for_update

# the same module-scoped server and browser as the other browser tests (importing them needs Chromium)
base_url = test_browser.base_url
browser = test_browser.browser


def create_room_with_options(page: playwright_api.Page, base_url: str, game: str, seats: list[str],
                             options: dict[str, str]) -> None:
    """Create a room from the lobby with some options changed; the creator takes seat 1."""
    page.goto(base_url + "/")
    page.select_option("#game", game)
    page.select_option("#players", str(len(seats)))
    for name, value in options.items():
        page.fill(f"#option-{name}", value)
    for seat, choice in enumerate(seats):
        page.select_option(f"[data-seat='{seat}']", choice)
    page.fill("#name", "Ada")
    page.click("button[type=submit]")
    page.wait_for_selector("#error:not([hidden]), #board")
    assert "room.html" in page.url, page.inner_text("#error")


def play_by_preference(page: playwright_api.Page, preferences: list[str], limit: int = 300,
                       snapshots: dict[str, str] | None = None) -> int:
    """Click the first enabled move of the most preferred kind until the game is over; returns the moves made.

    `snapshots` maps a selector to a screenshot name, taken the first time the selector is on the page.
    """
    pending = dict(snapshots or {})
    moves = 0
    for _ in range(limit):
        for selector, name in list(pending.items()):
            if page.locator(selector).count():
                shot(page, name)
                del pending[selector]
        if "Game over" in page.inner_text("#turn"):
            return moves
        version = page.get_attribute("#board", "data-version")
        for selector in preferences:
            buttons = page.locator(f"{selector}:enabled")
            if buttons.count():
                try:
                    buttons.first.click(timeout=5_000)
                except playwright_api.Error:  # a bot's move redrew the page under the pointer: look again
                    break
                moves += 1
                break
        try:  # after a move of ours, or a bot's move, or a window's timer
            page.wait_for_function("v => document.getElementById('board').dataset.version !== v",
                                   arg=version, timeout=10_000)
        except playwright_api.TimeoutError:
            continue  # nothing changed: look at the page again
    raise AssertionError("the game did not end through the UI")


def test_a_person_plays_cube_creatures_against_a_bot_on_a_phone(browser: playwright_api.Browser,
                                                                 base_url: str) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(30_000)  # a loaded CI machine may take a while
    create_room_with_options(page, base_url, "cube-creatures", ["human", "bot:heuristic"],
                             {"win_at": "2", "turn_limit": "30"})
    page.wait_for_selector(".cube-field[data-seat='1']")
    board = page.inner_text("#board")
    assert "Your hand" in board and "Victory pile 0/2" in board
    shot(page, "cube-start-phone")
    # attack first, then bring creatures and upgrades out, then whatever else is offered (pass, end turn)
    moves = play_by_preference(page, [".cube-attack", ".cube-card [data-action^='play ']",
                                      ".cube-card [data-action^='attach ']", "[data-action]"],
                               snapshots={".cube-card [data-action]": "cube-my-turn-phone",
                                          ".cube-prompt [data-action]": "cube-my-reaction-phone",
                                          ".cube-prompt": "cube-reaction-phone", ".cube-die": "cube-roll-phone"})
    assert moves > 0
    shot(page, "cube-over-phone")
    assert page.locator(".cube-guard").count() >= 1  # the Guards still stand on the final table
    log = page.inner_text("#log")
    assert "attacks" in log
    assert page.inner_text("#board [data-header-turn]") == page.inner_text("#turn")  # the result, in the header
    context.close()


def test_a_person_plays_creatures_of_lungo_against_two_bots_on_a_phone(browser: playwright_api.Browser,
                                                                       base_url: str) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(30_000)  # a loaded CI machine may take a while
    create_room_with_options(page, base_url, "creatures-of-lungo", ["human", "bot:heuristic", "bot:random"],
                             {"turn_limit": "15"})
    page.wait_for_selector(".lg-goal")  # the secret goal is dealt to this seat alone
    board = page.inner_text("#board")
    assert "Your secret goal" in board and "Your hand" in board and "tokens left to grab" in board
    assert page.locator(".lg-player").count() == 3
    shot(page, "lungo-start-phone")
    # swat an insect, grab tokens, fight battles, play cards, then the other moves (pass, done, end turn)
    moves = play_by_preference(page, [".lg-insect + .lg-swat", ".lg-grab", ".lg-card [data-action^='commit ']",
                                      ".lg-card [data-action^='add ']", ".lg-card [data-action^='play ']",
                                      ".moves [data-action]", "[data-action]"],
                               snapshots={".lg-card [data-action]": "lungo-my-turn-phone",
                                          ".lg-battle": "lungo-battle-phone", ".lg-swat": "lungo-swat-phone",
                                          ".lg-side:not(.lg-own) .lg-card:not(.lg-back)": "lungo-reveal-phone",
                                          ".lg-grab": "lungo-grab-phone"})
    assert moves > 0
    shot(page, "lungo-over-phone")
    assert "Game over" in page.inner_text("#turn")
    assert "game over" in page.inner_text("#board")
    context.close()


def test_a_person_plays_crits_creatures_against_a_bot_on_the_board(browser: playwright_api.Browser,
                                                                    base_url: str) -> None:
    (ARTIFACTS / "crits-dice-desktop.png").unlink(missing_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)  # a loaded CI machine may take a while
    create_room_with_options(page, base_url, "crits-creatures", ["human", "bot:heuristic"],
                             {"length": "12", "turn_limit": "8"})
    page.wait_for_selector("svg.cr-board")
    assert page.locator("svg.cr-board [data-tile]").count() == 10 * 12
    # the short board fits the window's height and leaves its column beside it room for the moves and cards
    aside = page.evaluate("() => document.querySelector('.cr-aside').getBoundingClientRect().width")  # one read
    assert aside >= 250 and page.evaluate("() => document.documentElement.scrollHeight") < 1400, aside
    assert page.locator(".cr-king, .cr-crown").count() >= 1  # each crown is worn by a King or lies on a tile
    # a piece's card shows on hover
    page.locator(".cr-piece").first.wait_for(state="attached")
    for _ in range(20):  # a bot's move may redraw the board between finding a piece and hovering over it
        first_piece = page.eval_on_selector(".cr-piece", "g => g.previousElementSibling.dataset.tile")
        page.hover(f"[data-tile='{first_piece}']")
        if page.locator(".cr-info .cr-card").count() == 1:
            break
        page.mouse.move(0, 0)
    assert page.locator(".cr-info .cr-card").count() == 1
    shot(page, "crits-start-desktop")
    chooser = random.Random(8)
    moves, selections = 0, 0
    tried: list[tuple[str | None, str | None]] = []  # pieces selected since the last update
    for _ in range(400):
        if "Game over" in page.inner_text("#turn"):
            break
        version = page.get_attribute("#board", "data-version")
        if page.locator(".cr-combat").count() and not (ARTIFACTS / "crits-dice-desktop.png").exists():
            shot(page, "crits-dice-desktop")
        tiles = page.locator(".cr-tile.cr-target[data-action]")  # attack whenever possible
        if not tiles.count():
            tiles = page.locator(".cr-tile.cr-reach[data-action]")
        pieces = page.locator(".cr-tile.cr-can:not(.cr-selected)")
        buttons = page.locator(".moves [data-action]:enabled, .cr-info [data-action]:enabled")
        if tiles.count():
            if moves == 0:
                shot(page, "crits-selected-desktop")  # the reachable tiles and targets of the selected piece
            tiles.nth(chooser.randrange(tiles.count())).click()
            wait_for_update(page, version)
            moves += 1
        elif pieces.count() and len(tried) < 3:
            tile = pieces.nth(chooser.randrange(pieces.count())).get_attribute("data-tile")
            tried.append((version, tile))
            page.click(f"[data-tile='{tile}']")
            # selected, unless a bot's move redrew the board first
            page.wait_for_function(
                "([tile, v]) => document.querySelector(`.cr-selected[data-tile='${tile}']`)"
                " || document.getElementById('board').dataset.version !== v", arg=[tile, version])
            selections += 1
        elif buttons.count():
            buttons.first.click()
            wait_for_update(page, version)
            moves += 1
        else:
            try:
                page.wait_for_function("v => document.getElementById('board').dataset.version !== v",
                                       arg=version, timeout=5_000)  # the bot's move
            except playwright_api.TimeoutError:
                tried = []  # still our move after three pieces without one: choose among the pieces again
                continue
        tried = [(v, t) for v, t in tried if v == page.get_attribute("#board", "data-version")]
    else:
        shot(page, "crits-unfinished-desktop")
        raise AssertionError("the game did not end through the UI")
    assert moves > 0 and selections > 0
    shot(page, "crits-over-desktop")
    assert "The game ended: " in page.inner_text("#board .cr-final")  # why, under the result in the header
    assert page.inner_text("#board [data-header-turn]") == page.inner_text("#turn")
    page.set_viewport_size(PHONE)
    shot(page, "crits-over-phone")
    context.close()
