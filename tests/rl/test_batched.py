"""The batched engine plays critter capture exactly as the scalar engine does: the same seeds give the same
observation tensors, legal actions, rewards and ends, step by step, in random games (hypothesis draws the
table, the seeds and the learner's choices)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bestiary
from tests.rl.games import RL_EXTRA

pytest.importorskip("gymnasium", reason=RL_EXTRA)
import gymnasium

from bestiary.rl.batched import BatchedVectorEnv, Streams, kth_true, stream_draw
from bestiary.rl.vector import BestiaryVectorEnv
from tests.rl.scalar_twin import ScalarTwin, step_alike


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.sampled_from([2, 3, 4, 6]), num_envs=st.integers(1, 4), seed=st.integers(0, 2**40),
       data=st.data(), rechoose=st.booleans(), random_first=st.booleans(), ecoregions=st.sampled_from([1, 1, 2]))
def test_the_batch_steps_exactly_as_the_scalar_engine(players: int, num_envs: int, seed: int, data: st.DataObject,
                                                      rechoose: bool, random_first: bool, ecoregions: int) -> None:
    options = {"players": players, "rechoose_on_takeover": rechoose, "ecoregions": ecoregions,
               "first_player": "random" if random_first else players - 1}
    seat = data.draw(st.integers(0, players - 1), label="seat")
    game = bestiary.load_game("critter-capture", **options)
    batch = BatchedVectorEnv(game, num_envs=num_envs, seat=seat)
    scalars = [ScalarTwin(game, seat, seed + i) for i in range(num_envs)]
    observations, infos = batch.reset(seed=seed)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32), label="learner"))
    ended = 0
    for _ in range(160 if players == 2 else 90):
        for i, scalar in enumerate(scalars):
            assert np.array_equal(observations[i], scalar.state.observation_tensor(seat))
            assert np.array_equal(infos["action_mask"][i], scalar.mask())
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in infos["action_mask"]])
        if rng.random() < 0.01:  # now and then an illegal action, which ends that game's episode
            actions[0] = rng.integers(-1, 7)
        stepped = batch.step(actions)
        observations, infos = stepped[0], stepped[4]
        ended += step_alike(stepped, scalars, actions)
    assert ended or players > 2 or ecoregions > 1  # short games end within the steps played: autoreset is covered


def test_a_games_trajectory_depends_on_its_seed_alone() -> None:
    one = BatchedVectorEnv("critter-capture", num_envs=1, players=3)
    many = BatchedVectorEnv("critter-capture", num_envs=5, players=3)
    alone, _ = one.reset(seed=[42])
    together, infos = many.reset(seed=[7, 8, 42, 9, 10])
    assert np.array_equal(alone[0], together[2])
    for _ in range(40):
        actions = np.array([np.flatnonzero(m)[-1] if m.any() else 0 for m in infos["action_mask"]])
        alone, *_ = one.step(actions[2:3])
        together, _, _, _, infos = many.step(actions)
        assert np.array_equal(alone[0], together[2])


def test_a_reset_without_a_seed_deals_new_games_from_the_last_seed() -> None:
    envs = BatchedVectorEnv("critter-capture", num_envs=8, players=2, first_player="random")
    envs.reset(seed=3)
    seeded = envs.streams.keys.copy()
    again, _ = envs.reset()
    assert not np.isin(envs.streams.keys, seeded).any()  # eight new games, none of the seeded ones again
    replayed = BatchedVectorEnv("critter-capture", num_envs=8, players=2, first_player="random")
    replayed.reset(seed=3)
    assert np.array_equal(replayed.reset()[0], again)


def test_the_engines_own_random_actions_are_the_k_th_legal_ones() -> None:
    envs = BatchedVectorEnv("critter-capture", num_envs=64, players=3)
    _, infos = envs.reset(seed=5)
    for _ in range(60):
        engine, games = envs.engine, np.flatnonzero(~envs.engine.terminal)
        twin = Streams(64)
        twin.seed(np.arange(64), np.arange(64, dtype=np.uint64))
        own = engine.random_actions(games, twin)[games]
        twin.seed(np.arange(64), np.arange(64, dtype=np.uint64))
        legal = engine.legal_mask(games)
        assert np.array_equal(own, kth_true(legal, twin.draw(games, legal.sum(axis=1))))
        assert legal[np.arange(len(games)), own].all()
        _, _, _, _, infos = envs.step(infos["action_mask"].argmax(axis=1))


def test_streams_draw_what_the_scalar_reference_draws() -> None:
    streams = Streams(3)
    streams.seed(np.arange(3), np.array([0, 1, 2**63 + 5], np.uint64))
    for counter in range(70):  # across the blocks of 32 that Streams makes at a time
        counts = np.array([1, 7, 48])
        drawn = streams.draw(np.arange(3), counts)
        assert drawn.tolist() == [stream_draw(s, counter, c) for s, c in zip([0, 1, 2**63 + 5], counts, strict=True)]
        assert ((drawn >= 0) & (drawn < counts)).all()


def test_make_vec_gives_the_batched_engine_for_random_opponents_and_the_python_one_otherwise() -> None:
    import bestiary.rl.gymnasium  # noqa: F401 (registers the games)
    batched = gymnasium.make_vec("bestiary/critter-capture-v0", num_envs=4, vectorization_mode="vector_entry_point",
                                 players=2)
    assert isinstance(batched, BatchedVectorEnv)
    observations, infos = batched.reset(seed=0)
    assert observations.shape == (4, *batched.single_observation_space.shape)
    assert infos["action_mask"].dtype == bool
    python = gymnasium.make_vec("bestiary/critter-capture-v0", num_envs=2, vectorization_mode="vector_entry_point",
                                players=2, opponents=["heuristic"])
    assert isinstance(python, BestiaryVectorEnv)
    lungo = gymnasium.make_vec("bestiary/creatures-of-lungo-v0", num_envs=2, vectorization_mode="vector_entry_point")
    assert isinstance(lungo, BestiaryVectorEnv)  # no batched engine


def test_bad_input_gets_a_clear_error() -> None:
    with pytest.raises(ValueError, match="random opponents only"):
        BatchedVectorEnv("critter-capture", num_envs=2, opponents=["heuristic"])
    with pytest.raises(ValueError, match="no batched engine"):
        BatchedVectorEnv("crits-creatures", num_envs=2)
    envs = BatchedVectorEnv("critter-capture", num_envs=2, players=2, illegal_action="raise")
    with pytest.raises(Exception, match="reset"):
        envs.step(np.zeros(2, int))
    _, infos = envs.reset(seed=1)
    illegal = np.array([int(np.flatnonzero(~m)[0]) for m in infos["action_mask"]])
    with pytest.raises(Exception, match="not legal"):
        envs.step(illegal)
    with pytest.raises(ValueError, match="one seed for each"):
        envs.reset(seed=[1, 2, 3])
