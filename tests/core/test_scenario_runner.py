"""The scenario runner reports failures precisely instead of passing them by."""

from __future__ import annotations

from pathlib import Path

from bestiary.core.scenario import deep_merge, mismatch, run_scenario, scenario_files

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
    assert "no game named 'chess'" in run(tmp_path, 'game = "chess"\nsteps = []\n').message
    assert "a scenario has 'steps' or 'refused'" in run(tmp_path, 'game = "critter-capture"\n').message


def test_matching_and_merging() -> None:
    assert mismatch({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2, "c": 3}], "d": 4}, "s") is None
    assert mismatch({"a": [1]}, {"a": [1, 2]}, "s") == "s.a: expected [1], got [1, 2]"
    assert mismatch({"a": "<none>"}, {"a": None}, "s") is None
    assert mismatch({"a": "<none>"}, {"a": 0}, "s") is not None
    assert mismatch({"x": 1}, {}, "s") == "s.x: missing"
    assert deep_merge({"a": {"b": 1, "c": 2}, "d": [1]}, {"a": {"b": 5}, "d": [], "e": "<none>"}) == \
        {"a": {"b": 5, "c": 2}, "d": [], "e": None}


def test_list_checks_contains_excludes_and_length() -> None:
    actual = [{"id": "a", "n": 1}, {"id": "b", "n": 2}]
    assert mismatch({"contains": [{"id": "b"}], "excludes": [{"id": "c"}], "length": 2}, actual, "s") is None
    assert "no entry matches {'id': 'c'}" in (mismatch({"contains": [{"id": "c"}]}, actual, "s") or "")
    assert "must not be there" in (mismatch({"excludes": [{"n": 1}]}, actual, "s") or "")
    assert "expected 3 entries, got 2" in (mismatch({"length": 3}, actual, "s") or "")
    assert mismatch({"x": {"contains": [1]}}, {"x": [2, 1]}, "s") is None  # inside a partial state


def test_legal_in_part_and_events_of_the_step_or_the_whole_log(tmp_path: Path) -> None:
    steps = '[[steps]]\nact = "draw fish"\nplayer = 0\n'
    ok = run(tmp_path, HEAD + steps + '[[steps]]\nplayer = 0\n'
             'legal = { contains = ["choose size"], excludes = ["draw fish"], length = 2 }\n'
             '[[steps]]\nact = "choose size"\nplayer = 0\nevent = "Brook trout"\nlogged = "draws a fish"\n')
    assert ok.passed, ok.message
    wrong = run(tmp_path, HEAD + steps + '[[steps]]\nplayer = 0\nlegal = { contains = ["draw fish"] }\n')
    assert not wrong.passed and "no entry matches 'draw fish'" in wrong.message
    # `event` looks at its own step only: the draw's event belongs to step 1
    earlier = run(tmp_path, HEAD + steps + '[[steps]]\nact = "choose size"\nplayer = 0\nevent = "draws a fish"\n')
    assert not earlier.passed and "this step's last events" in earlier.message


def test_an_expected_refusal_passes_only_with_its_text(tmp_path: Path) -> None:
    head = 'game = "critter-capture"\noptions = { players = 5 }\n'
    assert run(tmp_path, head + 'refused = "need ecoregions=5"\n').passed
    wrong = run(tmp_path, head + 'refused = "too many"\n')
    assert not wrong.passed and "expected a message containing 'too many'" in wrong.message
    accepted = run(tmp_path, 'game = "critter-capture"\noptions = { players = 4 }\nrefused = "x"\n')
    assert not accepted.passed and "but it was accepted" in accepted.message


def test_forced_shuffles_fix_the_deal_and_must_list_the_pile(tmp_path: Path) -> None:
    head = 'game = "cube-creatures"\noptions = { players = 2 }\nseed = 3\n'
    bad = run(tmp_path, head + 'shuffles = [["lure"]]\nsteps = []\n')
    assert not bad.passed and "must list exactly the 60 cards shuffled" in bad.message


def test_a_folder_run_picks_scenarios_and_leaves_data_files(tmp_path: Path) -> None:
    (tmp_path / "a.toml").write_text(HEAD + "steps = []\n")
    (tmp_path / "b.toml").write_text('game = "critter-capture"\noptions = { players = 5 }\nrefused = "5"\n')
    (tmp_path / "cards.toml").write_text('[set]\nname = "x"\n')
    (tmp_path / "state.json").write_text('{"format": "bestiary-state/1"}')
    (tmp_path / "notes.txt").write_text("x")
    assert [p.name for p in scenario_files([tmp_path])] == ["a.toml", "b.toml"]
