"""One game on the scalar engine, played as `BatchedVectorEnv` plays the game with the same seed: its chance
and its random seats drawn from that game's stream. What a batched engine must reproduce step by step."""

from __future__ import annotations

import numpy as np

import bestiary
from bestiary.core.api import State
from bestiary.rl.batched import stream_draw


class ScalarTwin:
    """`shuffle_seed_from_stream`: the game's shuffles come from a seed drawn first from the stream (Cube
    Creatures' decks); otherwise every shuffle is a chance outcome drawn from the stream (critter capture's
    flips)."""

    shuffle_seed_from_stream = False

    def __init__(self, game: bestiary.Game, seat: int, seed: int) -> None:
        self.game, self.seat, self.seed, self.counter = game, seat, seed, 0
        self.table = game.player_action_table()
        self.ended = False
        self.deal()

    def draw(self, count: int) -> int:
        k = stream_draw(self.seed, self.counter, count)
        self.counter += 1
        return k

    def new_state(self) -> State:
        return self.game.new_initial_state(seed=self.draw(1 << 53) if self.shuffle_seed_from_stream else 0)

    def deal(self) -> None:
        self.state = self.new_state()
        self.play_others()

    def play_chance(self) -> None:
        while self.state.is_chance_node():
            outcomes = self.state.chance_outcomes()
            self.state.apply_action(outcomes[self.draw(len(outcomes))][0])

    def play_others(self) -> None:
        self.play_chance()
        while not self.state.is_terminal() and self.state.current_player() != self.seat:
            player = self.state.current_player()
            legal = sorted(a.index for a in self.state.legal_actions(player))
            self.state.apply_action(self.table[legal[self.draw(len(legal))]], player)
            self.play_chance()

    def mask(self) -> np.ndarray:
        mask = np.zeros(len(self.table), bool)
        if not self.state.is_terminal() and not self.ended:
            mask[[a.index for a in self.state.legal_actions(self.seat)]] = True
        return mask

    def step(self, action: int) -> tuple[float, bool]:
        if self.ended:  # next-step autoreset
            self.ended = False
            self.deal()
            return 0.0, False
        if not self.mask()[action] if 0 <= action < len(self.table) else True:
            self.ended = True
            return -1.0, True
        self.state.apply_action(self.table[action], self.seat)
        self.play_others()
        self.ended = self.state.is_terminal()
        return float(self.state.returns()[self.seat]), self.ended


def step_alike(batch_step: tuple[np.ndarray, ...], scalars: list[ScalarTwin], actions: np.ndarray) -> int:
    """Step each scalar twin with its game's action and check the batch's rewards and ends against theirs;
    the number of episodes that ended."""
    _, rewards, terminated, truncated, _ = batch_step
    expected = [scalar.step(int(a)) for scalar, a in zip(scalars, actions, strict=True)]
    assert rewards.tolist() == [r for r, _ in expected]
    assert terminated.tolist() == [t for _, t in expected]
    assert not truncated.any()
    return int(terminated.sum())
