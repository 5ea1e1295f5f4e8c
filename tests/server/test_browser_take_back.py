"""Taking back a move in Debian's Chromium: the button shows only while the server allows it, the U key does
the same, the log loses the line taken back and says who took what back, and a refusal says why.
Screenshots go to artifacts/server/."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.server.conftest import require_browser

playwright_api = require_browser()

from bestiary.server.settings import Settings  # noqa: E402
from tests.server import test_browser  # noqa: E402
from tests.server.test_browser import DESKTOP, PHONE, create_room, serving_errand, shot, wait_for_update  # noqa: E402

browser = test_browser.browser  # the same module-scoped browser as the other browser tests


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from serving_errand(tmp_path_factory.mktemp("take-back"),
                              Settings(bot_delay=0.05, reaction_scale=0.2))


def act(page: playwright_api.Page, action: str) -> None:
    version = page.get_attribute("#board", "data-version")
    page.click(f"#actions button[title='{action}']")
    wait_for_update(page, version)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_take_back_by_button_and_key_and_a_refusal_that_says_why(browser: playwright_api.Browser,
                                                                 base_url: str, viewport: dict[str, int]) -> None:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    create_room(page, base_url, "errand", 2, ["human", "bot:random"], "Ada")
    page.wait_for_selector("#actions button[title='step']")
    button = page.locator("#take-back")
    assert button.is_hidden()  # nothing played yet
    act(page, "step")
    act(page, "step")
    assert button.is_visible() and button.is_enabled()
    box = button.bounding_box()
    assert box is not None and box["y"] + box["height"] <= viewport["height"]  # in view with the banner
    shot(page, f"take-back-{'phone' if viewport == PHONE else 'desktop'}")
    version = page.get_attribute("#board", "data-version")
    button.click()
    wait_for_update(page, version)
    page.wait_for_selector("#log li.notice:has-text('takes back their last move')")
    assert page.locator("#log li:not(.notice):has-text('steps to 2')").count() == 0  # the line taken back is gone
    version = page.get_attribute("#board", "data-version")
    page.keyboard.press("u")  # the key does the same
    wait_for_update(page, version)
    assert page.locator("#log li:not(.notice):has-text('steps to 1')").count() == 0
    assert button.is_hidden()
    act(page, "peek")  # showed Ada the other card: it stays played
    assert button.is_hidden()
    page.keyboard.press("u")
    page.wait_for_selector("#error:has-text('revealed hidden information')")
    context.close()
