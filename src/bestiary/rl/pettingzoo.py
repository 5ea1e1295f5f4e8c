"""Bestiary games as PettingZoo environments: `env(...)` (AEC) and `parallel_env(...)`.

    from bestiary.rl import pettingzoo
    env = pettingzoo.env("critter-capture", players=4)

Agents are "player_0" ... "player_{n-1}". Each observation is a dict: "observation" (the game's observation
tensor for that seat) and "action_mask" (1 for each legal action index; all 0 when the seat is not asked).
Rewards are the change in `State.returns()`, so a game's rewards sum to its returns. Chance is played inside
the environment from the seed given to `reset`. An illegal action ends the episode with `illegal_reward` for
the seat that sent it, as PettingZoo's classic environments do (`illegal_action="penalise"` gives the penalty
and goes on, the game unchanged; `"raise"` raises). `turn_order="cycle"` steps every agent once per cycle, an
agent with nothing to decide taking the no-op action (the last index), as PettingZoo's cycle-based tools expect.
"""

from __future__ import annotations

import random
from typing import Any, Literal, get_args

import numpy as np

from bestiary.core.api import Game, State
from bestiary.core.chance import fresh_seed
from bestiary.core.errors import IllegalActionError
from bestiary.rl.table import (
    MultiAgentIllegalActionRule,
    action_at,
    agent_names,
    asking_order,
    check_illegal_rule,
    check_render_mode,
    deciding_seat,
    legal_mask,
    mark_legal,
    play_chance,
    render_state,
    require,
    resolve_game,
)

require("pettingzoo")
from gymnasium import spaces  # noqa: E402
from pettingzoo import AECEnv, ParallelEnv  # noqa: E402

ObsDict = dict[str, np.ndarray]
# "game": the AEC environment selects the seat the game asks next. "cycle": it selects every seat in turn, once
# per cycle, and a seat with nothing to decide has the no-op action (one extra index, the last) as its only one.
TurnOrder = Literal["game", "cycle"]


def env(game: Game | str, render_mode: str | None = None, illegal_action: MultiAgentIllegalActionRule = "end",
        illegal_reward: float = -1.0, max_cycles: int | None = None, turn_order: TurnOrder = "game",
        **options: Any) -> BestiaryAECEnv:
    """An AEC environment, e.g. `env("critter-capture", players=4)` or `env(game)` for a configured game."""
    return BestiaryAECEnv(resolve_game(game, options), render_mode, illegal_action, illegal_reward, max_cycles,
                          turn_order)


def parallel_env(game: Game | str, render_mode: str | None = None,
                 illegal_action: MultiAgentIllegalActionRule = "end", illegal_reward: float = -1.0,
                 max_cycles: int | None = None, turn_order: TurnOrder = "game",
                 **options: Any) -> BestiaryParallelEnv:
    """A Parallel environment: each step takes an action from every seat asked at once."""
    return BestiaryParallelEnv(resolve_game(game, options), render_mode, illegal_action, illegal_reward,
                               max_cycles, turn_order)


class _Seats:
    """What the two environments share: spaces, the seeded game, observations and rewards."""

    game: Game
    game_state: State  # the referee's full state; `state()` is PettingZoo's name for a global observation
    render_mode: str | None

    def _setup(self, game: Game, render_mode: str | None, illegal_action: MultiAgentIllegalActionRule,
               illegal_reward: float, max_cycles: int | None, turn_order: TurnOrder) -> None:
        check_render_mode(render_mode, ("human", "ansi"))
        check_illegal_rule(illegal_action, get_args(MultiAgentIllegalActionRule))
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1 or None, not {max_cycles}")
        if turn_order not in get_args(TurnOrder):
            raise ValueError(f"turn_order must be 'game' or 'cycle', not {turn_order!r}")
        self.game = game
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = illegal_reward
        self.max_cycles = max_cycles
        self.possible_agents = agent_names(game)
        self.seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        low, high = game.observation_tensor_bounds()
        tensor = spaces.Box(low, high, dtype=np.float32)
        self._actions = game.player_action_table()
        self.no_op = len(self._actions) if turn_order == "cycle" else None
        actions = len(self._actions) + (self.no_op is not None)
        self._no_actions = np.zeros(actions, np.int8)
        self._observation_spaces = {
            agent: spaces.Dict({"observation": tensor, "action_mask": spaces.Box(0, 1, (actions,), np.int8)})
            for agent in self.possible_agents}
        self._action_spaces = {agent: spaces.Discrete(actions) for agent in self.possible_agents}
        players = game.num_players
        # PettingZoo's global state: every seat's observation tensor, seat 0's first (for centralised critics).
        self.state_space = spaces.Box(np.tile(low, players), np.tile(high, players), dtype=np.float32)
        self._seeds = random.Random(fresh_seed())
        self._returns = [0.0] * players
        self._steps = 0
        self._ended_illegally = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._action_spaces[agent]

    def state(self) -> np.ndarray:
        return np.concatenate([self.game_state.observation_tensor(seat) for seat in range(self.game.num_players)])

    def _new_game(self, seed: int | None) -> None:
        if seed is not None:
            self._seeds = random.Random(seed)
            for space in self._action_spaces.values():  # sampled actions repeat with the seed, too
                space.seed(self._seeds.randrange(2**32))
        game_seed = self._seeds.randrange(2**63)
        self._chance = random.Random(game_seed)
        self.game_state = self.game.new_initial_state(seed=game_seed)
        play_chance(self.game_state, self._chance)
        self._returns = self.game_state.returns()
        self._steps = 0
        self._ended_illegally = False

    def _observe_seat(self, seat: int, stepping: bool) -> ObsDict:
        """`stepping`: the seat takes part in the coming step (asked, or with the no-op to take)."""
        state = self.game_state
        mask = self._no_actions.copy()
        if stepping and self._idle(seat):
            mask[self.no_op] = 1
        elif stepping and not state.is_chance_node():
            mark_legal(mask, state.legal_actions(seat))
        return {"observation": state.observation_tensor(seat), "action_mask": mask}

    def _idle(self, seat: int) -> bool:
        """In the cycle turn order, whether the seat has nothing to decide (its one action is the no-op)."""
        return self.no_op is not None and (self._ended_illegally or seat not in self.game_state.players_to_act())

    def _reward_changes(self) -> list[float]:
        now = self.game_state.returns()
        changes = [after - before for after, before in zip(now, self._returns, strict=True)]
        self._returns = now
        return changes

    def _illegal_rewards(self, offenders: set[int]) -> list[float]:
        return [self.illegal_reward if seat in offenders else 0.0 for seat in range(self.game.num_players)]

    def _out_of_cycles(self, steps_per_cycle: int) -> bool:
        return self.max_cycles is not None and self._steps >= self.max_cycles * steps_per_cycle

    def render(self) -> str | None:
        return render_state(self.game_state, self.render_mode)

    def close(self) -> None:
        pass


class BestiaryAECEnv(_Seats, AECEnv[str, ObsDict, int]):  # type: ignore[misc]
    """One seat decides at a time, in the order `players_to_act()` lists the seats asked (rotated in a race).

    With `turn_order="cycle"` every seat is selected in seat order, once per cycle; a seat with nothing to
    decide then takes the no-op. `max_cycles` truncates the episode after that many cycles of one action per
    seat (players × max_cycles actions, penalised ones included)."""

    def __init__(self, game: Game, render_mode: str | None = None,
                 illegal_action: MultiAgentIllegalActionRule = "end", illegal_reward: float = -1.0,
                 max_cycles: int | None = None, turn_order: TurnOrder = "game") -> None:
        super().__init__()
        self._setup(game, render_mode, illegal_action, illegal_reward, max_cycles, turn_order)
        self.metadata = {"name": f"bestiary_{game.info.name}", "render_modes": ["human", "ansi"],
                         "is_parallelizable": False}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._new_game(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[0 if self.no_op is not None else deciding_seat(self.game_state)]

    def observe(self, agent: str) -> ObsDict:
        stepping = agent == self.agent_selection and not self.terminations[agent] and not self.truncations[agent]
        return self._observe_seat(self.seat_of[agent], stepping)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.seat_of[agent]
        state = self.game_state
        try:
            self._play(seat, action)
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            self._ended_illegally = self._ended_illegally or self.illegal_action == "end"
            rewards = self._illegal_rewards({seat})  # the game unchanged
            self.infos[agent] = {"illegal_action": str(error)}
        else:
            play_chance(state, self._chance)
            rewards = self._reward_changes()
            self.infos[agent] = {}
        self._steps += 1
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict(zip(self.possible_agents, rewards, strict=True))
        self._accumulate_rewards()
        # In the cycle order an episode ends only at the end of a cycle, the seats after the last move idle.
        cycle_over = self.no_op is None or seat == self.game.num_players - 1
        if (state.is_terminal() or self._ended_illegally) and cycle_over:
            self.terminations = dict.fromkeys(self.agents, True)
            self._select_after(agent)
        elif self._out_of_cycles(self.game.num_players):
            self.truncations = dict.fromkeys(self.agents, True)
            self._select_after(agent)
        elif self.no_op is not None:
            self.agent_selection = self.possible_agents[(seat + 1) % self.game.num_players]
        else:
            self.agent_selection = self.possible_agents[deciding_seat(state)]

    def _play(self, seat: int, action: int | None) -> None:
        if action is None:
            raise IllegalActionError(action, seat, "a live seat must choose an action, not None")
        if self._idle(seat):
            if int(action) != self.no_op:
                raise IllegalActionError(action, seat, f"nothing to decide now: the only action is the no-op "
                                                       f"{self.no_op}")
            return
        self.game_state.apply_action(action_at(self._actions, int(action)), player=seat)

    def _select_after(self, agent: str) -> None:
        """Once the episode is over, each agent takes its last (dead) step in seat order from the next one."""
        self.agent_selection = self.agents[(self.agents.index(agent) + 1) % len(self.agents)]


class BestiaryParallelEnv(_Seats, ParallelEnv[str, ObsDict, int]):  # type: ignore[misc]
    """Every seat asked at once acts in one step; the actions of seats not asked are ignored.

    The actions are checked against the position the seats saw before any is applied, then applied in
    the order `players_to_act()` lists the seats (rotated in a race); one made moot by an earlier one (a
    race already won, a window already closed) lapses. An illegal action (or none from a seat asked) ends the
    episode with `illegal_reward` for each seat that sent one, nothing applied ("penalise": the episode goes
    on). With `turn_order="cycle"` the seats not asked have the no-op as their only action. `max_cycles`
    truncates the episode after that many steps (a step is a cycle).
    """

    def __init__(self, game: Game, render_mode: str | None = None,
                 illegal_action: MultiAgentIllegalActionRule = "end", illegal_reward: float = -1.0,
                 max_cycles: int | None = None, turn_order: TurnOrder = "game") -> None:
        self._setup(game, render_mode, illegal_action, illegal_reward, max_cycles, turn_order)
        self.metadata = {"name": f"bestiary_{game.info.name}", "render_modes": ["human", "ansi"]}
        self.agents: list[str] = []

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, ObsDict], dict[str, dict[str, Any]]]:
        self._new_game(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {agent: {} for agent in self.agents}

    def _observations(self) -> dict[str, ObsDict]:
        over = self._ended_illegally or self.game_state.is_terminal()
        stepping = set() if over else set(range(self.game.num_players)) if self.no_op is not None \
            else set(self.game_state.players_to_act())
        return {agent: self._observe_seat(self.seat_of[agent], self.seat_of[agent] in stepping)
                for agent in self.agents}

    def step(self, actions: dict[str, int]) -> tuple[dict[str, ObsDict], dict[str, float], dict[str, bool],
                                                      dict[str, bool], dict[str, dict[str, Any]]]:
        if not self.agents:
            raise IllegalActionError(None, None, "the episode is over: call reset()")
        state = self.game_state
        chosen, illegal = {}, {}
        for seat in asking_order(state):
            agent = self.possible_agents[seat]
            action = actions.get(agent)
            mask = legal_mask(state, seat, len(self._actions))
            if action is None:
                illegal[seat] = f"{agent} is asked to act and gave no action"
            elif not (0 <= int(action) < len(mask) and mask[int(action)]):
                illegal[seat] = f"{agent}: {action} is not a legal action index now"
            else:
                chosen[seat] = int(action)
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        if illegal:
            if self.illegal_action == "raise":
                seat, reason = next(iter(illegal.items()))
                raise IllegalActionError(actions.get(self.possible_agents[seat]), seat, reason)
            self._ended_illegally = self.illegal_action == "end"
            for seat, reason in illegal.items():
                infos[self.possible_agents[seat]]["illegal_action"] = reason
            rewards = dict(zip(self.possible_agents, self._illegal_rewards(set(illegal)), strict=True))
        else:
            for seat, action in chosen.items():
                if seat in state.players_to_act() and legal_mask(state, seat, len(self._actions))[action]:
                    state.apply_action(self._actions[action], player=seat)
                    play_chance(state, self._chance)
            rewards = dict(zip(self.possible_agents, self._reward_changes(), strict=True))
        self._steps += 1
        over = self._ended_illegally or state.is_terminal()
        truncated = not over and self._out_of_cycles(1)
        observations = self._observations()
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, truncated)
        rewards = {agent: rewards[agent] for agent in self.agents}
        if over or truncated:
            self.agents = []
        return observations, rewards, terminations, truncations, infos
