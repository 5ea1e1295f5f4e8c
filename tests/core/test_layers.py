"""core/ knows no game and no terminal: it imports nothing from games/ and not rich, so that what a game is comes
from the game's own declaration (GameInfo) and its pictures are plain text to anything but the terminal."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CORE = Path(__file__).parents[2] / "src" / "bestiary" / "core"


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(CORE.glob("*.py")), ids=lambda path: path.name)
def test_core_imports_no_game_and_not_the_terminal_library(path: Path) -> None:
    names = imported(path)
    assert not {name for name in names if name == "bestiary.games" or name.startswith("bestiary.games.")}
    assert not {name for name in names if name == "rich" or name.startswith("rich.")}


def test_the_check_reads_imports() -> None:
    assert "bestiary.core.errors" in imported(CORE / "api.py")  # so an empty set above means something


TOOLS = [CORE.parent / part for part in ("rl", "server", "cli", "agents", "analysis", "review")]
GAME_NAMES = {"critter-capture", "cube-creatures", "creatures-of-lungo", "crits-creatures"}


def game_names_in_code(path: Path) -> list[int]:
    """Lines where the code (not a docstring or a help text) spells a game's name."""
    tree = ast.parse(path.read_text(), str(path))
    prose = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}  # docstrings
    prose |= {id(keyword.value) for node in ast.walk(tree) if isinstance(node, ast.Call)
              for keyword in node.keywords if keyword.arg == "help"}
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Constant) and node.value in GAME_NAMES
            and id(node) not in prose]


@pytest.mark.parametrize("path", sorted(p for tool in TOOLS for p in tool.rglob("*.py")),
                         ids=lambda path: str(path.relative_to(CORE.parent)))
def test_the_tools_keep_no_table_of_games(path: Path) -> None:
    """What a game is comes from its GameInfo: the terminal, the server, the adapters, the agents and the analysis
    name no game in their code."""
    assert game_names_in_code(path) == []


def test_the_table_check_finds_a_name(tmp_path: Path) -> None:
    table = tmp_path / "table.py"
    table.write_text('"""critter-capture"""\nRANGES = {"critter-capture": (2, 12)}\n')
    assert game_names_in_code(table) == [2]
