"""Checks every game must pass, whatever its rules: the conformance suite's engine.

`checked_playout` plays a random game and, at every step, checks the API's promises: what the game declares of
its returns and length holds, JSON round-trips exactly, clones are equal and independent, observations are
JSON-able and unchanged by resampling what their player cannot see, illegal actions change nothing, actions
read back from their text, and the record replays to the identical state. A failure raises ConformanceError
naming the step.
"""

from __future__ import annotations

import json
import random
from typing import Any

from bestiary.core.api import CHANCE, Action, Game, State
from bestiary.core.chance import sample_chance
from bestiary.core.errors import IllegalActionError
from bestiary.core.record import record_of, replay


class ConformanceError(AssertionError):
    pass


def check(condition: bool, message: str) -> None:
    if not condition:
        raise ConformanceError(message)


def random_step(state: State, rng: random.Random) -> tuple[int, Action]:
    """One random legal step: a chance outcome by its probability, or a random player's random action."""
    if state.is_chance_node():
        return CHANCE, sample_chance(state, rng)
    player = rng.choice(state.players_to_act())
    return player, rng.choice(state.legal_actions(player))


def play_randomly(game: Game, seed: int, max_steps: int = 100_000) -> State:
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    for _ in range(max_steps):
        if state.is_terminal():
            return state
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    raise ConformanceError(f"{game.info.name}: no end after {max_steps} random steps (seed {seed})")


def check_state(state: State, rng: random.Random, where: str) -> None:
    game = state.game
    text = state.to_json()
    check(game.state_from_json(text).to_json() == text, f"{where}: JSON round trip differs")

    copy = state.clone()
    check(copy.to_json() == text, f"{where}: clone differs from the original")
    if not copy.is_terminal():
        player, action = random_step(copy, rng)
        copy.apply_action(action, player=None if player == CHANCE else player)
        check(state.to_json() == text, f"{where}: acting on a clone changed the original")

    viewers: list[int | None] = [None, *range(game.num_players)]
    for viewer in viewers:
        observation = state.observation(viewer)
        try:
            json.dumps(observation)
        except (TypeError, ValueError) as error:
            raise ConformanceError(f"{where}: observation({viewer}) is not JSON-able: {error}") from None
        for event in state.events(viewer):
            check(event.visible_to(viewer), f"{where}: events({viewer}) holds a private event: {event.text}")
        if viewer is not None:
            sampled = state.determinize(viewer, rng)
            check(sampled.observation(viewer) == observation,
                  f"{where}: determinize({viewer}) changed what P{viewer + 1} sees")
            check([e.text for e in sampled.events(viewer)] == [e.text for e in state.events(viewer)],
                  f"{where}: determinize({viewer}) changed P{viewer + 1}'s event log")
            check(state.to_json() == text, f"{where}: determinize changed the state itself")

    limit = game.max_game_length()
    check(limit is None or state.history_length() <= limit,
          f"{where}: {state.history_length()} actions, past the {limit} the game declares (max_game_length)")
    if state.is_terminal():
        returns = state.returns()
        check(len(returns) == game.num_players, f"{where}: returns() needs one value per player")
        check(state.legal_actions() == [], f"{where}: a terminal state has legal actions")
        payoffs = game.info.payoffs
        check(all(payoffs.min_return - 1e-9 <= r <= payoffs.max_return + 1e-9 for r in returns),
              f"{where}: returns {returns} outside the {payoffs.min_return}..{payoffs.max_return} the game declares")
        check(payoffs.return_sum is None or abs(sum(returns) - payoffs.return_sum) < 1e-9,
              f"{where}: returns {returns} do not add up to the {payoffs.return_sum} the game declares")
        return
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
        check(bool(outcomes), f"{where}: a chance node without outcomes")
        check(abs(sum(p for _, p in outcomes) - 1.0) < 1e-9, f"{where}: chance probabilities do not sum to 1")
        for action, _ in outcomes:
            check(game.parse_action(str(action)) == action, f"{where}: '{action}' does not read back")
        drawn = state.clone().sample_chance_outcome(rng)
        check(drawn in [action for action, _ in outcomes],
              f"{where}: sample_chance_outcome drew '{drawn}', which chance_outcomes does not list")
        return
    try:
        state.clone().sample_chance_outcome(rng)
    except IllegalActionError:
        pass
    else:
        raise ConformanceError(f"{where}: sample_chance_outcome drew an outcome where no chance outcome is due")
    to_act = state.players_to_act()
    check(bool(to_act), f"{where}: nobody may act in a live state")
    for player in to_act:
        legal = state.legal_actions(player)
        check(bool(legal), f"{where}: P{player + 1} may act but has no legal action")
        mask = state.legal_actions_mask(player)
        check(sorted(a.index for a in legal) == [i for i, m in enumerate(mask) if m],
              f"{where}: legal_actions_mask disagrees with legal_actions for P{player + 1}")
        for action in legal:
            check(game.parse_action(str(action)) == action, f"{where}: '{action}' does not read back")
        legal_indices = {a.index for a in legal}
        table = game.player_action_table()
        illegal = [table[i] for i in rng.sample(range(len(table)), min(len(table), 32)) if i not in legal_indices]
        if illegal:
            try:
                state.apply_action(illegal[0], player=player)
            except IllegalActionError:
                pass
            else:
                raise ConformanceError(f"{where}: an illegal action was accepted")
            check(state.to_json() == text, f"{where}: a refused action changed the state")


def checked_playout(game: Game, seed: int, max_steps: int = 100_000) -> State:
    """A random game with every check at every step; then the replay and determinism checks."""
    rng = random.Random(seed)
    check_rng = random.Random(seed + 1)
    state = game.new_initial_state(seed=seed)
    for step in range(max_steps):
        check_state(state, check_rng, f"{game.info.name} seed {seed} step {step}")
        if state.is_terminal():
            break
        player, action = random_step(state, rng)
        state.apply_action(action, player=None if player == CHANCE else player)
    else:
        raise ConformanceError(f"{game.info.name}: no end after {max_steps} random steps (seed {seed})")
    replayed = replay(record_of(state))
    check(replayed.to_json() == state.to_json(), f"{game.info.name} seed {seed}: the replay differs")
    again = play_randomly(game, seed)
    check(again.to_json() == state.to_json(), f"{game.info.name} seed {seed}: same seed, another game")
    return state


def summary(state: State) -> dict[str, Any]:
    return {"steps": len(state.history()), "returns": state.returns()}
