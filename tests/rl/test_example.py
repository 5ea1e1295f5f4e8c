"""The training example runs end to end (with a few episodes; the real run takes minutes)."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import bestiary
from bestiary.agents import SeatView, make_agent
from bestiary.core.cards import game_card_text
from tests.rl.games import RL_EXTRA

pytest.importorskip("gymnasium", reason=RL_EXTRA)

EXAMPLE = Path(__file__).parents[2] / "examples" / "train_critter_capture.py"
MASKABLE_PPO = Path(__file__).parents[2] / "examples" / "maskable_ppo.py"
BATCHED_TRAINING = Path(__file__).parents[2] / "examples" / "batched_training.py"
TRAIN_EXTRA = "the train extra is not installed (pip install -e '.[rl,train]')"


def test_training_example_trains_and_evaluates() -> None:
    out = subprocess.run([sys.executable, str(EXAMPLE), "--episodes", "40", "--eval-games", "4"],
                         capture_output=True, text=True, check=True, timeout=300)
    assert "episode    40: mean return of the last 8" in out.stdout
    rows = {line[:18].strip(): line[18:].split() for line in out.stdout.splitlines()
            if line.startswith(("trained policy", "uniform random"))}
    assert set(rows) == {"trained policy", "uniform random"}
    for scores in rows.values():
        assert all(0.0 <= float(s) <= 1.0 for s in scores)


def test_batched_training_example_trains_on_both_engines_reports_and_plots(tmp_path: Path) -> None:
    picture = tmp_path / "curves.png"
    out = subprocess.run([sys.executable, str(BATCHED_TRAINING), "--budget", "0.5", "--games", "8", "--rollout", "30",
                          "--eval-games", "8", "--confirm-games", "8", "--final-games", "8",
                          "--updates-between-evaluations", "1", "--plot", str(picture)],
                         capture_output=True, text=True, check=True, timeout=300)
    assert "with card counts" in out.stdout
    assert picture.read_bytes().startswith(b"\x89PNG") and f"learning curves drawn in {picture}" in out.stdout
    table = out.stdout.split("\nenvironment", 1)[1].split("\nlearning curves", 1)[0].splitlines()[1:]
    rows = {line[:36].strip(): line[36:].split() for line in table if line.strip()}
    assert set(rows) == {"BatchedVectorEnv (batched engine)", "BestiaryVectorEnv (Python engine)"}
    assert all(line.endswith(("  reached", "  not reached")) for line in table if line.strip())
    for last, confirmed, final, plus_minus, half, steps, *_ in rows.values():
        assert 0.0 <= float(last) <= 1.0 and 0.0 <= float(final) <= 1.0 and plus_minus == "±" and float(half) >= 0
        assert confirmed == "n/a" or 0.0 <= float(confirmed) <= 1.0
        assert int(steps.replace(",", "")) > 0


def batched_training_example() -> Any:
    spec = importlib.util.spec_from_file_location("batched_training", BATCHED_TRAINING)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def counted_from_the_observation(observation: dict[str, Any], faces: dict[str, dict[str, Any]]) -> list[float]:
    """The example's card counts worked out again, card by card, from the observation dict and the faces."""
    colours, attributes = ("fish", "bird", "mammal", "other"), ("commonness", "size")
    active = observation["active_card"]
    stacked = len(observation["under_active"]) / 10
    unseen = {colour: [faces[card] for card in observation["unseen"][colour]] for colour in colours}

    def outcome(card: dict[str, Any], attribute: str) -> str:
        kind, colour = card["ability"].rsplit(" ", 1)
        if colour == active["colour"]:
            return {"capture": "beat", "block": "block", "trapped by": "lose to"}[kind]
        if card[attribute] == active[attribute]:
            return "tie"
        return "beat" if card[attribute] > active[attribute] else "lose to"

    counts = [len(unseen[colour]) / 12 for colour in colours]
    counts += [sum(c[a] for c in unseen[colour]) / max(len(unseen[colour]), 1) / 10
               for colour in colours for a in attributes]
    counts += [active[a] / 10 if active else 0.0 for a in attributes]
    counts += [float(bool(active) and active["colour"] == colour) for colour in colours] + [stacked]
    shares = {(colour, a, o): (sum(outcome(c, a) == o for c in unseen[colour]) / max(len(unseen[colour]), 1)
                               if active else 0.0)
              for colour in colours for a in attributes for o in ("beat", "lose to", "block", "tie")}
    counts += list(shares.values())
    pool = [card for cards in unseen.values() for card in cards]
    counts += [sum(c[a] < active[a] for c in pool) / max(len(pool), 1) if active else 0.0 for a in attributes]
    counts += [shares[colour, a, "beat"] * stacked for colour in colours for a in attributes]
    return counts


def test_the_card_counts_are_what_the_observation_shows_at_every_step_of_random_games() -> None:
    example = batched_training_example()
    counts = example.CardCounts()
    assert counts.size == len(counts.names()) == len(counted_from_the_observation(
        {"active_card": None, "under_active": [], "unseen": {colour: [] for colour in example.COLOURS}}, {}))
    game = bestiary.load_game("critter-capture", players=2)
    faces = {card["id"]: card for card in tomllib.loads(game_card_text(game) or "")["cards"]}
    rng = random.Random(3)
    steps = 0
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.sample_chance_outcome(rng))
                continue
            for viewer in (0, 1):
                got = counts(state.observation_tensor(viewer)[None])[0]
                expected = counted_from_the_observation(state.observation(viewer), faces)
                assert np.allclose(got, expected, atol=1e-6), (state.observation(viewer)["phase"], viewer)
            player = state.current_player()
            state.apply_action(rng.choice(state.legal_actions(player)), player)
            steps += 1
    assert steps > 100


def test_maskable_ppo_example_clones_trains_evaluates_and_saves(tmp_path: Path) -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib", reason=TRAIN_EXTRA)
    saved = tmp_path / "policy.zip"
    out = subprocess.run([sys.executable, str(MASKABLE_PPO), "--clone-games", "4", "--clone-epochs", "1",
                          "--steps", "256", "--envs", "2", "--eval-games", "2", "--eval-seed", "7",
                          "--save", str(saved)],
                         capture_output=True, text=True, check=True, timeout=300)
    assert sb3_contrib.MaskablePPO.load(saved).num_timesteps >= 256
    assert "Cloned the teacher (heuristic) from 4 games" in out.stdout
    assert "Trained MaskablePPO for 256 decisions" in out.stdout
    rows = {line[:16].strip(): line[16:].split() for line in out.stdout.splitlines()
            if line.startswith(("MaskablePPO", "cloned policy", "heuristic", "uniform random"))}
    assert set(rows) == {"MaskablePPO", "cloned policy", "heuristic", "uniform random"}
    for row in rows.values():  # score ± half, margin ± half, gain ± half
        assert len(row) == 9 and row[1::3] == ["±"] * 3 and all(float(half) >= 0.0 for half in row[2::3])
        score, margin, gain = (float(mean) for mean in row[0::3])
        assert 0.0 <= score <= 1.0 and -1.0 <= margin <= 1.0 and -1.0 <= gain <= 1.0
    assert rows["heuristic"][6:] == ["+0.000", "±", "0.000"]  # the heuristic's gain over itself, game by game


def maskable_ppo_example() -> Any:
    """The example imported by name from its folder, as the processes that record for it import it."""
    pytest.importorskip("sb3_contrib", reason=TRAIN_EXTRA)
    if str(MASKABLE_PPO.parent) not in sys.path:
        sys.path.append(str(MASKABLE_PPO.parent))
    return importlib.import_module(MASKABLE_PPO.stem)


def test_a_search_teacher_is_recorded_alike_on_one_process_or_two_and_kept_in_its_cache(tmp_path: Path) -> None:
    example = maskable_ppo_example()
    alone = example.teacher_decisions("mcts:sims=8", 3, seed=5, advice=True, jobs=1)
    shared = example.teacher_decisions("mcts:sims=8", 3, seed=5, advice=True, jobs=2)
    for one, two in zip(alone, shared, strict=True):
        assert np.array_equal(one, two)
    observations, masks, actions, results = alone
    assert len(observations) == len(masks) == len(actions) == len(results) > 0
    assert masks[np.arange(len(actions)), actions].all()  # every recorded action was legal
    assert set(results.tolist()) <= {0.0, 0.5, 1.0}

    cache = tmp_path / "teacher.npz"
    recorded = example.recorded_decisions("mcts:sims=8", 3, 5, True, 1, cache)
    assert cache.exists()
    again = example.recorded_decisions("mcts:sims=8", 3, 5, True, 1, cache)
    for one, two, three in zip(alone, recorded, again, strict=True):
        assert np.array_equal(one, two) and np.array_equal(one, three)
    with pytest.raises(SystemExit, match="holds other decisions"):
        example.recorded_decisions("heuristic", 3, 5, True, 1, cache)


def test_heuristic_advice_is_the_heuristics_choice_at_every_decision() -> None:
    example = maskable_ppo_example()
    heuristic = make_agent("heuristic")
    for seat in (0, 1):
        env = example.make_env(seat, advice=True)
        observation, _ = env.reset(seed=seat)
        plain = observation.size - env.action_space.n
        done = False
        while not done:
            expected = heuristic.act(SeatView(env.unwrapped.game_state, seat), random.Random(0)).index
            assert observation[plain:].tolist() == [float(i == expected) for i in range(env.action_space.n)]
            assert env.action_masks()[expected]
            observation, _, done, _, _ = env.step(expected)
        assert not observation[plain:].any()  # the game is over: no advice
