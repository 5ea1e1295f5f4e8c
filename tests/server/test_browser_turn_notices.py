"""The turn-notice form in a seat's settings, in Debian's Chromium: an address saved and read back after a
reload, a webhook that is not an http URL refused with the server's reason, and spectators shown no form.
Screenshots go to artifacts/server/."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.server.conftest import require_browser

playwright_api = require_browser()

from bestiary.server.settings import Settings  # noqa: E402
from tests.server import test_browser  # noqa: E402
from tests.server.test_browser import DESKTOP, PHONE, create_room, serving_errand, shot  # noqa: E402

browser = test_browser.browser  # the same module-scoped browser as the other browser tests


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    # nothing listens on port 1: the form is what is tested here, delivery in test_turn_notices.py
    yield from serving_errand(tmp_path_factory.mktemp("notices"),
                              Settings(bot_delay=0.05, reaction_scale=0.2, smtp="127.0.0.1:1"))


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_seat_saves_its_turn_notices_and_a_bad_webhook_is_refused(browser: playwright_api.Browser,
                                                                     base_url: str, viewport: dict[str, int]) -> None:
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    invite = create_room(page, base_url, "errand", 2, ["human", "human"], "Ada")
    page.click("#turn-notices summary")
    page.fill("#notice-webhook", "ftp://chat.example.org/hook")
    page.click("#turn-notices-form button[type=submit]")
    page.wait_for_selector("#notice-status:has-text('http:// or https://')")
    page.fill("#notice-email", "ada@example.org")
    page.fill("#notice-webhook", "https://chat.example.org/hooks/abc")
    page.click("#turn-notices-form button[type=submit]")
    page.wait_for_selector("#notice-status:has-text('Saved: you will be told')")
    page.locator("#turn-notices").scroll_into_view_if_needed()
    shot(page, f"turn-notices-{'phone' if viewport == PHONE else 'desktop'}")
    page.reload()
    page.click("#turn-notices summary")
    page.wait_for_function("document.getElementById('notice-email').value === 'ada@example.org'")
    assert page.input_value("#notice-webhook") == "https://chat.example.org/hooks/abc"
    watcher = context.browser.new_context(viewport=viewport) if context.browser else None
    assert watcher is not None
    other = watcher.new_page()
    other.goto(invite)  # a spectator until they take the open seat: no form, and no address anywhere
    other.wait_for_selector("#seats li")
    assert other.locator("#turn-notices").is_hidden()
    assert "ada@example.org" not in other.content()
    watcher.close()
    context.close()
