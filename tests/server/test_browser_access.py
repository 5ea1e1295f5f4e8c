"""A table for everyone, in Debian's Chromium: Crit's Creatures' board played by the keyboard alone, controls
named for what they do (a screen reader hears "Play Crate Mole", not "Play"), the log read out as it grows,
an invited friend's way in at the top of a phone's screen, labels that keep to one line on a phone, the loser
named at the end of Creatures of Lungo, and the replay's arrow keys counted one step per press.

Screenshots go to artifacts/server/.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.server.conftest import require_browser

playwright_api = require_browser()

from bestiary.server.settings import Settings  # noqa: E402
from tests.server import test_browser  # noqa: E402
from tests.server.test_browser import PHONE, serving, shot  # noqa: E402
from tests.server.test_browser_table import DESKTOP, click_through, new_room  # noqa: E402

Page = playwright_api.Page
browser = test_browser.browser

FOCUSED_TILE = "() => document.activeElement?.dataset?.tile ?? null"


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = Settings(bot_delay=0.05, reaction_scale=0.2)
    yield from serving(tmp_path_factory.mktemp("access") / "bestiary.sqlite3", settings)


def tab_to(page: Page, wanted: str, limit: int = 80) -> None:
    """Presses Tab until the focused element matches the CSS selector `wanted`."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement?.matches(s) ?? false", wanted):
            return
    raise AssertionError(f"{limit} Tab presses did not reach {wanted}")


def arrow_to(page: Page, tile: str) -> None:
    """Moves the board's focus to `tile` with the arrow keys (your edge at the bottom: up is the next row)."""
    for _ in range(40):
        here = page.evaluate(FOCUSED_TILE)
        assert here, "the focus left the board"
        if here == tile:
            return
        columns = ord(tile[0]) - ord(here[0])
        rows = int(tile[1:]) - int(here[1:])
        key = ("ArrowRight" if columns > 0 else "ArrowLeft") if columns else ("ArrowUp" if rows > 0 else "ArrowDown")
        page.keyboard.press(key)
    raise AssertionError(f"the arrow keys did not reach {tile}")


def version(page: Page) -> str:
    return str(page.get_attribute("#board", "data-version"))


def wait_new_version(page: Page, old: str) -> None:
    page.wait_for_function("v => document.getElementById('board').dataset.version !== v", arg=old, timeout=10000)


def test_crits_board_is_played_with_the_arrow_keys_enter_and_escape(browser: playwright_api.Browser,
                                                                     base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    new_room(page, base_url, "crits-creatures", ["human", "bot:random"], "Ada")
    tab_to(page, "#board [data-tile]")  # the board is one stop in the Tab order
    assert page.locator("#board [data-tile][tabindex='0']").count() == 1
    for _ in range(60):  # the roll-off and the set-up, by keyboard, until a piece of ours can move
        page.wait_for_selector("#turn.mine", timeout=10000)
        if page.locator("#board .cr-tile.cr-can").count():
            break
        before = version(page)
        tiles = page.locator("#board rect[data-action]")
        if tiles.count():
            if not page.evaluate(FOCUSED_TILE):
                tab_to(page, "#board [data-tile]")
            arrow_to(page, str(tiles.first.get_attribute("data-tile")))
        else:
            tab_to(page, "#board button[data-action]:enabled")
        page.keyboard.press("Enter")
        wait_new_version(page, before)
    else:
        raise AssertionError("no piece of ours could move")
    if not page.evaluate(FOCUSED_TILE):
        tab_to(page, "#board [data-tile]")
    piece = str(page.locator("#board .cr-tile.cr-can").first.get_attribute("data-tile"))
    arrow_to(page, piece)
    label = str(page.evaluate("() => document.activeElement.getAttribute('aria-label')"))
    assert label.startswith(f"{piece}, P1 Ada") and "Enter shows its moves" in label, label
    page.keyboard.press("Enter")  # pick the piece: where it can go is marked
    page.wait_for_selector(f"#board [data-tile='{piece}'][aria-pressed='true']")
    assert page.evaluate(FOCUSED_TILE) == piece  # the redraw kept the keyboard on the board
    page.keyboard.press("Escape")  # cancel
    page.wait_for_selector("#board [aria-pressed='true']", state="detached")
    assert page.locator("#board .cr-tile.cr-reach").count() == 0
    page.keyboard.press("Enter")
    reach = str(page.locator("#board .cr-tile.cr-reach, #board .cr-tile.cr-target").first.get_attribute("data-tile"))
    assert "move here" in str(page.get_attribute(f"#board [data-tile='{reach}']", "aria-label")) or \
        "attack here" in str(page.get_attribute(f"#board [data-tile='{reach}']", "aria-label"))
    arrow_to(page, reach)
    before = version(page)
    page.keyboard.press("Enter")  # the move is made
    wait_new_version(page, before)
    assert page.evaluate(FOCUSED_TILE)  # and the focus is still on the board for the next one
    shot(page, "access-crits-keyboard-desktop")
    page.screenshot(path="/tmp/shots/crits-keyboard-desktop.png")
    context.close()


def accessible_names(page: Page, scope: str) -> list[str]:
    return list(page.evaluate("""s => [...document.querySelectorAll(s + ' button')]
        .map(b => b.getAttribute('aria-label') || b.innerText.trim())""", scope))


def test_cube_hand_buttons_are_named_for_their_card(browser: playwright_api.Browser, base_url: str) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    new_room(page, base_url, "cube-creatures", ["human", "bot:random"], "Ada")
    page.wait_for_selector("#turn.mine")
    page.wait_for_selector(".cube-hand [data-action]")
    names = accessible_names(page, ".cube-hand")
    cards = page.locator(".cube-hand .cube-card .cube-name").all_inner_texts()
    assert len(names) == len(set(names)), names  # no two controls of the hand sound alike
    assert not {"Play", "React"} & set(names), names
    playable = page.locator(".cube-hand button[data-action^='play ']")
    first = str(playable.first.get_attribute("aria-label"))
    assert first.startswith("Play ") and first.removeprefix("Play ") in cards, (first, cards)
    assert page.get_by_role("button", name=first).count() >= 1
    assert page.get_attribute("#log", "aria-live") == "polite"  # what happens is read out
    page.screenshot(path="/tmp/shots/cube-phone.png", full_page=True)
    context.close()


def test_an_invited_friend_on_a_phone_sees_take_this_seat_at_the_top(browser: playwright_api.Browser,
                                                                      base_url: str) -> None:
    host_context = browser.new_context(viewport=DESKTOP)
    friend_context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    host, friend = host_context.new_page(), friend_context.new_page()
    new_room(host, base_url, "crits-creatures", ["human", "human"], "Ada")
    friend.goto(host.input_value("#invite"))
    button = friend.locator("#join button", has_text="Take this seat")
    button.wait_for()
    box = button.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"], box  # on the first screen
    assert box["y"] < (friend.locator("#board").bounding_box() or {"y": 0})["y"]  # above the board
    friend.screenshot(path="/tmp/shots/join-phone.png")
    friend.fill("#name", "Bo")
    button.click()
    friend.wait_for_selector("#seats li.me")
    assert friend.is_hidden("#join")
    host_context.close()
    friend_context.close()


def render_game(page: Page, game: str, observation: dict[str, Any], me: int = 0) -> None:
    """Draws a game's table from an observation into #board, with the page's own module."""
    page.evaluate("""async ([game, observation, me]) => {
        const module = await import(`/games/${game}.js`);
        const { el } = await import('/js/api.js');
        const board = document.getElementById('board');
        board.replaceChildren();
        const room = { status: 'playing', title: 't', seats: [0, 1, 2].map((seat) => ({ seat, name: `N${seat}`,
            taken: true, kind: 'human' })) };
        const view = { observation, legal_actions: [], to_act: [], room, events: [], decision_kind: 'turn' };
        module.render(board, { view, room, me, act: () => {}, seatName: (s) => `P${s + 1}`, el, replay: null });
    }""", [game, observation, me])


def lines_of(page: Page, selector: str) -> int:
    """How many lines the element's text takes on screen."""
    return int(page.evaluate("""s => { const range = document.createRange();
        range.selectNodeContents(document.querySelector(s));
        return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size; }""", selector))


CUBE_CARD = {"id": "c1", "name": "Thunder Cube", "attack_now": 3, "health_left": 2, "max_health": 4, "foil": False,
             "weapon": None, "armor": None, "power": None, "power_used": False}
CRITTER = {"id": "k1", "name": "Pike", "colour": "fish", "commonness": 7, "size": 4, "ability": "none"}


def test_short_labels_keep_to_one_line_and_counts_agree_in_number(browser: playwright_api.Browser,
                                                                  base_url: str) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(base_url + "/room.html?code=none")
    for roll in ("miss", "2x", "-2"):
        render_game(page, "cube-creatures", {
            "battlefields": [[CUBE_CARD, CUBE_CARD, CUBE_CARD], [CUBE_CARD]], "victory": [[], []], "current": 0,
            "hand_sizes": [5, 5], "limits": [3, 3], "out": [False, False], "win_at": 5, "attack": None,
            "pending": None, "window": None, "last_roll": roll, "used_this_turn": [], "hand": [], "discard": [],
            "deck": 10, "turn": 3, "turn_limit": 40, "to_act": [0], "boost": 0})
        assert lines_of(page, ".cube-die") == 1, roll
    page.screenshot(path="/tmp/shots/cube-die-phone.png")
    critters = {"decks": {"fish": 3, "bird": 3, "mammal": 3, "other": 3}, "active_card": CRITTER,
                "active_player": 0, "attribute": "commonness", "under_active": [], "face_down_card": None,
                "challenger": None, "corrals": [[CRITTER], [CRITTER, CRITTER]], "corrals_face_down": True,
                "scores": None, "starting_player": 0, "round": 1, "rounds": 3, "phase": "draw"}
    render_game(page, "critter-capture", critters)
    assert lines_of(page, ".cc-centre .cc-value span") == 1  # "commonness" on the active card
    corrals = page.locator(".cc-corral p").all_inner_texts()
    assert corrals == ["1 card face down", "2 cards face down"], corrals
    page.screenshot(path="/tmp/shots/critters-phone-labels.png")
    context.close()


def test_lungos_end_names_the_loser_and_the_header_says_when_offline(browser: playwright_api.Browser,
                                                                    base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(base_url + "/room.html?code=none")
    text = page.evaluate("""async () => (await import('/js/banner.js')).resultText({ status: 'finished',
        seats: [0, 1, 2].map((seat) => ({ seat, name: ['Ada', 'Bo', 'Cy'][seat], taken: true, kind: 'human' })),
        result: { returns: [1, -1, 0], winner: 0, loser: 1 } })""")
    assert text == "Game over. Winner: P1 Ada. Loser: P2 Bo.", text
    context.close()


def test_replay_arrow_keys_pressed_back_to_back_each_move_a_step(browser: playwright_api.Browser,
                                                                 base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    code = new_room(page, base_url, "critter-capture", ["human", "bot:random"], "Ada")
    click_through([page], check=False)
    page.goto(f"{base_url}/room.html?code={code}&replay")
    page.wait_for_selector("#step:has-text('decision 0 of')")
    for _ in range(3):
        page.keyboard.press("ArrowRight")  # no wait between presses
    page.wait_for_selector("#step:has-text('decision 3 of')")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.wait_for_selector("#step:has-text('decision 1 of')")
    context.close()


RACE_WATCH = """() => {
    window.racesSeen = [];
    const board = document.getElementById('board');
    new MutationObserver(() => {
        const control = board.querySelector('.lg-swat, .lg-grab');
        if (!control || !document.getElementById('turn').textContent.startsWith('Race')) return;
        const box = control.getBoundingClientRect();
        window.racesSeen.push({ top: box.top, bottom: box.bottom, height: innerHeight,
            focused: document.activeElement === control,
            covered: document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2) !== control
                && !control.contains(document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2)),
            over: document.elementFromPoint(box.left + box.width / 2,
                                            box.top + box.height / 2)?.outerHTML.slice(0, 200) });
    }).observe(board, { attributes: true, attributeFilter: ['data-version'] });
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_lungo_race_controls_are_on_screen_the_moment_a_race_opens(browser: playwright_api.Browser, base_url: str,
                                                                   size: str) -> None:
    viewport = DESKTOP if size == "desktop" else PHONE
    context = browser.new_context(viewport=viewport, is_mobile=size == "phone", has_touch=size == "phone")
    page = context.new_page()
    races: list[dict[str, Any]] = []
    deadline = time.monotonic() + 120  # by the clock, not by turns of the loop: a busy machine plays slower
    # A game can end before Ada takes part in a race (the swat and the grab are open to some players only):
    # then another game, until two races have been seen.
    while len(races) < 2 and time.monotonic() < deadline:
        new_room(page, base_url, "creatures-of-lungo", ["human", "bot:random", "bot:random", "bot:random"], "Ada")
        page.evaluate(RACE_WATCH)
        while time.monotonic() < deadline:
            seen = len(races) + len(page.evaluate("() => window.racesSeen"))
            if seen >= 2 or "Game over" in page.inner_text("#turn"):
                break
            if page.locator("#board.racing").count():  # the race is open: look at it before taking part
                page.screenshot(path=f"/tmp/shots/lungo-race-{size}.png")
            buttons = page.locator("[data-action]:enabled")
            if buttons.count():
                before = version(page)
                try:
                    buttons.first.click(timeout=2000)
                    wait_new_version(page, before)
                except playwright_api.Error:
                    pass
            else:
                page.wait_for_timeout(50)
        races += page.evaluate("() => window.racesSeen")
    assert races, "no race opened"
    for race in races:
        assert race["top"] >= 0 and race["bottom"] <= race["height"] and not race["covered"], str(race)
        assert race["focused"], race  # a keyboard's Enter swats or grabs at once
    context.close()


def test_the_log_says_when_a_computer_took_a_seat(browser: playwright_api.Browser, base_url: str) -> None:
    host_context, friend_context = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=PHONE)
    host, friend = host_context.new_page(), friend_context.new_page()
    new_room(host, base_url, "critter-capture", ["human", "human"], "Ada")
    friend.goto(host.input_value("#invite"))
    friend.fill("#name", "Bo")
    friend.click("#join button")
    friend.wait_for_selector("#seats li.me")
    friend.once("dialog", lambda dialog: dialog.accept())
    friend.click("#leave")
    host.wait_for_selector("#log li.notice:has-text('A computer took P2 Bo')")
    assert "they left the game" in host.inner_text("#log li.notice")
    host.screenshot(path="/tmp/shots/log-notice-desktop.png")
    log_box = host.locator("#log li").last.bounding_box()
    board_box = host.locator("#board").bounding_box()
    assert log_box and board_box and log_box["y"] + log_box["height"] <= DESKTOP["height"]  # beside the board
    assert log_box["x"] > board_box["x"] + board_box["width"] - 1
    host_context.close()
    friend_context.close()


def test_the_newest_log_lines_sit_under_the_banner_on_a_phone(browser: playwright_api.Browser, base_url: str) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    new_room(page, base_url, "critter-capture", ["human", "bot:random"], "Ada")
    page.wait_for_selector("#turn.mine")
    newest = page.locator("#log li").last.inner_text()
    latest = page.locator("#latest li").last
    assert newest.startswith(latest.inner_text()), (newest, latest.inner_text())
    turn_box, latest_box = page.locator("#turn").bounding_box(), latest.bounding_box()
    assert turn_box and latest_box and turn_box["y"] < latest_box["y"] < PHONE["height"] / 3
    page.screenshot(path="/tmp/shots/latest-phone.png")
    context.close()


def test_chat_is_kept_across_a_reload_and_spectators_read_it(browser: playwright_api.Browser, base_url: str) -> None:
    host_context, watcher_context = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=PHONE)
    host, watcher = host_context.new_page(), watcher_context.new_page()
    new_room(host, base_url, "critter-capture", ["human", "bot:random"], "Ada")
    host.wait_for_selector("#turn.mine")
    for text in ("hello <b>table</b>", "good luck"):
        host.fill("#chat-text", text)
        host.press("#chat-text", "Enter")
        host.wait_for_selector(f"#chat-lines li:has-text('{text.split()[-1]}')")
    host.reload()
    host.wait_for_selector("#chat-lines li >> nth=1")
    assert host.locator("#chat-lines li").all_inner_texts() == ["P1 Ada: hello <b>table</b>", "P1 Ada: good luck"]
    assert host.locator("#chat-lines b").count() == 0  # shown as text, never as markup
    watcher.goto(host.input_value("#invite"))
    watcher.wait_for_selector("#chat-lines li >> nth=1")
    assert watcher.is_hidden("#chat") and watcher.is_visible("#chat-seated-only")
    host.wait_for_selector("#watching:has-text('1 watching')")
    host.screenshot(path="/tmp/shots/chat-desktop.png")
    watcher.screenshot(path="/tmp/shots/chat-spectator-phone.png", full_page=True)
    watcher_context.close()
    host.wait_for_selector("#watching", state="hidden")
    host_context.close()
