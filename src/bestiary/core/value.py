"""Values fitted to played games: each player's chance to win from a few numbers describing the position.

A game's heuristic may describe a position by features, one list per player (its `features(state)`; None
where it does not score a position, such as the middle of a combat). A `FeatureValue` turns them into each
player's chance to win, P(p) = exp(w . f_p) / sum over q of exp(w . f_q) (a conditional logit), with the
weights `w` read from a TOML file that `bestiary fit-value` writes:

    [value]
    game = "cube-creatures"   # the game the features belong to
    ...                       # how the weights were fitted (games, seed, held-out log loss, ...)

    [weights]
    victory = 1.08            # one weight per feature name, no more and no fewer
    ...

Every problem with the file is a ValueFileError naming the file, the line and the field.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from bestiary.core.errors import ValueFileError
from bestiary.core.tomlfile import read_toml

PlayerFeatures = Sequence[float] | None  # None: a player out of the game, who cannot win


@dataclass(frozen=True)
class FeatureValue:
    """Weights for a game's named features, and what the file says of how they were fitted."""

    game: str
    names: tuple[str, ...]
    weights: tuple[float, ...]
    fitted: Mapping[str, Any]
    path: str

    def win_chances(self, features: Sequence[PlayerFeatures]) -> list[float]:
        return win_chances(features, self.weights)


def win_chances(features: Sequence[PlayerFeatures], weights: Sequence[float]) -> list[float]:
    """Each player's chance to win: the softmax of the weighted sums of its features (0 for None)."""
    scores = [None if f is None else math.fsum(w * x for w, x in zip(weights, f, strict=True)) for f in features]
    top = max((s for s in scores if s is not None), default=0.0)
    shares = [0.0 if s is None else math.exp(s - top) for s in scores]
    total = sum(shares)
    return [share / total for share in shares] if total else [1.0 / len(features)] * len(features)


def load_value(path: str | Path, game: str, names: Sequence[str]) -> FeatureValue:
    """Read a value file for `game` whose [weights] name exactly `names`."""
    path = Path(path)
    shown = str(path)
    text, data = read_toml(path, partial(ValueFileError, shown))

    def line_of(key: str, table: str) -> int | None:
        return _line_of(text, table, key)

    unknown = sorted(set(data) - {"value", "weights"})
    if unknown:
        raise ValueFileError(shown, "unknown table (expected [value] and [weights])", field=unknown[0],
                             line=_line_of(text, None, unknown[0]))
    meta, weights = data.get("value"), data.get("weights")
    if not isinstance(meta, dict):
        raise ValueFileError(shown, "missing the [value] table (the game and how the weights were fitted)")
    if not isinstance(weights, dict):
        raise ValueFileError(shown, "missing the [weights] table (one weight per feature)")
    if meta.get("game") != game:
        raise ValueFileError(shown, f"the weights are for {meta.get('game')!r}, not {game!r}", field="value.game",
                             line=line_of("game", "value"))
    for name, weight in weights.items():
        if name not in names:
            raise ValueFileError(shown, f"{game} has no feature '{name}' (features: {', '.join(names)})",
                                 field=f"weights.{name}", line=line_of(name, "weights"))
        if isinstance(weight, bool) or not isinstance(weight, int | float) or not math.isfinite(weight):
            raise ValueFileError(shown, f"a weight is a finite number, not {weight!r}", field=f"weights.{name}",
                                 line=line_of(name, "weights"))
    missing = [name for name in names if name not in weights]
    if missing:
        raise ValueFileError(shown, f"no weight for feature '{missing[0]}'", field=f"weights.{missing[0]}",
                             line=_line_of(text, None, "weights"))
    fitted = {key: value for key, value in meta.items() if key != "game"}
    return FeatureValue(game, tuple(names), tuple(float(weights[name]) for name in names), fitted, shown)


def value_file_text(game: str, names: Sequence[str], weights: Sequence[float], fitted: Mapping[str, Any],
                    comment: str = "") -> str:
    """The TOML text of a value file (what load_value reads back)."""
    lines = [f"# {line}" if line else "#" for line in comment.splitlines()]
    lines += ["[value]", f"game = {_toml(game)}"]
    lines += [f"{key} = {_toml(value)}" for key, value in fitted.items()]
    lines += ["", "[weights]"]
    lines += [f"{name} = {weight:.6g}" for name, weight in zip(names, weights, strict=True)]
    return "\n".join(lines) + "\n"


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _line_of(text: str, table: str | None, key: str) -> int | None:
    """The line of `key` inside `[table]` (or of the header `[key]` when `table` is None)."""
    lines = text.splitlines()
    if table is None:
        header = re.compile(r"^\s*\[\s*" + re.escape(key) + r"\s*\]")
        return next((n + 1 for n, line in enumerate(lines) if header.match(line)), None)
    inside = False
    for number, line in enumerate(lines):
        if re.match(r"^\s*\[", line):
            inside = bool(re.match(r"^\s*\[\s*" + re.escape(table) + r"\s*\]", line))
        elif inside and re.match(r"^\s*" + re.escape(key) + r"\s*=", line):
            return number + 1
    return None
