"""Spectator chat in Debian's Chromium: a room made with "Let spectators write in the chat" (the lobby's More
options) says so at the table, and a spectator, at desktop and phone size, writes under a name they give, shown
as text and marked as a spectator's, kept across a reload; axe-core finds nothing serious on the spectator's
table. Screenshots: /tmp/spectator-chat-*.png."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.server.conftest import require_browser

playwright_api = require_browser()

from bestiary.server.settings import Settings  # noqa: E402
from tests.server import test_browser  # noqa: E402
from tests.server.test_browser import PHONE, serving  # noqa: E402
from tests.server.test_browser_a11y import assert_accessible  # noqa: E402
from tests.server.test_browser_table import DESKTOP  # noqa: E402

Page = playwright_api.Page
browser = test_browser.browser


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = Settings(bot_delay=0.05, reaction_scale=0.2)
    yield from serving(tmp_path_factory.mktemp("spectator-chat") / "bestiary.sqlite3", settings)


def send(page: Page, text: str) -> None:
    page.fill("#chat-text", text)
    page.press("#chat-text", "Enter")


def test_a_spectator_chats_where_the_room_allows_it(browser: playwright_api.Browser, base_url: str) -> None:
    host_context = browser.new_context(viewport=DESKTOP)
    host = host_context.new_page()
    host.goto(base_url + "/")
    host.select_option("#game", "critter-capture")
    host.select_option("#players", "2")
    host.select_option("[data-seat='1']", "bot:random")
    host.fill("#name", "Ada")
    host.click("#more-options summary")
    host.check("#spectator-chat")
    host.screenshot(path="/tmp/spectator-chat-lobby-desktop.png", full_page=True)
    host.click("button[type=submit]")
    host.wait_for_selector("#turn.mine")
    assert host.is_visible("#chat-spectators") and host.is_hidden("#chat-name-box") and host.is_visible("#chat")
    invite = host.input_value("#invite")
    for size, viewport, name in (("desktop", DESKTOP, "<i>Cy</i>"), ("phone", PHONE, "")):
        context = browser.new_context(viewport=viewport, is_mobile=viewport is PHONE, has_touch=viewport is PHONE)
        watcher = context.new_page()
        watcher.goto(invite)
        watcher.wait_for_selector("#turn:has-text('You are watching')")
        assert watcher.is_visible("#chat") and watcher.is_visible("#chat-name")
        assert watcher.is_hidden("#chat-seated-only") and watcher.is_visible("#chat-spectators")
        watcher.fill("#chat-name", name)
        words = f"go Ada, from the {size}"
        send(watcher, words)
        shown = f"{name} (spectator): {words}" if name else f"Spectator: {words}"  # never "Spectator (spectator)"
        host.wait_for_selector(f"#chat-lines li:has-text('{size}')")
        assert host.locator("#chat-lines li").last.inner_text() == shown
        assert host.locator("#chat-lines i").count() == 0  # a name is text, never markup
        send(host, f"thanks, {size}")
        watcher.wait_for_selector(f"#chat-lines li:has-text('thanks, {size}')")
        watcher.reload()  # the chat and the name the spectator gave come back
        watcher.wait_for_selector(f"#chat-lines li:has-text('thanks, {size}')")
        assert shown in watcher.locator("#chat-lines li").all_inner_texts()
        assert watcher.input_value("#chat-name") == name
        watcher.locator("#chat").scroll_into_view_if_needed()
        watcher.screenshot(path=f"/tmp/spectator-chat-{size}.png", full_page=size == "phone")
        assert_accessible(watcher, f"a spectator's table with its chat ({size})")
        context.close()
    host.locator("#chat").scroll_into_view_if_needed()
    host.screenshot(path="/tmp/spectator-chat-host-desktop.png")
    host_context.close()
