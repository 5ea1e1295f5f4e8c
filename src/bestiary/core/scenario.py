"""Scenarios: a starting state, forced chance, actions and expectations, in a TOML or JSON file.

The format is documented in docs/scenarios.md. `run_scenario` never raises for a failing scenario: it
returns a ScenarioResult saying which step failed and why.
"""

from __future__ import annotations

import json
import tomllib
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bestiary.core.api import Game, State
from bestiary.core.errors import BestiaryError, IllegalActionError, ScenarioError
from bestiary.core.registry import load_game

STEP_KEYS = {"act", "player", "expect", "observe", "legal", "illegal", "error", "returns", "terminal",
             "event", "to_act", "note"}
NONE = "<none>"  # TOML has no null: this string expects a null (None) value
TOP_KEYS = {"name", "rules", "game", "options", "seed", "state", "state_file", "edits", "chance", "steps",
            "description"}


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
    for number, step in enumerate(data.get("steps", []), start=1):
        if not isinstance(step, dict):
            raise ScenarioError(f"{path}: step {number} is not a table")
        bad = set(step) - STEP_KEYS
        if bad:
            raise ScenarioError(f"{path}: step {number}: unknown key '{sorted(bad)[0]}' "
                                f"(keys: {', '.join(sorted(STEP_KEYS))})")
    return data


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
        game = load_game(data["game"], **data.get("options", {}))
        state = starting_state(game, data, path.parent)
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


def _resolve_forced_chance(state: State, forced: deque[str]) -> None:
    while forced and state.is_chance_node():
        state.apply_action(forced.popleft())


def _run_step(state: State, step: dict[str, Any], forced: deque[str]) -> None:
    player = step.get("player")
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
        legal = [str(a) for a in state.legal_actions(player)]
        if sorted(legal) != sorted(str(a) for a in step["legal"]):
            raise ScenarioFailure(f"legal actions: expected {sorted(step['legal'])}, got {sorted(legal)}")
    if "to_act" in step and state.players_to_act() != list(step["to_act"]):
        raise ScenarioFailure(f"players to act: expected {step['to_act']}, got {state.players_to_act()}")
    if "terminal" in step and state.is_terminal() != bool(step["terminal"]):
        raise ScenarioFailure(f"terminal: expected {step['terminal']}, got {state.is_terminal()}")
    if "returns" in step:
        found = mismatch([float(r) for r in step["returns"]], state.returns(), "returns")
        if found:
            raise ScenarioFailure(found)
    if "event" in step:
        texts = [event.text for event in state.events(player)]
        for wanted in [step["event"]] if isinstance(step["event"], str) else step["event"]:
            if not any(wanted.lower() in text.lower() for text in texts):
                raise ScenarioFailure(f"no event reads '{wanted}'; last events: {texts[-5:]}")
