"""Fitting a game's value to played games (`bestiary fit-value`).

A game whose heuristic describes positions by features (`FEATURES`, `features(state)`; core.value) scores
them with weights fitted here. Heuristic players, each move replaced by a random one with chance `epsilon`
(so that the positions vary, and a feature the heuristic always sets alike still gets a fair weight), play
seeded games; every position where the heuristic gives features is kept (at most `positions` a game, drawn
at random, as positions of one game are alike), labelled with each player's share of the result. The weights
maximise the likelihood of those shares under core.value's conditional logit, by Newton's method on
standardised features with a small ridge penalty. The last fifth of the games is held out: the fitted and the
current weights are scored on it by log loss (the mean of -log P(winner)), against the loss of knowing
nothing (log of the number of players).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bestiary.agents.base import Agent, HeuristicAgent, SeatView
from bestiary.agents.match import play_match
from bestiary.agents.tournament import winners_share
from bestiary.core.api import JSON, Action, Game, State
from bestiary.core.errors import OptionError
from bestiary.core.pool import worker_pool
from bestiary.core.registry import load_game
from bestiary.core.value import FeatureValue, PlayerFeatures, value_file_text, win_chances

HELD_OUT = 0.2  # the share of games (the last ones) kept out of the fit and scored
RIDGE = 1e-3  # penalty on the standardised weights
NEWTON_STEPS = 30


@dataclass(frozen=True)
class Position:
    features: list[PlayerFeatures]
    shares: list[float]  # each player's share of the game's point


@dataclass(frozen=True)
class Fit:
    game: str
    names: tuple[str, ...]
    weights: tuple[float, ...]
    fitted: dict[str, Any]  # how: games, positions, seed, epsilon, log losses

    def file_text(self) -> str:
        return value_file_text(self.game, self.names, self.weights, self.fitted, comment=(
            f"Weights of {self.game}'s value: each player's chance to win is the softmax of these weights times\n"
            "the features its heuristic reads of the position (games/<game>/heuristic.py, FEATURES).\n"
            f"Made by: bestiary fit-value {self.game} --players {self.fitted['players']} --games "
            f"{self.fitted['games']} --seed {self.fitted['seed']} --epsilon {self.fitted['epsilon']} "
            f"--positions {self.fitted['positions_per_game']}"))


class EpsilonHeuristic(Agent):
    """The game's heuristic, each move replaced by a uniformly random legal one with chance `epsilon`."""

    name = "heuristic"

    def __init__(self, epsilon: float) -> None:
        self.epsilon = epsilon
        self.heuristic = HeuristicAgent()

    def act(self, view: SeatView, rng: random.Random) -> Action:
        if rng.random() < self.epsilon:
            return rng.choice(view.legal_actions)
        return self.heuristic.act(view, rng)


def feature_source(game: Game) -> tuple[Sequence[str], Callable[[State], list[PlayerFeatures] | None], FeatureValue]:
    """The heuristic's feature names, its `features(state)` and its current weights; OptionError without them."""
    policy = game.heuristic_policy()
    names, features, weights = (getattr(policy, key, None) for key in ("FEATURES", "features", "weights"))
    if names is None or features is None or not isinstance(weights, FeatureValue):
        raise OptionError(f"{game.info.name}'s heuristic has no features to fit a value to")
    return names, features, weights


def play_and_collect(name: str, options: JSON, seed: int, epsilon: float, positions: int) -> list[Position]:
    """One seeded game between epsilon-heuristic players; up to `positions` of its featured positions."""
    game = load_game(name, **options)
    _, features, _ = feature_source(game)
    seen: list[list[PlayerFeatures]] = []

    def watch(state: State) -> None:
        described = features(state)
        if described is not None:
            seen.append(described)

    final = play_match(game, [EpsilonHeuristic(epsilon) for _ in range(game.num_players)], seed, watch)
    kept = random.Random(f"bestiary-fit-value/{seed}").sample(seen, min(positions, len(seen)))
    shares = winners_share(final.returns())
    return [Position(described, shares) for described in kept]


def collect(name: str, options: JSON, games: int, seed: int, epsilon: float, positions: int, jobs: int = 1,
            on_game: Callable[[int, int], None] | None = None) -> list[list[Position]]:
    """The positions of each of `games` games (in game order, whatever `jobs` is)."""
    seeds = [random.Random(f"bestiary-fit-value/{seed}/{number}").randrange(2**63) for number in range(games)]
    results: list[list[Position]] = []
    if jobs <= 1:
        for game_seed in seeds:
            results.append(play_and_collect(name, options, game_seed, epsilon, positions))
            if on_game:
                on_game(len(results), games)
        return results
    with worker_pool(jobs) as pool:  # stopped, it cancels what is queued and ends its workers
        futures = [pool.submit(play_and_collect, name, options, s, epsilon, positions) for s in seeds]
        for future in futures:
            results.append(future.result())
            if on_game:
                on_game(len(results), games)
    return results


def _arrays(positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Features (positions x players x features, 0 for a player out), shares, and who is still in."""
    features = np.array([[f if f is not None else [0.0] * len(next(x for x in p.features if x is not None))
                          for f in p.features] for p in positions], dtype=float)
    shares = np.array([p.shares for p in positions], dtype=float)
    playing = np.array([[f is not None for f in p.features] for p in positions], dtype=bool)
    return features, shares, playing


def _chances(features: np.ndarray, playing: np.ndarray, weights: np.ndarray) -> np.ndarray:
    scores = np.where(playing, features @ weights, -np.inf)
    scores -= scores.max(axis=1, keepdims=True)
    shares = np.exp(scores)
    chances: np.ndarray = shares / shares.sum(axis=1, keepdims=True)
    return chances


def fit_weights(positions: Sequence[Position], ridge: float = RIDGE) -> np.ndarray:
    """Maximum-likelihood weights of the conditional logit (core.value) for these positions."""
    features, shares, playing = _arrays(positions)
    flat = features[playing]
    centre, scale = flat.mean(axis=0), flat.std(axis=0)
    scale[scale == 0] = 1.0  # a feature that never varies gets weight 0
    z = np.where(playing[..., None], (features - centre) / scale, 0.0)
    weights = np.zeros(z.shape[2])
    count = len(positions)
    for _ in range(NEWTON_STEPS):
        chances = _chances(z, playing, weights)
        mean_feature = np.einsum("np,npf->nf", chances, z)
        gradient = np.einsum("np,npf->f", chances - shares, z) / count + ridge * weights
        hessian = (np.einsum("np,npf,npg->fg", chances, z, z) - np.einsum("nf,ng->fg", mean_feature, mean_feature)) \
            / count + ridge * np.eye(len(weights))
        step = np.linalg.solve(hessian, gradient)
        weights -= step
        if np.abs(step).max() < 1e-9:
            break
    # In the raw units; the centre shifts every player's score alike, which the softmax ignores.
    result: np.ndarray = weights / scale
    return result


def log_loss(positions: Sequence[Position], weights: Sequence[float]) -> float:
    """The mean over positions of -sum(share * log chance): how surprised the value is by who won."""
    total = 0.0
    for position in positions:
        chances = win_chances(position.features, weights)
        total -= sum(s * math.log(max(c, 1e-12)) for s, c in zip(position.shares, chances, strict=True) if s)
    return total / len(positions)


def fit_value(name: str, options: JSON | None = None, games: int = 4000, seed: int = 1, epsilon: float = 0.1,
              positions: int = 40, jobs: int = 1, on_game: Callable[[int, int], None] | None = None) -> Fit:
    """Play, fit on the first four fifths of the games, score the fit and the current weights on the rest."""
    options = dict(options or {})
    game = load_game(name, **options)
    options["players"] = game.num_players
    names, _, current = feature_source(game)
    if games < 5:
        raise OptionError("fitting a value needs at least 5 games (a fifth are held out)")
    if not 0 <= epsilon <= 1:
        raise OptionError(f"epsilon is a chance from 0 to 1, not {epsilon}")
    if positions < 1:
        raise OptionError("keep at least 1 position a game")
    played = collect(name, options, games, seed, epsilon, positions, jobs, on_game)
    split = games - max(1, int(games * HELD_OUT))
    train = [p for game_positions in played[:split] for p in game_positions]
    test = [p for game_positions in played[split:] for p in game_positions]
    if not train or not test:
        raise OptionError(f"{name}'s games gave no positions with features to fit")
    weights = tuple(float(w) for w in fit_weights(train))
    fitted = {"players": game.num_players, "games": games, "seed": seed, "epsilon": epsilon,
              "positions_per_game": positions, "positions": len(train) + len(test),
              "held_out_games": games - split, "held_out_log_loss": round(log_loss(test, weights), 4),
              "previous_log_loss": round(log_loss(test, current.weights), 4),
              "uninformed_log_loss": round(math.log(game.num_players), 4)}
    return Fit(name, tuple(names), weights, fitted)
