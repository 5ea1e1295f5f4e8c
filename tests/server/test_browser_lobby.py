"""The lobby's open rooms, a page at a time, in Debian's Chromium at desktop and phone size: "Show more" appends
the next page counted from the last room shown, so rooms that fill up meanwhile make it skip none and show
none twice, and Refresh starts again from the first page (a page asked for before it is dropped).

Screenshots go to artifacts/server/ (docs/web.md shows them from docs/web/).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import require_browser

playwright_api = require_browser()

from bestiary.server.settings import Settings  # noqa: E402
from tests.server import test_browser  # noqa: E402
from tests.server.test_browser import DESKTOP, PHONE, serving  # noqa: E402

PAGE = 20  # rooms the lobby page asks for at a time (js/lobby.js)
ROOMS = 45  # more than two pages: one address makes them all, so its bound on waiting rooms is raised
GAMES = ["critter-capture", "cube-creatures", "creatures-of-lungo"]
NAMES = ["Ada", "Bo", "Cy", "Di", "Eve"]
browser = test_browser.browser


@pytest.fixture
def base_url(tmp_path: Path) -> Iterator[str]:
    yield from serving(tmp_path / "bestiary.sqlite3", Settings(bot_delay=0.05, waiting_rooms_per_address=1000))


def new_rooms(http: httpx.Client, count: int) -> list[str]:
    """Public rooms of two players, of the games in turn, every other one with its first seat taken."""
    codes = []
    for number in range(count):
        answer = http.post("/api/rooms", json={"game": GAMES[number % len(GAMES)], "options": {"players": 2},
                                               "public": True})
        assert answer.status_code == 201, answer.text
        codes.append(answer.json()["code"])
        if number % 2:
            http.post(f"/api/rooms/{codes[-1]}/seats/0", json={"name": NAMES[number % len(NAMES)]}).raise_for_status()
    return codes


def fill(http: httpx.Client, code: str) -> None:
    for seat in http.get(f"/api/rooms/{code}").json()["seats"]:
        if not seat["taken"]:
            http.post(f"/api/rooms/{code}/seats/{seat['seat']}", json={"name": "Zed"}).raise_for_status()


def shown(page: playwright_api.Page, rows: int) -> list[str]:
    page.wait_for_function("n => document.querySelectorAll('#rooms tr[data-code]').length === n", arg=rows)
    codes = page.eval_on_selector_all("#rooms tr[data-code]", "rows => rows.map(r => r.dataset.code)")
    return [str(code) for code in codes]


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_show_more_appends_the_next_rooms_and_none_twice_though_rooms_fill_up(
        browser: playwright_api.Browser, base_url: str, size: str) -> None:
    context = browser.new_context(viewport=DESKTOP) if size == "desktop" else browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    with httpx.Client(base_url=base_url, timeout=30) as http:
        codes = new_rooms(http, ROOMS)
        page.goto(base_url + "/")
        assert shown(page, PAGE) == codes[:PAGE]
        assert page.inner_text("#rooms-count") == f"{PAGE} rooms shown; more are waiting."
        # meanwhile two rooms of the first page fill up and leave the lobby, and three rooms are made
        filled = [codes[3], codes[7]]
        for code in filled:
            fill(http, code)
        later = new_rooms(http, 3)
        page.click("#more")
        assert shown(page, 2 * PAGE) == codes[:2 * PAGE]  # the next twenty: none skipped, none twice
        assert page.inner_text("#rooms-count") == f"{2 * PAGE} rooms shown; more are waiting."
        page.locator("#more").scroll_into_view_if_needed()  # the window as seen, at the foot of the list
        page.screenshot(path=str(test_browser.ARTIFACTS / f"lobby-more-{size}.png"))
        page.click("#more")
        everything = shown(page, ROOMS + len(later))
        assert everything == codes + later and len(set(everything)) == len(everything)
        assert page.is_hidden("#more")
        assert page.inner_text("#rooms-count") == f"{ROOMS + len(later)} rooms shown, the end of the list."
        # a row of the last page leads to its room
        assert page.get_attribute(f"#rooms tr[data-code='{later[-1]}'] a", "href") == f"/room.html?code={later[-1]}"
        page.click("#refresh")  # the first page again, without the rooms that filled up
        assert shown(page, PAGE) == [code for code in codes if code not in filled][:PAGE]
        assert page.is_visible("#more")
        assert page.evaluate("() => document.documentElement.scrollWidth") <= page.viewport_size["width"]
        # a page that arrives after a Refresh was asked for is dropped, not appended to the fresh list
        held: list[playwright_api.Route] = []
        page.route(re.compile(r"/api/rooms\?.*after="), lambda route: held.append(route))
        page.click("#more")
        while not held:
            page.wait_for_timeout(20)
        page.click("#refresh")
        page.wait_for_function("() => !document.getElementById('more').disabled")
        with page.expect_response(lambda response: "after=" in response.url):
            held[0].continue_()
        page.wait_for_timeout(200)  # time for the late answer to be read
        assert shown(page, PAGE) == [code for code in codes if code not in filled][:PAGE]
    context.close()
