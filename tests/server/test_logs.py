"""The server's log: one `key=value` line per event, never a token, never a page of traceback."""

from __future__ import annotations

import logging

import pytest

from bestiary.server.logs import OneLine, line, no_traceback
from tests.server.conftest import Server, create_room, join


def test_a_line_quotes_what_would_split_it_and_refuses_secrets() -> None:
    assert line("join", {"room": "Ab-3_x", "seat": 1, "name": 'Ada "the" L'}) == \
        'event=join room=Ab-3_x seat=1 name="Ada \\"the\\" L"'
    with pytest.raises(ValueError, match="token"):
        line("join", {"room": "x", "token": "secret"})


def test_an_error_is_one_line_with_where_it_was_raised() -> None:
    try:
        raise RuntimeError("the database\nwent away")
    except RuntimeError as error:
        record = logging.LogRecord("bestiary.server", logging.ERROR, __file__, 1, "room %s: refused", ("Ab",),
                                   (type(error), error, error.__traceback__))
    text = OneLine().format(record)
    assert "\n" not in text
    assert 'room Ab: refused error=RuntimeError message="the database\\nwent away" at=test_logs.py:' in text


def test_a_malformed_frame_is_reported_without_its_stack() -> None:
    try:
        b"\xff".decode()
    except UnicodeDecodeError as error:
        record = logging.LogRecord("uvicorn.error", logging.ERROR, __file__, 1, "Invalid UTF-8 sequence", (),
                                   (type(error), error, error.__traceback__))
    assert no_traceback(record)
    assert record.exc_info is None and record.getMessage().startswith("event=bad-frame error=UnicodeDecodeError")


def test_creations_and_joins_are_logged_without_the_token(server: Server, sqlite_url: str,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="bestiary.server"), server(sqlite_url) as client:
        code = create_room(client, "critter-capture", options={"players": 2})["code"]
        token = join(client, code, 0, "Ada")
    lines = [record.getMessage() for record in caplog.records if record.name == "bestiary.server"]
    assert f"event=create room={code} game=critter-capture address=testclient bots_only=False" in lines
    assert f"event=join room={code} seat=0 name=Ada" in lines
    assert not any(token in message for message in lines)
