"""Fingerprints of seeded random games, step by step, so that a faster engine can be checked to play exactly
the games the engine before it played.

A game's fingerprint hashes, at every step, who acts and how (`decision_kind`, `players_to_act`,
`current_player`), each acting seat's observation and legal list with indices, the chance outcomes with
their odds; every few steps every seat's and a spectator's observation and event log and the whole state as
JSON (a clone's, which must be the state's own); and at the end the returns, the result and the JSON with
history and events. The recorded fingerprints live beside each game's tests (`step_fingerprints.json`),
written by the engine as it was before a change made for speed:

    python -m tests.step_fingerprint creatures-of-lungo tests/games/lungo/step_fingerprints.json

Rewrite that file only for a deliberate change of the rules, never to make a speed change pass.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import bestiary
from bestiary.core.api import CHANCE, Game

FULL_CHECK_EVERY = 10  # steps between readings of the event log and the whole state


def game_fingerprint(game: Game, seed: int) -> str:
    """The fingerprint of the random game `seed` plays (chance by its odds, a random seat's random action)."""
    digest = hashlib.sha256()

    def add(value: Any) -> None:
        digest.update(json.dumps(value, sort_keys=True, default=str).encode())

    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    seats: list[int | None] = [*range(game.num_players), None]
    steps = 0
    while not state.is_terminal():
        add([steps, state.current_player(), state.decision_kind(), state.players_to_act(), state.is_chance_node()])
        if steps % FULL_CHECK_EVERY == 0:
            for seat in seats:
                add(state.observation(seat))
                add([event.to_dict() for event in state.events(seat)])
            text = state.clone().to_json()
            assert text == state.to_json(), f"seed {seed}, step {steps}: the clone differs"
            add(text)
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            add([(str(a), a.index, p) for a, p in outcomes])
            state.apply_action(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            to_act = state.players_to_act()
            player = rng.choice(to_act)
            for other in to_act:  # the chosen seat's list last, so that applying its action uses the list kept
                add(state.observation(other))
                if other != player:
                    add([other, [(str(a), a.index) for a in state.legal_actions(other)]])
            legal = state.legal_actions(player)
            add([player, [(str(a), a.index) for a in legal]])
            state.apply_action(rng.choice(legal), player)
        steps += 1
    add([state.returns(), state.result(), state.to_json()])
    for seat in seats:
        add([event.to_dict() for event in state.events(seat)])
    add([state.legal_actions(), state.chance_outcomes(), state.current_player() == CHANCE])
    return digest.hexdigest()[:16]


def fingerprints(name: str, configurations: list[dict[str, Any]], seeds: range) -> dict[str, dict[str, str]]:
    """Per configuration (its options as JSON) and seed, the game's fingerprint."""
    out = {}
    for options in configurations:
        game = bestiary.load_game(name, **options)
        out[json.dumps(options, sort_keys=True)] = {str(seed): game_fingerprint(game, seed) for seed in seeds}
    return out


def recorded(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def write(name: str, path: Path, configurations: list[dict[str, Any]], seeds: range) -> None:
    data = {"game": name, "seeds": [seeds.start, seeds.stop], "configurations": configurations,
            "fingerprints": fingerprints(name, configurations, seeds)}
    path.write_text(json.dumps(data, indent=1) + "\n")


if __name__ == "__main__":
    game_name, target = sys.argv[1], Path(sys.argv[2])
    old = recorded(target)
    write(game_name, target, old["configurations"], range(*old["seeds"]))
