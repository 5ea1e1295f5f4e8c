"""End to end in Debian's Chromium: create, join and play whole games through the browser UI.

Screenshots go to artifacts/server/ for people to look at.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.conftest import CHROMIUM, require_browser

playwright_api = require_browser()

import uvicorn  # noqa: E402

from bestiary.server.app import create_app  # noqa: E402
from bestiary.server.settings import Settings  # noqa: E402

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "server"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync"]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serving(tmp_path_factory.mktemp("browser") / "bestiary.sqlite3", Settings(bot_delay=0.05,
                                                                                         reaction_scale=0.5))


def serving_errand(folder: Path, settings: Settings) -> Iterator[str]:
    """`serving` with the server tests' toy game Errand registered (tests/server/errand.py)."""
    from bestiary.core.registry import register_game
    from tests.server.errand import Errand

    register_game(Errand)
    yield from serving(folder / "bestiary.sqlite3", settings)


def serving(database: Path, settings: Settings) -> Iterator[str]:
    """The app on a loopback port in a thread, on a fresh SQLite file: its base URL until the generator closes."""
    port = free_port()
    app = create_app(f"sqlite:///{database}", settings)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[playwright_api.Browser]:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with playwright_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        yield launched
        launched.close()


def shot(page: playwright_api.Page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def create_room(page: playwright_api.Page, base_url: str, game: str, players: int, seats: list[str],
                name: str) -> str:
    page.goto(base_url + "/")
    page.select_option("#game", game)
    page.select_option("#players", str(players))
    for seat, choice in enumerate(seats):
        page.select_option(f"[data-seat='{seat}']", choice)
    page.fill("#name", name)
    page.click("button[type=submit]")
    page.wait_for_url("**/room.html?code=*")
    return page.url


def wait_for_update(page: playwright_api.Page, version: str | None) -> None:
    page.wait_for_function("v => document.getElementById('board').dataset.version !== v", arg=version)


def countdown_shows(page: playwright_api.Page) -> bool:
    """Whether a window's countdown is up, or comes up within a moment: on a busy machine the banner may
    follow the move buttons by a frame or two."""
    try:
        page.locator("#countdown").first.wait_for(state="attached", timeout=300)
    except playwright_api.TimeoutError:
        return False
    return True


def play_through(pages: list[playwright_api.Page], selector: str, limit: int = 400,
                 midway: str | None = None, window_shot: str | None = None) -> None:
    """Click each page's first enabled move button until the game is over."""
    for step in range(limit):
        if window_shot and pages[0].locator(selector).count() and countdown_shows(pages[0]):
            pages[0].locator("#turn").screenshot(path=str(ARTIFACTS / f"{window_shot}-banner.png"))
            shot(pages[0], window_shot)  # the window may have closed meanwhile; the banner shot is first
            window_shot = None
        clicked = False
        for page in pages:
            buttons = page.locator(selector)
            if buttons.count():
                version = page.get_attribute("#board", "data-version")
                buttons.first.click()
                wait_for_update(page, version)
                clicked = True
                if midway and step == 12:
                    shot(page, midway)
        if not clicked:
            if all("Game over" in page.inner_text("#turn") for page in pages):
                return
            time.sleep(0.02)  # the bots' turn
    raise AssertionError("the game did not end through the UI")


def test_two_people_and_two_bots_play_critter_capture_in_two_browsers(browser: playwright_api.Browser,
                                                                      base_url: str) -> None:
    ada_context = browser.new_context(viewport={"width": 1280, "height": 900})
    bo_context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    ada, bo = ada_context.new_page(), bo_context.new_page()
    shot_lobby = ada
    shot_lobby.goto(base_url + "/")
    shot(shot_lobby, "lobby")
    create_room(ada, base_url, "critter-capture", 4, ["human", "human", "bot:heuristic", "bot:random"], "Ada")
    ada.wait_for_selector("text=Waiting for 1 more player")
    invite = ada.input_value("#invite")
    shot(ada, "critters-waiting")
    bo.goto(invite)
    bo.fill("#name", "Bo")
    bo.click("text=Take this seat")
    for page in (ada, bo):
        page.wait_for_selector("#seats >> text=P2 Bo")
    ada.wait_for_selector("#turn.mine")  # Ada starts: her banner says so, Bo's names her
    assert ada.inner_text("#turn") == "Your turn."
    assert "P1 Ada to play" in bo.inner_text("#turn")
    shot(ada, "critters-start-desktop")
    assert "face down" in ada.inner_text(".cc-corrals")  # CRITTERS-41: counts only while the game is on
    play_through([ada, bo], "[data-action]:enabled", midway="critters-midgame")
    assert "face down" not in ada.inner_text(".cc-corrals")  # and every card once it is over
    shot(ada, "critters-over-desktop")
    shot(bo, "critters-over-phone")
    assert "Game over" in bo.inner_text("#turn")
    log = ada.inner_text("#log")
    assert "Round 1: P1 Ada starts." in log and "Scores (" in log  # the log names the players
    assert ada.locator(".cc-corral").count() == 4
    # the replay viewer steps back to the start and forward again
    ada.click("#replay-link")
    ada.wait_for_selector("text=decision 0 of")
    last = int(ada.inner_text("#step").split(" of ")[1])
    steps = ada.evaluate("code => fetch(`/api/rooms/${code}/replay?step=0`).then(r => r.json())",
                         ada.url.split("code=")[1].split("&")[0])["steps"]
    assert last < steps  # each step is a decision: the draws and flips are folded in
    ada.click("#forward")
    ada.wait_for_selector("text=decision 1 of")
    assert ada.locator("#board [data-header-turn]").count() == 0  # mid-replay the banner counts the decisions
    ada.keyboard.press("ArrowRight")
    ada.wait_for_selector("text=decision 2 of")
    ada.keyboard.press("ArrowLeft")
    ada.wait_for_selector("text=decision 1 of")
    ada.eval_on_selector("#scrubber", "(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", str(last - 2))
    ada.wait_for_selector(f"text=decision {last - 2} of")
    ada.select_option("#speed", "250")
    ada.click("#play")  # autoplay runs to the end and stops there, with the result
    ada.wait_for_selector(f"text=decision {last} of")
    ada.wait_for_selector("#play:has-text('Play')")
    ada.wait_for_selector(".cc-final")
    assert ada.inner_text("#turn").startswith("Game over.")
    assert ada.inner_text("#board [data-header-turn]") == ada.inner_text("#turn")  # the table's header agrees
    shot(ada, "critters-replay-end")
    ada_context.close()
    bo_context.close()


def test_a_game_without_its_own_page_plays_on_the_generic_page(browser: playwright_api.Browser,
                                                               base_url: str) -> None:
    (ARTIFACTS / "generic-window-phone-banner.png").unlink(missing_ok=True)
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    create_room(page, base_url, "secret-duel", 3, ["human", "bot:random", "bot:heuristic"], "Cy")
    page.wait_for_selector("#actions button")  # the bots have rung or claimed: a race or window for us
    board = page.inner_text("#board")
    assert "My word" in board  # the generic page shows the seat's own observation, keys made readable
    first = page.locator("#actions button").first  # a move's button speaks plain words: "Ring", not "ring"
    assert first.inner_text() == str(first.get_attribute("title")).capitalize()
    shot(page, "generic-phone")
    play_through([page], "#actions button", window_shot="generic-window-phone")
    assert "Game over" in page.inner_text("#turn")
    # each bot's turn opens a race or a window for this seat, with a countdown that was photographed
    assert (ARTIFACTS / "generic-window-phone-banner.png").exists()
    shot(page, "generic-over-phone")
    context.close()


def test_server_errors_appear_as_readable_messages(browser: playwright_api.Browser, base_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    page.goto(base_url + "/")
    page.select_option("#game", "critter-capture")
    page.select_option("#players", "3")
    # the lobby offers only seats that exist; a hand-made request for a tenth seat is refused in words
    page.eval_on_selector("#option-first_player", "s => { s.append(new Option('Player 10', '9')); s.value = '9'; }")
    page.click("button[type=submit]")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "critter-capture: first_player must be a seat from 0 to 2 or 'random'"
    shot(page, "error-message")
    page.goto(base_url + "/room.html?code=nosuchroom")
    page.wait_for_selector("#error:not([hidden])")
    assert page.inner_text("#error") == "no room has this code"
    context.close()


def test_the_pages_load_without_failed_requests_or_console_errors(browser: playwright_api.Browser,
                                                                  base_url: str) -> None:
    context = browser.new_context()
    page = context.new_page()
    failures: list[str] = []
    page.on("response", lambda response: failures.append(f"{response.status} {response.url}")
            if response.status >= 400 else None)
    page.on("console", lambda message: failures.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: failures.append(str(error)))
    create_room(page, base_url, "critter-capture", 2, ["human", "bot:random"], "Di")
    page.wait_for_selector("#turn")
    page.wait_for_load_state("networkidle")
    assert failures == []
    context.close()
