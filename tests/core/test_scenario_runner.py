"""The scenario runner reports failures precisely instead of passing them by."""

from __future__ import annotations

from pathlib import Path

from bestiary.core.scenario import deep_merge, mismatch, run_scenario

HEAD = 'game = "critter-capture"\noptions = { players = 2 }\nchance = ["flip brook-trout"]\n'


def run(tmp_path: Path, text: str):
    path = tmp_path / "s.toml"
    path.write_text(text)
    return run_scenario(path)


def test_a_wrong_expectation_fails_naming_the_path(tmp_path: Path) -> None:
    result = run(tmp_path, HEAD + '[[steps]]\nact = "draw fish"\nplayer = 0\n'
                 '[[steps]]\nact = "choose size"\nplayer = 0\nexpect = { stack = ["bluegill"] }\n')
    assert not result.passed and result.step == 2
    assert "state.stack[0]: expected 'bluegill', got 'brook-trout'" in result.message


def test_an_accepted_illegal_action_and_a_refused_act_both_fail(tmp_path: Path) -> None:
    accepted = run(tmp_path, HEAD + '[[steps]]\nillegal = "draw fish"\nplayer = 0\n')
    assert not accepted.passed and "was accepted" in accepted.message
    refused = run(tmp_path, HEAD + '[[steps]]\nact = "draw fish"\nplayer = 1\n')
    assert not refused.passed and "was refused" in refused.message


def test_malformed_scenarios_are_reported(tmp_path: Path) -> None:
    assert "unknown key 'stepz'" in run(tmp_path, HEAD + "[[stepz]]\n").message
    assert "unknown key 'acts'" in run(tmp_path, HEAD + '[[steps]]\nacts = "x"\n').message
    assert "cannot parse" in run(tmp_path, "game = \n").message
    assert "no game named 'chess'" in run(tmp_path, 'game = "chess"\n').message


def test_matching_and_merging() -> None:
    assert mismatch({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2, "c": 3}], "d": 4}, "s") is None
    assert mismatch({"a": [1]}, {"a": [1, 2]}, "s") == "s.a: expected [1], got [1, 2]"
    assert mismatch({"a": "<none>"}, {"a": None}, "s") is None
    assert mismatch({"a": "<none>"}, {"a": 0}, "s") is not None
    assert mismatch({"x": 1}, {}, "s") == "s.x: missing"
    assert deep_merge({"a": {"b": 1, "c": 2}, "d": [1]}, {"a": {"b": 5}, "d": [], "e": "<none>"}) == \
        {"a": {"b": 5, "c": 2}, "d": [], "e": None}
