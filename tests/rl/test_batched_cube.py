"""The batched engine plays Cube Creatures exactly as the scalar engine does: the same seeds give the same
observation tensors, legal actions, rewards and ends, step by step, in random games (hypothesis draws the
table, the seeds and the learner's choices). Each game's shuffles come from a seed drawn from its stream
(`Streams.seed_bits`), the die and the random seats from the same stream. Each test plays both twins: the
compiled kernel (games/cube/_batch.c) and the numpy engine; where the kernel was not built (no C compiler at
install) its cases skip, unless BESTIARY_REQUIRE_COMPILED is set (as CI sets it)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bestiary
from bestiary.core.chance import ShuffleSource
from tests.rl.games import RL_EXTRA

pytest.importorskip("gymnasium", reason=RL_EXTRA)
import gymnasium

from bestiary.games.cube.batch import KERNEL_ARRAYS, CubeBatch, kernel
from bestiary.rl.batched import BatchedVectorEnv, Streams
from tests.rl.scalar_twin import ScalarTwin, step_alike

BUILT = kernel() is not None or bool(os.environ.get("BESTIARY_REQUIRE_COMPILED"))
NOT_IN_USE = "the kernel is not in use (not built, or BESTIARY_PURE_PYTHON)"
TWINS = [pytest.param(True, id="compiled", marks=pytest.mark.skipif(not BUILT, reason=NOT_IN_USE)),
         pytest.param(False, id="numpy")]


def batched_env(game: bestiary.Game, num_envs: int, seat: int, compiled: bool) -> BatchedVectorEnv:
    """The batched environment on the compiled kernel or on the numpy engine."""
    env = BatchedVectorEnv(game, num_envs=num_envs, seat=seat)
    env.engine = CubeBatch(env.game, num_envs, compiled_kernel=compiled)
    assert env.engine.compiled == compiled
    return env


class ScalarCube(ScalarTwin):
    """One game on the scalar engine (CubeState), its shuffle seed drawn from its stream first."""

    shuffle_seed_from_stream = True


def play_along(options: dict[str, object], seat: int, num_envs: int, seed: int, learner: int, steps: int,
               compiled: bool) -> int:
    """Step the batch and its scalar twins side by side; the number of episodes that ended."""
    game = bestiary.load_game("cube-creatures", **options)
    batch = batched_env(game, num_envs, seat, compiled)
    scalars = [ScalarCube(game, seat, seed + i) for i in range(num_envs)]
    observations, infos = batch.reset(seed=seed)
    rng = np.random.default_rng(learner)
    ended = 0
    for _ in range(steps):
        for i, scalar in enumerate(scalars):
            assert np.array_equal(infos["action_mask"][i], scalar.mask())
            assert np.array_equal(observations[i], scalar.state.observation_tensor(seat))
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in infos["action_mask"]])
        if rng.random() < 0.01:  # now and then an illegal action, which ends that game's episode
            actions[0] = rng.integers(-1, 30)
        stepped = batch.step(actions)
        observations, infos = stepped[0], stepped[4]
        ended += step_alike(stepped, scalars, actions)
    return ended


@pytest.mark.parametrize("compiled", TWINS)
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors])
@given(players=st.sampled_from([2, 2, 3, 4, 5]), num_envs=st.integers(1, 4), seed=st.integers(0, 2**40),
       data=st.data(), random_first=st.booleans(), win_at=st.sampled_from([5, 5, 2]),
       turn_limit=st.sampled_from([200, 200, 12]))
def test_the_batch_steps_exactly_as_the_scalar_engine(players: int, num_envs: int, seed: int, data: st.DataObject,
                                                      random_first: bool, win_at: int, turn_limit: int,
                                                      compiled: bool) -> None:
    options = {"players": players, "win_at": win_at, "turn_limit": turn_limit,
               "first_player": "random" if random_first else players - 1}
    seat = data.draw(st.integers(0, players - 1), label="seat")
    play_along(options, seat, num_envs, seed, data.draw(st.integers(0, 2**32), label="learner"), 120, compiled)


@pytest.mark.parametrize("compiled", TWINS)
def test_long_games_end_and_are_dealt_again_alike(compiled: bool) -> None:
    # Enough steps for games to end (CUBE-10), reshuffle the discard pile (CUBE-52) and be dealt again.
    assert play_along({"players": 2}, 0, 3, 11, 1, 400, compiled) > 0


@pytest.mark.skipif(not BUILT, reason="the kernel is not in use (not built, or BESTIARY_PURE_PYTHON)")
def test_the_twins_play_a_large_batch_alike() -> None:
    # Many games at once, games ending and dealt again mid-batch: the kernel and the numpy engine give the same
    # masks, observations, rewards and ends at every step.
    game = bestiary.load_game("cube-creatures", players=3, first_player="random", turn_limit=30)
    twins = [batched_env(game, 48, 1, compiled) for compiled in (True, False)]
    seen = [env.reset(seed=3) for env in twins]  # (observations, infos) of each twin
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(150):
        (kernel_observations, kernel_infos), (numpy_observations, numpy_infos) = seen
        assert np.array_equal(kernel_infos["action_mask"], numpy_infos["action_mask"])
        assert np.array_equal(kernel_observations, numpy_observations)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in kernel_infos["action_mask"]])
        results = [env.step(actions) for env in twins]
        for kernel_result, numpy_result in zip(*results, strict=True):  # rewards, ends (and the rest, above)
            if not isinstance(kernel_result, dict):
                assert np.array_equal(kernel_result, numpy_result)
        seen = [(result[0], result[4]) for result in results]
        ended += int(results[0][2].sum())
    assert ended > 0



@pytest.mark.parametrize("compiled", TWINS)
def test_a_games_trajectory_depends_on_its_seed_alone(compiled: bool) -> None:
    game = bestiary.load_game("cube-creatures", players=3)
    one, many = batched_env(game, 1, 0, compiled), batched_env(game, 4, 0, compiled)
    alone, _ = one.reset(seed=[42])
    together, infos = many.reset(seed=[7, 42, 8, 9])
    assert np.array_equal(alone[0], together[1])
    for _ in range(60):
        actions = np.array([np.flatnonzero(m)[-1] if m.any() else 0 for m in infos["action_mask"]])
        alone, *_ = one.step(actions[1:2])
        together, _, _, _, infos = many.step(actions)
        assert np.array_equal(alone[0], together[1])


@pytest.mark.parametrize("compiled", TWINS)
def test_self_play_through_the_engine_gives_every_seat_its_decisions(compiled: bool) -> None:
    # The PettingZoo-style batched API: the caller decides for every seat, seen from that seat.
    game = bestiary.load_game("cube-creatures", players=3, turn_limit=40)
    n = 16
    engine, streams, games = CubeBatch(game, n, compiled_kernel=compiled), Streams(n), np.arange(n)
    streams.seed(games, np.arange(n, dtype=np.uint64))
    engine.reset(games, streams)
    scalars = [ScalarCube.__new__(ScalarCube) for _ in range(n)]
    for i, scalar in enumerate(scalars):  # the same games on the scalar engine, every seat chosen alike
        scalar.game, scalar.seed, scalar.counter = game, i, 0
        scalar.state = scalar.new_state()
    while not engine.terminal.all():
        seats = engine.current_player
        observations, masks = engine.observation(np.maximum(seats, 0)), engine.legal_mask()
        playing = np.flatnonzero(~engine.terminal)
        for i in playing:
            state = scalars[i].state
            assert seats[i] == state.current_player()
            assert np.array_equal(observations[i], state.observation_tensor(int(seats[i])))
            assert set(np.flatnonzero(masks[i])) == {a.index for a in state.legal_actions(int(seats[i]))}
            state.apply_action(game.player_action_table()[int(np.flatnonzero(masks[i])[0])], int(seats[i]))
            scalars[i].play_chance()
        engine.step(masks.argmax(axis=1), playing, streams)
    assert np.allclose(engine.returns().sum(axis=1), 1.0)  # CUBE-10, CUBE-56: every game shares out one win
    assert np.array_equal(engine.returns(), [s.state.returns() for s in scalars])


def test_make_vec_gives_the_batched_engine_for_random_opponents() -> None:
    import bestiary.rl.gymnasium  # noqa: F401 (registers the games)
    batched = gymnasium.make_vec("bestiary/cube-creatures-v0", num_envs=3, vectorization_mode="vector_entry_point")
    assert isinstance(batched, BatchedVectorEnv)
    observations, _ = batched.reset(seed=0)
    assert observations.shape == (3, *batched.single_observation_space.shape)
    assert batched.single_observation_space.contains(observations[0])


@pytest.mark.parametrize("option", [{"grandma": True}, {"reactions": False}, {"response_windows": "answerers"}])
def test_options_the_batch_does_not_play_get_a_clear_error(option: dict[str, object]) -> None:
    with pytest.raises(ValueError, match=f"{next(iter(option))}=.*BestiaryVectorEnv plays every option"):
        BatchedVectorEnv("cube-creatures", num_envs=2, **option)


@pytest.mark.skipif(not BUILT, reason="the kernel is not in use (not built, or BESTIARY_PURE_PYTHON)")
@settings(max_examples=100, deadline=None)
@given(seed=st.one_of(st.integers(0, 99), st.integers(0, 2**53 - 1)), number=st.integers(0, 40),
       size=st.integers(0, 130))
def test_the_kernels_shuffles_are_the_scalar_engines(seed: int, number: int, size: int) -> None:
    # CUBE-15, CUBE-18, CUBE-25, CUBE-52: the n-th shuffle of a game with seed s, as ShuffleSource makes it.
    compiled = kernel()
    assert compiled is not None
    cards = list(range(size))
    assert compiled.shuffled(seed, number, cards) == ShuffleSource(seed, number).shuffled(cards)


@pytest.mark.skipif(not BUILT, reason="the kernel is not in use (not built, or BESTIARY_PURE_PYTHON)")
def test_the_kernel_refuses_arrays_of_the_wrong_shape_and_unknown_games() -> None:
    engine = CubeBatch(bestiary.load_game("cube-creatures"), 4)
    compiled, streams = kernel(), Streams(4)
    assert compiled is not None
    streams.seed(np.arange(4), np.arange(4, dtype=np.uint64))
    engine.reset(np.arange(4), streams)
    before = engine.place.copy()
    arrays = list(engine._kernel_arrays)
    arrays[KERNEL_ARRAYS.index("place")] = engine.place[:2]
    with pytest.raises(ValueError, match="must hold"):
        compiled.legal_mask(engine._kernel_ints, tuple(arrays), np.arange(4), np.zeros((4, engine.num_actions), bool))
    with pytest.raises(IndexError, match="no game 9"):
        engine.advance(None, np.array([9]), 0, streams)
    with pytest.raises(IndexError, match="no seat 5"):
        engine.observation(np.full(4, 5))
    assert np.array_equal(engine.place, before)  # nothing was played
