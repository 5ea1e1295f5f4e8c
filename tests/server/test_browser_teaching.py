"""In Debian's Chromium: the rules one click away (a log line's rule link opens that rule in the panel, the
/rules page, the lobby's option help) and the guided first game of each game finished by clicks alone, at a
desktop's and a phone's size. Screenshots go to artifacts/server/ for people to look at."""

from __future__ import annotations

import json

import pytest

from tests.server import test_browser
from tests.server.test_browser import ARTIFACTS, DESKTOP, PHONE, playwright_api, shot

base_url = test_browser.base_url
browser = test_browser.browser

SIZES = {"desktop": DESKTOP, "phone": PHONE}
GAMES = ["critter-capture", "cube-creatures", "creatures-of-lungo", "crits-creatures"]


def new_page(browser: playwright_api.Browser, size: str) -> tuple[playwright_api.Page, list[str]]:
    """A page at that size, and the script errors it will meet."""
    context = browser.new_context(viewport=SIZES[size], is_mobile=size == "phone", has_touch=size == "phone")
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def rule_in_view(page: playwright_api.Page, rule: str) -> bool:
    """Whether the panel shows `rule`, marked, inside the window."""
    box = page.locator(f"#rules-panel article[data-rule='{rule}']").bounding_box()
    viewport = page.viewport_size
    return (page.is_visible("#rules-panel") and box is not None and viewport is not None
            and page.get_attribute(f"#rules-panel article[data-rule='{rule}']", "class") == "rule rule-focus"
            and 0 <= box["y"] < viewport["height"])


@pytest.mark.parametrize("size", list(SIZES))
def test_a_log_lines_rule_link_opens_that_rule_in_the_panel_without_leaving_the_table(
        browser: playwright_api.Browser, base_url: str, size: str) -> None:
    page, errors = new_page(browser, size)
    page.goto(base_url + "/")
    room = page.evaluate("""() => fetch('/api/rooms', {method: 'POST', headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({game: 'critter-capture', options: {players: 2},
                              seats: [{kind: 'bot', agent: 'random'}, {kind: 'bot', agent: 'heuristic'}]})})
        .then(r => r.json())""")
    table = f"{base_url}/room.html?code={room['code']}"
    page.goto(table)
    page.wait_for_selector("#log li a.rule-link")
    # computers are named for people: the level, not the agent
    seats = page.inner_text("#seats")
    assert "Computer (easy)" in seats and "Computer (medium)" in seats and " bot" not in seats
    # The computers play on and the log is redrawn with each move: the link is read and clicked in one step, so
    # the rule clicked is the rule read.
    rule = str(page.evaluate("""() => { const links = document.querySelectorAll('#log li a.rule-link');
                                        const link = links[links.length - 1];
                                        link.click();
                                        return link.dataset.rule; }"""))
    assert rule.startswith("CRITTERS-")
    page.wait_for_selector(f"#rules-panel article.rule-focus[data-rule='{rule}']")
    assert rule_in_view(page, rule) and page.url == table  # the table is still there, under the panel
    assert page.inner_text(f"#rules-panel article[data-rule='{rule}']").startswith(rule)
    page.screenshot(path=str(ARTIFACTS / f"rules-panel-{size}.png"))  # the window as seen: the panel is fixed
    # searchable: only the rules that hold every word stay
    page.fill("#rules-panel .rule-search", "corral face")
    shown = page.locator("#rules-panel article.rule:visible")
    assert 0 < shown.count() < page.locator("#rules-panel article.rule").count()
    for text in shown.all_inner_texts():
        assert "corral" in text.lower() and "face" in text.lower()
    page.keyboard.press("Escape")
    assert not page.is_visible("#rules-panel")
    page.click("#rules-button")  # and the Rules button opens it again
    assert page.is_visible("#rules-panel")
    assert errors == []
    page.context.close()


def test_the_rules_page_opens_on_the_rule_its_address_names(browser: playwright_api.Browser, base_url: str) -> None:
    page, errors = new_page(browser, "phone")
    page.goto(base_url + "/rules/cube-creatures#CUBE-39")
    page.wait_for_selector("article.rule-focus[data-rule='CUBE-39']")
    assert rule_in_view(page, "CUBE-39")
    assert page.locator("section.rule-section").count() >= 5  # grouped like the rule book
    assert "Roll the attack die" in page.inner_text("article[data-rule='CUBE-39']")  # in plain words, and the book's
    page.click("article[data-rule='CUBE-1'] a.rule-link[data-rule='CUBE-9']")  # a reading's link to another rule
    page.wait_for_selector("article.rule-focus[data-rule='CUBE-9']")
    page.screenshot(path=str(ARTIFACTS / "rules-page-phone.png"))  # the window: the whole book is very long
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    assert errors == []
    page.context.close()


def test_the_lobby_offers_levels_keeps_designer_settings_apart_and_opens_an_options_rule(
        browser: playwright_api.Browser, base_url: str) -> None:
    page, errors = new_page(browser, "desktop")
    page.goto(base_url + "/")
    page.wait_for_selector("#learn-list a.learn-game")
    assert page.locator("#learn-list a.learn-game").count() == len(GAMES)  # every game can be learned from here
    page.select_option("#game", "creatures-of-lungo")
    levels = page.eval_on_selector("[data-seat='1']",
                                   "s => [...s.querySelectorAll(':scope > option')].map(o => o.text)")
    assert levels == ["A person (invite)", "Computer (easy)", "Computer (medium)", "Computer (hard)"]
    assert page.eval_on_selector("[data-seat='1'] optgroup", "g => g.label") == "More"
    assert not page.is_visible("#option-reaction_mean") and not page.is_visible("#window")  # under More options
    page.click("#more-options summary")
    assert page.is_visible("#option-reaction_mean")
    page.click("#options a.rule-link[data-rule='LUNGO-29']")
    page.wait_for_selector("#rules-panel article.rule-focus[data-rule='LUNGO-29']")
    assert rule_in_view(page, "LUNGO-29")
    page.screenshot(path=str(ARTIFACTS / "lobby-option-rule-desktop.png"))
    assert errors == []
    page.context.close()


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("game", GAMES)
def test_a_first_game_is_learned_by_clicks_alone(browser: playwright_api.Browser, base_url: str, game: str,
                                                 size: str) -> None:
    page, errors = new_page(browser, size)
    page.goto(f"{base_url}/learn/{game}")
    page.wait_for_selector("#do-suggestion")
    assert page.locator("#coach .welcome").count() == 1
    shot(page, f"learn-{game}-start-{size}")
    lessons = highlighted = 0
    for clicks in range(200):
        if page.locator("#real-game").count():
            break
        suggestion = page.get_attribute("#do-suggestion", "data-suggestion")
        highlighted += page.locator("#board .suggested").count() > 0
        if clicks == 1:
            page.click("#why")
            page.wait_for_selector("#why-box")
            assert "The suggested move" in page.inner_text("#why-box")
            page.locator("#coach").screenshot(path=str(ARTIFACTS / f"learn-{game}-why-{size}.png"))
        version = page.get_attribute("#board", "data-version")
        page.click("#do-suggestion")
        page.wait_for_function("v => document.getElementById('board').dataset.version !== v", arg=version)
        lessons += page.locator("#coach .lesson").count()
        assert suggestion  # a suggestion was offered at every step
        if clicks == 4:
            shot(page, f"learn-{game}-playing-{size}")
    else:
        raise AssertionError("the tutorial did not end")
    assert lessons > 0, "no rule was told in plain words"
    assert highlighted > clicks // 2, "the suggested move was not highlighted on the table"
    assert page.locator("#log a.rule-link").count() > 0
    shot(page, f"learn-{game}-end-{size}")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= SIZES[size]["width"]
    if size == "desktop":  # the way on: a real game against an easy computer
        page.click("#real-game")
        page.wait_for_url("**/room.html?code=*")
        page.wait_for_selector("#seats li.me")
        assert "Computer (easy)" in page.inner_text("#seats")
    assert errors == []
    page.context.close()


def test_a_refused_move_names_its_rule_and_the_link_opens_it(browser: playwright_api.Browser, base_url: str) -> None:
    page, errors = new_page(browser, "desktop")
    page.goto(f"{base_url}/learn/cube-creatures")
    page.wait_for_selector("#do-suggestion")

    def stale_click(route: playwright_api.Route) -> None:
        """The move sent is one the rules forbid now, as a click on a table that moved on would be."""
        body = route.request.post_data_json
        route.continue_(post_data=json.dumps({**body, "move": "end turn"}))

    page.route("**/api/learn/**", stale_click)
    page.click("#do-suggestion")
    link = page.locator("#error a.rule-link").first
    link.wait_for()
    rule = str(link.get_attribute("data-rule"))
    assert rule.startswith("CUBE-") and "Not allowed" in page.inner_text("#error")
    assert "null" not in page.inner_text("#error")
    link.click()
    page.wait_for_selector(f"#rules-panel article.rule-focus[data-rule='{rule}']")
    assert rule_in_view(page, rule)
    page.screenshot(path=str(ARTIFACTS / "learn-refusal-desktop.png"))
    assert page.get_attribute("#board", "data-version") == "0"  # nothing was played
    assert errors == []
    page.context.close()
