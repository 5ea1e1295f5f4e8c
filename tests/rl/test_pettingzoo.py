"""The PettingZoo adapters pass PettingZoo's own tests and never show a seat what it may not see."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bestiary.core.errors import IllegalActionError
from tests.rl.games import GAMES, RL_EXTRA, TOY_GAME, make_game
from tests.rl.hidden_bid import HiddenBid

pytest.importorskip("pettingzoo", reason=RL_EXTRA)
from pettingzoo.test import api_test, parallel_api_test, seed_test

from bestiary.rl import pettingzoo as bestiary_pz
from bestiary.rl.table import asking_order, legal_mask

# PettingZoo's api_test suggests a plain array observation; action masks need the dict it also supports.
pytestmark = pytest.mark.filterwarnings("ignore:Observation (space for each agent probably|is not a NumPy)")


@TOY_GAME
def test_aec_environment_passes_api_test(name: str, players: int) -> None:
    api_test(bestiary_pz.env(make_game(name, players)), num_cycles=1000)


@TOY_GAME
def test_aec_environment_passes_seed_test(name: str, players: int) -> None:
    seed_test(lambda: bestiary_pz.env(make_game(name, players)), num_cycles=200)


@TOY_GAME
def test_parallel_environment_passes_parallel_api_test(name: str, players: int) -> None:
    parallel_api_test(bestiary_pz.parallel_env(make_game(name, players)), num_cycles=1000)


def play_aec(env, seed: int, check_seat_view=None) -> dict[str, float]:
    """A random game through the AEC interface; returns each agent's summed rewards."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        if check_seat_view:
            check_seat_view(env, agent, observation)
        env.step(rng.choice(np.flatnonzero(observation["action_mask"])))
    return totals


@GAMES
def test_rewards_add_up_to_the_returns_and_only_the_asked_seat_has_actions(name: str, players: int) -> None:
    env = bestiary_pz.env(make_game(name, players))

    def only_asked_seat_may_act(env, agent, observation) -> None:
        seat = env.seat_of[agent]
        assert seat == asking_order(env.game_state)[0] and seat in env.game_state.players_to_act()
        assert np.array_equal(observation["action_mask"], env.game_state.legal_actions_mask(seat))
        for other in env.possible_agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()

    totals = play_aec(env, seed=5, check_seat_view=only_asked_seat_may_act)
    assert env.game_state.is_terminal()
    assert [totals[a] for a in env.possible_agents] == pytest.approx(env.game_state.returns())


@GAMES
def test_aec_observations_hide_what_the_seat_cannot_see(name: str, players: int) -> None:
    """As the conformance suite does: resampling what a seat cannot see leaves its observation alone."""
    env = bestiary_pz.env(make_game(name, players))
    resample = random.Random(1)

    def unchanged_by_resampling(env, agent, observation) -> None:
        seat = env.seat_of[agent]
        for _ in range(2):
            sampled = env.game_state.determinize(seat, resample)
            assert np.array_equal(sampled.observation_tensor(seat), observation["observation"])

    play_aec(env, seed=2, check_seat_view=unchanged_by_resampling)


def test_simultaneous_choice_asked_in_turn_reveals_nothing_to_later_seats() -> None:
    """The second bidder sees the same observation whatever the first bid."""
    seen = []
    for first_bid in (0, 2):
        env = bestiary_pz.env(HiddenBid.from_options(players=2))
        env.reset(seed=11)
        assert env.game_state.decision_kind() == "simultaneous"
        assert env.agent_selection == "player_0"
        env.step(first_bid)
        assert env.agent_selection == "player_1"
        seen.append(env.observe("player_1"))
    assert np.array_equal(seen[0]["observation"], seen[1]["observation"])
    assert np.array_equal(seen[0]["action_mask"], seen[1]["action_mask"])


def test_parallel_step_takes_the_simultaneous_choices_together() -> None:
    env = bestiary_pz.parallel_env(HiddenBid.from_options(players=3))
    observations, _ = env.reset(seed=4)
    assert all(observations[a]["action_mask"].any() for a in env.agents)  # every seat bids at once
    env.step({"player_0": 2, "player_1": 0, "player_2": 1})
    assert env.game_state.bids == [2, 0, 1]


def test_parallel_race_goes_to_the_first_seat_asked_and_the_other_grab_lapses() -> None:
    env = bestiary_pz.parallel_env(HiddenBid.from_options(players=2))
    env.reset(seed=4)
    env.step({"player_0": 1, "player_1": 1})  # equal bids: no response window
    assert env.game_state.decision_kind() == "race"
    first = asking_order(env.game_state)[0]
    _, rewards, terminations, _, _ = env.step({"player_0": 5, "player_1": 5})
    assert env.game_state.token == first
    assert all(terminations.values())
    assert list(rewards.values()) == pytest.approx(env.game_state.returns())
    assert env.agents == []


def test_illegal_action_ends_the_episode_with_a_penalty_for_the_sender() -> None:
    env = bestiary_pz.env("critter-capture", players=2)
    env.reset(seed=3)
    before = env.game_state.to_json()
    sender = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(sender)["action_mask"] == 0)[0])
    env.step(illegal)
    assert env.game_state.to_json() == before
    assert all(env.terminations.values())
    assert "illegal action" in env.infos[sender]["illegal_action"]
    assert env._cumulative_rewards == {sender: -1.0, **{a: 0.0 for a in env.agents if a != sender}}
    assert not any(env.observe(agent)["action_mask"].any() for agent in env.agents)
    dead = []
    for agent in env.agent_iter():  # each agent takes its dead step, then the episode is over
        dead.append(agent)
        env.step(None)
    assert sorted(dead) == sorted(env.possible_agents) and env.agents == []


def test_illegal_action_raises_and_changes_nothing_when_asked_to() -> None:
    env = bestiary_pz.env("critter-capture", players=2, illegal_action="raise")
    env.reset(seed=3)
    before = env.game_state.to_json()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="illegal action"):
        env.step(illegal)
    with pytest.raises(IllegalActionError, match="no action has index"):
        env.step(99)
    assert env.game_state.to_json() == before
    with pytest.raises(ValueError, match="illegal_action"):
        bestiary_pz.env("critter-capture", illegal_action="ignore")

    parallel = bestiary_pz.parallel_env(HiddenBid.from_options(players=2), illegal_action="raise")
    parallel.reset(seed=3)
    before = parallel.game_state.to_json()
    with pytest.raises(IllegalActionError, match="gave no action"):
        parallel.step({"player_0": 1})
    with pytest.raises(IllegalActionError, match="not a legal action"):
        parallel.step({"player_0": 1, "player_1": 4})
    assert parallel.game_state.to_json() == before


def test_parallel_illegal_action_penalises_each_sender_and_ends_the_episode() -> None:
    parallel = bestiary_pz.parallel_env(HiddenBid.from_options(players=3), illegal_reward=-2.0)
    parallel.reset(seed=3)
    assert parallel.game_state.players_to_act() == [0, 1, 2]  # every seat bids at once
    before = parallel.game_state.to_json()
    _, rewards, terminations, _, infos = parallel.step({"player_0": 1, "player_1": 99})
    assert rewards == {"player_0": 0.0, "player_1": -2.0, "player_2": -2.0}  # player_2 gave no action
    assert all(terminations.values()) and parallel.agents == []
    assert set(infos["player_1"]) == {"illegal_action"} and not infos["player_0"]
    assert parallel.game_state.to_json() == before
    with pytest.raises(IllegalActionError, match="episode is over"):
        parallel.step({})


def test_max_cycles_truncates_the_episode() -> None:
    env = bestiary_pz.env("crits-creatures", players=2, max_cycles=3)
    env.reset(seed=0)
    live = 0
    for _ in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert truncated and not terminated
            env.step(None)
            continue
        live += 1
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert live == 3 * 2 and not env.game_state.is_terminal()

    parallel = bestiary_pz.parallel_env("crits-creatures", players=2, max_cycles=2)
    observations, _ = parallel.reset(seed=0)
    for step in range(2):
        actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()
                   if o["action_mask"].any()}
        observations, _, terminations, truncations, _ = parallel.step(actions)
        assert all(truncations.values()) == (step == 1) and not any(terminations.values())
    with pytest.raises(ValueError, match="max_cycles"):
        bestiary_pz.env("crits-creatures", max_cycles=0)


def test_state_is_every_seat_observation_tensor() -> None:
    env = bestiary_pz.env("critter-capture", players=3)
    env.reset(seed=2)
    state = env.state()
    assert env.state_space.contains(state)
    assert np.array_equal(state, np.concatenate([env.game_state.observation_tensor(s) for s in range(3)]))


def test_same_seed_same_game_other_seed_other_game() -> None:
    def record(seed: int) -> str:
        env = bestiary_pz.env("critter-capture", players=3)
        play_aec(env, seed)
        return env.game_state.to_json()

    assert record(8) == record(8)
    assert record(8) != record(9)


def test_options_and_render(capsys: pytest.CaptureFixture[str]) -> None:
    env = bestiary_pz.env("critter-capture", players=2, ecoregions=2, render_mode="ansi")
    env.reset(seed=0)
    assert env.game.options.ecoregions == 2
    assert "Critter capture" in env.render()
    shown = bestiary_pz.env("critter-capture", players=2, render_mode="human")
    shown.reset(seed=0)
    assert shown.render() is None and "Critter capture" in capsys.readouterr().out
    with pytest.raises(ValueError, match="render_mode"):
        bestiary_pz.env("critter-capture", render_mode="rgb_array")
    with pytest.raises(TypeError, match="already configured"):
        bestiary_pz.env(make_game("critter-capture", 2), players=2)


@GAMES
def test_parallel_observations_hide_what_the_seat_cannot_see(name: str, players: int) -> None:
    env = bestiary_pz.parallel_env(make_game(name, players))
    rng, resample = random.Random(6), random.Random(7)
    observations, _ = env.reset(seed=6)
    while env.agents:
        for agent, observation in observations.items():
            seat = env.seat_of[agent]
            sampled = env.game_state.determinize(seat, resample)
            assert np.array_equal(sampled.observation_tensor(seat), observation["observation"])
        actions = {agent: rng.choice(np.flatnonzero(o["action_mask"])) if o["action_mask"].any() else 0
                   for agent, o in observations.items()}
        observations, *_ = env.step(actions)


def test_no_seat_always_loses_a_race_that_every_seat_grabs_at_once() -> None:
    winners = set()
    for seed in range(12):
        rng = random.Random(seed)
        env = bestiary_pz.parallel_env(HiddenBid.from_options(players=3))
        env.reset(seed=seed)
        while env.game_state.decision_kind() != "race":
            asked = env.game_state.players_to_act()
            env.step({f"player_{seat}": int(rng.choice(np.flatnonzero(env.game_state.legal_actions_mask(seat))))
                      for seat in asked})
        env.step({agent: 5 for agent in env.possible_agents})
        winners.add(env.game_state.token)
    assert winners == {0, 1, 2}


def test_illegal_action_penalised_leaves_the_game_unchanged_and_the_episode_going_on() -> None:
    env = bestiary_pz.env("critter-capture", players=2, illegal_action="penalise", illegal_reward=-0.5)
    env.reset(seed=3)
    before = env.game_state.to_json()
    sender = env.agent_selection
    mask = env.observe(sender)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert env.game_state.to_json() == before
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {sender: -0.5, **{a: 0.0 for a in env.agents if a != sender}}
    assert "illegal action" in env.infos[sender]["illegal_action"]
    assert env.agent_selection == sender and (env.observe(sender)["action_mask"] == mask).all()  # asked again
    env.step(int(np.flatnonzero(mask)[0]))
    assert env.game_state.to_json() != before and "illegal_action" not in env.infos[sender]

    parallel = bestiary_pz.parallel_env(HiddenBid.from_options(players=3), illegal_action="penalise")
    observations, _ = parallel.reset(seed=3)
    before = parallel.game_state.to_json()
    _, rewards, terminations, truncations, infos = parallel.step({"player_0": 1, "player_1": 99})
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": -1.0}  # player_2 gave no action
    assert set(infos["player_1"]) == {"illegal_action"} and not infos["player_0"]
    assert parallel.game_state.to_json() == before  # nothing applied, player_0's bid included
    assert not any(terminations.values()) and not any(truncations.values()) and len(parallel.agents) == 3
    parallel.step({agent: int(np.flatnonzero(o["action_mask"])[0]) for agent, o in observations.items()})
    assert parallel.game_state.to_json() != before


def test_cycle_turn_order_selects_every_seat_once_per_cycle_the_idle_ones_with_the_no_op() -> None:
    env = bestiary_pz.env("critter-capture", players=2, turn_order="cycle")
    env.reset(seed=3)
    no_op = len(env.game.player_action_table())
    assert env.no_op == no_op and all(env.action_space(agent).n == no_op + 1 for agent in env.possible_agents)
    idle_turns = 0
    for turn in range(40):
        seat = turn % 2
        agent = env.possible_agents[seat]
        assert env.agent_selection == agent
        mask = env.observe(agent)["action_mask"]
        assert not env.observe(env.possible_agents[1 - seat])["action_mask"].any()  # only the selected seat's
        if seat in env.game_state.players_to_act():
            assert (mask == legal_mask(env.game_state, seat, no_op + 1)).all() and not mask[no_op]
            env.step(int(np.flatnonzero(mask)[0]))
        else:
            idle_turns += 1
            assert np.flatnonzero(mask).tolist() == [no_op]
            before = env.game_state.to_json()
            env.step(no_op)
            assert env.game_state.to_json() == before and env.rewards == {a: 0.0 for a in env.agents}
    assert idle_turns > 0  # a seat acts several times in a row in this game: the other idles in between


def test_cycle_turn_order_no_op_only_for_idle_seats_and_the_episode_ends_with_the_cycle() -> None:
    env = bestiary_pz.env("critter-capture", players=2, turn_order="cycle", illegal_action="raise")
    env.reset(seed=3)
    assert env.game_state.players_to_act() == [0] and env.agent_selection == "player_0"
    with pytest.raises(IllegalActionError, match="no action has index"):
        env.step(env.no_op)  # the no-op is no action of a seat asked
    env.step(0)
    assert env.agent_selection == "player_1" and env.game_state.players_to_act() == [0]
    with pytest.raises(IllegalActionError, match="only action is the no-op"):
        env.step(0)

    ending = bestiary_pz.env("critter-capture", players=2, turn_order="cycle")
    ending.reset(seed=3)
    before = ending.game_state.to_json()
    ending.step(ending.no_op)  # illegal for the seat asked: the episode ends, once the cycle is over
    assert not any(ending.terminations.values()) and ending.agent_selection == "player_1"
    assert np.flatnonzero(ending.observe("player_1")["action_mask"]).tolist() == [ending.no_op]
    ending.step(ending.no_op)
    assert all(ending.terminations.values()) and ending._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0}
    assert ending.game_state.to_json() == before
    with pytest.raises(ValueError, match="turn_order"):
        bestiary_pz.env("critter-capture", turn_order="seat")


def test_parallel_cycle_turn_order_gives_the_seats_not_asked_the_no_op() -> None:
    parallel = bestiary_pz.parallel_env(HiddenBid.from_options(players=3), turn_order="cycle")
    observations, _ = parallel.reset(seed=3)
    no_op = parallel.no_op
    assert all(o["action_mask"].any() and not o["action_mask"][no_op] for o in observations.values())  # all bid
    while not parallel.game_state.is_terminal():
        asked = parallel.game_state.players_to_act()
        for agent, observation in observations.items():
            mask = observation["action_mask"]
            if parallel.seat_of[agent] in asked:
                assert (mask == legal_mask(parallel.game_state, parallel.seat_of[agent], no_op + 1)).all()
            else:
                assert np.flatnonzero(mask).tolist() == [no_op]
        observations, _, terminations, _, _ = parallel.step(
            {agent: int(np.flatnonzero(o["action_mask"])[0]) for agent, o in observations.items()})
    assert all(terminations.values()) and not any(o["action_mask"].any() for o in observations.values())
