"""Friends at one table in Debian's Chromium: private rooms, seat links opened in a fresh browser, presence,
hand-over and reclaim, the rematch, a dropped connection and its notice, the lobby's controls, a banner that
agrees with the seat list and the game page's own header at every step (along a whole game of each game), your
hand and moves in view at desktop size at each game's largest table, and Crit's pieces told apart without
colour.

Screenshots go to artifacts/server/ (the ones docs/web.md shows are copied to docs/web/).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from tests.server.conftest import require_browser

playwright_api = require_browser()

from bestiary.server.settings import Settings  # noqa: E402
from tests.server import test_browser  # noqa: E402
from tests.server.test_browser import DESKTOP, PHONE, serving, shot  # noqa: E402

GRACE = 30.0  # long enough that only the hand-over button gives the seat away
# every control that makes (or, for Crit's Creatures' pieces, starts) a move
MOVE_CONTROLS = ("[data-action]:enabled, #actions button, .cr-tile.cr-can, .cr-tile.cr-reach, "
                 ".cr-tile.cr-target")
Page = playwright_api.Page
browser = test_browser.browser  # the same module-scoped browser as the other browser tests


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = Settings(bot_delay=0.05, reaction_scale=0.2, disconnect_grace=GRACE)
    yield from serving(tmp_path_factory.mktemp("table") / "bestiary.sqlite3", settings)


def new_room(page: Page, base_url: str, game: str, seats: list[str], name: str, public: bool = False) -> str:
    page.goto(base_url + "/")
    page.select_option("#game", game)
    page.select_option("#players", str(len(seats)))
    for seat, choice in enumerate(seats):
        page.select_option(f"[data-seat='{seat}']", choice)
    page.fill("#name", name)
    if public:
        page.check("#public")
    page.click("button[type=submit]")
    page.wait_for_url("**/room.html?code=*")
    return page.url.split("code=")[1]


def take_seat(page: Page, invite: str, name: str) -> None:
    page.goto(invite)
    page.fill("#name", name)
    page.click("text=Take this seat")
    page.wait_for_selector("#seats li.me")


def presence_of(page: Page, seat: int) -> str:
    return str(page.get_attribute(f"#seats li[data-seat='{seat}'] [data-presence]", "data-presence"))


def wait_presence(page: Page, seat: int, wanted: str) -> None:
    page.wait_for_selector(f"#seats li[data-seat='{seat}'] [data-presence='{wanted}']", timeout=15000)


SNAPSHOT = """controls => {
  const turn = document.getElementById('turn');
  const header = document.querySelector('#board [data-header-turn]');
  return {banner: turn.innerText, kind: turn.dataset.kind, mine: turn.classList.contains('mine'),
          header: header ? header.innerText : null,
          meToAct: document.querySelectorAll('#seats li.me.to-act').length > 0,
          toAct: document.querySelectorAll('#seats li.to-act').length,
          others: [...document.querySelectorAll('#seats li.to-act:not(.me) .seat-name')].map(e => e.innerText),
          controls: document.querySelectorAll(controls).length};
}"""


def banner_without_countdown(page: Page) -> str:
    """The turn banner's text less its countdown, read in one go: two pages' countdowns may tick a second apart
    between two reads."""
    return str(page.evaluate("""() => {
        const banner = document.getElementById("turn"), counter = document.getElementById("countdown");
        return counter ? banner.innerText.replace(counter.innerText, "") : banner.innerText;
    }"""))


def banner_agrees_with_seats(page: Page) -> None:
    """The banner says it is your turn exactly when the seat list marks your seat to act (and the page offers a
    move), it names each other seat the list marks, and the game page's own header says what the banner says
    (who acts, or the result); read in one go, between two redraws."""
    seen = page.evaluate(SNAPSHOT, MOVE_CONTROLS)
    if seen["kind"] == "offline":  # the connection dropped: the banner says so, and nothing else
        assert not seen["mine"] and "Connection lost" in seen["banner"], seen
        return
    assert seen["header"] and seen["banner"].removeprefix("You are watching: ").startswith(seen["header"]), seen
    if seen["kind"] in ("finished", "waiting"):
        assert seen["toAct"] == 0, seen
        return
    assert seen["mine"] == (seen["meToAct"] and seen["controls"] > 0), seen
    for name in seen["others"]:
        assert name in seen["banner"], seen


def click_through(pages: list[Page], limit: int = 500, check: bool = True) -> None:
    """Each page clicks its first enabled move until the game is over, checking the banner at every step."""
    for _ in range(limit):
        clicked = False
        for page in pages:
            if check:
                banner_agrees_with_seats(page)
            buttons = page.locator("[data-action]:enabled, #actions button")
            if buttons.count():
                version = page.get_attribute("#board", "data-version")
                try:
                    buttons.first.click(timeout=2000)
                    page.wait_for_function("v => document.getElementById('board').dataset.version !== v",
                                           arg=version, timeout=5000)
                except playwright_api.Error:
                    continue  # the position moved on under the click (a bot, a window closing): look again
                clicked = True
        if not clicked:
            if all("Game over" in page.inner_text("#turn") for page in pages):
                for page in pages if check else []:
                    banner_agrees_with_seats(page)  # the header gives the result the banner gives
                return
            time.sleep(0.05)
    raise AssertionError("the game did not end through the UI")


def test_friends_keep_their_seats_through_links_hand_over_reclaim_and_rematch(browser: playwright_api.Browser,
                                                                               base_url: str) -> None:
    ada_context, bo_context = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=DESKTOP)
    ada, bo = ada_context.new_page(), bo_context.new_page()
    code = new_room(ada, base_url, "critter-capture", ["human", "human"], "Ada")
    ada.goto(base_url + "/")  # private: the lobby does not list it
    ada.wait_for_selector("#rooms p, #rooms table")
    assert code not in ada.inner_html("#rooms")
    ada.go_back()
    invite = ada.input_value("#invite")
    take_seat(bo, invite, "Bo")
    ada.wait_for_selector("#turn.mine")
    wait_presence(ada, 1, "connected")
    assert ada.title().startswith("● Your turn") and not bo.title().startswith("●")  # the tab says so
    assert ada.get_attribute("link[rel=icon]", "href") == "/favicon-turn.svg"
    # My tables: every table this browser holds a seat at, marking where it is your turn
    tables = ada_context.new_page()
    tables.goto(base_url + "/tables.html")
    tables.wait_for_selector(f"tr.my-turn[data-code='{code}'] >> text=Your turn")
    shot(tables, "table-my-tables")
    tables.close()
    # Ada's private seat link: the token is in the fragment, apart from the invite link
    link = ada.input_value("#seat-link")
    assert link.startswith(invite + "#seat=0&token=") and ada.is_visible("#copy-seat")
    shot(ada, "table-seat-link-desktop")
    # the link opens Ada's seat in a browser that never saw it, and leaves the address bar clean
    phone_context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    phone = phone_context.new_page()
    phone.goto(link)
    phone.wait_for_selector("#seats li.me >> text=P1 Ada")
    assert "token" not in phone.url
    assert phone.inner_text("#turn") == "Your turn."
    version = phone.get_attribute("#board", "data-version")
    phone.click("[data-action]:enabled >> nth=0")  # Ada plays a move from her phone ...
    ada.wait_for_function("v => document.getElementById('board').dataset.version !== v", arg=version)  # ... seen here
    shot(phone, "table-seat-link-phone")
    phone_context.close()
    # Bo goes away: everyone sees it, with the time before a computer takes over
    bo_link = bo.input_value("#seat-link")
    bo_context.close()
    wait_presence(ada, 1, "away")
    ada.wait_for_selector("#seats li[data-seat='1'] [data-hand-over-at]:has-text('computer in')")
    shot(ada, "table-away-desktop")
    ada.click("#seats li[data-seat='1'] button.hand-over")  # no need to wait for the grace
    wait_presence(ada, 1, "computer")
    # Bo comes back in a fresh browser through his seat link, and claims his seat back
    bo_context = browser.new_context(viewport=DESKTOP)
    bo = bo_context.new_page()
    bo.goto(bo_link)
    bo.wait_for_selector("#reclaim:not([hidden])")
    assert "A computer plays your seat" in bo.inner_text("#turn")
    shot(bo, "table-reclaim-desktop")
    bo.click("#claim")
    wait_presence(ada, 1, "connected")
    bo.wait_for_selector("#reclaim", state="hidden")
    # they play to the end; the banner agrees with the seat list at every step
    click_through([ada, bo])
    assert ada.inner_text("#turn") == bo.inner_text("#turn")
    assert "Round 1: P1 Ada starts." in ada.inner_text("#log")  # the log names the players
    shot(ada, "table-over-desktop")
    # the rematch: both pages move to the new room, each with its own seat
    ada.click("#rematch")
    for page, me in ((ada, "P1 Ada"), (bo, "P2 Bo")):
        page.wait_for_url(lambda url: code not in url)
        page.wait_for_selector(f"#seats li.me >> text={me}")
    assert ada.url == bo.url
    ada.wait_for_selector("#turn:not(:has-text('Connecting'))")
    banner_agrees_with_seats(ada)
    assert ada.inner_text("#turn").startswith("P2 Bo to play") and bo.inner_text("#turn") == "Your turn."  # Bo first
    shot(ada, "table-rematch-desktop")
    bo_tables = bo_context.new_page()  # Bo's browser holds both tables: the rematch, his turn, comes first
    bo_tables.goto(base_url + "/tables.html")
    rematch_code = bo.url.split("code=")[1]
    bo_tables.wait_for_selector(f"tr.my-turn[data-code='{rematch_code}'] >> text=Your turn")
    assert bo_tables.locator("tr[data-code]").first.get_attribute("data-code") == rematch_code
    assert bo_tables.locator(f"tr[data-code='{code}'] >> text=Game over").count() == 1
    bo_context.close()
    ada_context.close()


def test_a_public_room_is_listed_and_a_private_one_is_not(browser: playwright_api.Browser, base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    public = new_room(page, base_url, "critter-capture", ["human", "human"], "Cy", public=True)
    private = new_room(page, base_url, "critter-capture", ["human", "human"], "Cy")
    page.goto(base_url + "/")
    page.wait_for_selector("#rooms table")
    listed = page.inner_html("#rooms")
    assert public in listed and private not in listed
    shot(page, "lobby-public-room")
    context.close()


@pytest.mark.parametrize("game", ["critter-capture", "cube-creatures", "creatures-of-lungo", "crits-creatures"])
def test_two_friends_play_each_game_and_a_seat_link_opens_the_seat_in_a_third_browser(
        browser: playwright_api.Browser, base_url: str, game: str) -> None:
    ada_context, bo_context = browser.new_context(viewport=DESKTOP), browser.new_context(viewport=DESKTOP)
    ada, bo = ada_context.new_page(), bo_context.new_page()
    new_room(ada, base_url, game, ["human", "human"], "Ada")
    take_seat(bo, ada.input_value("#invite"), "Bo")
    ada.wait_for_selector("#turn:not([data-kind='waiting'])")
    click_through_some(ada, bo, clicks=24)
    shot(ada, f"table-{game}-desktop")
    phone_context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    phone = phone_context.new_page()
    phone.goto(ada.input_value("#seat-link"))
    phone.wait_for_selector("#seats li.me >> text=P1 Ada")
    phone.wait_for_function("v => document.getElementById('board').dataset.version === v",
                            arg=ada.get_attribute("#board", "data-version"))
    assert banner_without_countdown(phone) == banner_without_countdown(ada)
    banner_agrees_with_seats(phone)
    shot(phone, f"table-{game}-phone")
    # the invite link in yet another browser: a spectator, and told so
    watcher_context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    watcher = watcher_context.new_page()
    watcher.goto(ada.input_value("#invite"))
    if "Game over" in ada.inner_text("#turn"):  # the deal let the game end within the clicks: the result, for all
        watcher.wait_for_selector(f"#turn:has-text({ada.inner_text('#turn')!r})")
    else:
        watcher.wait_for_selector("#turn:has-text('You are watching')")
    assert watcher.locator("#seats li.me").count() == 0 and watcher.is_hidden("#seat-link-box")
    for context in (watcher_context, phone_context, bo_context, ada_context):
        context.close()


# options that keep a whole game short; a bot that moves at once plays the other seat
SHORT_GAMES = {"cube-creatures": {"win_at": "2", "turn_limit": "20"}, "creatures-of-lungo": {"turn_limit": "10"},
               "crits-creatures": {"length": "12", "turn_limit": "6"}}


@pytest.mark.parametrize("game", list(SHORT_GAMES))
def test_the_banner_agrees_with_the_seats_and_the_header_along_a_whole_game(browser: playwright_api.Browser,
                                                                           base_url: str, game: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    page.goto(base_url + "/")
    page.select_option("#game", game)
    for name, value in SHORT_GAMES[game].items():
        page.fill(f"#option-{name}", value)
    page.select_option("[data-seat='1']", "bot:random")
    page.fill("#name", "Ada")
    page.click("button[type=submit]")
    page.wait_for_selector("#turn:not(:has-text('Connecting'))")
    for _ in range(2000):
        banner_agrees_with_seats(page)
        if "Game over" in page.inner_text("#turn"):
            break
        if not one_move(page):
            time.sleep(0.02)  # the bot's move, or a window closing
    else:
        raise AssertionError("the game did not end through the UI")
    banner_agrees_with_seats(page)  # the result, in the header too
    assert page.inner_text("#board [data-header-turn]") == page.inner_text("#turn")
    context.close()


def click_through_some(ada: Page, bo: Page, clicks: int) -> None:
    """The two friends play `clicks` moves between them (or to the end), the banner checked at every step."""
    made = 0
    for _ in range(clicks * 10):
        if made >= clicks or "Game over" in ada.inner_text("#turn"):
            return
        for page in (ada, bo):
            banner_agrees_with_seats(page)
            made += one_move(page)
        time.sleep(0.02)
    raise AssertionError(f"only {made} moves were made")


def one_move(page: Page) -> int:
    """Click one move on the page, if it offers one (selecting a Crit's piece first): 1 if a move was made."""
    version = page.get_attribute("#board", "data-version")
    tiles = page.locator(".cr-tile.cr-target[data-action], .cr-tile.cr-reach[data-action]")
    buttons = page.locator("button[data-action]:enabled, #actions button")
    pieces = page.locator(".cr-tile.cr-can:not(.cr-selected)")
    try:
        if not tiles.count() and not buttons.count() and pieces.count():
            pieces.first.click(timeout=2000)
            page.wait_for_selector(".cr-selected, .cr-tile[data-action]", timeout=3000)
        target = tiles if tiles.count() else buttons
        if not target.count():
            return 0
        target.first.click(timeout=2000)
        page.wait_for_function("v => document.getElementById('board').dataset.version !== v", arg=version,
                               timeout=5000)
    except playwright_api.Error:
        return 0  # the position moved on under the click (a bot, a window closing): look again
    return 1


def test_the_api_docs_page_lists_every_endpoint_offline(browser: playwright_api.Browser, base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    outside: list[str] = []
    page.on("request", lambda request: outside.append(request.url) if not request.url.startswith(base_url) else None)
    page.goto(base_url + "/docs")
    page.wait_for_selector("section.endpoint >> text=POST /api/rooms/{code}/claim")
    assert page.locator("section.endpoint").count() >= 10 and outside == []
    shot(page, "api-docs")
    context.close()


def test_lobby_options_have_fitting_controls_seats_from_one_and_rule_ids_in_help(browser: playwright_api.Browser,
                                                                                 base_url: str) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(base_url + "/")
    page.select_option("#game", "crits-creatures")
    assert page.eval_on_selector("#option-first_player", "s => [...s.options].map(o => o.text)") == [
        "Roll for it", "Player 1", "Player 2"]
    assert page.eval_on_selector("#option-placement", "s => s.tagName") == "SELECT"
    page.select_option("#game", "creatures-of-lungo")
    page.select_option("#players", "3")
    assert page.eval_on_selector("#option-first_player", "s => [...s.options].map(o => o.text)") == [
        "Player 1", "Player 2", "Player 3"]
    labels = page.inner_text("#options")
    assert "LUNGO-29" not in page.inner_text("label:has(#option-first_player) > span")
    assert "Rule LUNGO-29" in labels  # the rule id is in the help text
    page.select_option("#option-first_player", "2")
    page.select_option("#option-token_moment", '"turn"')
    page.fill("#name", "Di" + "x" * 38)  # a long name without a space
    shot(page, "lobby-options-phone")
    page.click("button[type=submit]")
    page.wait_for_url("**/room.html?code=*")
    page.wait_for_selector("#seats li.me")
    info = page.evaluate("code => fetch(`/api/rooms/${code}`).then(r => r.json())", page.url.split("code=")[1])
    assert info["options"]["first_player"] == 2 and info["options"]["token_moment"] == "turn"
    assert [s["seat"] for s in info["seats"]] == [0, 1, 2]
    assert page.inner_text("#seats li[data-seat='2'] .seat-name").startswith("P3")
    # the long name is cut with an ellipsis instead of widening the page
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.eval_on_selector("#seats li.me .seat-name", "e => getComputedStyle(e).textOverflow") == "ellipsis"
    assert page.eval_on_selector("#seats li.me .seat-name", "e => e.scrollWidth > e.clientWidth")
    context.close()


MAX_PLAYERS = {"critter-capture": 6, "cube-creatures": 5, "creatures-of-lungo": 6, "crits-creatures": 2}
# what is yours on each table (your hand, or what stands for it), and where your moves are offered
YOURS = {"critter-capture": ".cc-decks", "cube-creatures": ".cube-hand", "creatures-of-lungo": ".lg-hand",
         "crits-creatures": ".cr-board"}
YOUR_MOVES = ".moves button[data-action], .cube-hand button[data-action], .lg-hand button[data-action], " \
             ".cc-decks [data-action], .cc-choice [data-action], .cr-tile.cr-can"
BOXES = """([yours, moves]) => {
  const box = (e) => { const r = e.getBoundingClientRect();
                       return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  return {scrollY: window.scrollY, yours: [...document.querySelectorAll(yours)].map(box),
          moves: [...document.querySelectorAll(moves)].map(box)};
}"""


@pytest.mark.parametrize("game", list(MAX_PLAYERS))
def test_at_desktop_size_your_hand_and_moves_are_in_view_at_the_largest_table(browser: playwright_api.Browser,
                                                                              base_url: str, game: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    players = MAX_PLAYERS[game]
    new_room(page, base_url, game, ["human"] + ["bot:random"] * (players - 1), "Ada")
    page.wait_for_selector("#turn.mine", timeout=30000)
    # measured at one moment when the moves are shown: the bots' moves (a race, a window) may take them away
    seen = page.wait_for_function(
        f"(args) => {{ const seen = ({BOXES})(args); return seen.yours.length && seen.moves.length ? seen : null; }}",
        arg=[YOURS[game], YOUR_MOVES], timeout=30000).json_value()
    assert seen["scrollY"] == 0, seen
    for box in seen["yours"] + seen["moves"]:
        assert box["top"] >= 0 and box["bottom"] <= DESKTOP["height"], (game, box)
        assert box["left"] >= 0 and box["right"] <= DESKTOP["width"], (game, box)
    page.screenshot(path=str(test_browser.ARTIFACTS / f"table-{game}-{players}-desktop.png"))  # the window as seen
    context.close()


PIECES = """() => [...document.querySelectorAll('#board .cr-piece[data-side]')].map(g => ({
  piece: Number(g.dataset.piece), side: Number(g.dataset.side), label: g.dataset.label,
  shape: g.firstElementChild.tagName, dashed: getComputedStyle(g.firstElementChild).strokeDasharray !== 'none',
  king: g.querySelector('.cr-king-mark') !== null, last: g.classList.contains('cr-last'),
  mark: g.dataset.mark || null}))"""
# the page's own module drawn on a copy of the view with an attack under way (or declared): the marks it shows
FIGHT = """async ([code, attacker, target, declared]) => {
  const view = await (await fetch(`/api/rooms/${code}/view`)).json();
  const o = view.observation;
  if (declared) o.declared = [[attacker, target, 1]];
  else o.combat = {attacker, target, dice: 1, counter: false, stage: 'attack', rolled: [], to_roll: [8],
                   attack_total: null};
  const [{render}, {el}] = await Promise.all([import('/games/crits-creatures.js'), import('/js/api.js')]);
  const board = document.createElement('div');
  render(board, {view, room: view.room, me: null, act: () => {}, seatName: s => `P${s + 1}`, el});
  return Object.fromEntries([...board.querySelectorAll('.cr-piece[data-mark]')].map(g =>
    [g.dataset.mark, [Number(g.dataset.piece), g.querySelector('.cr-badge').textContent]]));
}"""


# the page's own module drawn on a copy of the view at turn 1 with the given roll-off dice: what its dice say
ROLL_OFF = """async ([code, rolls]) => {
  const view = await (await fetch(`/api/rooms/${code}/view`)).json();
  view.observation.first_rolls = rolls;
  view.observation.turn = 1;
  const [{render}, {el}] = await Promise.all([import('/games/crits-creatures.js'), import('/js/api.js')]);
  const board = document.createElement('div');
  render(board, {view, room: view.room, me: null, act: () => {}, seatName: s => `P${s + 1}`, el});
  return board.querySelector('.cr-dice')?.innerText ?? null;
}"""


def until_own_turn(page: Page) -> None:
    """Wait for the human's own turn, passing any window before it: the random computer player moving first may
    open one on its first turn (CRITS-52), even by attacking its own item, dropped by a Sacrifice (CRITS-37)."""
    for _ in range(10):
        answer = page.wait_for_selector("button[data-action='end turn'], button[data-action='pass'], "
                                        "button[data-action='no counter']", timeout=30000)
        assert answer is not None
        action = answer.get_attribute("data-action")
        if action == "end turn":
            return
        answer.click()
        page.wait_for_selector(f"button[data-action='{action}']", state="detached")
    raise AssertionError("no turn of the human's own after ten windows")


def test_crits_pieces_are_told_apart_without_colour(browser: playwright_api.Browser, base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    code = new_room(page, base_url, "crits-creatures", ["human", "bot:random"], "Ada")
    until_own_turn(page)
    page.wait_for_selector(".cr-tile.cr-can")
    pieces = page.evaluate(PIECES)
    deploy = page.locator("button[data-action^='deploy ']")  # a card held off the board, named as spelt
    assert [deploy.nth(i).inner_text() for i in range(deploy.count())] == ["Deploy Wraith"]  # P1's Grave Legion
    # the side shows in the shape and the border, not only the colour
    assert {(p["side"], p["shape"], p["dashed"]) for p in pieces} == {(0, "circle", False), (1, "rect", True)}
    for side in (0, 1):
        labels = [p["label"] for p in pieces if p["side"] == side]
        assert len(labels) == len(set(labels)), labels  # duplicates are numbered
    assert any(p["label"][-1] == "2" for p in pieces), pieces
    kings = page.evaluate("code => fetch(`/api/rooms/${code}/view`).then(r => r.json())", code)["observation"]["kings"]
    on_board = {p["piece"] for p in pieces}
    assert {p["piece"] for p in pieces if p["king"]} == {k for k in kings if k in on_board} != set()  # crown marks
    # a move: the piece that moved and the two tiles it joined are marked
    page.locator(".cr-tile.cr-can").first.click()
    reach = page.locator(".cr-tile.cr-reach[data-action^='move']").first
    action = str(reach.get_attribute("data-action"))
    reach.click()
    _, origin, destination = action.split()
    page.wait_for_selector(f".cr-tile.cr-last-tile[data-tile='{origin}']")
    assert page.locator(f".cr-tile.cr-last-tile[data-tile='{destination}']").count() == 1
    moved = [p for p in page.evaluate(PIECES) if p["last"]]
    assert len(moved) == 1 and moved[0]["side"] == 0, moved
    shot(page, "crits-marks-desktop")
    # the attacker and the defender, while the attack is resolved and while a response is decided
    mine, theirs = (next(p["piece"] for p in pieces if p["side"] == side) for side in (0, 1))
    for declared in (False, True):
        marks = page.evaluate(FIGHT, [code, mine, theirs, declared])
        assert marks == {"attacker": [mine, "⚔"], "defender": [theirs, "◎"]}, marks
    # CRITS-45: the roll-off as far as it went; nothing where no die was rolled (a set first player)
    assert page.evaluate(ROLL_OFF, [code, [-1, -1]]) is None
    assert "P1 rolled 7, P2 has not rolled yet" in page.evaluate(ROLL_OFF, [code, [7, -1]])
    assert "P1 rolled 7, P2 rolled 12" in page.evaluate(ROLL_OFF, [code, [7, 12]])
    context.close()


def test_a_dropped_connection_says_not_connected_and_the_notice_clears_on_reconnect(
        browser: playwright_api.Browser, base_url: str) -> None:
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    links: list[tuple[playwright_api.WebSocketRoute, playwright_api.WebSocketRoute]] = []  # (page side, server side)
    network = {"down": False}

    def route(socket: playwright_api.WebSocketRoute) -> None:
        if network["down"]:  # the server cannot be reached: the page's connection closes at once
            socket.close(code=1011, reason="unreachable")
            return
        links.append((socket, socket.connect_to_server()))

    page.route_web_socket(re.compile(r"/api/rooms/[^/]+/ws$"), route)
    new_room(page, base_url, "critter-capture", ["human", "bot:random"], "Ada")
    page.wait_for_selector("#turn.mine")
    network["down"] = True
    for side in links[-1]:
        side.close(code=1011, reason="dropped")  # the connection drops, at both ends
    page.wait_for_selector("#turn:has-text('Connection lost; reconnecting')")
    assert page.get_attribute("#turn", "data-kind") == "offline" and page.locator("#turn.mine").count() == 0
    header = page.inner_text("#board [data-header-turn]")  # the table's own header no longer says "Your turn."
    assert "Your turn" not in header and "Not connected" in header, header
    version = page.get_attribute("#board", "data-version")
    page.click("[data-action]:enabled >> nth=0")  # a move tried meanwhile is not lost silently
    page.wait_for_selector("#error:has-text('Not connected to the server; reconnecting')")
    shot(page, "table-not-connected-desktop")
    connections = len(links)
    network["down"] = False
    page.wait_for_selector("#error", state="hidden", timeout=15000)  # the page reconnected by itself
    page.wait_for_selector("#turn.mine")
    assert len(links) == connections + 1 and page.inner_text("#turn") == "Your turn."
    assert page.get_attribute("#board", "data-version") == version  # the move tried offline was not made
    page.click("[data-action]:enabled >> nth=0")  # and a move goes through now
    page.wait_for_function("v => document.getElementById('board').dataset.version !== v", arg=version)
    assert page.is_hidden("#error")
    context.close()
