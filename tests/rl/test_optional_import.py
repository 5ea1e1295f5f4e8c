"""The research libraries stay optional: `import bestiary` never loads them, and a missing one is named."""

from __future__ import annotations

import subprocess
import sys

import pytest

import bestiary
from bestiary.core.api import Game, State
from bestiary.rl import table


def test_import_bestiary_loads_no_research_library() -> None:
    code = ("import sys, bestiary, bestiary.rl, bestiary.rl.table; "
            "print(sorted(m for m in ('gymnasium', 'pettingzoo', 'pyspiel') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_missing_library_names_the_extra() -> None:
    with pytest.raises(ImportError, match=r"rl extra: pip install 'bestiary\[rl\]'"):
        table.require("bestiary_no_such_library")


def test_a_game_without_a_tensor_says_so() -> None:
    game = bestiary.load_game("critter-capture", players=2)
    with pytest.raises(NotImplementedError, match="critter-capture has no observation tensor yet"):
        Game.observation_tensor_shape(game)  # the core's default, which a game overrides
    with pytest.raises(NotImplementedError, match="critter-capture has no observation tensor yet"):
        State.observation_tensor(game.new_initial_state(seed=0), 0)
