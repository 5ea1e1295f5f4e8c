"""Scenarios: a starting state, forced chance, actions and expectations, in a TOML or JSON file.

The format is documented in docs/scenarios.md. `run_scenario` never raises for a failing scenario: it
returns a ScenarioResult saying which step failed and why.
"""

from __future__ import annotations

import json
import tomllib
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bestiary.core.api import Game, State
from bestiary.core.chance import forced_shuffles
from bestiary.core.errors import BestiaryError, IllegalActionError, ScenarioError
from bestiary.core.registry import load_game

STEP_KEYS = {"act", "player", "expect", "observe", "legal", "illegal", "error", "returns", "terminal",
             "event", "logged", "to_act", "note"}
NONE = "<none>"  # TOML has no null: this string expects a null (None) value
TOP_KEYS = {"name", "rules", "game", "options", "seed", "state", "state_file", "edits", "chance", "shuffles",
            "refused", "steps", "description"}
SCENARIO_SUFFIXES = (".toml", ".json")
DATA_SUFFIXES = (".toml", ".json")  # an option naming such a file (a card file, an army) is a path
LIST_CHECKS = {"contains", "excludes", "length"}  # a table of these checks a list in part


@dataclass
class ScenarioResult:
    path: str
    name: str
    passed: bool
    message: str = ""
    step: int | None = None


class ScenarioFailure(Exception):
    pass


def load_scenario(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ScenarioError(f"{path}: cannot read: {error.strerror or error}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as error:
        raise ScenarioError(f"{path}: cannot parse: {error}") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a scenario is a table/object")
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise ScenarioError(f"{path}: unknown key '{sorted(unknown)[0]}' (keys: {', '.join(sorted(TOP_KEYS))})")
    if "game" not in data:
        raise ScenarioError(f"{path}: missing 'game'")
    if "steps" not in data and "refused" not in data:
        raise ScenarioError(f"{path}: a scenario has 'steps' or 'refused'")
    for number, step in enumerate(data.get("steps", []), start=1):
        if not isinstance(step, dict):
            raise ScenarioError(f"{path}: step {number} is not a table")
        bad = set(step) - STEP_KEYS
        if bad:
            raise ScenarioError(f"{path}: step {number}: unknown key '{sorted(bad)[0]}' "
                                f"(keys: {', '.join(sorted(STEP_KEYS))})")
    return data


def is_scenario(path: Path) -> bool:
    """A folder's scenarios are its TOML and JSON files whose top level has `steps` or `refused`; anything
    else beside them (a card file, an army, a state file) is data."""
    if path.suffix not in SCENARIO_SUFFIXES:
        return False
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, tomllib.TOMLDecodeError):
        return True  # unreadable: run it, so that the error is reported rather than the file skipped
    return isinstance(data, dict) and ("steps" in data or "refused" in data)


def scenario_files(paths: Iterable[Path]) -> list[Path]:
    """Files as given; folders searched through, in name order, for the files `is_scenario` picks."""
    out: list[Path] = []
    for item in paths:
        if item.is_dir():
            out += sorted(p for p in item.rglob("*") if p.is_file() and is_scenario(p))
        else:
            out.append(item)
    return out


def resolved_options(options: dict[str, Any], base_dir: Path) -> dict[str, Any]:
    """Options with every relative path to a data file (a string ending .toml or .json, alone or in a list)
    read from the scenario's folder."""
    def resolve(value: Any) -> Any:
        if isinstance(value, str) and value.endswith(DATA_SUFFIXES) and not Path(value).is_absolute():
            return str(base_dir / value)
        if isinstance(value, list):
            return [resolve(v) for v in value]
        return value
    return {key: resolve(value) for key, value in options.items()}


def deep_merge(base: Any, edits: Any) -> Any:
    """Edits applied onto base: tables merge key by key, anything else replaces."""
    if isinstance(base, dict) and isinstance(edits, dict):
        out = dict(base)
        for key, value in edits.items():
            out[key] = deep_merge(base.get(key), value) if key in base else deep_merge(None, value)
        return out
    if edits == NONE:
        return None
    if isinstance(edits, list):
        return [deep_merge(None, item) for item in edits]
    return edits


def mismatch(expected: Any, actual: Any, where: str) -> str | None:
    """Where `actual` fails to match the partial `expected` (tables: only the keys given)."""
    if isinstance(expected, dict) and isinstance(actual, list) and expected and set(expected) <= LIST_CHECKS:
        return list_mismatch(expected, actual, where)
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{where}: expected a table, got {actual!r}"
        for key, value in expected.items():
            if key not in actual:
                return f"{where}.{key}: missing"
            found = mismatch(value, actual[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{where}: expected {expected!r}, got {actual!r}"
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = mismatch(e, a, f"{where}[{index}]")
            if found:
                return found
        return None
    if expected == NONE:
        return None if actual is None else f"{where}: expected nothing (null), got {actual!r}"
    if isinstance(expected, float) or isinstance(actual, float):
        ok = isinstance(actual, int | float) and abs(float(expected) - float(actual)) < 1e-9
        return None if ok else f"{where}: expected {expected!r}, got {actual!r}"
    return None if expected == actual else f"{where}: expected {expected!r}, got {actual!r}"


def list_mismatch(checks: dict[str, Any], actual: list[Any], where: str) -> str | None:
    """A list checked in part: `contains` (each given item matches some entry), `excludes` (none matches any
    entry), `length`."""
    if "length" in checks and len(actual) != checks["length"]:
        return f"{where}: expected {checks['length']} entries, got {len(actual)}: {actual!r}"
    for wanted in checks.get("contains", []):
        if all(mismatch(wanted, item, where) for item in actual):
            return f"{where}: no entry matches {wanted!r}; entries: {actual!r}"
    for unwanted in checks.get("excludes", []):
        if any(mismatch(unwanted, item, where) is None for item in actual):
            return f"{where}: an entry matches {unwanted!r}, which must not be there; entries: {actual!r}"
    return None


def starting_state(game: Game, data: dict[str, Any], base_dir: Path) -> State:
    seed = data.get("seed")
    if "state" in data or "state_file" in data:
        raw = data["state"] if "state" in data else json.loads((base_dir / data["state_file"]).read_text())
        if isinstance(raw, str):
            raw = json.loads(raw)
        full = raw if "format" in raw else {**game.new_initial_state(seed).to_dict(), "state": raw,
                                            "history": [], "events": []}
    else:
        full = game.new_initial_state(seed).to_dict()
    if "edits" in data:
        full = {**full, "state": deep_merge(full["state"], data["edits"])}
    return game.state_from_dict(full)


def run_scenario(path: str | Path) -> ScenarioResult:
    path = Path(path)
    try:
        data = load_scenario(path)
    except ScenarioError as error:
        return ScenarioResult(str(path), path.stem, False, str(error))
    name = str(data.get("name", path.stem))
    step_number: int | None = None
    try:
        with forced_shuffles(data.get("shuffles", [])):
            try:
                game = load_game(data["game"], **resolved_options(data.get("options", {}), path.parent))
                state = starting_state(game, data, path.parent)
            except BestiaryError as error:
                if "refused" not in data:
                    raise
                return _expected_refusal(path, name, str(data["refused"]), str(error))
            if "refused" in data:
                return ScenarioResult(str(path), name, False, f"setup: expected it to be refused with "
                                                              f"'{data['refused']}', but it was accepted")
            forced = deque(str(outcome) for outcome in data.get("chance", []))
            _resolve_forced_chance(state, forced)
            for number, step in enumerate(data.get("steps", []), start=1):
                step_number = number
                _run_step(state, step, forced)
    except ScenarioFailure as failure:
        return ScenarioResult(str(path), name, False, str(failure), step_number)
    except BestiaryError as error:
        where = f"step {step_number}: " if step_number else "setup: "
        return ScenarioResult(str(path), name, False, where + str(error), step_number)
    return ScenarioResult(str(path), name, True)


def _expected_refusal(path: Path, name: str, wanted: str, message: str) -> ScenarioResult:
    if wanted.lower() in message.lower():
        return ScenarioResult(str(path), name, True)
    return ScenarioResult(str(path), name, False, f"setup: refused with '{message}', expected a message "
                                                  f"containing '{wanted}'")


def _resolve_forced_chance(state: State, forced: deque[str]) -> None:
    while forced and state.is_chance_node():
        state.apply_action(forced.popleft())


def _run_step(state: State, step: dict[str, Any], forced: deque[str]) -> None:
    """The step's action, then its checks, which look at the state after the action."""
    player = step.get("player")
    events_before = len(state.events(player))
    if "act" in step:
        try:
            # at a chance node the act is the chance outcome; `player` then names only the viewer of the checks
            state.apply_action(str(step["act"]), player=None if state.is_chance_node() else player)
        except IllegalActionError as error:
            raise ScenarioFailure(f"'{step['act']}' was refused: {error}") from None
        _resolve_forced_chance(state, forced)
    if "illegal" in step:
        before = state.to_json()
        try:
            state.apply_action(str(step["illegal"]), player=player)
        except IllegalActionError as error:
            wanted = step.get("error")
            if wanted and wanted.lower() not in str(error).lower():
                raise ScenarioFailure(f"'{step['illegal']}' was refused with '{error}', "
                                      f"expected a message containing '{wanted}'") from None
            if state.to_json() != before:
                raise ScenarioFailure(f"refusing '{step['illegal']}' changed the state") from None
        else:
            raise ScenarioFailure(f"'{step['illegal']}' was accepted, expected it to be refused")
    if "expect" in step:
        found = mismatch(step["expect"], state.to_dict()["state"], "state")
        if found:
            raise ScenarioFailure(found)
    if "observe" in step:
        found = mismatch(step["observe"], state.observation(player), f"observation({player})")
        if found:
            raise ScenarioFailure(found)
    if "legal" in step:
        legal = sorted(str(a) for a in state.legal_actions(player))
        wanted = step["legal"]
        if isinstance(wanted, dict):
            found = mismatch(wanted, legal, "legal actions")
            if found:
                raise ScenarioFailure(found)
        elif legal != sorted(str(a) for a in wanted):
            raise ScenarioFailure(f"legal actions: expected {sorted(wanted)}, got {legal}")
    if "to_act" in step and state.players_to_act() != list(step["to_act"]):
        raise ScenarioFailure(f"players to act: expected {step['to_act']}, got {state.players_to_act()}")
    if "terminal" in step and state.is_terminal() != bool(step["terminal"]):
        raise ScenarioFailure(f"terminal: expected {step['terminal']}, got {state.is_terminal()}")
    if "returns" in step:
        found = mismatch([float(r) for r in step["returns"]], state.returns(), "returns")
        if found:
            raise ScenarioFailure(found)
    if "event" in step:
        _check_events(step["event"], [e.text for e in state.events(player)[events_before:]], "this step's")
    if "logged" in step:
        _check_events(step["logged"], [e.text for e in state.events(player)], "the log's")


def _check_events(wanted: str | list[str], texts: list[str], which: str) -> None:
    for text in [wanted] if isinstance(wanted, str) else wanted:
        if not any(text.lower() in event.lower() for event in texts):
            raise ScenarioFailure(f"no event reads '{text}'; {which} last events: {texts[-5:]}")
