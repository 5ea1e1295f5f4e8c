"""The `bestiary` command as a user meets it."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from bestiary.cli.main import app

runner = CliRunner()
SCENARIOS = Path(__file__).parents[1] / "scenarios" / "critter-capture"


def invoke(*args: str, input: str | None = None):
    return runner.invoke(app, list(args), input=input, terminal_width=200)


def test_games_lists_names_counts_and_options() -> None:
    result = invoke("games")
    assert result.exit_code == 0
    assert "critter-capture" in result.output and "2, 3, 4, 6" in result.output
    assert "rechoose_on_takeover" in result.output


def test_rules_prints_the_rules_document() -> None:
    result = invoke("rules", "critter-capture")
    assert result.exit_code == 0
    assert "CRITTERS-23" in result.output and "trapped by" in result.output
    assert invoke("rules", "chess").exit_code == 2


def test_play_between_computers_to_the_end_and_replay_the_record(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    result = invoke("play", "critter-capture", "-n", "3", "--seat", "heuristic", "--seat", "random",
                    "--seed", "11", "--record", str(record))
    assert result.exit_code == 0, result.output
    assert "Game over" in result.output and "Final scores" in result.output
    saved = json.loads(record.read_text())
    assert saved["seats"] == ["heuristic", "random", "random"] and saved["result"]["returns"]
    replayed = invoke("replay", str(record))
    assert replayed.exit_code == 0 and "the state matches the record" in replayed.output
    saved["actions"][3][1] = "draw fish" if saved["actions"][3][1] != "draw fish" else "draw bird"
    record.write_text(json.dumps(saved))
    broken = invoke("replay", str(record), "--quiet")
    assert broken.exit_code == 2 and "step" in broken.output


def test_a_human_gets_clear_messages_for_bad_input_and_can_quit(tmp_path: Path) -> None:
    record = tmp_path / "left.json"
    result = invoke("play", "critter-capture", "-n", "2", "--seat", "human", "--seat", "random", "--seed", "3",
                    "--record", str(record), input="xyz\n0\n9\nchoose size\nhelp\n2\n2\nquit\n")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "'xyz' is not an action of this game" in out
    assert "No action 0: choose 1 to 4" in out and "No action 9" in out
    assert "'choose size' is refused: commonness or size is chosen only before" in out  # the engine's reason
    assert "Type the number or the text of an action" in out
    assert "P1 draws a bird card" in out and "Game left unfinished" in out
    assert "Traceback" not in out
    saved = json.loads(record.read_text())
    assert saved["result"] is None and saved["actions"][:2] == [[0, "draw bird"], [0, "choose size"]]


def test_play_refuses_bad_setups_without_a_traceback() -> None:
    for args, message in [(("play", "chess"), "no game named 'chess'"),
                          (("play", "critter-capture", "-n", "5"), "need ecoregions=5"),
                          (("play", "critter-capture", "-s", "wizard"), "no agent named 'wizard'"),
                          (("play", "critter-capture", "-o", "colours"), "--option wants key=value"),
                          (("play", "critter-capture", "--cards", "/nonexistent.toml"), "cannot read")]:
        result = invoke(*args)
        assert result.exit_code == 2, (args, result.output)
        assert message in result.output and "Traceback" not in result.output


def test_scenario_command_reports_each_file_and_fails_on_any_failure(tmp_path: Path) -> None:
    good = invoke("scenario", str(SCENARIOS))
    assert good.exit_code == 0 and "0 failed" in good.output
    bad = tmp_path / "bad.toml"
    bad.write_text('game = "critter-capture"\n[[steps]]\nlegal = ["draw nothing"]\nplayer = 0\n')
    result = invoke("scenario", str(SCENARIOS / "tie-stacks-the-cards.toml"), str(bad))
    assert result.exit_code == 1
    assert "1 passed, 1 failed" in result.output and "FAIL" in result.output


def test_long_action_lists_are_summarised_and_listed_on_request() -> None:
    result = invoke("play", "crits-creatures", "--seat", "human", "--seat", "heuristic", "--seed", "2",
                    "--option", "first_player=0", input="list end\nlist\nquit\n")
    assert result.exit_code == 0, result.output
    first_prompt = result.output.split("P1>")[0]
    assert "move (" in first_prompt and "to number" in first_prompt
    assert "  1  move" not in first_prompt  # not every move before the player asks
    listed = result.output.split("P1>")[1]
    assert "end turn" in listed and "move" not in listed
    assert "  1  move" in result.output.split("P1>")[2]
