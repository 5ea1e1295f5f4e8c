"""Every Python block of docs/rl.md and of the README's section for researchers runs as written.

A block that imports an optional library beyond the rl extra (the train extra's sb3-contrib and PyTorch, or
JAX) is skipped only where that library is not installed; the rl extra itself is required, as everywhere in
tests/rl."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from tests.rl.games import RL_EXTRA

pytest.importorskip("gymnasium", reason=RL_EXTRA)
pytest.importorskip("pettingzoo", reason=RL_EXTRA)
pytest.importorskip("pyspiel", reason=RL_EXTRA)

ROOT = Path(__file__).resolve().parents[2]
OPTIONAL = ("stable_baselines3", "sb3_contrib", "torch", "jax", "pgx")
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def section(text: str, heading: str) -> str:
    """The text under a Markdown heading, up to the next heading of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    start = text.index(heading + "\n")
    rest = text[start + len(heading) + 1:]
    end = re.search(rf"^#{{1,{len(level)}}} ", rest, re.MULTILINE)
    return rest[:end.start()] if end else rest


def blocks() -> list[tuple[str, str]]:
    found = []
    for name, text in (("docs/rl.md", (ROOT / "docs" / "rl.md").read_text()),
                       ("README.md", section((ROOT / "README.md").read_text(), "### For researchers"))):
        for k, match in enumerate(BLOCK.finditer(text)):
            line = text[:match.start()].count("\n") + 2
            found.append((f"{name}:{line}" if name == "docs/rl.md" else f"{name} block {k + 1}", match.group(1)))
    return found


BLOCKS = blocks()


def test_the_documents_have_blocks_to_run() -> None:
    assert sum(1 for where, _ in BLOCKS if where.startswith("docs/rl.md")) >= 6
    assert any(where.startswith("README.md") for where, _ in BLOCKS)


@pytest.mark.parametrize("code", [code for _, code in BLOCKS], ids=[where for where, _ in BLOCKS])
def test_the_block_runs_as_written(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for module in OPTIONAL:
        if re.search(rf"^\s*(import|from) {module}\b", code, re.MULTILINE) and importlib.util.find_spec(module) is None:
            pytest.skip(f"the block needs {module}, which is not installed")
    monkeypatch.chdir(tmp_path)  # whatever a block writes lands here
    exec(compile(code, "<docs block>", "exec"), {"__name__": "__main__"})
