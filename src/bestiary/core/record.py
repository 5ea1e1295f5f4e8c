"""Game records: what replays a game to the identical state.

A record holds the game, its rules version, options, card set (id and hash), seed, every action in
order with who took it, and the result.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from bestiary.core.api import CHANCE, State
from bestiary.core.errors import BestiaryError, RecordError
from bestiary.core.registry import game_class, load_game

RECORD_FORMAT = "bestiary-record/1"


class GameRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: str = RECORD_FORMAT
    game: str
    rules_version: str
    options: dict[str, Any]
    card_set: dict[str, str] | None = None
    seed: int | None = None
    seats: list[str] | None = None  # who played each seat (agent names, player names)
    actions: list[tuple[int, str]]
    result: dict[str, Any] | None = None


def record_of(state: State, seats: list[str] | None = None) -> GameRecord:
    header = state.game.header()
    return GameRecord(game=header["game"], rules_version=header["rules_version"], options=header["options"],
                      card_set=header["card_set"], seed=state.seed, seats=seats,
                      actions=[(player, str(action)) for player, action in state.history()],
                      result=state.result() if state.is_terminal() else None)


def save_record(record: GameRecord, path: str | Path) -> None:
    Path(path).write_text(record.model_dump_json(indent=1) + "\n", encoding="utf-8")


def load_record(path: str | Path) -> GameRecord:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise RecordError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"{path}: not JSON: {error}") from None
    if not isinstance(raw, dict) or raw.get("format") != RECORD_FORMAT:
        raise RecordError(f"{path}: not a Bestiary game record (expected \"format\": \"{RECORD_FORMAT}\")")
    try:
        return GameRecord(**raw)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(p) for p in problem["loc"])
        raise RecordError(f"{path}: field '{where}': {problem['msg']}") from None


def replay(record: GameRecord, *, cards: str | None = None, upto: int | None = None) -> State:
    """The state after the record's actions (the first `upto` of them); checks the rules version, the
    card set and, at the end, the recorded result."""
    cls = game_class(record.game)
    if record.rules_version != cls.info.rules_version:
        raise RecordError(f"the record was made with {record.game} rules {record.rules_version}; "
                          f"this Bestiary plays rules {cls.info.rules_version}")
    options = dict(record.options)
    if cards is not None:
        options["cards"] = cards
    try:
        game = load_game(record.game, **options)
    except BestiaryError as error:
        raise RecordError(f"cannot set up the recorded game: {error}") from None
    mine = (game.card_set_info() or {}).get("hash")
    theirs = (record.card_set or {}).get("hash")
    if mine != theirs:
        raise RecordError(f"the record was made with card set {(record.card_set or {}).get('id')!r} "
                          f"(hash {theirs}); the cards loaded here hash to {mine}: pass the same card file")
    state = game.new_initial_state(seed=record.seed)
    steps = record.actions if upto is None else record.actions[:upto]
    for number, (player, text) in enumerate(steps, start=1):
        try:
            state.apply_action(text, player=None if player == CHANCE else player)
        except BestiaryError as error:
            raise RecordError(f"step {number} ({text!r} by {player}): {error}") from None
    if upto is None and record.result is not None and state.is_terminal() and state.result() != record.result:
        raise RecordError(f"the replay ends with {state.result()}, the record says {record.result}")
    return state
