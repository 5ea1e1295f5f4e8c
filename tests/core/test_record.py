"""Game records replay to the identical state and refuse to replay anything else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import bestiary
from bestiary.core.conformance import play_randomly
from bestiary.core.errors import RecordError
from bestiary.core.record import load_record, record_of, replay, save_record
from bestiary.games.critters.cards import STARTER_DECK


def finished(players: int = 3, seed: int = 2, **options):
    return play_randomly(bestiary.load_game("critter-capture", players=players, **options), seed=seed)


def test_record_holds_what_replay_needs(tmp_path: Path) -> None:
    state = finished()
    record = record_of(state, seats=["human", "random", "heuristic"])
    path = tmp_path / "game.json"
    save_record(record, path)
    loaded = load_record(path)
    assert loaded.game == "critter-capture" and loaded.rules_version == "1.0"
    assert loaded.card_set["id"] == "eastern-woodlands" and loaded.seed == 2
    assert loaded.result == state.result() and len(loaded.actions) == len(state.history())
    assert replay(loaded).to_json() == state.to_json()
    assert replay(loaded, upto=10).to_json() != state.to_json()


def test_a_custom_card_file_must_be_passed_again(tmp_path: Path) -> None:
    deck = tmp_path / "deck.toml"
    deck.write_text(STARTER_DECK.read_text().replace("Bluegill", "Pumpkinseed"))
    record = record_of(finished(cards=str(deck)))
    assert replay(record).is_terminal()  # the record names the path
    record.options["cards"] = None
    with pytest.raises(RecordError, match="pass the same card file"):
        replay(record)
    assert replay(record, cards=str(deck)).is_terminal()


def test_tampered_records_are_refused(tmp_path: Path) -> None:
    record = record_of(finished())
    wrong_result = record.model_copy(update={"result": {"returns": [9.0, 0.0, 0.0]}})
    with pytest.raises(RecordError, match="the record says"):
        replay(wrong_result)
    swapped = record.model_copy(update={"actions": [record.actions[1], record.actions[0], *record.actions[2:]]})
    with pytest.raises(RecordError, match="step 1"):
        replay(swapped)
    future = record.model_copy(update={"rules_version": "9.9"})
    with pytest.raises(RecordError, match=r"rules 1\.0"):
        replay(future)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"format": "bestiary-record/1", "game": "critter-capture"}))
    with pytest.raises(RecordError, match="field 'rules_version'"):
        load_record(path)
    path.write_text("not json")
    with pytest.raises(RecordError, match="not JSON"):
        load_record(path)
