"""The post-game review in Debian's Chromium, at desktop and phone sizes: a game played to its end through the
page, "Review this game" on the end screen, the progress, the graph under the replay's board, and the replay
moved by a click on a marked move and on the graph (docs/review.md, *In the browser*).

Screenshots go to artifacts/server/ and /tmp/review-web-*.png.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import require_browser

playwright_api = require_browser()

from bestiary.review import ReviewSettings  # noqa: E402
from bestiary.server.settings import Settings  # noqa: E402
from tests.server import test_browser  # noqa: E402
from tests.server.test_browser import ARTIFACTS, PHONE, serving, shot  # noqa: E402
from tests.server.test_browser_table import DESKTOP, click_through  # noqa: E402

Page = playwright_api.Page
browser = test_browser.browser  # the same module-scoped browser as the other browser tests
CHEAP = ReviewSettings(sims=8, candidates=3, luck_outcomes=3, depth=2)  # a review of seconds


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = replace(Settings(bot_delay=0.02, reaction_scale=0.1), review=CHEAP, bot_processes=1)
    yield from serving(tmp_path_factory.mktemp("review") / "bestiary.sqlite3", settings)


def photograph(page: Page, name: str) -> None:
    shot(page, f"review-web-{name}")
    shutil.copy(ARTIFACTS / f"review-web-{name}.png", Path("/tmp") / f"review-web-{name}.png")


def step_shown(page: Page) -> str:
    return page.inner_text("#step")


def jumps_by_clicking(page: Page, name: str) -> None:
    """A click on a marked move, then one on the graph, each moves the replay (and the graph's marker)."""
    page.wait_for_selector(".review-graph")
    before = step_shown(page)
    marked = page.locator(".review-error, .review-luck").first
    marked.scroll_into_view_if_needed()
    # the board's top in sight (scrolled to, it stands at 0 give or take a subpixel)
    board_top_seen = "() => { const top = document.getElementById('board').getBoundingClientRect().top; " \
                     "return top > -2 && top < window.innerHeight; }"
    # the graph stands below the board, whose top is then out of sight on a phone
    assert not page.evaluate(board_top_seen) or name != "phone"
    marked.click()
    page.wait_for_function("b => document.getElementById('step').innerText !== b", arg=before)
    moved = step_shown(page)
    # the replay shows the decision the mark names, and the graph marks where the replay is
    assert moved != before and f"{moved.split(' of ')[0].capitalize()}:" in str(marked.get_attribute("aria-label"))
    assert page.get_attribute(".review-now", "visibility") == "visible"
    # the board shows the move: where it was out of sight above the graph (a phone), the page scrolls up to it
    page.wait_for_function(board_top_seen)
    photograph(page, f"{name}-jumped")
    page.screenshot(path=f"/tmp/review-web-{name}-jumped-in-view.png")  # what the reader sees after the jump
    graph = page.locator(".review-graph")
    box = graph.bounding_box()
    assert box is not None
    graph.click(position={"x": box["width"] * 0.7, "y": box["height"] / 2})  # scrolled into view first
    page.wait_for_function("b => document.getElementById('step').innerText !== b", arg=moved)
    now = float(page.get_attribute(".review-now", "x1") or "0")
    width = float(str(page.get_attribute(".review-graph", "viewBox")).split()[2])
    assert abs(now / width - 0.7) < 0.1, (now, width)  # the replay stops at a decision near where the graph was clicked


def review_a_finished_game(page: Page, base_url: str, name: str) -> None:
    """Play a short Cube Creatures game to its end on the page, ask for the review from the end screen, wait
    for it, and move the replay from the graph."""
    made = httpx.post(f"{base_url}/api/rooms", json={"game": "cube-creatures", "options": {"players": 2, "win_at": 3},
                                                     "seats": [{"kind": "human"},
                                                               {"kind": "bot", "agent": "heuristic"}]})
    code = made.json()["code"]
    token = httpx.post(f"{base_url}/api/rooms/{code}/seats/0", json={"name": "Ada"}).json()["token"]
    page.goto(f"{base_url}/room.html?code={code}#seat=0&token={token}")
    page.wait_for_selector("#seats li.me")
    click_through([page], check=False)
    page.wait_for_selector("#review-banner")  # the end screen offers the review, under the result
    assert page.inner_text("#review-banner") == "Review this game" and "Game over" in page.inner_text("#turn")
    photograph(page, f"{name}-end")
    page.click("#review-banner")
    page.wait_for_url("**&replay")
    page.wait_for_selector("#review-progress, .review-graph")
    if page.locator("#review-progress").count():
        assert "Reviewing the game" in page.inner_text("#review-panel")
        photograph(page, f"{name}-progress")
    page.wait_for_selector(".review-graph", timeout=60000)
    panel = page.inner_text("#review-panel")
    assert "P1 Ada" in panel and "Luck-adjusted" in panel and "costliest" in panel
    assert page.locator(".review-line").count() == 2
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], f"the review makes the page {width} px wide"  # type: ignore[index]
    photograph(page, f"{name}-review")
    jumps_by_clicking(page, name)


def test_a_finished_game_is_reviewed_and_the_graph_moves_the_replay(browser: playwright_api.Browser,
                                                                    base_url: str) -> None:
    desktop = browser.new_context(viewport=DESKTOP)
    page = desktop.new_page()
    review_a_finished_game(page, base_url, "desktop")
    page.locator("#review-panel").screenshot(path="/tmp/review-web-desktop-panel.png")
    desktop.close()
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    review_a_finished_game(phone.new_page(), base_url, "phone")
    phone.close()
