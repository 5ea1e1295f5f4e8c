"""One vocabulary of flags across the long commands: -n/--players, -g/--games, -j/--jobs, --cards, --seed,
--out; old spellings refused with the new one; `--version`; shell completion; `-g 0` refused at once."""

from __future__ import annotations

import pytest
from typer.main import get_command
from typer.testing import CliRunner

import bestiary
from bestiary.cli.main import app

runner = CliRunner()
LONG_COMMANDS = ("simulate", "sweep", "tune", "skill", "tournament", "fit-value")


def flags_of(command: str) -> set[str]:
    click_command = get_command(app).commands[command]  # type: ignore[attr-defined]
    return {flag for parameter in click_command.params if not getattr(parameter, "hidden", False)
            for flag in parameter.opts}


@pytest.mark.parametrize("command", LONG_COMMANDS)
def test_every_long_command_speaks_the_same_flags(command):
    flags = flags_of(command)
    assert {"-g", "--games", "-j", "--jobs", "--cards", "--seed"} <= flags
    assert {"-n", "--players"} <= flags
    assert "--json" not in flags and "--out-dir" not in flags and "-p" not in flags


@pytest.mark.parametrize(("arguments", "pointer"), [
    (["skill", "critter-capture", "-p", "3"], "-p is now -n/--players"),
    (["skill", "critter-capture", "--json", "x.json"], "--json is now --out"),
    (["tournament", "critter-capture", "--json", "x.json"], "--json is now --out"),
    (["sweep", "critter-capture", "--param", "rechoose_on_takeover=false,true", "--out-dir", "x"],
     "--out-dir is now --out"),
])
def test_old_spellings_are_refused_with_the_new_one(arguments, pointer, tmp_path):
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2 and pointer in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", LONG_COMMANDS)
def test_no_games_is_refused_before_any_progress_bar(command):
    extra = {"sweep": ["--param", "rechoose_on_takeover=false,true"],
             "tune": ["--param", "rechoose_on_takeover=false,true", "--target", "seat-balance"]}.get(command, [])
    result = runner.invoke(app, [command, "critter-capture", "-g", "0", *extra])
    assert result.exit_code == 2 and "--games must be at least 1, not 0" in result.output
    assert "games/s" not in result.output and "━" not in result.output


def test_version_and_completion():
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"bestiary {bestiary.__version__}"
    assert "--install-completion" in runner.invoke(app, ["--help"]).output
