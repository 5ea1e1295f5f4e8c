"""Estimating what a position is worth to a player, from that player's own information.

A value here is a player's expected result in [0, 1] (a win 1, a loss 0, a shared win shared): the mean
result of playouts from full states sampled from what the player may see (`State.determinize`), played by
the game's heuristic (read from the state) and cut off at the game's horizon, where the game's own value
scores them (`Game.heuristic_value`), as the `hard` search's playouts are (agents/search.py). A playout that
ends the game is scored by who won; one that is cut off by the game's value, read on the scale of the game's
returns (`ResultScale`) as shares of the point.

Every sample is drawn from its own seed, so two moves, or two outcomes of a die, compared on the same seeds
face the same hidden cards and the same later luck (common random numbers): what differs between them is
what they change.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from bestiary.agents.search import acting_player, heuristic_rollout_policy, random_rollout_policy
from bestiary.agents.tournament import winners_share
from bestiary.core.api import Action, Game, State
from bestiary.core.chance import sample_chance

CALIBRATION_GAMES = 8  # seeded random games whose results give the scale of a game's returns
CALIBRATION_STEPS = 20_000  # a random game longer than this is left out of the calibration
SAMPLE_TRIES = 16  # determinizations drawn before the true state stands in for one (Estimator.sample)


@dataclass(frozen=True)
class ResultScale:
    """How a game's returns read as results: a sole winner's return (`win`) and the lowest loser's (`loss`)."""

    win: float
    loss: float

    def results(self, values: Sequence[float]) -> list[float]:
        """Estimated returns as shares of the game's point: each placed between a loss (0) and a win (1), then
        scaled to sum to 1, as a point does (uniform where every estimate is a loss)."""
        span = self.win - self.loss
        placed = [min(1.0, max(0.0, (v - self.loss) / span)) for v in values]
        total = sum(placed)
        return [p / total for p in placed] if total > 0 else [1.0 / len(values)] * len(values)


_SCALES: dict[tuple[type, str], ResultScale] = {}  # by game class and options: the same for every review


def result_scale(game: Game) -> ResultScale:
    """The scale of `game`'s returns, read from seeded random games played to the end."""
    key = (type(game), game.options.model_dump_json())
    if key not in _SCALES:
        _SCALES[key] = _scale_of(game)
    return _SCALES[key]


def _scale_of(game: Game) -> ResultScale:
    wins: list[float] = []
    losses: list[float] = []
    for number in range(CALIBRATION_GAMES):
        rng = random.Random(f"bestiary-review-scale/{number}")
        state = game.new_initial_state(seed=number)
        for _ in range(CALIBRATION_STEPS):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply_action(sample_chance(state, rng))
            else:
                player = state.players_to_act()[0]
                state.apply_action(rng.choice(state.legal_actions(player)), player=player)
        if not state.is_terminal():
            continue
        returns = state.returns()
        shares = winners_share(returns)
        if shares.count(1.0) == 1:
            wins.append(max(returns))
            losses.append(min(returns))
    if not wins or max(wins) <= min(losses):
        return ResultScale(1.0, 0.0)  # no decided game seen: read the returns as shares
    return ResultScale(max(wins), min(losses))


class Estimator:
    """Playout values of positions for one game, from one player's information at a time."""

    def __init__(self, game: Game, depth: int = 0) -> None:
        self.game = game
        self.scale = result_scale(game)
        self.policy = heuristic_rollout_policy(game) if game.heuristic_policy() is not None \
            else random_rollout_policy
        horizon = game.heuristic_horizon()
        # at least `depth` playout steps before the value scores: a move whose effect shows only a few steps on
        # (a piece brought nearer) is judged by what it leads to, not by the position right after it
        self.cutoff = None if horizon is None else max(horizon, depth)
        self.hidden = game.info.information != "perfect"
        self.ranking = game.heuristic_state_ranking()

    def sample(self, state: State, viewer: int, seed: int) -> State:
        """A full state as `viewer` may picture it (the state itself where nothing is hidden). A sample in which
        a player to act has no legal action (a game's determinization may deal such a hand, say one without a
        creature while creatures are still being placed) is drawn again; after SAMPLE_TRIES such samples the
        true state stands in, so the review goes on."""
        if not self.hidden:
            return state.clone()
        rng = random.Random(seed)
        for _ in range(SAMPLE_TRIES):
            sampled = state.determinize(viewer, rng)
            if playable(sampled):
                return sampled
        return state.clone()

    def play(self, state: State, seed: int) -> list[float]:
        """Every player's result of one playout of `state` (which it changes), played as the `hard` search's
        playouts are (agents/search.py, play_out), except for how chance is drawn: the n-th chance event of the
        playout draws its outcome from the n-th number of the seed's own stream, by the outcomes' odds in their
        listed order. Two playouts on one seed after two different moves so meet the same dice wherever the
        same dice are rolled, and differ by what the moves changed (common random numbers, kept in step)."""
        game = self.game
        choices = random.Random(seed ^ 0x5DEECE66D)
        dice = random.Random(seed)
        steps = 0
        while not state.is_terminal():
            if self.cutoff is not None and steps >= self.cutoff:
                estimate = game.heuristic_value(state)
                if estimate is not None:
                    return self.scale.results(estimate)
            steps += 1
            if state.is_chance_node():
                state.apply_action(outcome_at(state.chance_outcomes(), dice.random()))
                continue
            player = acting_player(state, choices)
            state.apply_action(self.policy(state, player, state.legal_actions(player), choices), player=player)
        return winners_share(state.returns())

    def value(self, state: State, viewer: int, seeds: Sequence[int]) -> list[float]:
        """Each player's mean result over one playout per seed, from `viewer`'s information."""
        totals = [0.0] * self.game.num_players
        for seed in seeds:
            for player, result in enumerate(self.play(self.sample(state, viewer, seed), seed)):
                totals[player] += result
        return [total / len(seeds) for total in totals]

    def move_samples(self, state: State, player: int, action: Action, seeds: Sequence[int]) -> list[float]:
        """`player`'s result of one playout after `action` per seed, from the player's information."""
        out = []
        for seed in seeds:
            sampled = self.sample(state, player, seed)
            sampled.apply_action(action, player=player)
            out.append(self.play(sampled, seed)[player])
        return out

    def ranked(self, state: State, player: int, legal: Sequence[Action], seed: int) -> list[Action]:
        """`legal` in the heuristic's order of preference (as it sees one sample of the position), the moves it
        does not rank after, in their listed order."""
        order: list[Action] = []
        if self.ranking is not None:
            order = list(self.ranking(self.sample(state, player, seed), list(legal), player, random.Random(seed)))
        ranked = set(order)
        return order + [a for a in legal if a not in ranked]


def outcome_at(outcomes: Sequence[tuple[Action, float]], point: float) -> Action:
    """The outcome whose share of [0, 1) (by the odds, in the listed order) holds `point`."""
    total = math.fsum(p for _, p in outcomes)
    reached = 0.0
    for outcome, probability in outcomes:
        reached += probability / total
        if point < reached:
            return outcome
    return outcomes[-1][0]


def playable(state: State) -> bool:
    """Whether every player to act has a legal action (always so at a chance node or the end)."""
    return state.decision_kind() in ("chance", "terminal") or \
        all(state.legal_actions(player) for player in state.players_to_act())


def seeds(rng: random.Random, count: int) -> list[int]:
    return [rng.getrandbits(63) for _ in range(count)]


def paired_mean(better: Sequence[float], other: Sequence[float]) -> float:
    return math.fsum(a - b for a, b in zip(better, other, strict=True)) / len(better) if better else 0.0


def paired_error(better: Sequence[float], other: Sequence[float]) -> float:
    """The standard error of the mean paired difference (0 with fewer than two pairs)."""
    n = len(better)
    if n < 2:
        return 0.0
    differences = [a - b for a, b in zip(better, other, strict=True)]
    centre = math.fsum(differences) / n
    return math.sqrt(math.fsum((d - centre) ** 2 for d in differences) / (n - 1) / n)
